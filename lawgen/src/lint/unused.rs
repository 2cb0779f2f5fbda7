//! W004 (a declaration nothing uses) and W007 (a judgment no rule reads).

use super::Cx;
use crate::diagnostics::{Code, Diagnostics};
use crate::model::Item;
use crate::program::RelationKind;
use crate::syntax::NodeKind;
use std::collections::HashSet;

/// Predicates some rule body reads (status or `not` items, either polarity).
fn read_by_rules(cx: &Cx) -> HashSet<u32> {
    let mut read = HashSet::new();
    for r in &cx.m.rules {
        for i in &r.body {
            if let Item::Status { atom, .. } | Item::Not { atom, .. } = i {
                read.insert(atom.pred.0);
            }
        }
    }
    read
}

/// W004. Condition: an entity type, a constant or an empirical predicate
/// whose id no other node of the package mentions (in any field: rules,
/// parameters, closures, externals, provenance), or an empirical predicate
/// that no rule reads and no closure takes as its domain. Why: a fact of an
/// unread predicate changes no conclusion, and a type or constant nothing
/// mentions is left over from an edit. Institutional predicates are the
/// package's outputs and are never reported; judgments are W007.
pub(super) fn unused_declarations(cx: &Cx, out: &mut Diagnostics) {
    let mentioned = crate::syntax::canon::mentioned_elsewhere(cx.loaded.source.as_bytes());
    let read = read_by_rules(cx);
    let domains: HashSet<u32> = cx.m.closures.iter().map(|c| c.domain.0).collect();
    for n in &cx.loaded.package.nodes {
        let (what, name) = match &n.kind {
            NodeKind::TypeDecl { name } => ("the type", name.clone()),
            NodeKind::Constant { name, .. } => ("the constant", name.clone()),
            NodeKind::Relation(r) if r.relation_kind == RelationKind::Empirical => {
                let Some(p) = cx.m.pred_by_name(&n.id) else {
                    continue;
                };
                if read.contains(&p.0) || domains.contains(&p.0) {
                    continue;
                }
                out.error(
                    Code::UnusedDeclaration,
                    cx.node(&n.id),
                    format!(
                        "no rule reads the empirical predicate `{}` and no closure is over it: its facts change nothing",
                        r.name
                    ),
                    "use it in a rule body, or remove the declaration",
                );
                continue;
            }
            _ => continue,
        };
        if !mentioned.contains(&n.id) {
            out.error(
                Code::UnusedDeclaration,
                cx.node(&n.id),
                format!("{what} `{name}` is declared but nothing uses it"),
                "use it, or remove the declaration",
            );
        }
    }
}

/// W007. Condition: a judgment predicate that no rule body reads (its
/// `external_decl` does not count). Why: judgments are requested only when
/// they occur in a rule (docs/reference.md#undecided-judgments), so nobody is ever asked to decide it,
/// and a decision given in the facts changes no conclusion.
pub(super) fn judgments_never_read(cx: &Cx, out: &mut Diagnostics) {
    let read = read_by_rules(cx);
    for (i, p) in cx.m.preds.iter().enumerate() {
        if p.kind != RelationKind::Judgment || read.contains(&(i as u32)) {
            continue;
        }
        out.error(
            Code::JudgmentNeverRead,
            cx.node(&p.id),
            format!(
                "no rule reads the judgment `{}`: it is never requested, and its decision changes nothing",
                p.local
            ),
            "use it in the rule whose outcome the authority decides, or remove it and its external_decl",
        );
    }
}
