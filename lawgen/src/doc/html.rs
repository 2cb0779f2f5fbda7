//! The page: one self-contained HTML file (inline style, no script, no
//! font, image or request of any kind), for reading on a screen and for
//! printing. It says what the text says, in the same order, and adds what a
//! screen is good at: each article's text beside the rules anchored to it,
//! links both ways, a table of who overrides whom across the layers, the
//! semantic hash of every package, labels, and with `--scenarios` what each
//! scenario made of each rule.
//!
//! Every node is one element with `data-node` (its id) and an `id` anchor;
//! every `href` is `#` + an anchor of the page.

use super::tree::*;
use super::words::Ui;
use std::collections::HashMap;
use std::fmt::Write as _;

pub(crate) fn html(doc: &Document) -> String {
    let l = doc.lang;
    let mut anchors: HashMap<&str, &str> = HashMap::new();
    for part in &doc.parts {
        for s in &part.sections {
            for e in &s.entries {
                if let Some(id) = &e.node {
                    anchors.insert(id.as_str(), e.anchor.as_str());
                }
            }
        }
    }
    let w = Writer { doc, anchors };
    let mut o = String::with_capacity(1 << 16);
    let title = doc.header.get(1).map_or("", String::as_str);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"{}\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        l.tag(),
        esc(&super::words::verbalizer()),
        esc(title)
    );
    let _ = writeln!(
        o,
        "<a class=\"skip\" href=\"#main\">{}</a>",
        esc(l.ui(Ui::Skip))
    );
    // The header: the text's four opening paragraphs.
    o.push_str("<header>\n");
    for (i, p) in doc.header.iter().enumerate() {
        if i == 1 {
            let _ = writeln!(o, "<h1>{}</h1>", esc(p));
        } else {
            let class = ["generated", "", "disclaimer", "verbalization"][i.min(3)];
            let _ = writeln!(o, "<p class=\"{class}\">{}</p>", esc(p));
        }
    }
    o.push_str("</header>\n");
    w.nav(&mut o);
    o.push_str("<main id=\"main\">\n");
    w.packages(&mut o);
    w.overrides(&mut o);
    for (i, part) in doc.parts.iter().enumerate() {
        w.part(&mut o, i, part);
    }
    o.push_str("</main>\n</body>\n</html>\n");
    o
}

struct Writer<'d> {
    doc: &'d Document,
    /// Node id → anchor of its entry.
    anchors: HashMap<&'d str, &'d str>,
}

