//! Impact analysis (docs/service.md, "Replay against a candidate"): every
//! receipt of a decision log, once it reproduces on the packages given, is
//! evaluated under a candidate package of the same name, and every
//! institutional verdict that differs is listed with what decides it on
//! each side.
//!
//! What decides is read off the explanation tree of `lawgen explain`
//! (`lawgen_runtime::explain`), built from each side's own evaluation by
//! the reference interpreter: the rule that concludes the literal, the
//! priorities that put it above its attackers, the attacker that prevails,
//! the rules that do not apply and their first failing item, the rules a
//! derogation sets aside, the rules not in force on the case's date, and
//! the judgments a pending verdict waits on. Nothing here decides a
//! verdict or a defeat of its own: each line restates one node of the
//! explanation `lawgen explain` prints for that literal, and the JSON
//! output carries that explanation whole.

use super::replay_one;
use crate::receipt::FORMAT;
use crate::{App, Served};
use ed25519_dalek::VerifyingKey;
use lawgen_runtime::explain::{
    self, Anchor, Atom, DerogationRef, EditionSpan, Explanation, NodeKind, Outcome, PriorityRef,
    Reason, RuleRef, Title,
};
use lawgen_runtime::interp::{Conclusions, Row};
use lawgen_runtime::program::{Level, RelationKind, Section, World};
use lawgen_runtime::{Policy, Verdict};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The format name of `lawgen replay --against --format json`.
pub const IMPACT_FORMAT: &str = "lawgen.impact/0.1";

/// What the comparison found of one line of the log.
#[derive(Clone, Debug)]
pub struct CaseImpact {
    /// The line's number in the log, from 1.
    pub line: usize,
    /// The changes, or why the line could not be compared.
    pub result: Result<CaseChanges, String>,
}

/// The verdicts of one case that differ between the package and the
/// candidate.
#[derive(Clone, Debug)]
pub struct CaseChanges {
    /// The package the receipt names, `name version`.
    pub package: String,
    /// The candidate of that name, `name version`.
    pub candidate: String,
    /// The editions in force on the case's date, when they differ:
    /// (before, after), each `work: edition`.
    pub editions: Option<(Vec<String>, Vec<String>)>,
    /// Every institutional literal whose verdict differs, sorted.
    pub changes: Vec<Change>,
}

/// One institutional literal whose verdict differs.
#[derive(Clone, Debug)]
pub struct Change {
    /// The output name of its literal, `game_drawn` or `~game_drawn`.
    pub predicate: String,
    /// The ground literal, `game_drawn(g1)`.
    pub literal: String,
    /// Under the package the receipt names.
    pub before: Side,
    /// Under the candidate.
    pub after: Side,
}

/// A verdict and what decides it, in one package.
#[derive(Clone, Debug)]
pub struct Side {
    /// `definitely`, `defeasibly`, `pending`, `supported` or
    /// `not_concluded`.
    pub verdict: &'static str,
    /// What decides it, read off the explanation.
    pub decided_by: Vec<Decider>,
    /// The explanation, when the package declares the literal.
    pub explanation: Option<Explanation>,
}

