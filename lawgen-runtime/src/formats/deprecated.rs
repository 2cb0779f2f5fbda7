//! Facts of deprecated inputs (docs/reference.md#deprecated-inputs): a
//! package may say that an input predicate is deprecated, or that its facts
//! mean what the package says only in a file holding one entity of a type
//! (one game). Whoever reads a facts file for a program asks [`check`]
//! which facts are such, and prints the warnings, or refuses the file.

use crate::diagnostics::{Code, Diagnostics, Location};
use crate::interp::Facts;
use crate::program::{Catalog, DeprecationInfo, Ty};
use std::collections::BTreeSet;

/// At most this many entities are named in a message.
const NAMED: usize = 3;

/// The diagnostics about `facts` that the deprecations of `model` call for:
/// one per deprecated predicate the file states (`W012`), and one per
/// one-per-file predicate the file states while holding several entities of
/// the type (`W013`). With `deny`, each is an error instead (`E134`): the
/// caller refuses the file. Empty when the file states no such fact.
pub fn check(model: &Catalog, facts: &Facts, deny: bool) -> Diagnostics {
    let mut out = Diagnostics::new();
    for d in &model.deprecations {
        let stated = facts
            .rows
            .iter()
            .any(|(lit, rows)| lit.pred == d.pred && !rows.is_empty());
        if !stated {
            continue;
        }
        let p = model.pred(d.pred);
        let name = display_name(model, d.pred.0 as usize);
        let instead = d
            .replaced_by
            .iter()
            .map(|q| format!("`{}`", display_name(model, q.0 as usize)))
            .collect::<Vec<_>>()
            .join(", ");
        let at = Location::new(Some(&p.local), format!("/facts/{name}"));
        let (code, message, help) = match d.one_per {
            None => (
                Code::FactsDeprecated,
                format!("`{name}` is deprecated by {}", package(model, d)),
                format!("state {instead} instead"),
            ),
            Some(t) => {
                let held = entities_of(facts, model, t);
                if held.len() <= 1 {
                    continue;
                }
                let ty = &model.types[t.0 as usize].name;
                let mut shown: Vec<&str> = held.iter().take(NAMED).map(String::as_str).collect();
                if held.len() > NAMED {
                    shown.push("…");
                }
                (
                    Code::FactsOnePerFile,
                    format!(
                        "`{name}` is valid for one {ty} per file ({}), but this file holds {} ({}): a fact of it would hold in every {ty}",
                        package(model, d),
                        held.len(),
                        shown.join(", ")
                    ),
                    format!("state {instead} instead, which names the {ty}"),
                )
            }
        };
        if deny {
            out.error(
                Code::FactsDeprecatedRefused,
                at,
                format!("{message} (refused under `--deny-deprecated`)"),
                help,
            );
        } else {
            out.error(code, at, message, help);
        }
    }
    out.sort();
    out
}

/// The name facts files use: the local name, or the full id where packages
/// of the closure share it.
fn display_name(model: &Catalog, p: usize) -> String {
    let info = &model.preds[p];
    if model.ambiguous_pred(&info.local).is_some() {
        info.id.clone()
    } else {
        info.local.clone()
    }
}

fn package(model: &Catalog, d: &DeprecationInfo) -> String {
    model
        .packages
        .get(d.package as usize)
        .cloned()
        .unwrap_or_else(|| model.namespace.clone())
}

/// The entities of type `t` the facts name, in any column or under `entities`.
fn entities_of(facts: &Facts, model: &Catalog, t: crate::program::TypeId) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = facts.entities.get(&t).cloned().unwrap_or_default();
    for (lit, rows) in &facts.rows {
        let params = &model.pred(lit.pred).params;
        for (j, ty) in params.iter().enumerate() {
            if *ty != Ty::Entity(t) {
                continue;
            }
            for r in rows {
                if let Some(crate::program::Value::Entity(e)) = r.get(j) {
                    out.insert(e.clone());
                }
            }
        }
    }
    out
}
