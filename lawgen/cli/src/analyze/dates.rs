//! `--as-of D` and `--compare-dates D1 D2` (docs/analyze.md#dates): the
//! law as of a date. The in-force inputs of the lowered program are fixed to
//! the date ([`super::Options::as_of`]), in the grounding and in the facts
//! file of every witness (its `asOf`), so the reference evaluator checks a
//! witness on the date it is about.
//!
//! `--compare-dates` analyses the package twice, once per date, over one
//! encoding and shared inputs: for each institutional literal, an input on
//! which the verdict on one ground literal differs between the dates, or a
//! proof that none exists within the bound. It names the rules that enter or
//! leave force between the dates, and for each difference those of them
//! that decide it: a rule for the literal (or its complement) in force on
//! one date only, that applies on the witness on that date.

use super::check::{self, show_ground, store_heads};
use super::render::{facts_line, outcome_json, witness_text};
use super::{Analysis, Error, Outcome};
use lawgen_runtime::law::Date;
use lawgen_runtime::program::{Lit, Meaning, PredId, Program, RelationKind, Value};
use serde_json::{json, Value as J};

/// The dates of the command line.
pub struct Dates {
    /// [`super::Options::as_of`].
    pub as_of: Vec<Option<Date>>,
    /// [`super::run::Request::compare_dates`].
    pub compare: Option<(Date, Date)>,
}

/// Reads `--as-of` and `--compare-dates`, refusing a malformed date, a date
/// on which the package has no law in force, and the two flags together.
pub fn parse_args(
    prog: &Program,
    as_of: Option<&str>,
    compare: &[String],
    other: bool,
) -> Result<Dates, Error> {
    let as_of = as_of.map(|s| parse("--as-of", s)).transpose()?;
    let compare = match compare {
        [a, b] => Some((parse("--compare-dates", a)?, parse("--compare-dates", b)?)),
        _ => None,
    };
    match (as_of, compare) {
        (Some(_), Some(_)) => Err(Error::usage(
            "`--as-of` and `--compare-dates` cannot be given together\n  = help: `--compare-dates D1 D2` analyses the package as of each of its two dates".into(),
        )),
        (_, Some(_)) if other => Err(Error::usage(
            "`--compare` and `--compare-dates` cannot be given together\n  = help: compare two packages, or one package on two dates".into(),
        )),
        (Some(d), None) => {
            law_on(prog, "--as-of", d)?;
            Ok(Dates {
                as_of: vec![Some(d); 2],
                compare: None,
            })
        }
        (None, Some((d1, d2))) => {
            law_on(prog, "--compare-dates", d1)?;
            law_on(prog, "--compare-dates", d2)?;
            Ok(Dates {
                as_of: vec![Some(d1), Some(d2)],
                compare: Some((d1, d2)),
            })
        }
        (None, None) => Ok(Dates {
            as_of: Vec::new(),
            compare: None,
        }),
    }
}

/// Reads the date of `flag`, or says how to write one.
pub fn parse(flag: &str, s: &str) -> Result<Date, Error> {
    Date::parse(s).ok_or_else(|| {
        Error::usage(format!(
            "`{flag}` takes a date `YYYY-MM-DD` of a real calendar day, not `{s}`\n  = help: write it like `{flag} 2023-01-01`"
        ))
    })
}

/// Refuses a date on which a work the package's rules are anchored to has
/// no edition in force (the evaluator refuses such a case too).
pub fn law_on(prog: &Program, flag: &str, d: Date) -> Result<(), Error> {
    prog.catalog.law.on(Some(d)).map(|_| ()).map_err(|e| {
        Error::usage(format!(
            "`{flag} {d}`: {e}\n  = help: analyse a date on which the package has law in force"
        ))
    })
}

/// Is rule `r` in force on `d`? `None`: its in-force input holds on every
/// date (it is timeless, and no dated derogation lists it). What it reads
/// is the rule's in-force input in the program, so a rule a dated
/// derogation leaves out is out on the dates that derogation is in force.
fn rule_on(prog: &Program, r: u32, d: Date) -> Option<bool> {
    let gate = prog.rules.iter().find_map(|pr| match pr.meaning {
        Meaning::Applicable { rule, .. } | Meaning::Strict { rule, .. } if rule == r => {
            pr.body.iter().find_map(|it| match it {
                lawgen_runtime::program::Item::Pos(a) => match prog.relation(a.rel).role {
                    lawgen_runtime::program::Role::InForce(k) => Some(k),
                    _ => None,
                },
                _ => None,
            })
        }
        _ => None,
    })?;
    let on = prog.catalog.law.on(Some(d)).ok()?;
    on.gates.get(gate as usize).copied()
}

