//! Pass 3: derogations (docs/reference.md#derogations) take the imported
//! rules they list out of the program.
//!
//! A derogation in package P sets rules of the packages P imports aside for
//! P's meaning, as if they were deleted: after this pass they are not in
//! [`Model::rules`] (they move to [`Model::set_aside`]), so no later pass,
//! no lowering and no backend sees them, and `priorities` drops every
//! priority that names one. What lowering produces is then exactly what it
//! produces for the closure with those rules deleted by hand; the tests hold
//! it to that, byte for byte.
//!
//! A derogation anchored to a fragment of a dated edition is in force on
//! some dates only (docs/reference.md#as-of-evaluation): it takes out no
//! rule here. The rules it lists stay, recorded in
//! [`model::Derogation::gated`], and lowering reads "no such derogation is
//! in force" into each one's in-force input, so on a date the derogation
//! is in force they are left out exactly as if deleted, and on the others
//! they apply. A rule a timeless derogation lists is set aside on every
//! date, whatever a dated one says.
//!
//! Each listed id must be a rule of another package of the closure. Within
//! an import closure every package is checked with its own closure first
//! (imports before importers, `imports::check_closure`), so a rule a package
//! does not import is already an unknown id there; "another package" is
//! then the same as "a package P imports".

use super::names::Scope;
use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{self, Model, RuleId};
use crate::program::local_name;
use crate::syntax::{pick_label, NodeKind, Package};
use std::collections::HashMap;

