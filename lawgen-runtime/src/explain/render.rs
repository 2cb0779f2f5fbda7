//! Rendering an explanation: an indented tree for people, stable JSON for
//! programs. Both word lawgen's own phrases in the explanation's language.

use super::proof::fmt_value;
use super::tree::*;
use super::words::{self, Lang, Word};
use crate::program::Status;
use crate::text::Shown;
use serde_json::{json, Value as J};

/// An indented tree for people. Every line is shown through
/// [`crate::text`]: a package string can neither break the tree's lines nor
/// send a terminal sequence or a bidi control.
pub fn text(e: &Explanation) -> String {
    let lang = Lang::of(&e.lang);
    let mut out = format!(
        "{}: {}\n",
        Shown(&e.literal.to_string()),
        words::headline(lang, words::Headline::of(e))
    );
    let n = e.tree.len();
    for (i, node) in e.tree.iter().enumerate() {
        text_node(lang, &mut out, node, "", i + 1 == n);
    }
    if !e.requests.is_empty() {
        out.push_str(words::word(lang, Word::Requests));
        out.push('\n');
        let n = e.requests.len();
        for (i, r) in e.requests.iter().enumerate() {
            let branch = if i + 1 == n { "└─ " } else { "├─ " };
            let line = format!(
                "{}({}) — {} {} ({})",
                r.predicate,
                r.args.iter().map(fmt_value).collect::<Vec<_>>().join(", "),
                words::word(lang, Word::ToBeDecidedBy),
                r.authority,
                r.capability
            );
            out.push_str(&format!("{branch}{}\n", Shown(&line)));
        }
    }
    out
}

/// `[fide.laws.chess 0.1.0] ` before what a layer of the law says, when the
/// law comes in layers.
fn layer(p: &Option<String>) -> String {
    p.as_ref().map_or_else(String::new, |p| format!("[{p}] "))
}

fn rule_title(lang: Lang, r: &RuleRef) -> String {
    let strength = words::strength(lang, r.strength);
    let layer = layer(&r.package);
    match &r.label {
        Some(l) => format!("{layer}{} ({strength}) — {l}", r.name),
        None => format!("{layer}{} ({strength})", r.name),
    }
}

fn anchor_lines(lang: Lang, r: &RuleRef) -> Vec<String> {
    anchor_list(lang, &r.anchors)
}

fn anchor_list(lang: Lang, anchors: &[Anchor]) -> Vec<String> {
    let word = words::word(lang, Word::Anchor);
    let ed = words::word(lang, Word::Edition);
    anchors
        .iter()
        .map(|a| {
            let edition = a
                .edition
                .as_ref()
                .map(|e| format!(" ({ed} {e})"))
                .unwrap_or_default();
            match &a.quote {
                Some(q) => format!(
                    "{word}: {}{}{edition} — \"{}\"",
                    layer(&a.package),
                    a.locator,
                    q
                ),
                None => format!("{word}: {}{}{edition}", layer(&a.package), a.locator),
            }
        })
        .collect()
}

fn priority_text(lang: Lang, p: &PriorityRef) -> String {
    let mut s = format!(
        "{} {}{}",
        words::word(lang, Word::Priority),
        layer(&p.package),
        p.name
    );
    if let Some(r) = &p.reason {
        s.push_str(&format!(" ({r})"));
    }
    if let Some(l) = &p.label {
        s.push_str(&format!(" — {l}"));
    }
    s
}