/// One node of an explanation that decides a verdict.
#[derive(Clone, Debug)]
pub enum Decider {
    /// The rule concludes the literal at this level (in the possible model:
    /// once the pending judgments are decided).
    Concludes {
        rule: RuleRef,
        level: Level,
        world: World,
    },
    /// A rule for the complement that loses: `by`, a rule for the literal,
    /// is put above it by `priority`.
    Beats {
        attacker: RuleRef,
        by: RuleRef,
        priority: PriorityRef,
    },
    /// A rule for the complement that applies and is not defeated.
    Prevails {
        attacker: RuleRef,
        /// The literal's rules it beats, each with the priority.
        defeats: Vec<(String, PriorityRef)>,
        /// It is a defeater: it blocks without concluding.
        blocks: bool,
    },
    /// A rule for the literal that does not apply: its first failing item.
    DoesNotApply {
        rule: RuleRef,
        item: String,
        reason: Reason,
        /// Said of a pending verdict: the rule does not apply while the
        /// judgments it waits on are undecided.
        until_decided: bool,
    },
    /// An imported rule for the literal that a derogation sets aside, and
    /// whose conditions hold here: it would have concluded the literal.
    SetAside {
        rule: RuleRef,
        by: Vec<DerogationRef>,
    },
    /// A rule for the literal not in force on the case's date.
    NotInForce {
        rule: RuleRef,
        date: Option<String>,
        editions: Vec<EditionSpan>,
        by: Vec<(DerogationRef, Vec<EditionSpan>)>,
    },
    /// The complement holds definitely (in the model named).
    Complement { literal: String, world: World },
    /// The verdict waits on a judgment nobody has decided.
    Judgment { literal: String, authority: String },
    /// No rule concludes the literal.
    NoRule,
    /// The package does not declare the literal's predicate.
    Undeclared { package: String },
    /// The literal could not be put to the explainer (a lawgen bug: every
    /// literal of an output reads back).
    Unexplained { reason: String },
}

/// Replays every non-empty line of `log` on the packages of `before` (as
/// `lawgen replay` does: with `key`, the signature first) and compares its
/// institutional verdicts with those of the candidate of the same name in
/// `after`.
pub fn impact(
    before: &App,
    after: &App,
    log: &str,
    key: Option<&VerifyingKey>,
    lang: &str,
) -> Vec<CaseImpact> {
    log.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| CaseImpact {
            line: i + 1,
            result: replay_one(before, l, key).and_then(|()| compare(before, after, l, lang)),
        })
        .collect()
}

fn label(s: &Served) -> String {
    format!("{} {}", s.identity.name, s.identity.version)
}

/// The receipt of `line`, already replayed on `before`, evaluated on both.
fn compare(before: &App, after: &App, line: &str, lang: &str) -> Result<CaseChanges, String> {
    let r: Value = serde_json::from_str(line).map_err(|e| format!("the line is not JSON: {e}"))?;
    debug_assert_eq!(r["format"], FORMAT);
    let name = r["package"]["name"].as_str().unwrap_or_default();
    let old =
        before.inner.packages.get(name).ok_or_else(|| {
            format!("the receipt's package `{name}` is not among the packages given")
        })?;
    let new = after.inner.packages.get(name).ok_or_else(|| {
        let names: Vec<&str> = after.inner.packages.keys().map(String::as_str).collect();
        format!(
            "no candidate package is named `{name}` (the candidates are {}); give its new version with `--against FILE`",
            names.join(", ")
        )
    })?;
    let facts_text = r["facts"].as_str().unwrap_or_default();
    let policy = match r["policy"].as_str() {
        Some("propagating") => Policy::Propagating,
        _ => Policy::Blocking,
    };
    let side = |s: &Served| -> Result<_, String> {
        let facts =
            lawgen_runtime::formats::facts::read_facts(facts_text.as_bytes(), &s.loaded.catalog)
                .map_err(|d| {
                    format!(
                        "the candidate {} refuses the receipt's facts:\n{}",
                        label(s),
                        d.render().trim_end()
                    )
                })?;
        lawgen_runtime::interp::in_force(&s.program, &facts)
            .map_err(|e| format!("under the candidate {}: {e}", label(s)))?;
        let store = lawgen_runtime::interp::evaluate(&s.program, &facts, policy);
        let conclusions = lawgen_runtime::interp::conclusions(&s.program, &store, policy);
        Ok((store, conclusions))
    };
    // The receipt reproduced on `old`, so its facts read there.
    let (old_store, old_c) = side(old)?;
    let (new_store, new_c) = side(new)?;
    let old_v = verdicts(old, &old_c);
    let new_v = verdicts(new, &new_c);
    let keys: BTreeSet<&(String, Row)> = old_v.keys().chain(new_v.keys()).collect();
    let mut changes = Vec::new();
    for key in keys {
        let b = old_v.get(key).copied().unwrap_or("not_concluded");
        let a = new_v.get(key).copied().unwrap_or("not_concluded");
        if a == b {
            continue;
        }
        let (lit, row) = key;
        let literal = format!(
            "{lit}({})",
            row.iter()
                .map(explain::fmt_value)
                .collect::<Vec<_>>()
                .join(", ")
        );
        changes.push(Change {
            predicate: lit.clone(),
            before: explained(old, &old_store, &old_c, &literal, b, lang),
            after: explained(new, &new_store, &new_c, &literal, a, lang),
            literal,
        });
    }
    changes.sort_by(|x, y| {
        sort_key(&x.predicate, &x.literal).cmp(&sort_key(&y.predicate, &y.literal))
    });
    let editions = |c: &Conclusions| -> Vec<String> {
        c.editions
            .iter()
            .map(|e| format!("{}: {}", e.work, e.edition))
            .collect()
    };
    let (eb, ea) = (editions(&old_c), editions(&new_c));
    Ok(CaseChanges {
        package: label(old),
        candidate: label(new),
        editions: (eb != ea).then_some((eb, ea)),
        changes,
    })
}