/// `layer_of[i]`: the package of the closure node `i` comes from (`None`:
/// one package on its own, which imports nothing).
pub(super) fn check(
    pkg: &Package,
    layer_of: Option<&[u32]>,
    scope: &mut Scope,
    model: &mut Model,
    diags: &mut Diagnostics,
) {
    let layer = |i: usize| layer_of.and_then(|l| l.get(i).copied());
    let node_index: HashMap<&str, usize> = {
        let mut m = HashMap::new();
        for (i, n) in pkg.nodes.iter().enumerate() {
            // Duplicate ids were reported by the reader; the first one wins.
            m.entry(n.id.as_str()).or_insert(i);
        }
        m
    };
    // Rule ids listed, in the order first listed, with their derogations
    // (timeless, dated).
    let mut aside: Vec<(String, Vec<usize>, Vec<usize>)> = Vec::new();
    let mut aside_at: HashMap<String, usize> = HashMap::new();
    // A fragment of a dated edition (editions were read by pass 2).
    let frag_dated: HashMap<&str, bool> = model
        .fragments
        .iter()
        .map(|f| {
            let dated = f
                .edition
                .is_some_and(|e| model.editions[e].is_dated() && model.editions[e].work.is_some());
            (f.id.as_str(), dated)
        })
        .collect();
    for (ni, n) in pkg.nodes.iter().enumerate() {
        let NodeKind::Derogation(d) = &n.kind else {
            continue;
        };
        let here = layer(ni);
        let imports = here.is_some_and(|h| layer_of.is_some_and(|l| l.iter().any(|&x| x != h)));
        let at = |ptr: &str| Location::new(Some(&n.id), ptr);
        if !imports {
            diags.error(
                Code::DerogationWithoutImports,
                at(&n.ptr),
                "a derogation in a package that imports nothing: there is no imported rule to set aside",
                "a derogation sets rules of imported packages aside; import the package whose rules it names, or delete the rules of this package instead",
            );
            continue;
        }
        if d.anchors.is_empty() {
            diags.error(
                Code::DerogationWithoutAnchor,
                at(&crate::diagnostics::pointer_push(&n.ptr, "anchors")),
                "a derogation without an anchor",
                "anchor the derogation to the article that displaces the rules: add its fragment id to `anchors`",
            );
        }
        let me = model.derogations.len();
        let dated = d
            .anchors
            .iter()
            .any(|a| frag_dated.get(a.id.as_str()).copied().unwrap_or(false));
        let mut listed = Vec::new();
        for r in &d.rules {
            // Unknown ids and ids of other node kinds are worded as every
            // rule reference is; a rule that failed to type is reported at
            // the rule (and is in no program anyway).
            if !scope.decls.contains_key(&r.id) {
                diags.error(
                    Code::UnknownRule,
                    at(&r.ptr),
                    format!("`{}` is not a rule of this package's import closure", r.id),
                    "a derogation names rules of the packages this one imports, by full id: fix the id (`lawgen check` of the imported package lists its rules)",
                );
                continue;
            }
            if scope.rule(r, &n.id, diags).is_none() {
                continue;
            }
            let owner = node_index.get(r.id.as_str()).and_then(|&i| layer(i));
            if owner == here {
                diags.error(
                    Code::DerogationOwnRule,
                    at(&r.ptr),
                    format!(
                        "`{}` is a rule of this package: a derogation sets aside only rules of the packages this one imports",
                        r.id
                    ),
                    "delete or change the package's own rule instead, or name the imported rule this derogation means",
                );
                continue;
            }
            let k = *aside_at.entry(r.id.clone()).or_insert_with(|| {
                aside.push((r.id.clone(), Vec::new(), Vec::new()));
                aside.len() - 1
            });
            let by = if dated {
                &mut aside[k].2
            } else {
                &mut aside[k].1
            };
            if !by.contains(&me) {
                by.push(me);
            }
            if !listed.contains(&k) {
                listed.push(k);
            }
        }
        model.derogations.push(model::Derogation {
            id: n.id.clone(),
            local: local_name(&n.id).to_owned(),
            anchors: model.fragment_ids(d.anchors.iter().map(|a| a.id.as_str())),
            label: pick_label(&n.labels).map(str::to_owned),
            labels: n.labels.clone(),
            // Indices into `aside` for now, into `set_aside` below.
            rules: listed,
            priorities: Vec::new(),
            dated,
            gated: Vec::new(),
        });
    }
    if aside.is_empty() {
        return;
    }
    // Take out the rules a timeless derogation lists, keeping the others in
    // order, and renumber.
    let mut by: HashMap<&str, &[usize]> = HashMap::new();
    for (id, timeless, _) in &aside {
        if !timeless.is_empty() {
            by.insert(id.as_str(), timeless);
        }
    }
    let rules = std::mem::take(&mut model.rules);
    let mut kept = Vec::with_capacity(rules.len());
    let mut set_aside: Vec<Option<model::SetAside>> = vec![None; aside.len()];
    for r in rules {
        match (aside_at.get(&r.id), by.get(r.id.as_str())) {
            (Some(&k), Some(ds)) => {
                set_aside[k] = Some(model::SetAside {
                    by: ds.to_vec(),
                    rule: r,
                });
            }
            _ => kept.push(r),
        }
    }
    model.rules = kept;
    // Every listed rule was in the model (`scope.rule` found it there):
    // index of `aside` → index of `set_aside`, for those set aside.
    let mut at = vec![None; aside.len()];
    let mut next = 0;
    for (k, s) in set_aside.iter().enumerate() {
        if s.is_some() {
            at[k] = Some(next);
            next += 1;
        }
    }
    model.set_aside = set_aside.into_iter().flatten().collect();
    scope.rules = model
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.clone(), RuleId(i as u32)))
        .collect();
    for d in &mut model.derogations {
        let listed = std::mem::take(&mut d.rules);
        if d.dated {
            d.gated = listed
                .iter()
                .filter_map(|&k| scope.rules.get(&aside[k].0).copied())
                .collect();
        } else {
            d.rules = listed.iter().filter_map(|&k| at[k]).collect();
        }
    }
    scope.set_aside = model
        .set_aside
        .iter()
        .enumerate()
        .map(|(i, s)| (s.rule.id.clone(), i))
        .collect();
}
