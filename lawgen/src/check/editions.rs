//! Pass 1, after `names`: editions and their dates (docs/reference.md#as-of-evaluation).
//!
//! Every lifecycle entry has a known status and a calendar date; two
//! editions of one work do not enter into force on the same day; a work with
//! dated editions has no undated one (its rules would apply beside every
//! other edition's). The works and editions go into the model, and each
//! fragment learns its edition, for `derogations` to tell a dated
//! derogation and lowering to decide which rules depend on the date. An edition whose work does not resolve was reported by `names`.

use crate::diagnostics::{pointer_push, Code, Diagnostics, Location};
use crate::model::{self, Model};
use crate::program::local_name;
use crate::syntax::{NodeKind, Package};
use lawgen_runtime::law::Date;
use std::collections::HashMap;

pub(super) fn check(pkg: &Package, model: &mut Model, diags: &mut Diagnostics) {
    let mut work_at: HashMap<&str, usize> = HashMap::new();
    for n in &pkg.nodes {
        if let NodeKind::SourceWork(_) = &n.kind {
            if work_at.contains_key(n.id.as_str()) {
                continue;
            }
            work_at.insert(&n.id, model.works.len());
            model.works.push(model::Work {
                id: n.id.clone(),
                local: local_name(&n.id).to_owned(),
            });
        }
    }
    let mut edition_at: HashMap<&str, usize> = HashMap::new();
    // Where each edition is, for messages: node id and pointer.
    let mut edition_node: Vec<(&str, &str)> = Vec::new();
    for n in &pkg.nodes {
        let NodeKind::SourceEdition { work, edition } = &n.kind else {
            continue;
        };
        if edition_at.contains_key(n.id.as_str()) {
            continue;
        }
        let mut in_force = Vec::new();
        let mut repealed = Vec::new();
        let lp = pointer_push(&n.ptr, "lifecycle");
        for (i, st) in edition.lifecycle.iter().enumerate() {
            let p = pointer_push(&lp, i);
            let date = Date::parse(&st.extent);
            if date.is_none() {
                diags.error(
                    Code::LifecycleDate,
                    Location::new(Some(&n.id), pointer_push(&p, "extent")),
                    format!(
                        "the lifecycle extent `{}` of edition `{}` is not a date",
                        st.extent,
                        local_name(&n.id)
                    ),
                    "write the day the state began as `YYYY-MM-DD` (a real calendar day, e.g. 2023-01-01)",
                );
            }
            match st.status.as_str() {
                "in_force" => in_force.extend(date),
                "repealed" => repealed.extend(date),
                "adopted" => {}
                other => diags.error(
                    Code::LifecycleStatus,
                    Location::new(Some(&n.id), pointer_push(&p, "status")),
                    format!(
                        "unknown lifecycle status `{other}` in edition `{}`",
                        local_name(&n.id)
                    ),
                    "a lifecycle state is `adopted`, `in_force` or `repealed`",
                ),
            }
        }
        in_force.sort();
        in_force.dedup();
        repealed.sort();
        repealed.dedup();
        edition_at.insert(&n.id, model.editions.len());
        edition_node.push((&n.id, &n.ptr));
        model.editions.push(model::Edition {
            id: n.id.clone(),
            local: local_name(&n.id).to_owned(),
            work: work_at.get(work.id.as_str()).copied(),
            in_force,
            repealed,
            labels: n.labels.clone(),
        });
    }
    // Per work: the same day twice, and an undated edition beside dated ones.
    let mut by_work: Vec<Vec<usize>> = vec![Vec::new(); model.works.len()];
    for (e, ed) in model.editions.iter().enumerate() {
        if let Some(w) = ed.work {
            by_work[w].push(e);
        }
    }
    for (w, eds) in by_work.iter().enumerate() {
        let work = &model.works[w].local;
        let mut seen: HashMap<Date, usize> = HashMap::new();
        for &e in eds {
            for &d in &model.editions[e].in_force {
                match seen.get(&d) {
                    Some(&first) => diags.error(
                        Code::EditionsSameDay,
                        Location::new(
                            Some(edition_node[e].0),
                            pointer_push(edition_node[e].1, "lifecycle"),
                        ),
                        format!(
                            "editions `{}` and `{}` of the work `{work}` both enter into force on {d}",
                            model.editions[first].local, model.editions[e].local
                        ),
                        "one edition of a work is in force on a day: correct the date of one of them, or make them one edition",
                    ),
                    None => {
                        seen.insert(d, e);
                    }
                }
            }
        }
        let dated: Vec<usize> = eds
            .iter()
            .copied()
            .filter(|&e| model.editions[e].is_dated())
            .collect();
        if let Some(&first) = dated.first() {
            for &e in eds.iter().filter(|&&e| !model.editions[e].is_dated()) {
                diags.error(
                    Code::UndatedEdition,
                    Location::new(
                        Some(edition_node[e].0),
                        pointer_push(edition_node[e].1, "lifecycle"),
                    ),
                    format!(
                        "edition `{}` of the work `{work}` has no `in_force` date, but edition `{}` of the same work has one",
                        model.editions[e].local, model.editions[first].local
                    ),
                    "an undated edition's rules would apply beside every other edition's: add an `in_force` entry to its lifecycle (the day it entered into force)",
                );
            }
        }
    }
    // Each fragment's edition.
    let frag_at: HashMap<&str, usize> = model
        .fragments
        .iter()
        .enumerate()
        .map(|(i, f)| (f.id.as_str(), i))
        .collect();
    let mut of: Vec<(usize, usize)> = Vec::new();
    for n in &pkg.nodes {
        if let NodeKind::Fragment(f) = &n.kind {
            if let (Some(&fi), Some(e)) = (
                frag_at.get(n.id.as_str()),
                f.edition
                    .as_ref()
                    .and_then(|e| edition_at.get(e.id.as_str())),
            ) {
                of.push((fi, *e));
            }
        }
    }
    for (fi, e) in of {
        model.fragments[fi].edition = Some(e);
    }
}
