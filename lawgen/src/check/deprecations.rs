//! Input deprecations (docs/reference.md#deprecated-inputs): each names an
//! input predicate of the closure (empirical or judgment), a validity this
//! version knows (`deprecated`, or `one_per_file` with the type of which a
//! facts file may hold one entity, an entity type), and at
//! least one replacement facts can state; one per predicate.

use super::names::Scope;
use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{InputDeprecation, Model};
use crate::program::RelationKind;
use crate::program::{local_name, Ty};
use crate::syntax::{NodeKind, Package};
use std::collections::HashMap;

pub(super) fn check(pkg: &Package, scope: &Scope, model: &mut Model, diags: &mut Diagnostics) {
    let mut seen: HashMap<u32, String> = HashMap::new();
    for n in &pkg.nodes {
        let NodeKind::InputDeprecation(d) = &n.kind else {
            continue;
        };
        let at = |ptr: &str| Location::new(Some(&n.id), ptr);
        let Some(p) = scope.pred(&d.predicate, &n.id, diags) else {
            continue;
        };
        let pd = model.pred(p).clone();
        let mut ok = true;
        if pd.kind == RelationKind::Institutional {
            diags.error(
                Code::DeprecationNotAnInput,
                at(&d.predicate.ptr),
                format!(
                    "`{}` is institutional (derived by rules): facts never state it, so there is nothing to deprecate",
                    pd.local
                ),
                "name an empirical or judgment predicate, the input facts files state",
            );
            ok = false;
        }
        let one_per = match (d.validity.id.as_str(), &d.per_type) {
            ("deprecated", None) => None,
            ("one_per_file", Some(t)) => match scope.ty(t, &n.id, diags) {
                Some(Ty::Entity(t)) => Some(t),
                Some(Ty::Int) => {
                    diags.error(
                        Code::DeprecationValidity,
                        at(&t.ptr),
                        "`perType` names Integer, not an entity type",
                        "name the entity type of which a facts file may hold one (e.g. the game)",
                    );
                    ok = false;
                    None
                }
                None => {
                    ok = false;
                    None
                }
            },
            ("deprecated", Some(t)) => {
                diags.error(
                    Code::DeprecationValidity,
                    at(&t.ptr),
                    "`perType` on a deprecation with validity `deprecated`",
                    "drop `perType`, or use validity `one_per_file`",
                );
                ok = false;
                None
            }
            ("one_per_file", None) => {
                diags.error(
                    Code::DeprecationValidity,
                    at(&d.validity.ptr),
                    "validity `one_per_file` without `perType`",
                    "add `perType`: the type of which a facts file may hold one entity",
                );
                ok = false;
                None
            }
            (other, _) => {
                diags.error(
                    Code::DeprecationValidity,
                    at(&d.validity.ptr),
                    format!("unknown validity `{other}`"),
                    "use `deprecated`, or `one_per_file` with `perType`",
                );
                ok = false;
                None
            }
        };
        if d.replaced_by.is_empty() {
            diags.error(
                Code::DeprecationReplacement,
                at(&crate::diagnostics::pointer_push(&n.ptr, "replacedBy")),
                format!("the deprecation of `{}` names no replacement", pd.local),
                "list in `replacedBy` the predicates facts should state instead",
            );
            ok = false;
        }
        let mut replaced_by = Vec::new();
        for r in &d.replaced_by {
            let Some(q) = scope.pred(r, &n.id, diags) else {
                ok = false;
                continue;
            };
            let qd = model.pred(q);
            if q == p || qd.kind == RelationKind::Institutional {
                diags.error(
                    Code::DeprecationReplacement,
                    at(&r.ptr),
                    if q == p {
                        format!("`{}` is named as its own replacement", qd.local)
                    } else {
                        format!(
                            "`{}` is institutional: facts cannot state it instead",
                            qd.local
                        )
                    },
                    "name an empirical or judgment predicate that states what the deprecated one meant",
                );
                ok = false;
                continue;
            }
            replaced_by.push(q);
        }
        if let Some(first) = seen.get(&p.0) {
            diags.error(
                Code::DeprecationDuplicate,
                at(&d.predicate.ptr),
                format!(
                    "`{}` is already deprecated by `{}`",
                    pd.local,
                    local_name(first)
                ),
                "keep one input deprecation per predicate",
            );
            continue;
        }
        seen.insert(p.0, n.id.clone());
        if !ok {
            continue;
        }
        model.deprecations.push(InputDeprecation {
            id: n.id.clone(),
            local: local_name(&n.id).to_owned(),
            pred: p,
            one_per,
            replaced_by,
            anchors: model.fragment_ids(d.anchors.iter().map(|a| a.id.as_str())),
            labels: n.labels.clone(),
        });
    }
}