/// A literal's place in a listing: by predicate, the negative after the
/// positive, then by the literal.
fn sort_key<'a>(predicate: &'a str, literal: &'a str) -> (&'a str, bool, &'a str) {
    (
        predicate.trim_start_matches('~'),
        predicate.starts_with('~'),
        literal,
    )
}

/// Every institutional literal of the output with its verdict: the
/// strongest section that holds it (`Verdict::decide`).
fn verdicts(s: &Served, c: &Conclusions) -> BTreeMap<(String, Row), &'static str> {
    let cat = &s.loaded.catalog;
    let mut out = BTreeMap::new();
    for rows in c.sections.values() {
        for (lit, rows) in rows {
            let Some(l) = cat.lit_of(lit) else { continue };
            if cat.pred(l.pred).kind != RelationKind::Institutional {
                continue;
            }
            for row in rows {
                let key = (lit.clone(), row.clone());
                if out.contains_key(&key) {
                    continue;
                }
                let v = Verdict::decide(
                    |sec: Section| {
                        c.sections
                            .get(&sec)
                            .is_some_and(|m| m.get(lit).is_some_and(|r| r.contains(row)))
                    },
                    Vec::new,
                );
                out.insert(key, v.as_str());
            }
        }
    }
    out
}

fn explained(
    s: &Served,
    store: &lawgen_runtime::interp::Store,
    c: &Conclusions,
    literal: &str,
    verdict: &'static str,
    lang: &str,
) -> Side {
    let predicate = literal.split('(').next().unwrap_or_default();
    if s.loaded.catalog.lit_of(predicate).is_none() {
        return Side {
            verdict,
            decided_by: vec![Decider::Undeclared { package: label(s) }],
            explanation: None,
        };
    }
    let q = match explain::parse_query(&s.loaded.catalog, literal) {
        Ok(q) => q,
        Err(reason) => {
            return Side {
                verdict,
                decided_by: vec![Decider::Unexplained { reason }],
                explanation: None,
            }
        }
    };
    let e = explain::explain(&s.program, store, c.policy, &q, lang);
    // A law in one package names no package in its explanation; the
    // report names it always.
    let mut decided_by = deciders(&e);
    let own = label(s);
    for d in &mut decided_by {
        d.name_package(&own);
    }
    Side {
        verdict,
        decided_by,
        explanation: Some(e),
    }
}

/// The nodes of `e` that decide its verdict: the top of the tree, the
/// headings' members and a concluding rule's attackers; never the
/// derivation of its body items.
pub fn deciders(e: &Explanation) -> Vec<Decider> {
    let mut out = Vec::new();
    let pending = matches!(e.verdict, Verdict::Pending(_));
    let mut judgments = Vec::new();
    for n in &e.tree {
        top(n, pending, &mut out, &mut judgments);
    }
    // A request the tree names already (as asked: the judgment itself, not
    // its negation) is not named twice: matched by the atom it asks to
    // decide, not by how either is worded.
    for r in &e.requests {
        if !judgments
            .iter()
            .any(|a| !a.lit.negative && a.is_asked_by(r))
        {
            let args: Vec<String> = r.args.iter().map(ToString::to_string).collect();
            let literal = format!("{}({})", r.predicate, args.join(", "));
            out.push(Decider::Judgment {
                literal,
                authority: r.authority.clone(),
            });
        }
    }
    out
}

