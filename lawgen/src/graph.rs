//! The predicate dependency graph of a checked package as Graphviz DOT
//! ([`dot`], what `lawgen graph` prints).
//!
//! One cluster per stratum (for a package with imports, one per package of
//! its closure instead); one node per predicate, labelled by its local
//! name and styled by kind (institutional: filled bold box; empirical: plain
//! ellipse; judgment: filled diamond); one edge per dependency of
//! `check::strata::dependency_edges`, merged when several rules make the same edge with
//! the same marking:
//!
//! | marking | style |
//! |---|---|
//! | positive (`established p` / `supported p`) | solid |
//! | explicit negative (`~p`) | dashed, label `~` |
//! | `not` item | dotted, label `not` |
//! | closure domain → closed predicate | bold grey, label `closure` |
//! | the rule concludes `~head` (attack) | red, label `attack` (added to the above) |
//!
//! Every string from the package goes through `escape`: package names and
//! ids are hostile input, and DOT strings interpret `"` and `\` (and
//! Graphviz interprets `\N`, `\G`, `\l`, … inside labels).

use crate::check::strata::{dependency_edges, EdgeKind};
use crate::driver::Loaded;
use crate::model::Model;
use crate::program::PredId;
use crate::program::RelationKind;
use std::fmt::Write as _;

/// Rule names are added to an edge label only while the label stays this short.
const MAX_RULES_LABEL: usize = 40;

/// The predicate dependency graph of a checked package in DOT: the
/// clusters, nodes and edges of the module documentation.
pub fn dot(loaded: &Loaded) -> String {
    dot_of(&loaded.model)
}

fn dot_of(model: &Model) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph \"{}\" {{", escape(&model.name));
    let _ = writeln!(
        s,
        "  label=\"{} {} — predicate dependencies\";",
        escape(&model.name),
        escape(&model.version)
    );
    s.push_str("  labelloc=t;\n  rankdir=LR;\n  compound=true;\n");
    s.push_str("  node [fontname=\"Helvetica\", fontsize=11];\n");
    s.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
    if model.is_layered() {
        // One cluster per package of the import closure (docs/reference.md#imports): which
        // layer of the law declares each predicate.
        for (i, pkg) in model.packages.iter().enumerate() {
            let _ = writeln!(s, "  subgraph \"cluster_pkg{i}\" {{");
            let _ = writeln!(
                s,
                "    label=\"{} {}\";",
                escape(&pkg.name),
                escape(&pkg.version)
            );
            s.push_str("    style=rounded;\n    color=grey40;\n");
            for (p, pred) in model.preds.iter().enumerate() {
                if model.package_index_of(&pred.id) == i {
                    let _ = writeln!(s, "    {};", node(model, PredId(p as u32)));
                }
            }
            s.push_str("  }\n");
        }
    }
    for (n, preds) in model.strata.iter().enumerate() {
        if model.is_layered() {
            break;
        }
        let _ = writeln!(s, "  subgraph cluster_{n} {{");
        let _ = writeln!(s, "    label=\"stratum {n}\";");
        s.push_str("    style=rounded;\n    color=grey60;\n");
        for &p in preds {
            let _ = writeln!(s, "    {};", node(model, p));
        }
        s.push_str("  }\n");
    }
    for e in merged_edges(model) {
        let _ = writeln!(s, "  {};", e.render());
    }
    s.push_str("}\n");
    s
}

/// Escapes a string for use inside a double-quoted DOT string.
///
/// `"` and `\` are backslash-escaped (so a name cannot close the string or
/// form a Graphviz escape such as `\N` or `\l`); control characters,
/// newlines included, and format characters are shown as every rendering
/// shows them (`lawgen_runtime::text`: `\n` as the two characters `\` `n`,
/// a bidi override as `<U+202E>`), so a label is always one line of exactly
/// the text in the package.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if lawgen_runtime::text::is_hidden(c) => {
                let shown = lawgen_runtime::text::escape_for_display(c.encode_utf8(&mut [0; 4]));
                out.push_str(&shown.replace('\\', "\\\\"));
            }
            c => out.push(c),
        }
    }
    out
}