fn node_lines(lang: Lang, n: &Node) -> Vec<String> {
    let lit = |s: String| match &n.literal {
        Some(l) => format!("{l}: {s}"),
        None => s,
    };
    let w = |k| words::word(lang, k);
    match &n.kind {
        NodeKind::Fact => vec![lit(w(Word::Fact).into())],
        NodeKind::Closure {
            name,
            package,
            label,
            snapshot,
            complete_as_of,
            absent,
            ..
        } => {
            let mut s = format!("{} {}{name}", w(Word::ByClosure), layer(package));
            if let Some(l) = label {
                s.push_str(&format!(" — \"{l}\""));
            }
            vec![
                lit(s),
                format!(
                    "{} {}, {} {}; {absent} {}",
                    w(Word::Snapshot),
                    snapshot.as_deref().unwrap_or(w(Word::NoneGiven)),
                    w(Word::CompleteAsOf),
                    complete_as_of.as_deref().unwrap_or(w(Word::NotStated)),
                    w(Word::NotAmongFacts),
                ),
            ]
        }
        NodeKind::Rule { rule, level, world } => {
            let mut v = vec![match &n.literal {
                Some(_) => lit(format!(
                    "{} {} {}",
                    words::level(lang, *level, *world),
                    w(Word::ByRule),
                    rule_title(lang, rule)
                )),
                None => format!("{} {}", w(Word::Rule), rule_title(lang, rule)),
            }];
            v.extend(anchor_lines(lang, rule));
            v
        }
        NodeKind::Compare { comparison, holds } => {
            if *holds {
                vec![comparison.to_string()]
            } else {
                vec![format!("{comparison} {}", w(Word::IsFalse))]
            }
        }
        NodeKind::Absent { atom, status } => vec![match lang {
            Lang::En => format!("{atom} is not {}", status.as_str()),
            Lang::Ru => format!(
                "{atom} не {}",
                if *status == Status::Established {
                    "установлено"
                } else {
                    "обосновано"
                }
            ),
        }],
        NodeKind::Judgment {
            authority,
            capability,
            requested: true,
        } => vec![lit(format!(
            "{} {authority} ({capability})",
            w(Word::RequestedFrom)
        ))],
        NodeKind::Judgment {
            authority,
            capability,
            requested: false,
        } => vec![lit(format!(
            "{} {authority} ({capability}): {}",
            w(Word::NotRequestedFrom),
            w(Word::NoInstanceReadsIt)
        ))],
        NodeKind::Group { title } => vec![words::title(lang, title)],
        NodeKind::Attacker { rule, outcome } => {
            let head = format!(
                "{}{} ({})",
                layer(&rule.package),
                rule.name,
                words::strength(lang, rule.strength)
            );
            let mut v = vec![match outcome {
                Outcome::Discarded { item, reason } => format!(
                    "{head}: {} — {} {}",
                    w(Word::Discarded),
                    words::condition(lang, item),
                    words::reason(lang, reason)
                ),
                Outcome::Defeated { by, priority } => format!(
                    "{head}: {} {} {} {}",
                    w(Word::DefeatedBy),
                    by.name,
                    w(Word::Under),
                    priority_text(lang, priority)
                ),
                Outcome::Prevails { blocks: true, .. } => format!("{head}: {}", w(Word::Blocks)),
                Outcome::Prevails { defeats, .. } if defeats.is_empty() => {
                    format!("{head}: {}", w(Word::Ambiguous))
                }
                Outcome::Prevails { defeats, .. } => {
                    let parts: Vec<String> = defeats
                        .iter()
                        .map(|(r, p)| {
                            format!(
                                "{} {} {} {} {}",
                                r.name,
                                w(Word::IsDefeatedBy),
                                rule.name,
                                w(Word::Under),
                                priority_text(lang, p)
                            )
                        })
                        .collect();
                    format!("{head}: {}; {}", w(Word::Applies), parts.join("; "))
                }
            }];
            if let Some(l) = &rule.label {
                v.push(format!("{}: {l}", w(Word::Label)));
            }
            if !matches!(outcome, Outcome::Discarded { .. }) {
                v.extend(anchor_lines(lang, rule));
            }
            v
        }
        NodeKind::Unsatisfied { rule, item, reason } => {
            let mut v = vec![format!(
                "{} {}: {} — {} {}",
                w(Word::Rule),
                rule_title(lang, rule),
                w(Word::DoesNotApply),
                words::condition(lang, item),
                words::reason(lang, reason)
            )];
            v.extend(anchor_lines(lang, rule));
            v
        }
        NodeKind::SetAside { rule, by, applies } => {
            let mut v = vec![format!(
                "{} {}: {}",
                w(Word::Rule),
                rule_title(lang, rule),
                w(if *applies {
                    Word::SetAsideWouldApply
                } else {
                    Word::SetAsideWouldNotApply
                })
            )];
            v.extend(anchor_lines(lang, rule));
            for d in by {
                let mut s = format!("{} {}{}", w(Word::ByDerogation), layer(&d.package), d.name);
                if let Some(l) = &d.label {
                    s.push_str(&format!(" — {l}"));
                }
                v.push(s);
                v.extend(anchor_list(lang, &d.anchors));
            }
            v
        }
        NodeKind::NotInForce {
            rule,
            date,
            editions,
            by,
        } => {
            let mut v = vec![format!(
                "{} {}: {} {}{}",
                w(Word::Rule),
                rule_title(lang, rule),
                w(Word::NotInForceOn),
                date.map_or_else(|| "?".to_owned(), |d| d.to_string()),
                spans(lang, editions)
            )];
            v.extend(anchor_lines(lang, rule));
            for (d, eds) in by {
                let mut s = format!("{} {}{}", w(Word::ByDerogation), layer(&d.package), d.name);
                if let Some(l) = &d.label {
                    s.push_str(&format!(" — {l}"));
                }
                s.push_str(&spans(lang, eds));
                v.push(s);
                v.extend(anchor_list(lang, &d.anchors));
            }
            v
        }
        NodeKind::Note { phrase } => vec![lit(words::phrase(lang, phrase))],
        NodeKind::Elided => vec![lit(w(Word::TooDeep).into())],
    }
}

