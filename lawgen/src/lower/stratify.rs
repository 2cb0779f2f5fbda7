//! Program-level stratification: rules grouped so that every negated relation
//! is complete in an earlier group. The package-level check (docs/reference.md#stratification) guarantees
//! one exists; this recomputes it for the finer program relations and turns a
//! violation into an [`InternalError`] instead of a wrong answer.

use super::InternalError;
use crate::program::{EdgeOrder, Item, Program, RelId};

pub(super) fn stratify(prog: &Program) -> Result<Vec<Vec<usize>>, InternalError> {
    // The levels do not depend on how independent components are ordered.
    let graph = prog.rule_components(EdgeOrder::Rule);
    let components = graph.components();
    if let Some((ri, negated)) = components.iter().find_map(|c| c.negated) {
        return Err(InternalError(format!(
            "relation `{}` is negated inside its own recursive component (through `{}`)",
            prog.relations[negated.0 as usize].name,
            prog.relations[prog.rules[ri].head.rel.0 as usize].name
        )));
    }
    // A component's level: the most negations on a path into it. Components
    // come in dependency order, so every level a component reads is final.
    let of = |r: RelId| graph.component_of(r).expect("every relation is a node");
    let mut level = vec![0usize; components.len()];
    for (c, component) in components.iter().enumerate() {
        for &ri in &component.rules {
            for it in &prog.rules[ri].body {
                let (a, neg) = match it {
                    Item::Pos(a) => (a, false),
                    Item::Neg(a) => (a, true),
                    Item::Cmp(..) => continue,
                };
                let from = of(a.rel);
                if from != c {
                    level[c] = level[c].max(level[from] + usize::from(neg));
                }
            }
        }
    }
    let max = level.iter().copied().max().unwrap_or(0);
    let mut strata = vec![Vec::new(); max + 1];
    for (i, r) in prog.rules.iter().enumerate() {
        strata[level[of(r.head.rel)]].push(i);
    }
    strata.retain(|s| !s.is_empty());
    Ok(strata)
}
