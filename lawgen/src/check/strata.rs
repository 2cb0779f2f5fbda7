//! Pass 9: the predicate dependency graph and its stratification (docs/reference.md#stratification).
//!
//! Edges run from a body predicate to the head predicate (and from a closure
//! domain to the closed predicate). An edge is *non-monotonic* when the rule's
//! head literal has a complement with a strict or defeasible rule (the rule
//! takes part in a conflict, so its body is read through "is not +Δ" /
//! "is discarded") or when the body item is a `not`. Non-monotonic edges must
//! go strictly up a stratum; all others may stay within one (recursion).
//! Each predicate's stratum is the longest path to it counting only
//! non-monotonic edges, so inputs and everything computed positively from
//! them share stratum 0.

use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{Item, Model, RuleId};
use crate::program::PredId;
use std::collections::VecDeque;

/// How a body predicate feeds a head predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// `established p(..)` / `supported p(..)`.
    Positive,
    /// The body literal is the explicit negation `~p(..)`.
    ExplicitNegative,
    /// A `not` item (negation as failure).
    NotItem,
    /// A closure domain completing a closed list.
    Closure,
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub from: PredId,
    pub to: PredId,
    pub kind: EdgeKind,
    /// The rule concludes `~to` (it attacks `to`).
    pub attack: bool,
    /// Must go strictly up a stratum.
    pub non_monotonic: bool,
    /// The rule that makes this edge (`None` for closures).
    pub rule: Option<RuleId>,
}

/// Every dependency edge of the model, in rule order.
pub fn dependency_edges(model: &Model) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (ri, r) in model.rules.iter().enumerate() {
        let contested = model.has_concluding_rule(r.head.lit().complement());
        for item in &r.body {
            let (atom, kind, naf) = match item {
                Item::Status { atom, .. } => (
                    atom,
                    if atom.negative {
                        EdgeKind::ExplicitNegative
                    } else {
                        EdgeKind::Positive
                    },
                    false,
                ),
                Item::Not { atom, .. } => (atom, EdgeKind::NotItem, true),
                Item::Compare { .. } => continue,
            };
            edges.push(Edge {
                from: atom.pred,
                to: r.head.pred,
                kind,
                attack: r.head.negative,
                non_monotonic: contested || naf,
                rule: Some(RuleId(ri as u32)),
            });
        }
    }
    for c in &model.closures {
        edges.push(Edge {
            from: c.domain,
            to: c.pred,
            kind: EdgeKind::Closure,
            attack: false,
            non_monotonic: false,
            rule: None,
        });
    }
    edges
}

/// Computes `model.strata` and each predicate's stratum, or reports a cycle
/// through a non-monotonic edge, spelled out predicate by predicate.
pub(super) fn stratify(model: &mut Model, diags: &mut Diagnostics) {
    let n = model.preds.len();
    let edges = dependency_edges(model);
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        out[e.from.0 as usize].push(i);
    }
    let succ: Vec<Vec<usize>> = out
        .iter()
        .map(|es| es.iter().map(|&ei| edges[ei].to.0 as usize).collect())
        .collect();
    let comp = crate::scc::components(&succ);
    let mut bad = false;
    let mut reported = std::collections::HashSet::new();
    for e in &edges {
        let (f, t) = (e.from.0 as usize, e.to.0 as usize);
        if e.non_monotonic && comp[f] == comp[t] && reported.insert(comp[f]) {
            bad = true;
            report_cycle(model, &edges, &out, e, diags);
        }
    }
    if bad {
        return;
    }
    // Longest path in the condensation, weights 1 on non-monotonic edges.
    // Bellman-Ford style relaxation in topological order of components:
    // Tarjan numbers components in reverse topological order.
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (p, c) in comp.iter().enumerate() {
        members[*c].push(p);
    }
    let mut level = vec![0usize; ncomp];
    for c in (0..ncomp).rev() {
        for &p in &members[c] {
            for &ei in &out[p] {
                let e = &edges[ei];
                let tc = comp[e.to.0 as usize];
                if tc != c {
                    let w = usize::from(e.non_monotonic);
                    level[tc] = level[tc].max(level[c] + w);
                }
            }
        }
    }
    let max = level.iter().copied().max().unwrap_or(0);
    model.strata = vec![Vec::new(); if n == 0 { 0 } else { max + 1 }];
    for p in 0..n {
        let s = level[comp[p]];
        model.preds[p].stratum = s;
        model.strata[s].push(PredId(p as u32));
    }
}

fn report_cycle(
    model: &Model,
    edges: &[Edge],
    out: &[Vec<usize>],
    e: &Edge,
    diags: &mut Diagnostics,
) {
    // Shortest path back from the head to the body predicate closes the cycle.
    let (start, goal) = (e.to.0 as usize, e.from.0 as usize);
    let mut prev: Vec<Option<usize>> = vec![None; model.preds.len()];
    let mut seen = vec![false; model.preds.len()];
    let mut q = VecDeque::from([start]);
    seen[start] = true;
    while let Some(v) = q.pop_front() {
        if v == goal {
            break;
        }
        for &ei in &out[v] {
            let w = edges[ei].to.0 as usize;
            if !seen[w] {
                seen[w] = true;
                prev[w] = Some(ei);
                q.push_back(w);
            }
        }
    }
    let mut path = Vec::new();
    let mut v = goal;
    while v != start {
        let Some(ei) = prev[v] else { break };
        path.push(ei);
        v = edges[ei].from.0 as usize;
    }
    path.reverse();
    let step = |edge: &Edge| {
        let how = match (edge.rule, edge.non_monotonic) {
            (Some(r), true) => format!(" (non-monotonic, rule `{}`)", model.rule(r).local),
            (Some(r), false) => format!(" (rule `{}`)", model.rule(r).local),
            (None, _) => " (closure)".to_owned(),
        };
        format!(
            "`{}` → `{}`{how}",
            model.pred(edge.from).local,
            model.pred(edge.to).local
        )
    };
    let mut steps = vec![step(e)];
    steps.extend(path.iter().map(|&ei| step(&edges[ei])));
    let rule = e.rule.map(|r| model.rule(r));
    let why = match &edges.iter().find(|x| std::ptr::eq(*x, e)).map(|x| x.kind) {
        Some(EdgeKind::NotItem) => "a `not` item must read a predicate of a strictly lower stratum; break the cycle by removing one of these dependencies",
        _ => "a rule in a conflict (its head's complement has a strict or defeasible rule) must read predicates of strictly lower strata; break the cycle by removing one of these dependencies, or make the conflict go away",
    };
    diags.error(
        Code::Unstratifiable,
        Location::new(
            rule.map(|r| r.id.as_str()),
            rule.map_or("", |r| r.ptr.as_str()),
        ),
        format!("the program cannot be stratified: {}", steps.join(", ")),
        why,
    );
}