fn node(model: &Model, p: PredId) -> String {
    let pred = model.pred(p);
    let style = match pred.kind {
        RelationKind::Institutional => {
            "shape=box, style=\"filled,bold\", fillcolor=\"#cfe2ff\", penwidth=2"
        }
        RelationKind::Empirical => "shape=ellipse",
        RelationKind::Judgment => "shape=diamond, style=filled, fillcolor=\"#fff3bf\"",
    };
    format!(
        "p{} [label=\"{}\", tooltip=\"{}\", {style}]",
        p.0,
        escape(&pred.local),
        escape(&pred.id)
    )
}

/// Edges with the same endpoints and marking, merged.
struct Merged {
    from: PredId,
    to: PredId,
    kind: EdgeKind,
    attack: bool,
    /// Rule local names, in rule order, without repeats.
    rules: Vec<String>,
}

impl Merged {
    fn render(&self) -> String {
        let mut attrs: Vec<String> = Vec::new();
        let mut label: Vec<&str> = Vec::new();
        match self.kind {
            EdgeKind::Positive => attrs.push("style=solid".into()),
            EdgeKind::ExplicitNegative => {
                attrs.push("style=dashed".into());
                label.push("~");
            }
            EdgeKind::NotItem => {
                attrs.push("style=dotted".into());
                label.push("not");
            }
            EdgeKind::Closure => {
                attrs.push("style=bold".into());
                attrs.push("color=grey50".into());
                label.push("closure");
            }
        }
        if self.attack {
            attrs.push("color=red".into());
            attrs.push("fontcolor=red".into());
            label.push("attack");
        }
        // Lines of the label, each escaped; `\n` between them is DOT's line break.
        let mut lines: Vec<String> = Vec::new();
        if !label.is_empty() {
            lines.push(label.join(" "));
        }
        let names = self.rules.join(", ");
        if !names.is_empty() && names.chars().count() <= MAX_RULES_LABEL {
            lines.push(names);
        }
        if !lines.is_empty() {
            let text: Vec<String> = lines.iter().map(|l| escape(l)).collect();
            attrs.push(format!("label=\"{}\"", text.join("\\n")));
        }
        if !self.rules.is_empty() {
            attrs.push(format!(
                "tooltip=\"{}\"",
                escape(&format!("rules: {}", self.rules.join(", ")))
            ));
        }
        format!("p{} -> p{} [{}]", self.from.0, self.to.0, attrs.join(", "))
    }
}

