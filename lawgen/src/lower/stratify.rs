//! Program-level stratification: rules grouped so that every negated relation
//! is complete in an earlier group. The package-level check (§4.7) guarantees
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
    let comp = tarjan(n, &out);
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

/// Iterative Tarjan; components numbered in reverse topological order.
fn tarjan(n: usize, out: &[Vec<(usize, bool)>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let (mut index, mut low) = (vec![NONE; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut comp) = (Vec::new(), vec![NONE; n]);
    let (mut next_index, mut next_comp) = (0, 0);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut call = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if let Some(&(w, _)) = out[v].get(*i) {
                *i += 1;
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}