/// ` (edition E2023, in force from 2023-01-01; …)`.
fn spans(lang: Lang, editions: &[super::tree::EditionSpan]) -> String {
    if editions.is_empty() {
        return String::new();
    }
    let w = |k| words::word(lang, k);
    let parts: Vec<String> = editions
        .iter()
        .map(|e| match (&e.from, &e.to) {
            (Some(f), Some(t)) => format!(
                "{} {}, {} {f} {} {t}",
                w(Word::Edition),
                e.name,
                w(Word::InForceFrom),
                w(Word::To)
            ),
            (Some(f), None) => format!(
                "{} {}, {} {f}",
                w(Word::Edition),
                e.name,
                w(Word::InForceFrom)
            ),
            (None, _) => format!("{} {}, {}", w(Word::Edition), e.name, w(Word::NeverInForce)),
        })
        .collect();
    format!(" ({})", parts.join("; "))
}

fn text_node(lang: Lang, out: &mut String, n: &Node, prefix: &str, last: bool) {
    let lines = node_lines(lang, n);
    let (branch, cont) = if last {
        ("└─ ", "   ")
    } else {
        ("├─ ", "│  ")
    };
    let child_prefix = format!("{prefix}{cont}");
    for (i, l) in lines.iter().enumerate() {
        let l = Shown(l);
        if i == 0 {
            out.push_str(&format!("{prefix}{branch}{l}\n"));
        } else {
            out.push_str(&format!("{child_prefix}{l}\n"));
        }
    }
    let k = n.children.len();
    for (i, c) in n.children.iter().enumerate() {
        text_node(lang, out, c, &child_prefix, i + 1 == k);
    }
}