fn merged_edges(model: &Model) -> Vec<Merged> {
    let mut out: Vec<Merged> = Vec::new();
    for e in dependency_edges(model) {
        let i = match out.iter().position(|m| {
            m.from == e.from && m.to == e.to && m.kind == e.kind && m.attack == e.attack
        }) {
            Some(i) => i,
            None => {
                out.push(Merged {
                    from: e.from,
                    to: e.to,
                    kind: e.kind,
                    attack: e.attack,
                    rules: Vec::new(),
                });
                out.len() - 1
            }
        };
        if let Some(r) = e.rule {
            let name = &model.rule(r).local;
            if !out[i].rules.contains(name) {
                out[i].rules.push(name.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::load_bytes;

    const CHESS: &[u8] =
        include_bytes!("../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json");

    fn chess() -> Model {
        load_bytes(CHESS, &Default::default())
            .unwrap_or_else(|d| panic!("{}", d.render()))
            .model
            .clone()
    }

    /// The DOT node id of a chess predicate.
    fn id(m: &Model, local: &str) -> String {
        format!("p{}", m.pred_by_name(local).unwrap().0)
    }

    #[test]
    fn escaping_keeps_strings_closed_and_on_one_line() {
        assert_eq!(escape(r#"a"b"#), r#"a\"b"#);
        assert_eq!(escape(r"a\b"), r"a\\b");
        assert_eq!(escape(r"\N\G\l"), r"\\N\\G\\l");
        assert_eq!(escape("a\nb\r\u{1b}"), r"a\\nb\\r\\u{1b}");
        assert_eq!(escape("\"); exit(1); //"), "\\\"); exit(1); //");
        assert_eq!(escape("ход_ферзя"), "ход_ферзя");
        assert_eq!(escape("\u{202e}x\u{200b}"), "<U+202E>x<U+200B>");
    }

    #[test]
    fn hostile_names_stay_inside_their_strings() {
        let mut m = chess();
        m.name = "x\" ; evil [label=\"pwned\"] ; \\".into();
        m.preds[0].local = "a\nb\"c\\".into();
        let dot = dot_of(&m);
        // Every line is one statement of ours: no line starts a forged statement.
        assert!(!dot.contains("evil [label=\"pwned\"]"), "{dot}");
        assert!(
            dot.contains(r#"digraph "x\" ; evil [label=\"pwned\"] ; \\" {"#),
            "{dot}"
        );
        assert!(dot.contains(r#"[label="a\\nb\"c\\", "#), "{dot}");
        // Quotes balance on every line (escaped ones aside).
        for line in dot.lines() {
            let unescaped = line.replace("\\\\", "").replace("\\\"", "");
            assert_eq!(unescaped.matches('"').count() % 2, 0, "{line}");
        }
    }

    #[test]
    fn chess_graph_has_two_strata_and_the_attack_on_game_drawn() {
        let m = chess();
        let dot = dot_of(&m);
        assert_eq!(dot.matches("subgraph cluster_").count(), 2, "{dot}");
        assert!(dot.contains("label=\"stratum 0\";"));
        assert!(dot.contains("label=\"stratum 1\";"));
        let attack = format!(
            "{} -> {} [style=solid, color=red, fontcolor=red, label=\"attack\\nCheckmateTakesPrecedenceOverSeventyFive\"",
            id(&m, "checkmate_delivered"),
            id(&m, "game_drawn")
        );
        assert!(dot.contains(&attack), "no {attack} in\n{dot}");
        // Explicit negation and closures are marked.
        let neg = format!(
            "{} -> {} [style=dashed, label=\"~\\nMoveIsIllegal\"",
            id(&m, "move_meets_articles_3_1_to_3_9"),
            id(&m, "illegal_move")
        );
        assert!(dot.contains(&neg), "no {neg} in\n{dot}");
        let closure = format!(
            "{} -> {} [style=bold, color=grey50, label=\"closure\"]",
            id(&m, "checked_game"),
            id(&m, "move_meets_articles_3_1_to_3_9")
        );
        assert!(dot.contains(&closure), "no {closure} in\n{dot}");
        // game_drawn is institutional and sits in stratum 1.
        let cluster1 = &dot[dot.find("subgraph cluster_1").unwrap()..];
        let cluster1 = &cluster1[..cluster1.find("  }").unwrap()];
        assert!(
            cluster1.contains(&format!("{} [label=\"game_drawn\"", id(&m, "game_drawn"))),
            "{cluster1}"
        );
        assert!(cluster1.contains("style=\"filled,bold\""));
    }

    #[test]
    fn duplicate_edges_are_merged_with_their_rules() {
        let m = chess();
        let dot = dot_of(&m);
        // CastlingLegal reads ~piece_has_moved twice (king and rook): one edge.
        let prefix = format!(
            "{} -> {} ",
            id(&m, "piece_has_moved"),
            id(&m, "castling_legal")
        );
        assert_eq!(dot.matches(&prefix).count(), 1, "{dot}");
        // Nine `…/enters` rules make the same edge: too many names for the label,
        // so they go to the tooltip only.
        let prefix = format!(
            "{} -> {} [style=solid, tooltip=\"rules: GamePlay/ConcludeByAgreement/enters, ",
            id(&m, "valid_transition"),
            id(&m, "entered_state")
        );
        assert_eq!(dot.matches(&prefix).count(), 1, "{dot}");
    }

    #[test]
    fn graph_is_deterministic() {
        let m = chess();
        assert_eq!(dot_of(&m), dot_of(&m));
    }
}
