//! Pass 5: priorities relate conflicting rules, and `>` has no cycle.

use super::names::Scope;
use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{Model, Priority, RuleId};
use crate::syntax::{pick_label, NodeKind, Package};

pub(super) fn check(pkg: &Package, scope: &Scope, model: &mut Model, diags: &mut Diagnostics) {
    let frag_at: std::collections::HashMap<String, u32> = model
        .fragments
        .iter()
        .enumerate()
        .map(|(i, f)| (f.id.clone(), i as u32))
        .collect();
    for n in &pkg.nodes {
        let NodeKind::Priority {
            higher,
            lower,
            reason,
            anchors,
        } = &n.kind
        else {
            continue;
        };
        // A priority naming a rule a derogation set aside goes with it.
        let mut by: Vec<usize> = [higher, lower]
            .into_iter()
            .filter_map(|r| scope.set_aside.get(&r.id))
            .flat_map(|&k| model.set_aside[k].by.iter().copied())
            .collect();
        if !by.is_empty() {
            by.sort_unstable();
            by.dedup();
            for d in by {
                model.derogations[d].priorities.push(n.id.clone());
            }
            continue;
        }
        let h = scope.rule(higher, &n.id, diags);
        let l = scope.rule(lower, &n.id, diags);
        let (Some(h), Some(l)) = (h, l) else { continue };
        let (hr, lr) = (model.rule(h), model.rule(l));
        if hr.head.pred != lr.head.pred || hr.head.negative == lr.head.negative {
            diags.error(
                Code::PriorityNoConflict,
                Location::new(Some(&n.id), &n.ptr),
                format!(
                    "priority between `{}` (concludes {}) and `{}` (concludes {}), whose heads do not conflict",
                    hr.local,
                    model.lit_name(hr.head.lit()),
                    lr.local,
                    model.lit_name(lr.head.lit())
                ),
                "a priority decides between a rule for q and a rule for ~q; relate two such rules, or drop it",
            );
            continue;
        }
        model.priorities.push(Priority {
            id: n.id.clone(),
            higher: h,
            lower: l,
            anchors: anchors
                .iter()
                .filter_map(|a| frag_at.get(&a.id))
                .map(|&i| crate::model::FragId(i))
                .collect(),
            reason: reason.clone(),
            label: pick_label(&n.labels).map(str::to_owned),
            labels: n.labels.clone(),
        });
    }
    if let Some(cycle) = find_cycle(model) {
        let first = &model.priorities[cycle[0]];
        let node = pkg.nodes.iter().find(|n| n.id == first.id);
        let names: Vec<_> = cycle
            .iter()
            .map(|&i| model.rule(model.priorities[i].higher).local.clone())
            .chain(std::iter::once(model.rule(first.higher).local.clone()))
            .collect();
        diags.error(
            Code::PriorityCycle,
            Location::new(Some(&first.id), node.map_or("", |n| n.ptr.as_str())),
            format!("priority cycle: {}", names.join(" > ")),
            "remove one of these priority rules: a rule cannot beat a rule that (directly or through others) beats it",
        );
    }
}

/// A cycle in the `>` graph, as indices of the priority rules on it.
fn find_cycle(model: &Model) -> Option<Vec<usize>> {
    let n = model.rules.len();
    let mut out: Vec<Vec<(RuleId, usize)>> = vec![Vec::new(); n];
    for (i, p) in model.priorities.iter().enumerate() {
        out[p.higher.0 as usize].push((p.lower, i));
    }
    // Iterative DFS with colours; the stack holds (rule, edge via which we came).
    let mut colour = vec![0u8; n];
    for start in 0..n {
        if colour[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize, Option<usize>)> = vec![(start, 0, None)];
        colour[start] = 1;
        while let Some(&mut (v, ref mut next, _)) = stack.last_mut() {
            if let Some(&(w, edge)) = out[v].get(*next) {
                *next += 1;
                let w = w.0 as usize;
                match colour[w] {
                    0 => {
                        colour[w] = 1;
                        stack.push((w, 0, Some(edge)));
                    }
                    1 => {
                        // Back edge: the cycle is the stack from w to v, plus this edge.
                        let pos = stack.iter().position(|(x, _, _)| *x == w).unwrap_or(0);
                        let mut cyc: Vec<usize> =
                            stack[pos + 1..].iter().filter_map(|(_, _, e)| *e).collect();
                        cyc.push(edge);
                        return Some(cyc);
                    }
                    _ => {}
                }
            } else {
                colour[v] = 2;
                stack.pop();
            }
        }
    }
    None
}