/// Stable, pretty JSON (object keys sorted).
pub fn json(e: &Explanation) -> String {
    let lang = Lang::of(&e.lang);
    let v = json!({
        "literal": e.literal.to_string(),
        "verdict": e.verdict(),
        "policy": e.policy.as_str(),
        "language": e.lang,
        "tree": e.tree.iter().map(|n| json_node(lang, n)).collect::<Vec<_>>(),
        "requests": e.requests.iter().map(|r| json!({
            "predicate": r.predicate,
            "args": r.args.iter().map(json_value).collect::<Vec<_>>(),
            "authority": r.authority,
            "capability": r.capability,
        })).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&v).expect("JSON values always serialize");
    s.push('\n');
    s
}

fn json_value(v: &crate::program::Value) -> J {
    match v {
        crate::program::Value::Int(i) => J::from(*i),
        crate::program::Value::Entity(e) => J::from(e.as_str()),
    }
}

fn json_rule(r: &RuleRef) -> J {
    json!({
        "id": r.id,
        "package": r.package,
        "name": r.name,
        "strength": r.strength.as_str(),
        "label": r.label,
        "anchors": json_anchors(&r.anchors),
    })
}

fn json_anchors(anchors: &[Anchor]) -> Vec<J> {
    anchors
        .iter()
        .map(|a| {
            json!({
                "fragment": a.fragment,
                "locator": a.locator,
                "package": a.package,
                "quote": a.quote,
                "edition": a.edition,
            })
        })
        .collect()
}

fn json_span(e: &EditionSpan) -> J {
    json!({
        "edition": e.name,
        "from": e.from.map(|d| d.to_string()),
        "to": e.to.map(|d| d.to_string()),
    })
}

fn json_priority(p: &PriorityRef) -> J {
    json!({ "id": p.id, "package": p.package, "name": p.name, "reason": p.reason, "label": p.label })
}

fn json_node(lang: Lang, n: &Node) -> J {
    let mut o = match &n.kind {
        NodeKind::Fact => json!({ "kind": "fact" }),
        NodeKind::Closure {
            id,
            name,
            package,
            label,
            snapshot,
            complete_as_of,
            absent,
        } => json!({
            "kind": "closure", "id": id, "package": package, "name": name, "label": label,
            "snapshot": snapshot, "completeAsOf": complete_as_of, "absent": absent.to_string(),
        }),
        NodeKind::Rule { rule, level, world } => json!({
            "kind": "rule", "rule": json_rule(rule),
            "level": words::level_key(*level), "world": words::world_key(*world),
        }),
        NodeKind::Compare { comparison, holds } => {
            json!({ "kind": "comparison", "text": comparison.to_string(), "holds": holds })
        }
        NodeKind::Absent { atom, status } => json!({
            "kind": "absent", "atom": atom.to_string(), "status": status.as_str(),
            "text": node_lines(lang, n).join(" "),
        }),
        NodeKind::Judgment {
            authority,
            capability,
            requested,
        } => json!({
            "kind": "judgment", "authority": authority, "capability": capability,
            "requested": requested,
        }),
        NodeKind::Group { title } => {
            json!({ "kind": "group", "title": words::title(lang, title) })
        }
        NodeKind::Attacker { rule, outcome } => {
            let out = match outcome {
                Outcome::Discarded { item, reason } => json!({
                    "kind": "discarded", "item": words::condition(lang, item),
                    "reason": words::reason(lang, reason),
                }),
                Outcome::Defeated { by, priority } => json!({
                    "kind": "defeated", "by": json_rule(by), "priority": json_priority(priority),
                }),
                Outcome::Prevails { defeats, .. } => json!({
                    "kind": "prevails",
                    "defeats": defeats.iter().map(|(r, p)| json!({
                        "rule": r.name, "priority": json_priority(p),
                    })).collect::<Vec<_>>(),
                }),
            };
            json!({ "kind": "attacker", "rule": json_rule(rule), "outcome": out })
        }
        NodeKind::Unsatisfied { rule, item, reason } => json!({
            "kind": "unsatisfied", "rule": json_rule(rule), "item": words::condition(lang, item),
            "reason": words::reason(lang, reason),
        }),
        NodeKind::SetAside { rule, by, applies } => json!({
            "kind": "set_aside", "rule": json_rule(rule), "applies": applies,
            "derogations": by.iter().map(|d| json!({
                "id": d.id, "package": d.package, "name": d.name, "label": d.label,
                "anchors": json_anchors(&d.anchors),
            })).collect::<Vec<_>>(),
            "text": node_lines(lang, n).first().cloned().unwrap_or_default(),
        }),
        NodeKind::NotInForce {
            rule,
            date,
            editions,
            by,
        } => json!({
            "kind": "not_in_force", "rule": json_rule(rule), "asOf": date.map(|d| d.to_string()),
            "editions": editions.iter().map(json_span).collect::<Vec<_>>(),
            "derogations": by.iter().map(|(d, eds)| json!({
                "id": d.id, "package": d.package, "name": d.name, "label": d.label,
                "anchors": json_anchors(&d.anchors),
                "editions": eds.iter().map(json_span).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "text": node_lines(lang, n).first().cloned().unwrap_or_default(),
        }),
        NodeKind::Note { phrase } => json!({ "kind": "note", "text": words::phrase(lang, phrase) }),
        NodeKind::Elided => json!({ "kind": "elided", "reason": words::word(lang, Word::TooDeep) }),
    };
    if let Some(m) = o.as_object_mut() {
        if let Some(l) = &n.literal {
            m.insert("literal".into(), J::from(l.to_string()));
        }
        if !n.children.is_empty() {
            m.insert(
                "children".into(),
                J::Array(n.children.iter().map(|c| json_node(lang, c)).collect()),
            );
        }
    }
    o
}
