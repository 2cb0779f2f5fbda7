//! Pass 6: closures are over empirical predicates, with a domain of the same column types.

use super::names::Scope;
use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{Closure, Model};
use crate::program::RelationKind;
use crate::syntax::{pick_label, NodeKind, Package};

pub(super) fn check(pkg: &Package, scope: &Scope, model: &mut Model, diags: &mut Diagnostics) {
    for n in &pkg.nodes {
        let NodeKind::Closure(c) = &n.kind else {
            continue;
        };
        let p = scope.pred(&c.predicate, &n.id, diags);
        let d = scope.pred(&c.domain, &n.id, diags);
        let (Some(p), Some(d)) = (p, d) else { continue };
        let (pd, dd) = (model.pred(p), model.pred(d));
        if pd.kind != RelationKind::Empirical {
            diags.error(
                Code::ClosureNotEmpirical,
                Location::new(Some(&n.id), &c.predicate.ptr),
                format!(
                    "closure over `{}`, which is {}",
                    pd.local,
                    match pd.kind {
                        RelationKind::Institutional => "institutional (derived by rules)",
                        _ => "a judgment (decided by an authority)",
                    }
                ),
                "a closed-world list completes input facts only: close an empirical predicate",
            );
            continue;
        }
        if pd.params != dd.params {
            let show = |ps: &[crate::program::Ty]| {
                ps.iter()
                    .map(|t| model.type_name(*t))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            diags.error(
                Code::ClosureDomainType,
                Location::new(Some(&n.id), &c.domain.ptr),
                format!(
                    "closure domain `{}` has columns ({}), but `{}` has ({})",
                    dd.local,
                    show(&dd.params),
                    pd.local,
                    show(&pd.params)
                ),
                "the domain lists the tuples the closed list is complete for: give it the same column types",
            );
            continue;
        }
        model.closures.push(Closure {
            id: n.id.clone(),
            pred: p,
            domain: d,
            derive_negative: c.derive_negative,
            snapshot: c.snapshot.clone(),
            complete_as_of: c.complete_as_of.clone(),
            label: pick_label(&n.labels).map(str::to_owned),
            labels: n.labels.clone(),
        });
    }
}