/// `pending`: the verdict is pending, so what the heading "why it is not
/// established" lists holds only until the judgments are decided. The
/// judgment atoms named go to `judgments`.
fn top<'e>(
    n: &'e explain::Node,
    pending: bool,
    out: &mut Vec<Decider>,
    judgments: &mut Vec<&'e Atom>,
) {
    match &n.kind {
        NodeKind::Rule { rule, level, world } => {
            out.push(Decider::Concludes {
                rule: rule.clone(),
                level: *level,
                world: *world,
            });
            for c in &n.children {
                if let NodeKind::Group {
                    title: Title::Attackers { .. },
                } = c.kind
                {
                    for a in &c.children {
                        attacker(a, out);
                    }
                }
            }
        }
        NodeKind::Group { title } => {
            if let Title::ComplementDefinite { lit, world } = title {
                out.push(Decider::Complement {
                    literal: lit.to_string(),
                    world: *world,
                });
            }
            let until = pending && matches!(title, Title::WhyNotEstablished);
            for c in &n.children {
                match &c.kind {
                    NodeKind::Unsatisfied { rule, item, reason } if until => {
                        out.push(Decider::DoesNotApply {
                            rule: rule.clone(),
                            item: item.text("en"),
                            reason: *reason,
                            until_decided: true,
                        })
                    }
                    _ => top(c, pending, out, judgments),
                }
            }
        }
        NodeKind::Attacker { .. } => attacker(n, out),
        NodeKind::Unsatisfied { rule, item, reason } => out.push(Decider::DoesNotApply {
            rule: rule.clone(),
            item: item.text("en"),
            reason: *reason,
            until_decided: false,
        }),
        // A rule set aside that would not apply here anyway decides
        // nothing; the explanation still lists it.
        NodeKind::SetAside { rule, by, applies } if *applies => out.push(Decider::SetAside {
            rule: rule.clone(),
            by: by.clone(),
        }),
        NodeKind::NotInForce {
            rule,
            date,
            editions,
            by,
        } => out.push(Decider::NotInForce {
            rule: rule.clone(),
            date: date.map(|d| d.to_string()),
            editions: editions.clone(),
            by: by.clone(),
        }),
        NodeKind::Judgment { authority, .. } => {
            if let Some(l) = &n.literal {
                judgments.push(l);
                out.push(Decider::Judgment {
                    literal: l.to_string(),
                    authority: authority.clone(),
                });
            }
        }
        NodeKind::Note {
            phrase: explain::Phrase::NoRule,
        } => out.push(Decider::NoRule),
        _ => {}
    }
}

fn attacker(n: &explain::Node, out: &mut Vec<Decider>) {
    let NodeKind::Attacker { rule, outcome } = &n.kind else {
        return;
    };
    match outcome {
        Outcome::Defeated { by, priority } => out.push(Decider::Beats {
            attacker: rule.clone(),
            by: by.clone(),
            priority: priority.clone(),
        }),
        Outcome::Prevails { defeats, blocks } => out.push(Decider::Prevails {
            attacker: rule.clone(),
            defeats: defeats
                .iter()
                .map(|(r, p)| (r.name.clone(), p.clone()))
                .collect(),
            blocks: *blocks,
        }),
        Outcome::Discarded { .. } => {}
    }
}

fn verdict_words(v: &str) -> &str {
    match v {
        "not_concluded" => "not concluded",
        v => v,
    }
}

fn pkg(p: &Option<String>) -> String {
    p.as_ref().map(|p| format!("[{p}] ")).unwrap_or_default()
}

