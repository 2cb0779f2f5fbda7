//! Program-level stratification: rules grouped so that every negated relation
//! is complete in an earlier group. The package-level check (docs/reference.md#stratification) guarantees
//! one exists; this recomputes it for the finer program relations and turns a
//! violation into an [`InternalError`] instead of a wrong answer.

use super::InternalError;
use crate::program::{Item, Program};

pub(super) fn stratify(prog: &Program) -> Result<Vec<Vec<usize>>, InternalError> {
    let n = prog.relations.len();
    // Edges body relation → head relation, flagged when negated.
    let mut out: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for r in &prog.rules {
        let h = r.head.rel.0 as usize;
        for it in &r.body {
            match it {
                Item::Pos(a) => out[a.rel.0 as usize].push((h, false)),
                Item::Neg(a) => out[a.rel.0 as usize].push((h, true)),
                Item::Cmp(..) => {}
            }
        }
    }
    let succ: Vec<Vec<usize>> = out
        .iter()
        .map(|e| e.iter().map(|&(to, _)| to).collect())
        .collect();
    let comp = crate::scc::components(&succ);
    for (from, edges) in out.iter().enumerate() {
        for &(to, neg) in edges {
            if neg && comp[from] == comp[to] {
                return Err(InternalError(format!(
                    "relation `{}` is negated inside its own recursive component (through `{}`)",
                    prog.relations[from].name, prog.relations[to].name
                )));
            }
        }
    }
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (v, c) in comp.iter().enumerate() {
        members[*c].push(v);
    }
    // Components are numbered in reverse topological order.
    let mut level = vec![0usize; ncomp];
    for c in (0..ncomp).rev() {
        for &v in &members[c] {
            for &(to, neg) in &out[v] {
                let tc = comp[to];
                if tc != c {
                    level[tc] = level[tc].max(level[c] + usize::from(neg));
                }
            }
        }
    }
    let max = level.iter().copied().max().unwrap_or(0);
    let mut strata = vec![Vec::new(); max + 1];
    for (i, r) in prog.rules.iter().enumerate() {
        strata[level[comp[r.head.rel.0 as usize]]].push(i);
    }
    strata.retain(|s| !s.is_empty());
    Ok(strata)
}
