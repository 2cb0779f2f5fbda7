//! The layout of the canonical output (docs/reference.md#the-canonical-output),
//! worked out once per program: which output views feed each
//! (section, literal) entry, in the order the output lists them, and how
//! rows and requests are ordered and deduplicated.
//!
//! [`super::conclusions_from`] reads a case through it with decoded rows. A
//! reader that keeps a case's rows as entity ids (the Python module's
//! verdict batches, which should not decode every row into `String`s to
//! list a few dozen verdicts) reads through the same functions with rows of
//! ids and a comparison by names, so both list the same rows in the same
//! order: the layout is defined here once.

use crate::program::{Program, RelId, Section};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One entry of the canonical output: a literal (`p` or `~p`) in a section.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The section.
    pub section: Section,
    /// The literal's name, as the output writes it.
    pub literal: String,
    /// The relation whose columns the rows have (the first view's).
    pub rel: RelId,
    /// The output views whose rows it lists (indexes into the program's
    /// `outputs`), in program order.
    views: Vec<usize>,
}

/// The canonical output's entries in output order; requests are ordered by
/// [`Layout::requests`].
#[derive(Clone, Debug)]
pub struct Layout {
    entries: Vec<Entry>,
}

impl Layout {
    /// The layout of `prog`'s canonical output.
    pub fn new(prog: &Program) -> Layout {
        let mut by_key: BTreeMap<(Section, String), Entry> = BTreeMap::new();
        for (i, o) in prog.outputs.iter().enumerate() {
            let literal = prog.catalog.lit_name(o.lit);
            by_key
                .entry((o.section, literal.clone()))
                .or_insert_with(|| Entry {
                    section: o.section,
                    literal,
                    rel: o.rel,
                    views: Vec::new(),
                })
                .views
                .push(i);
        }
        Layout {
            entries: by_key.into_values().collect(),
        }
    }

    /// The entries, in the order the canonical output lists them (sections
    /// in their order, literals by name within one).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The rows `entry` lists in one case: each view's rows that are in its
    /// section (`rel` less `minus`), together, sorted by `cmp` and without
    /// duplicates (rows `cmp` calls equal). `rows(r)` gives relation `r`'s
    /// rows in the case, in any order; `cmp` must order rows as the
    /// canonical output does (integers numerically, entities by name).
    pub fn rows<R>(
        &self,
        prog: &Program,
        entry: &Entry,
        rows: &mut dyn FnMut(RelId) -> Vec<R>,
        cmp: &dyn Fn(&R, &R) -> Ordering,
    ) -> Vec<R> {
        let mut out: Vec<R> = Vec::new();
        for &v in &entry.views {
            let o = &prog.outputs[v];
            let mut got = rows(o.rel);
            if got.is_empty() {
                // Most entries are empty in a case: their `minus` is not read.
                continue;
            }
            let mut minus = o.minus.map(&mut *rows).unwrap_or_default();
            minus.sort_by(cmp);
            got.retain(|t| {
                o.holds(|r| r == o.rel || minus.binary_search_by(|x| cmp(x, t)).is_ok())
            });
            out.extend(got);
        }
        if out.len() > 1 {
            out.sort_by(cmp);
            out.dedup_by(|a, b| cmp(a, b) == Ordering::Equal);
        }
        out
    }

    /// The open requests of one case, as (request view, arguments), sorted
    /// as the canonical output lists them (by predicate, arguments,
    /// authority, capability) and without duplicates. `rows` as for
    /// [`Layout::rows`]; `cmp(r, a, b)` compares two rows of request
    /// relation `r` (it is asked only about rows of one predicate).
    pub fn requests<R>(
        &self,
        prog: &Program,
        rows: &mut dyn FnMut(RelId) -> Vec<R>,
        cmp: &dyn Fn(RelId, &R, &R) -> Ordering,
    ) -> Vec<(usize, R)> {
        let mut out: Vec<(usize, R)> = Vec::new();
        for (i, r) in prog.requests.iter().enumerate() {
            out.extend(rows(r.rel).into_iter().map(|t| (i, t)));
        }
        let key = |&(i, ref t): &(usize, R), &(j, ref u): &(usize, R)| {
            let (a, b) = (&prog.requests[i], &prog.requests[j]);
            let pa = &prog.catalog.pred(a.lit.pred).local;
            let pb = &prog.catalog.pred(b.lit.pred).local;
            pa.cmp(pb)
                .then_with(|| cmp(a.rel, t, u))
                .then_with(|| a.authority.cmp(&b.authority))
                .then_with(|| a.capability.cmp(&b.capability))
        };
        out.sort_by(key);
        out.dedup_by(|a, b| key(a, b) == Ordering::Equal);
        out
    }
}