/// The rules in force on one date and not the other: (rule, enters), where
/// `enters` means in force on `d2` and not on `d1`.
pub fn changes(prog: &Program, d1: Date, d2: Date) -> Vec<(u32, bool)> {
    (0..prog.catalog.rules.len() as u32)
        .filter_map(|r| match (rule_on(prog, r, d1), rule_on(prog, r, d2)) {
            (Some(a), Some(b)) if a != b => Some((r, b)),
            _ => None,
        })
        .collect()
}

/// A rule with its package and edition, as the report names it.
fn rule_name(prog: &Program, r: u32) -> String {
    let cat = &prog.catalog;
    let info = cat.rule(r);
    let editions: Vec<&str> = info
        .anchors
        .iter()
        .filter_map(|a| a.edition.as_deref())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    format!(
        "{} [{}] (edition {})",
        info.local,
        cat.packages
            .get(info.package as usize)
            .map_or("", String::as_str),
        editions.join(", ")
    )
}

/// One institutional literal compared between the two dates.
struct Row {
    lit: String,
    outcome: Outcome,
    /// The ground literal, its verdict on each date, and the rules that
    /// enter or leave force and decide the difference.
    differs: Option<(String, String, String, Vec<String>)>,
}

/// The `--compare-dates` report: text and JSON. `an` analyses the same
/// program twice, as of `d1` and as of `d2`.
pub fn report(an: &mut Analysis, d1: Date, d2: Date) -> Result<(String, J), Error> {
    let prog = an.progs[0];
    let cat = prog.catalog.clone();
    let changed = changes(prog, d1, d2);
    let mut text = format!("\n== compare dates {d1} and {d2}\n");
    type Changes = Vec<(u32, bool)>;
    let (entering, leaving): (Changes, Changes) = changed.iter().partition(|(_, e)| *e);
    for (word, list) in [
        ("enter force on", &entering),
        ("leave force after", &leaving),
    ] {
        let when = if word == "enter force on" { d2 } else { d1 };
        text.push_str(&format!("rules that {word} {when}: {}\n", list.len()));
        for (r, _) in list.iter() {
            text.push_str(&format!("  {}\n", rule_name(prog, *r)));
        }
    }
    // Dated derogations entering or leaving force (their rules are among
    // the rules above, leaving or entering force with them).
    let derogations = derogation_changes(prog, d1, d2);
    for (word, enters) in [("enter force on", true), ("leave force after", false)] {
        let list: Vec<&String> = derogations
            .iter()
            .filter(|(_, e)| *e == enters)
            .map(|(n, _)| n)
            .collect();
        if !list.is_empty() {
            let when = if enters { d2 } else { d1 };
            text.push_str(&format!("derogations that {word} {when}: {}\n", list.len()));
            for n in list {
                text.push_str(&format!("  {n}\n"));
            }
        }
    }
    let rows = rows(an, d1, d2, &changed)?;
    let names = [
        format!("the case as of {d1}"),
        format!("the case as of {d2}"),
    ];
    text.push_str(&format!(
        "| literal | differs on | as of {d1} | as of {d2} | decided by | witness |\n|---|---|---|---|---|---|\n"
    ));
    let mut js = Vec::new();
    for row in &rows {
        match (&row.outcome, &row.differs) {
            (Outcome::Witness(w), Some((ground, va, vb, by))) => text.push_str(&format!(
                "| `{}` | `{ground}` | {va} | {vb} | {} | {} |\n",
                row.lit,
                if by.is_empty() {
                    "—".to_owned()
                } else {
                    by.join(", ")
                },
                facts_line(&w.facts[0], &cat)
            )),
            _ => text.push_str(&format!(
                "| `{}` | none within the bound | | | | |\n",
                row.lit
            )),
        }
        let mut j = outcome_json(&row.outcome);
        j["literal"] = J::from(row.lit.as_str());
        if let Some((g, va, vb, by)) = &row.differs {
            j["ground"] = J::from(g.as_str());
            j["from"] = J::from(va.as_str());
            j["to"] = J::from(vb.as_str());
            j["decided_by"] = J::from(by.clone());
        }
        js.push(j);
    }
    text.push_str(&format!("({} literals)\n", rows.len()));
    for row in &rows {
        if let (Outcome::Witness(w), Some((_, _, _, by))) = (&row.outcome, &row.differs) {
            text.push_str(&format!("\n-- {}\n", row.lit));
            if !by.is_empty() {
                text.push_str(&format!(
                    "decided by the rules that enter or leave force: {}\n",
                    by.join(", ")
                ));
            }
            text.push_str(&witness_text(w, &names));
        }
    }
    let list = |v: &[(u32, bool)]| -> Vec<J> {
        v.iter()
            .map(|(r, _)| J::from(cat.rule(*r).local.as_str()))
            .collect()
    };
    let mut j = json!({
        "query": "compare-dates",
        "dates": [d1.to_string(), d2.to_string()],
        "entering": list(&entering),
        "leaving": list(&leaving),
        "literals": js,
    });
    if !derogations.is_empty() {
        let names = |enters: bool| -> Vec<J> {
            derogations
                .iter()
                .filter(|(_, e)| *e == enters)
                .map(|(n, _)| J::from(n.as_str()))
                .collect()
        };
        j["derogationsEntering"] = J::from(names(true));
        j["derogationsLeaving"] = J::from(names(false));
    }
    Ok((text, j))
}