impl Writer<'_> {
    fn nav(&self, o: &mut String) {
        let l = self.doc.lang;
        let _ = writeln!(
            o,
            "<nav aria-labelledby=\"toc-h\">\n<h2 id=\"toc-h\">{}</h2>\n<ol>",
            esc(l.ui(Ui::Contents))
        );
        let _ = writeln!(
            o,
            "<li><a href=\"#packages\">{}</a></li>\n<li><a href=\"#overrides\">{}</a></li>",
            esc(l.ui(Ui::Packages)),
            esc(l.ui(Ui::Overrides))
        );
        for (part, row) in self.doc.parts.iter().zip(&self.doc.packages) {
            let _ = writeln!(
                o,
                "<li><a href=\"#{}\">{} {}</a>\n<ol>",
                part.anchor,
                esc(&row.name),
                esc(&row.version)
            );
            for s in &part.sections {
                let _ = writeln!(
                    o,
                    "<li><a href=\"#{}\">{}</a> <span class=\"count\">({})</span></li>",
                    s.anchor,
                    esc(&s.title),
                    s.entries.len()
                );
            }
            o.push_str("</ol></li>\n");
        }
        o.push_str("</ol>\n</nav>\n");
    }

    fn packages(&self, o: &mut String) {
        let l = self.doc.lang;
        let _ = writeln!(
            o,
            "<section id=\"packages\" aria-labelledby=\"packages-h\">\n<h2 id=\"packages-h\">{}</h2>\n<table>\n<thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">namespace</th><th scope=\"col\">semantic hash</th><th scope=\"col\">{}</th></tr></thead>\n<tbody>",
            esc(l.ui(Ui::Packages)),
            esc(l.ui(Ui::Package)),
            esc(l.ui(Ui::Version)),
            esc(l.ui(Ui::Role)),
        );
        for (i, p) in self.doc.packages.iter().enumerate() {
            let role = if i == 0 { Ui::Root } else { Ui::Imported };
            let _ = writeln!(
                o,
                "<tr><th scope=\"row\"><a href=\"#{}\">{}</a></th><td>{}</td><td><code>{}</code></td><td><code class=\"hash\">{}</code></td><td>{}</td></tr>",
                p.anchor,
                esc(&p.name),
                esc(&p.version),
                esc(&p.namespace),
                esc(p.hash.as_deref().unwrap_or("—")),
                esc(l.ui(role))
            );
        }
        o.push_str("</tbody>\n</table>\n");
        if !self.doc.features.is_empty() {
            let _ = writeln!(
                o,
                "<p>{}: {}</p>",
                esc(l.ui(Ui::Features)),
                self.doc
                    .features
                    .iter()
                    .map(|f| format!("<code>{}</code>", esc(f)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        o.push_str("</section>\n");
    }

    fn overrides(&self, o: &mut String) {
        let l = self.doc.lang;
        let _ = writeln!(
            o,
            "<section id=\"overrides\" aria-labelledby=\"overrides-h\">\n<h2 id=\"overrides-h\">{}</h2>",
            esc(l.ui(Ui::Overrides))
        );
        if self.doc.overrides.is_empty() {
            let _ = writeln!(o, "<p>{}</p>\n</section>", esc(l.ui(Ui::NoOverrides)));
            return;
        }
        let _ = writeln!(
            o,
            "<p>{}</p>\n<table>\n<thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead>\n<tbody>",
            esc(l.ui(Ui::OverridesIntro)),
            esc(l.ui(Ui::Prevails)),
            esc(l.ui(Ui::How)),
            esc(l.ui(Ui::Over)),
        );
        for r in &self.doc.overrides {
            let over: Vec<String> = r.over.iter().map(|x| self.layered(x)).collect();
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{} {}</td><td>{}</td></tr>",
                self.layered(&r.winner),
                esc(&r.how.0),
                self.link(&r.how.1, &r.how.2),
                if over.is_empty() {
                    "—".to_owned()
                } else {
                    over.join("<br>")
                }
            );
        }
        o.push_str("</tbody>\n</table>\n</section>\n");
    }

    /// `Name` (linked) with its layer.
    fn layered(&self, (text, id, layer): &(String, String, String)) -> String {
        format!(
            "{} <span class=\"layer\">({} {})</span>",
            self.link(text, id),
            esc(self.doc.lang.ui(Ui::Layer)),
            esc(layer)
        )
    }

    fn link(&self, text: &str, to: &str) -> String {
        match self.anchors.get(to) {
            Some(a) => format!("<a href=\"#{a}\">{}</a>", esc(text)),
            None => esc(text),
        }
    }

    fn spans(&self, spans: &[Span]) -> String {
        spans
            .iter()
            .map(|s| match s {
                Span::Text(t) => esc(t),
                Span::Link { text, to } => self.link(text, to),
            })
            .collect()
    }

    fn para(&self, p: &Para) -> String {
        match p {
            Para::Prose(spans) => format!("<p>{}</p>", self.spans(spans)),
            Para::Article(t) => format!("<p class=\"law\">{}</p>", esc(t).replace('\n', "<br>")),
        }
    }

    fn part(&self, o: &mut String, i: usize, part: &Part) {
        let heading = match (part.heading.first(), self.doc.packages.get(i)) {
            (Some(h), _) => h.clone(),
            (None, Some(p)) => format!("{} {}", p.name, p.version),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            o,
            "<section class=\"part\" id=\"{a}\" aria-labelledby=\"{a}-h\">\n<h2 id=\"{a}-h\">{}</h2>",
            esc(&heading),
            a = part.anchor
        );
        for h in part.heading.iter().skip(1) {
            let _ = writeln!(o, "<p class=\"identity\">{}</p>", esc(h));
        }
        for s in &part.sections {
            // Named by its heading and its package's, so that the regions
            // of two packages' "Rules" differ.
            let _ = writeln!(
                o,
                "<section id=\"{a}\" aria-labelledby=\"{a}-h {}-h\">\n<h3 id=\"{a}-h\">{}</h3>",
                part.anchor,
                esc(&s.title),
                a = s.anchor
            );
            for e in &s.entries {
                self.entry(o, s.kind, e);
            }
            o.push_str("</section>\n");
        }
        o.push_str("</section>\n");
    }

    fn entry(&self, o: &mut String, kind: SectionKind, e: &Entry) {
        let l = self.doc.lang;
        let data = match &e.node {
            Some(id) => format!(" data-node=\"{}\"", esc(&super::verbalize::clean(id))),
            None => String::new(),
        };
        let _ = writeln!(
            o,
            "<article class=\"entry {}\" id=\"{}\"{data} aria-labelledby=\"{}-h\">\n<h4 id=\"{}-h\">{}</h4>",
            kind.slug(),
            e.anchor,
            e.anchor,
            e.anchor,
            esc(&e.title)
        );
        if e.extra.kind.is_some() || e.extra.label.is_some() {
            o.push_str("<p class=\"meta\">");
            if let Some(k) = &e.extra.kind {
                let _ = write!(o, "<span class=\"badge\">{}</span> ", esc(k));
            }
            if let Some(lb) = &e.extra.label {
                let _ = write!(
                    o,
                    "<span class=\"label\"><span class=\"sr\">{}: </span>{}</span>",
                    esc(l.ui(Ui::Label)),
                    esc(lb)
                );
            }
            o.push_str("</p>\n");
        }
        let first = e.paras.iter().position(|p| matches!(p, Para::Article(_)));
        let last = e.paras.iter().rposition(|p| matches!(p, Para::Article(_)));
        match (&e.extra.anchored, first, last) {
            (Some(anchored), Some(first), Some(last)) => {
                for p in &e.paras[..first] {
                    o.push_str(&self.para(p));
                    o.push('\n');
                }
                o.push_str("<div class=\"beside\">\n<div class=\"text\">\n");
                for p in &e.paras[first..=last] {
                    o.push_str(&self.para(p));
                    o.push('\n');
                }
                o.push_str("</div>\n");
                self.anchored(o, &e.anchor, anchored);
                o.push_str("</div>\n");
                for p in &e.paras[last + 1..] {
                    o.push_str(&self.para(p));
                    o.push('\n');
                }
            }
            (anchored, _, _) => {
                for p in &e.paras {
                    o.push_str(&self.para(p));
                    o.push('\n');
                }
                if let Some(a) = anchored {
                    self.anchored(o, &e.anchor, a);
                }
            }
        }
        if !e.extra.facts.is_empty() {
            o.push_str("<dl class=\"facts\">\n");
            for (what, value) in &e.extra.facts {
                let _ = writeln!(o, "<dt>{}</dt><dd>{}</dd>", esc(what), self.spans(value));
            }
            o.push_str("</dl>\n");
        }
        if let Some(id) = &e.node {
            let mut line = format!(
                "{}<code>{}</code>",
                esc(l.identifier()),
                esc(&super::verbalize::clean(id))
            );
            if !e.anchors.is_empty() {
                line.push_str(&esc(l.anchors(e.anchors.len())));
                let list: Vec<String> = e
                    .anchors
                    .iter()
                    .map(|a| {
                        let code = format!("<code>{}</code>", esc(&super::verbalize::clean(a)));
                        match self.anchors.get(a.as_str()) {
                            Some(to) => format!("<a href=\"#{to}\">{code}</a>"),
                            None => code,
                        }
                    })
                    .collect();
                line.push_str(&list.join(", "));
            }
            let _ = writeln!(o, "<p class=\"id\">{line}</p>");
        }
        if let Some(sc) = &e.extra.scenarios {
            self.scenarios(o, sc);
        }
        o.push_str("</article>\n");
    }

    fn anchored(&self, o: &mut String, anchor: &str, anchored: &[(String, Vec<Span>)]) {
        let l = self.doc.lang;
        let _ = writeln!(
            o,
            "<div class=\"anchored\" role=\"group\" aria-labelledby=\"{anchor}-r\">\n<h5 id=\"{anchor}-r\">{}</h5>",
            esc(l.ui(Ui::AnchoredRules))
        );
        if anchored.is_empty() {
            let _ = writeln!(o, "<p>{}</p>", esc(l.ui(Ui::NoAnchoredRules)));
        } else {
            o.push_str("<ul>\n");
            for (id, sentence) in anchored {
                let name = super::verbalize::clean(lawgen_runtime::program::local_name(id));
                let _ = writeln!(
                    o,
                    "<li><strong>{}</strong>: {}</li>",
                    self.link(&name, id),
                    self.spans(sentence)
                );
            }
            o.push_str("</ul>\n");
        }
        o.push_str("</div>\n");
    }

    fn scenarios(&self, o: &mut String, sc: &[(String, String)]) {
        let l = self.doc.lang;
        if sc.is_empty() {
            let _ = writeln!(
                o,
                "<p class=\"scenarios none\">{}: {}</p>",
                esc(l.ui(Ui::Scenarios)),
                esc(l.ui(Ui::NoScenario))
            );
            return;
        }
        let _ = writeln!(
            o,
            "<table class=\"scenarios\">\n<caption>{}</caption>\n<thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead>\n<tbody>",
            esc(l.ui(Ui::Scenarios)),
            esc(l.ui(Ui::Scenario)),
            esc(l.ui(Ui::Outcome))
        );
        for (name, what) in sc {
            let _ = writeln!(
                o,
                "<tr><th scope=\"row\"><code>{}</code></th><td>{}</td></tr>",
                esc(name),
                esc(what)
            );
        }
        o.push_str("</tbody>\n</table>\n");
    }
}

/// Escapes text for HTML content and double-quoted attributes.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page's style: system fonts only, dark text on light ground (WCAG AA
/// contrast), two columns for an article and its rules on a wide screen, one
/// when printed or narrow.
const STYLE: &str = r#"
:root { --ink: #1b1b1b; --muted: #4a4a4a; --rule: #c8c8c8; --link: #0b4f8a; --ground: #ffffff; --panel: #f4f6f8; --badge: #e6ecf2; }
* { box-sizing: border-box; }
html { background: var(--ground); color: var(--ink); }
body { margin: 0 auto; max-width: 78rem; padding: 1rem 1.5rem 4rem; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; line-height: 1.5; font-size: 1rem; }
a { color: var(--link); }
a:focus { outline: 3px solid #f0b400; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--ground); padding: .25rem .5rem; }
header { border-bottom: 2px solid var(--ink); margin-bottom: 1rem; }
h1 { font-size: 1.7rem; margin: .5rem 0; }
h2 { font-size: 1.4rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; margin-top: 2.5rem; }
h3 { font-size: 1.2rem; margin-top: 2rem; }
h4 { font-size: 1.05rem; margin: 0 0 .3rem; overflow-wrap: anywhere; }
h5 { font-size: .95rem; margin: 0 0 .4rem; }
.generated, .verbalization, .identity { color: var(--muted); font-size: .9rem; overflow-wrap: anywhere; }
.disclaimer { border-left: 4px solid var(--ink); padding-left: .75rem; }
nav ol { padding-left: 1.2rem; }
nav > ol { columns: 2 20rem; }
nav li { break-inside: avoid; }
.count { color: var(--muted); font-size: .85rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; font-size: .92rem; }
th, td { border: 1px solid var(--rule); padding: .3rem .5rem; text-align: left; vertical-align: top; overflow-wrap: break-word; }
code.hash { word-break: break-all; }
thead th { background: var(--panel); }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .88em; overflow-wrap: anywhere; }
.layer { color: var(--muted); font-size: .85rem; }
article.entry { border-top: 1px solid var(--rule); padding: .8rem 0 .6rem; }
article.entry:target { background: #fff8d6; }
article.entry p { margin: .35rem 0; }
.meta { font-size: .9rem; }
.badge { background: var(--badge); border-radius: .25rem; padding: .05rem .4rem; }
.label { font-style: italic; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.id { color: var(--muted); font-size: .85rem; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: .4rem 0; font-size: .92rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.beside { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.2rem; align-items: start; }
.beside .text { font-family: Georgia, "DejaVu Serif", "Times New Roman", serif; }
p.law { margin: .3rem 0; }
.anchored { background: var(--panel); border: 1px solid var(--rule); border-radius: .3rem; padding: .6rem .8rem; position: sticky; top: .5rem; max-height: 95vh; overflow: auto; }
.anchored ul { padding-left: 1.1rem; margin: 0; }
.anchored li { margin-bottom: .5rem; }
table.scenarios { font-size: .88rem; }
@media (max-width: 60rem) { .beside { grid-template-columns: 1fr; } .anchored { position: static; max-height: none; } nav > ol { columns: 1; } }
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  nav, .skip { display: none; }
  a { color: inherit; text-decoration: none; }
  .beside { grid-template-columns: 1fr; }
  .anchored { position: static; max-height: none; overflow: visible; }
  article.entry.rules, article.entry.priorities, article.entry.derogations { break-inside: avoid; }
  h2, h3, h4 { break-after: avoid; }
  article.entry:target { background: none; }
}
"#;
