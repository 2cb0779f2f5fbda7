//! Pass 7: every judgment predicate has exactly one `external_decl` naming who decides it.

use super::names::Scope;
use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{External, Model};
use crate::program::local_name;
use crate::program::RelationKind;
use crate::syntax::{NodeKind, Package};

pub(super) fn check(pkg: &Package, scope: &Scope, model: &mut Model, diags: &mut Diagnostics) {
    for n in &pkg.nodes {
        let NodeKind::External {
            symbol,
            authority,
            capability,
        } = &n.kind
        else {
            continue;
        };
        let Some(p) = scope.pred(symbol, &n.id, diags) else {
            continue;
        };
        let pred = &mut model.preds[p.0 as usize];
        if pred.kind != RelationKind::Judgment {
            diags.error(
                Code::BadExternal,
                Location::new(Some(&n.id), &symbol.ptr),
                format!("external_decl for `{}`, which is not a judgment predicate", pred.local),
                format!("declare `{}` with `\"relationKind\": \"judgment\"`, or drop this external_decl", pred.local),
            );
            continue;
        }
        if let Some(first) = &pred.external {
            diags.error(
                Code::BadExternal,
                Location::new(Some(&n.id), &n.ptr),
                format!(
                    "second external_decl for `{}` (the first is `{}`)",
                    pred.local, first.id
                ),
                "a judgment has one deciding authority: keep one external_decl",
            );
            continue;
        }
        pred.external = Some(External {
            id: n.id.clone(),
            authority: local_name(authority).to_owned(),
            capability: capability.clone(),
        });
    }
    for p in &model.preds {
        if p.kind == RelationKind::Judgment && p.external.is_none() {
            diags.error(
                Code::JudgmentWithoutExternal,
                Location::new(Some(&p.id), &p.ptr),
                format!("judgment predicate `{}` has no external_decl", p.local),
                format!(
                    "add an external_decl with `\"symbol\": \"{}\"`, the deciding authority and its capability",
                    p.id
                ),
            );
        }
    }
}