/// The dated derogations in force on one date and not the other, named
/// with their package and editions: (name, enters on `d2`).
fn derogation_changes(prog: &Program, d1: Date, d2: Date) -> Vec<(String, bool)> {
    let cat = &prog.catalog;
    let on = |d: Date| cat.law.on(Some(d)).ok();
    let (Some(a), Some(b)) = (on(d1), on(d2)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for d in &cat.derogations {
        let eds: Vec<u32> = d.anchors.iter().filter_map(|x| x.dated).collect();
        if eds.is_empty() {
            continue;
        }
        let (was, is) = (
            eds.iter().any(|&e| a.edition(e)),
            eds.iter().any(|&e| b.edition(e)),
        );
        if was != is {
            let mut names: Vec<&str> = d
                .anchors
                .iter()
                .filter_map(|x| x.edition.as_deref())
                .collect();
            names.sort_unstable();
            names.dedup();
            out.push((
                format!(
                    "{} [{}] (edition {})",
                    d.local,
                    cat.packages
                        .get(d.package as usize)
                        .map_or("", String::as_str),
                    names.join(", ")
                ),
                is,
            ));
        }
    }
    out
}

fn rows(an: &mut Analysis, d1: Date, d2: Date, changed: &[(u32, bool)]) -> Result<Vec<Row>, Error> {
    let prog = an.progs[0];
    let mut rows = Vec::new();
    for (i, pa) in prog.catalog.preds.iter().enumerate() {
        if pa.kind != RelationKind::Institutional {
            continue;
        }
        for negative in [false, true] {
            let lit = Lit {
                pred: PredId(i as u32),
                negative,
            };
            if !prog.outputs.iter().any(|o| o.lit == lit) {
                continue;
            }
            let name = prog.catalog.lit_name(lit);
            let (per_tuple, target) = an.differences(lit, lit);
            let Some((inputs, minimum)) = an.solve(target)? else {
                rows.push(Row {
                    lit: name,
                    outcome: Outcome::None,
                    differs: None,
                });
                continue;
            };
            let Some((t, _)) = per_tuple.iter().find(|(_, d)| an.enc.sat.value(*d)) else {
                return Err(Error::internal("the model differs on no tuple".into()));
            };
            let args: Vec<Value> = t.iter().map(|&v| an.dom.values.value(v).clone()).collect();
            let w = check::Checked::new(an, &inputs)?;
            w.check_model(an, 0)?;
            w.check_model(an, 1)?;
            let (va, vb) = w.check_differs(an, lit, lit, &args)?;
            // The rules in force on one date only that apply to the witness
            // on that date (in either world, so a rule pending on a judgment
            // counts). The timeless rules are the same on both dates, so the
            // difference comes from these: from those for this literal or its
            // complement, or, when none of them applies, from the others,
            // through what they conclude (marked "upstream").
            let mut own = Vec::new();
            let mut upstream = Vec::new();
            for &(r, enters) in changed {
                let info = prog.catalog.rule(r);
                let store = &w.per[usize::from(enters)].store;
                let applies = prog.rules.iter().enumerate().any(|(pr, rule)| {
                    matches!(rule.meaning, Meaning::Applicable { rule, .. } | Meaning::Strict { rule, .. } if rule == r)
                        && !store_heads(prog, pr, store).is_empty()
                });
                if !applies {
                    continue;
                }
                let when = if enters {
                    format!("enters force on {d2}")
                } else {
                    format!("leaves force after {d1}")
                };
                if info.head.lit.pred == lit.pred {
                    own.push(format!("{} ({when})", info.local));
                } else {
                    upstream.push(format!("{} ({when}; upstream)", info.local));
                }
            }
            let by = if own.is_empty() { upstream } else { own };
            let q = lawgen_runtime::explain::Query { lit, args };
            let ground = show_ground(&prog.catalog, &q);
            let note = format!("{ground}: {va} as of {d1}, {vb} as of {d2}");
            let mut wit = w.finish(
                an,
                Vec::new(),
                vec![(0, q.clone()), (1, q)],
                vec![note],
                minimum,
            );
            // The explanations name the date they are on, not the package twice.
            let prefix = format!("in {} {}:\n", prog.package, prog.version);
            for (e, d) in wit.explanations.iter_mut().zip([d1, d2]) {
                if let Some(rest) = e.strip_prefix(&prefix) {
                    *e = format!("as of {d}:\n{rest}");
                }
            }
            rows.push(Row {
                lit: name,
                outcome: Outcome::Witness(Box::new(wit)),
                differs: Some((ground, va, vb, by)),
            });
        }
    }
    Ok(rows)
}
