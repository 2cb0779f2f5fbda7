//! Explanations: why a ground literal holds, is contested, pending, or not
//! concluded, as a tree an arbiter can read (rule, label, anchor with the
//! cited article text, sub-conclusions, facts, closure policies, attackers
//! and how they lost, judgment requests, and for what does not hold, each
//! rule's first failing body item with the values that failed).
//!
//! An explanation is a *reading* of one evaluation of the full lowered
//! program by the reference evaluator ([`crate::interp`]): the relations of
//! the defeasible overlay already hold every step of every proof
//! (applicability per rule, level and world; `ok` per attacker; `+Δ/+∂/+Σ`
//! per literal and world; closure negatives; undecided atoms; requests), and
//! each program rule says what it stands for ([`crate::program::Meaning`]).
//! The explainer finds which rule derived each tuple and matches rule bodies
//! against the stored rows; it decides no policy, defeat or world of its own,
//! so it cannot disagree with the evaluation it reads.
//!
//! - [`query`]: `game_drawn(g1)` → [`Query`];
//! - [`coverage`]: what happened to every rule, priority and judgment in
//!   one evaluation (`lawgen test --coverage`);
//! - `proof`: the search over the relations;
//! - [`tree`]: the tree type;
//! - `render`, `words`: text and JSON, in English or Russian.

pub mod coverage;
mod proof;
pub mod query;
mod quote;
mod render;
pub mod tree;
mod words;

pub use proof::{fmt_value, MAX_DEPTH};
pub use query::{parse_query, Query};
pub use quote::{anchor_quote, cited_paragraph};
pub use tree::*;

use crate::interp::Store;
use crate::program::{Level, Program, RelationKind, Section, World};
use crate::{Policy, Verdict};
use std::collections::BTreeSet;

/// Explains `q` against `store`, an evaluation of `prog` (unfolded by no
/// engine) under `policy`. `lang` picks labels, article texts and lawgen's
/// own words (`en`, `ru`; others get English words).
pub fn explain(
    prog: &Program,
    store: &Store,
    policy: Policy,
    q: &Query,
    lang: &str,
) -> Explanation {
    let p = proof::Prover::new(prog, store, policy, lang);
    let cat = &prog.catalog;
    let t = p.encode(&q.args);
    let l = q.lit;
    let judgment = cat.pred(l.pred).kind == RelationKind::Judgment;
    let undecided = judgment && p.is_undecided_atom(l.pred, &t);
    // The verdict the typed API gives; the tree then shows why.
    let verdict = p.verdict(l, &t);
    let tree = match verdict.section() {
        Some(Section::Definitely) => vec![p.derive(l, &t, Level::Definite, World::Certain, 0)],
        Some(Section::Defeasibly) => vec![p.derive(l, &t, Level::Defeasible, World::Certain, 0)],
        // How it holds in the possible model, and what keeps it from the
        // certain one (an item or an attacker that hangs on a judgment).
        Some(Section::Pending) => vec![
            p.derive(l, &t, Level::Defeasible, World::Possible, 0),
            p.why_not_established(l, &t),
        ],
        Some(Section::Supported) => vec![
            p.derive(l, &t, Level::Supported, World::Certain, 0),
            p.why_not_established(l, &t),
        ],
        // An undecided judgment atom is in no section; it waits on its authority.
        None if undecided => vec![p.judgment_node(l.pred, &t)],
        None => p.why_not(l, &t, 1),
    };
    finish(&p, prog, q, verdict, undecided, tree, lang)
}

fn finish(
    p: &proof::Prover<'_>,
    prog: &Program,
    q: &Query,
    verdict: Verdict,
    undecided: bool,
    tree: Vec<Node>,
    lang: &str,
) -> Explanation {
    let literal = Atom {
        lit: q.lit,
        name: prog.catalog.lit_name(q.lit),
        args: q.args.iter().cloned().map(Some).collect(),
    };
    // The requests the tree cites: its undecided judgment atoms, by
    // judgment and values (either sign asks the same question).
    let mut atoms = BTreeSet::new();
    for n in tree.iter().flat_map(Node::walk) {
        if let (NodeKind::Judgment { .. }, Some(a)) = (&n.kind, &n.literal) {
            atoms.insert((a.lit.pred, &a.args));
        }
    }
    if undecided {
        atoms.insert((literal.lit.pred, &literal.args));
    }
    let requests: Vec<_> = p
        .requests()
        .into_iter()
        .filter(|(_, a)| atoms.contains(&(a.lit.pred, &a.args)))
        .map(|(r, _)| r)
        .collect();
    let verdict = match verdict {
        Verdict::Pending(_) => Verdict::Pending(requests.clone()),
        v => v,
    };
    Explanation {
        literal,
        verdict,
        undecided,
        policy: p.policy,
        tree,
        requests,
        lang: lang.to_owned(),
    }
}

#[cfg(test)]
mod tests;
