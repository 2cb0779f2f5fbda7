//! Pass 4: range restriction, and rule heads are institutional.
//!
//! A variable is bound when it occurs in a status item (of either polarity:
//! `~p(X)` is an explicit-negation literal, a positive occurrence for
//! binding). Head and comparison variables must be bound. A variable of a
//! `not` item that occurs nowhere else in the rule is existential (docs/reference.md#bodies-and-items);
//! one that does occur elsewhere must be bound by a status item.

use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{Item, Model, Term, Var};
use crate::program::RelationKind;
use crate::syntax::{self, NodeKind, Package};
use std::collections::HashSet;

pub(super) fn check(pkg: &Package, model: &Model, diags: &mut Diagnostics) {
    // Syntax nodes by id, for pointers into the rule. Reversed so that, as in
    // `types`, the first of two nodes with one id wins (the reader refuses
    // duplicates, but a hand-built `Package` may have them).
    let syn: std::collections::HashMap<&str, (&syntax::Node, &syntax::Rule)> = pkg
        .nodes
        .iter()
        .rev()
        .filter_map(|n| match &n.kind {
            NodeKind::Rule(r) => Some((n.id.as_str(), (n, r))),
            _ => None,
        })
        .collect();
    for rule in &model.rules {
        let Some(&(node, srule)) = syn.get(rule.id.as_str()) else {
            continue;
        };
        let at = |ptr: &str| Location::new(Some(&node.id), ptr);
        let head = model.pred(rule.head.pred);
        if head.kind != RelationKind::Institutional {
            let kind = match head.kind {
                RelationKind::Empirical => "an empirical",
                RelationKind::Judgment => "a judgment",
                RelationKind::Institutional => unreachable!(),
            };
            diags.error(
                Code::HeadNotInstitutional,
                at(&srule.head.predicate.ptr),
                format!("rule concludes `{}`, {kind} predicate", head.local),
                match head.kind {
                    RelationKind::Judgment => "judgments are decided by their authority, not derived: conclude an institutional predicate instead".to_owned(),
                    _ => format!("empirical predicates are input facts; declare `{}` institutional if rules derive it", head.local),
                },
            );
        }
        let bound: HashSet<Var> = rule
            .body
            .iter()
            .filter_map(|i| match i {
                Item::Status { atom, .. } => Some(atom.args.iter()),
                _ => None,
            })
            .flatten()
            .filter_map(Term::var)
            .collect();
        let name = |v: Var| rule.vars[v.0 as usize].0.clone();
        let mut reported = HashSet::new();
        for (i, t) in rule.head.args.iter().enumerate() {
            if let Some(v) = t.var() {
                if !bound.contains(&v) && reported.insert(v) {
                    diags.error(
                        Code::UnboundHeadVariable,
                        at(&srule.head.args[i].ptr),
                        format!("head variable `{}` is not bound by the body", name(v)),
                        format!("add a body literal that mentions `{}`, so every conclusion is about known entities", name(v)),
                    );
                }
            }
        }
        // Occurrences of each variable outside each `not` item.
        for (idx, item) in rule.body.iter().enumerate() {
            let sitem = &srule.body[idx];
            match item {
                Item::Compare { left, right, .. } => {
                    for t in [left, right] {
                        if let Some(v) = t.var() {
                            if !bound.contains(&v) {
                                diags.error(
                                    Code::UnboundComparisonVariable,
                                    at(sitem.ptr()),
                                    format!(
                                        "comparison variable `{}` is not bound by a body literal",
                                        name(v)
                                    ),
                                    format!(
                                        "add a body literal that binds `{}` before comparing it",
                                        name(v)
                                    ),
                                );
                            }
                        }
                    }
                }
                Item::Not { atom, .. } => {
                    let elsewhere: HashSet<Var> = rule
                        .body
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != idx)
                        .flat_map(|(_, i)| i.vars())
                        .chain(rule.head.args.iter().filter_map(Term::var))
                        .collect();
                    for v in atom.args.iter().filter_map(Term::var) {
                        if elsewhere.contains(&v) && !bound.contains(&v) {
                            diags.error(
                                Code::UnboundNegatedVariable,
                                at(sitem.ptr()),
                                format!("variable `{}` of a `not` item is used elsewhere in the rule but bound by no literal", name(v)),
                                format!("bind `{}` with a status item, or use it only inside this `not` item (then it means \"for no value\")", name(v)),
                            );
                        }
                    }
                }
                Item::Status { .. } => {}
            }
        }
    }
}
