//! Validation (docs/reference.md#validation): the surface tree in, a [`Model`] out.
//!
//! Passes run in a fixed order, each collecting all of its errors:
//!
//! 1. `names`     — every id resolves to a node of the right kind; builds the declarations.
//!    `editions`  — lifecycle dates and statuses, one edition of a work per
//!    day, no undated edition beside dated ones; each fragment's edition.
//! 2. `types`     — rules resolved and typed: arities, argument types, variables, values.
//! 3. `derogations` — imported rules set aside leave the model (with the
//!    priorities that name them); each listed id is an imported rule.
//! 4. `safety`    — range restriction; heads are institutional.
//! 5. `priorities`— pairs of conflicting rules, no cycle.
//! 6. `closures`  — over empirical predicates, domain of the right type.
//! 7. `judgments` — every judgment predicate has exactly one `external_decl`.
//! 8. `strata`    — a stratification exists.
//! 9. `size`      — lowering would not explode (rule bodies, program size);
//!    run by the driver on the finished model, with the read limits.
//!
//! Passes 3–8 run on what passes 1–2 could resolve, so one broken reference
//! does not hide an unrelated error elsewhere; a [`Model`] is only returned
//! when no pass reported anything.

mod closures;
pub mod codes;
mod derogations;
mod editions;
mod judgments;
mod names;
mod priorities;
mod safety;
pub mod size;
pub mod strata;
mod types;

use crate::diagnostics::Diagnostics;
use crate::model::Model;
use crate::syntax::Package;

/// Checks a package and builds its [`Model`], or returns every problem found.
pub fn check(pkg: &Package) -> Result<Model, Diagnostics> {
    check_nodes(pkg, None)
}

/// Checks the union of an import closure's nodes as one program (docs/reference.md#imports):
/// `layer_of[i]` is the package node `i` comes from, which decides where a
/// shared local name is an error (within one package) and where it makes
/// the names at the edges full ids (across packages).
pub fn check_layered(pkg: &Package, layer_of: &[u32]) -> Result<Model, Diagnostics> {
    check_nodes(pkg, Some(layer_of))
}

fn check_nodes(pkg: &Package, layer_of: Option<&[u32]>) -> Result<Model, Diagnostics> {
    let mut diags = Diagnostics::new();
    // After this point every declaration is in the scope, dangling ids reported.
    let (mut scope, mut model) = names::declarations(pkg, layer_of, &mut diags);
    // Editions read: their dates checked, each fragment's edition known.
    editions::check(pkg, &mut model, &mut diags);
    // After this point rules are typed; rules with unresolved parts are left out.
    types::rules(pkg, &mut scope, &mut model, &mut diags);
    // After this point the rules derogations set aside are out of the model.
    derogations::check(pkg, layer_of, &mut scope, &mut model, &mut diags);
    // Every predicate and rule is in: later passes and stages look them up.
    model.build_index();
    safety::check(pkg, &model, &mut diags);
    priorities::check(pkg, &scope, &mut model, &mut diags);
    closures::check(pkg, &scope, &mut model, &mut diags);
    judgments::check(pkg, &scope, &mut model, &mut diags);
    // Strata are computed last: they need every rule and closure in the model.
    strata::stratify(&mut model, &mut diags);
    diags.sort();
    if diags.is_empty() {
        Ok(model)
    } else {
        Err(diags)
    }
}
