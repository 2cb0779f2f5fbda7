//! The lints of dated law (docs/reference.md#as-of-evaluation): editions and
//! what is anchored to them.

use super::Cx;
use crate::diagnostics::{Code, Diagnostics};
use crate::model::{Model, Rule};
use crate::program::local_name;
use lawgen_runtime::law::{Date, Law};
use std::collections::BTreeSet;

/// The works of the editions a rule is anchored to (dated or not).
fn works_of(m: &Model, r: &Rule) -> BTreeSet<usize> {
    r.anchors
        .iter()
        .filter_map(|f| m.fragments.get(f.0 as usize)?.edition)
        .filter_map(|e| m.editions[e].work)
        .collect()
}

/// The dated editions (indices into `law.editions`) a rule is anchored to.
fn dated_of(m: &Model, law: &Law, r: &Rule) -> Vec<u32> {
    r.anchors
        .iter()
        .filter_map(|f| m.fragments.get(f.0 as usize)?.edition)
        .filter_map(|e| {
            let id = &m.editions[e].id;
            law.editions.iter().position(|x| &x.id == id)
        })
        .map(|i| i as u32)
        .collect()
}

/// W009. An edition that is in force on no day.
///
/// Condition: a dated edition with no period in force: it is repealed on or
/// before the day it enters into force. Why: every rule anchored to it
/// only to that edition is dead law; the dates are most likely mistyped.
pub(super) fn edition_never_in_force(cx: &Cx, out: &mut Diagnostics) {
    let law = &cx.loaded.catalog.law;
    for (e, ed) in law.editions.iter().enumerate() {
        if law.periods(ed.work).iter().any(|p| p.edition == e as u32) {
            continue;
        }
        out.error(
            Code::EditionNeverInForce,
            cx.node(&ed.id),
            format!(
                "edition `{}` is in force on no day: it is repealed on or before the day it enters into force",
                ed.local
            ),
            "correct its `in_force` or `repealed` date, or delete the edition and what is anchored only to it",
        );
    }
}

/// W010. A rule anchored to editions of two different works.
///
/// Condition: the editions of a rule's anchors belong to two or more works.
/// Why: a rule states one provision of one law; anchored to two laws it is
/// in force whenever either is, which is rarely what either text says.
pub(super) fn rule_of_two_works(cx: &Cx, out: &mut Diagnostics) {
    for r in &cx.m.rules {
        let works = works_of(cx.m, r);
        if works.len() < 2 {
            continue;
        }
        let names: Vec<String> = works
            .iter()
            .map(|&w| format!("`{}`", cx.m.works[w].local))
            .collect();
        out.error(
            Code::RuleOfTwoWorks,
            cx.node(&r.id),
            format!(
                "rule `{}` is anchored to editions of {} works ({}): it is in force whenever any of them is",
                r.local,
                names.len(),
                names.join(", ")
            ),
            "anchor a rule to the articles of one work; state the other law's provision as a rule of its own",
        );
    }
}

/// W011. A priority whose two rules are never in force on the same day.
///
/// Condition: both rules are dated, and on no day on which the dated law
/// changes (every other day is like the last such day before it) are both
/// in force. Why: the priority can never decide a conflict.
pub(super) fn priority_never_together(cx: &Cx, out: &mut Diagnostics) {
    let law = &cx.loaded.catalog.law;
    if !law.is_dated() {
        return;
    }
    let days: BTreeSet<Date> = law
        .editions
        .iter()
        .flat_map(|e| e.in_force.iter().chain(&e.repealed).copied())
        .collect();
    let in_force = |eds: &[u32], d: Date| eds.iter().any(|&e| law.in_force_since(e, d).is_some());
    for p in &cx.m.priorities {
        let (hi, lo) = (cx.m.rule(p.higher), cx.m.rule(p.lower));
        let (a, b) = (dated_of(cx.m, law, hi), dated_of(cx.m, law, lo));
        if a.is_empty() || b.is_empty() {
            continue;
        }
        if days.iter().any(|&d| in_force(&a, d) && in_force(&b, d)) {
            continue;
        }
        out.error(
            Code::PriorityNeverTogether,
            cx.node(&p.id),
            format!(
                "`{}` ranks `{}` over `{}`, but the two are never in force on the same day: the priority decides nothing",
                local_name(&p.id),
                hi.local,
                lo.local
            ),
            "anchor the priority's rules to editions in force together, or drop the priority",
        );
    }
}