fn anchors(a: &[Anchor]) -> String {
    a.iter()
        .map(|a| match &a.edition {
            Some(e) => format!("{}, edition {e}", a.locator),
            None => a.locator.clone(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn rule_text(r: &RuleRef) -> String {
    let at = anchors(&r.anchors);
    if at.is_empty() {
        format!(
            "rule {}{} ({})",
            pkg(&r.package),
            r.name,
            r.strength.as_str()
        )
    } else {
        format!(
            "rule {}{} ({}; {at})",
            pkg(&r.package),
            r.name,
            r.strength.as_str()
        )
    }
}

fn priority_text(p: &PriorityRef) -> String {
    match &p.reason {
        Some(reason) => format!("priority {}{} ({reason})", pkg(&p.package), p.name),
        None => format!("priority {}{}", pkg(&p.package), p.name),
    }
}

fn derogation_text(d: &DerogationRef) -> String {
    let at = anchors(&d.anchors);
    if at.is_empty() {
        format!("derogation {}{}", pkg(&d.package), d.name)
    } else {
        format!("derogation {}{} ({at})", pkg(&d.package), d.name)
    }
}

fn span_text(e: &EditionSpan) -> String {
    match (&e.from, &e.to) {
        (Some(f), Some(t)) => format!("edition {} in force {f} to {t}", e.name),
        (Some(f), None) => format!("edition {} in force from {f}", e.name),
        (None, _) => format!("edition {} in force on no day", e.name),
    }
}

fn level_text(level: Level, world: World) -> String {
    let l = match level {
        Level::Definite => "definitely",
        Level::Defeasible => "defeasibly",
        Level::Supported => "as supported",
    };
    match world {
        World::Certain => l.to_owned(),
        World::Possible => format!("{l} once the pending judgments are decided its way"),
    }
}

impl Decider {
    /// Names `package` as the package of every rule, priority and
    /// derogation the explanation left unnamed (a law in one package).
    fn name_package(&mut self, package: &str) {
        let fill = |p: &mut Option<String>| {
            if p.is_none() {
                *p = Some(package.to_owned());
            }
        };
        match self {
            Decider::Concludes { rule, .. } | Decider::DoesNotApply { rule, .. } => {
                fill(&mut rule.package)
            }
            Decider::Beats {
                attacker,
                by,
                priority,
            } => {
                fill(&mut attacker.package);
                fill(&mut by.package);
                fill(&mut priority.package);
            }
            Decider::Prevails {
                attacker, defeats, ..
            } => {
                fill(&mut attacker.package);
                for (_, p) in defeats {
                    fill(&mut p.package);
                }
            }
            Decider::SetAside { rule, by } => {
                fill(&mut rule.package);
                for d in by {
                    fill(&mut d.package);
                }
            }
            Decider::NotInForce { rule, by, .. } => {
                fill(&mut rule.package);
                for (d, _) in by {
                    fill(&mut d.package);
                }
            }
            Decider::Complement { .. }
            | Decider::Judgment { .. }
            | Decider::NoRule
            | Decider::Undeclared { .. }
            | Decider::Unexplained { .. } => {}
        }
    }

    /// One line of English, restating the explanation's node.
    pub fn text(&self) -> String {
        match self {
            Decider::Concludes { rule, level, world } => {
                format!(
                    "{} concludes it {}",
                    rule_text(rule),
                    level_text(*level, *world)
                )
            }
            Decider::Beats {
                attacker,
                by,
                priority,
            } => format!(
                "{} puts {}{} above the attacker {}",
                priority_text(priority),
                pkg(&by.package),
                by.name,
                rule_text(attacker)
            ),
            Decider::Prevails {
                attacker,
                defeats,
                blocks,
            } => {
                let mut s = format!("the attacker {} prevails", rule_text(attacker));
                if *blocks {
                    s.push_str(" (a defeater: it blocks the literal)");
                }
                for (name, p) in defeats {
                    s.push_str(&format!(", over {name} by {}", priority_text(p)));
                }
                s
            }
            Decider::DoesNotApply {
                rule,
                item,
                reason,
                until_decided,
            } => format!(
                "{}{} does not apply: {item} {}",
                if *until_decided {
                    "until the pending judgments are decided, "
                } else {
                    ""
                },
                rule_text(rule),
                reason.text("en")
            ),
            Decider::SetAside { rule, by } => {
                let by: Vec<String> = by.iter().map(derogation_text).collect();
                format!(
                    "{} is set aside by {}; its conditions hold here, so it would have concluded it",
                    rule_text(rule),
                    by.join(", "),
                )
            }
            Decider::NotInForce {
                rule,
                date,
                editions,
                by,
            } => {
                let mut s = format!(
                    "{} is not in force on {}",
                    rule_text(rule),
                    date.as_deref().unwrap_or("the case's date")
                );
                let spans: Vec<String> = editions.iter().map(span_text).collect();
                if !spans.is_empty() {
                    s.push_str(&format!(" ({})", spans.join(", ")));
                }
                for (d, spans) in by {
                    let spans: Vec<String> = spans.iter().map(span_text).collect();
                    s.push_str(&format!(", set aside by {}", derogation_text(d)));
                    if !spans.is_empty() {
                        s.push_str(&format!(" ({})", spans.join(", ")));
                    }
                }
                s
            }
            Decider::Complement { literal, world } => match world {
                World::Certain => format!("{literal} holds definitely"),
                World::Possible => {
                    format!("{literal} holds definitely once the pending judgments are decided")
                }
            },
            Decider::Judgment { literal, authority } => {
                format!("it waits on the judgment {literal}, for {authority} to decide")
            }
            Decider::NoRule => "no rule concludes it".to_owned(),
            Decider::Undeclared { package } => {
                format!("{package} does not declare the predicate")
            }
            Decider::Unexplained { reason } => {
                format!("lawgen cannot explain it (a lawgen bug): {reason}")
            }
        }
    }

    /// The node as JSON: its kind and the names the explanation gives.
    pub fn to_json(&self) -> Value {
        let rule = |r: &RuleRef| {
            json!({
                "name": r.name,
                "id": r.id,
                "package": r.package,
                "strength": r.strength.as_str(),
                "anchors": r.anchors.iter().map(|a| json!({
                    "locator": a.locator,
                    "fragment": a.fragment,
                    "edition": a.edition,
                    "package": a.package,
                })).collect::<Vec<_>>(),
            })
        };
        let priority = |p: &PriorityRef| json!({"name": p.name, "id": p.id, "package": p.package, "reason": p.reason});
        let derogation = |d: &DerogationRef| {
            json!({"name": d.name, "id": d.id, "package": d.package,
                "anchors": d.anchors.iter().map(|a| json!({"locator": a.locator, "edition": a.edition})).collect::<Vec<_>>()})
        };
        let span = |e: &EditionSpan| {
            json!({"edition": e.name, "from": e.from.map(|d| d.to_string()),
                "to": e.to.map(|d| d.to_string())})
        };
        let mut v = match self {
            Decider::Concludes {
                rule: r,
                level,
                world,
            } => json!({
                "kind": "concludes", "rule": rule(r),
                "level": match level {
                    Level::Definite => "definitely",
                    Level::Defeasible => "defeasibly",
                    Level::Supported => "supported",
                },
                "possibleModel": *world == World::Possible,
            }),
            Decider::Beats {
                attacker,
                by,
                priority: p,
            } => {
                json!({"kind": "beats", "attacker": rule(attacker), "by": rule(by), "priority": priority(p)})
            }
            Decider::Prevails {
                attacker,
                defeats,
                blocks,
            } => json!({"kind": "prevails", "attacker": rule(attacker), "blocks": blocks,
                "defeats": defeats.iter().map(|(n, p)| json!({"rule": n, "priority": priority(p)})).collect::<Vec<_>>()}),
            Decider::DoesNotApply {
                rule: r,
                item,
                reason,
                until_decided,
            } => json!({
                "kind": "does_not_apply", "rule": rule(r), "item": item, "reason": reason.text("en"),
                "untilDecided": until_decided}),
            Decider::SetAside { rule: r, by } => json!({
                "kind": "set_aside", "rule": rule(r),
                "by": by.iter().map(derogation).collect::<Vec<_>>()}),
            Decider::NotInForce {
                rule: r,
                date,
                editions,
                by,
            } => json!({"kind": "not_in_force", "rule": rule(r), "date": date,
                "editions": editions.iter().map(span).collect::<Vec<_>>(),
                "by": by.iter().map(|(d, s)| json!({"derogation": derogation(d), "editions": s.iter().map(span).collect::<Vec<_>>()})).collect::<Vec<_>>()}),
            Decider::Complement { literal, world } => json!({
                "kind": "complement", "literal": literal, "possibleModel": *world == World::Possible}),
            Decider::Judgment { literal, authority } => {
                json!({"kind": "judgment", "literal": literal, "authority": authority})
            }
            Decider::NoRule => json!({"kind": "no_rule"}),
            Decider::Undeclared { package } => json!({"kind": "undeclared", "package": package}),
            Decider::Unexplained { reason } => json!({"kind": "unexplained", "reason": reason}),
        };
        v["text"] = Value::from(self.text());
        v
    }
}

impl Side {
    fn to_json(&self) -> Value {
        json!({
            "verdict": self.verdict,
            "decidedBy": self.decided_by.iter().map(Decider::to_json).collect::<Vec<_>>(),
            "explanation": self.explanation.as_ref().map(|e| {
                serde_json::from_str::<Value>(&e.to_json()).unwrap_or(Value::Null)
            }),
        })
    }
}

/// Per institutional literal (output name), per direction (before, after),
/// how many verdicts changed; and how many cases were read, changed and
/// could not be compared.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cases_read: usize,
    pub cases_changed: usize,
    /// Cases with a change of a literal both versions declare.
    pub cases_changed_declared: usize,
    pub cases_failed: usize,
    pub literals: BTreeMap<(String, bool), LiteralSummary>,
}

/// The changes of one institutional literal across the log.
#[derive(Clone, Debug, Default)]
pub struct LiteralSummary {
    /// Its output name, `game_drawn` or `~game_drawn`.
    pub name: String,
    /// Per (verdict before, verdict after), how many verdicts.
    pub directions: BTreeMap<(&'static str, &'static str), usize>,
    /// The package the receipts name does not declare it.
    pub new: bool,
    /// The candidate does not declare it.
    pub gone: bool,
}

fn undeclared(s: &Side) -> bool {
    s.decided_by
        .iter()
        .any(|d| matches!(d, Decider::Undeclared { .. }))
}

impl Summary {
    /// The summary of `cases`.
    pub fn of(cases: &[CaseImpact]) -> Summary {
        let mut s = Summary {
            cases_read: cases.len(),
            ..Summary::default()
        };
        for c in cases {
            match &c.result {
                Err(_) => s.cases_failed += 1,
                Ok(ch) => {
                    if !ch.changes.is_empty() {
                        s.cases_changed += 1;
                    }
                    if ch
                        .changes
                        .iter()
                        .any(|x| !undeclared(&x.before) && !undeclared(&x.after))
                    {
                        s.cases_changed_declared += 1;
                    }
                    for x in &ch.changes {
                        let (n, neg) = (
                            x.predicate.trim_start_matches('~').to_owned(),
                            x.predicate.starts_with('~'),
                        );
                        let e = s
                            .literals
                            .entry((n, neg))
                            .or_insert_with(|| LiteralSummary {
                                name: x.predicate.clone(),
                                ..LiteralSummary::default()
                            });
                        e.new |= undeclared(&x.before);
                        e.gone |= undeclared(&x.after);
                        *e.directions
                            .entry((x.before.verdict, x.after.verdict))
                            .or_default() += 1;
                    }
                }
            }
        }
        s
    }

    /// The summary as a Markdown table, with a line of totals above.
    pub fn text(&self) -> String {
        let mut out = format!(
            "read {} receipt(s): {} with a verdict that changes ({} of a literal both versions declare), {} unchanged, {} not compared\n",
            self.cases_read,
            self.cases_changed,
            self.cases_changed_declared,
            self.cases_read - self.cases_changed - self.cases_failed,
            self.cases_failed
        );
        if self.literals.is_empty() {
            return out;
        }
        out.push_str("| literal | verdicts changed | before → after (verdicts) |\n|---|---|---|\n");
        for l in self.literals.values() {
            let total: usize = l.directions.values().sum();
            let dirs: Vec<String> = l
                .directions
                .iter()
                .map(|((b, a), n)| format!("{} → {}: {n}", verdict_words(b), verdict_words(a)))
                .collect();
            let note = match (l.new, l.gone) {
                (true, _) => " (new in the candidate)",
                (_, true) => " (not in the candidate)",
                _ => "",
            };
            out.push_str(&format!(
                "| `{}`{note} | {total} | {} |\n",
                l.name,
                dirs.join("; ")
            ));
        }
        out
    }

    fn to_json(&self) -> Value {
        json!({
            "casesRead": self.cases_read,
            "casesChanged": self.cases_changed,
            "casesChangedDeclared": self.cases_changed_declared,
            "casesUnchanged": self.cases_read - self.cases_changed - self.cases_failed,
            "casesNotCompared": self.cases_failed,
            "literals": self.literals.values().map(|l| json!({
                "literal": l.name,
                "changed": l.directions.values().sum::<usize>(),
                "newInCandidate": l.new,
                "notInCandidate": l.gone,
                "directions": l.directions.iter().map(|((b, a), n)| json!({"before": b, "after": a, "verdicts": n})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}

/// The text report: each case with a change, each line not compared
/// (`LOG:LINE: not compared: REASON`), then the summary.
pub fn text(log_name: &str, cases: &[CaseImpact]) -> String {
    let mut out = String::new();
    for c in cases {
        match &c.result {
            Err(reason) => {
                out.push_str(&format!("{log_name}:{}: not compared: {reason}\n", c.line))
            }
            // The editions alone are no change of verdict.
            Ok(ch) if ch.changes.is_empty() => {}
            Ok(ch) => {
                out.push_str(&format!(
                    "{log_name}:{}: {} → {}: {} verdict(s) change\n",
                    c.line,
                    ch.package,
                    ch.candidate,
                    ch.changes.len()
                ));
                if let Some((b, a)) = &ch.editions {
                    out.push_str(&format!(
                        "  editions in force: before {}; now {}\n",
                        list_or_none(b),
                        list_or_none(a)
                    ));
                }
                for x in &ch.changes {
                    out.push_str(&format!(
                        "  {}: {} → {}\n",
                        x.literal,
                        verdict_words(x.before.verdict),
                        verdict_words(x.after.verdict)
                    ));
                    for d in &x.before.decided_by {
                        out.push_str(&format!("    before: {}\n", d.text()));
                    }
                    for d in &x.after.decided_by {
                        out.push_str(&format!("    now: {}\n", d.text()));
                    }
                }
            }
        }
    }
    out.push_str(&Summary::of(cases).text());
    out
}

fn list_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_owned()
    } else {
        v.join(", ")
    }
}

/// The JSON report (`lawgen.impact/0.1`): every case, changed or not, and
/// the summary.
pub fn to_json(log_name: &str, cases: &[CaseImpact]) -> Value {
    json!({
        "format": IMPACT_FORMAT,
        "log": log_name,
        "cases": cases.iter().map(|c| match &c.result {
            Err(reason) => json!({"line": c.line, "error": reason}),
            Ok(ch) => json!({
                "line": c.line,
                "package": ch.package,
                "candidate": ch.candidate,
                "editions": ch.editions.as_ref().map(|(b, a)| json!({"before": b, "after": a})),
                "changes": ch.changes.iter().map(|x| json!({
                    "literal": x.literal,
                    "predicate": x.predicate,
                    "before": x.before.to_json(),
                    "after": x.after.to_json(),
                })).collect::<Vec<_>>(),
            }),
        }).collect::<Vec<_>>(),
        "summary": Summary::of(cases).to_json(),
    })
}
