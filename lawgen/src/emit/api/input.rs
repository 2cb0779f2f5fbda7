//! A batch's `Input` (named `Facts`, or nameless cases' rows), how a case's
//! rows are checked and made a set, and the contradictions (a fact given
//! with its explicit negation) every engine reports the same way.

use super::model::ApiModel;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// `Input`, `NEGATION` and `first_contradiction`.
pub(super) fn items(m: &ApiModel) -> TokenStream {
    let access = access();
    let check = check();
    let normalize = normalize();
    let contradictions = contradictions(m);
    quote! {
        /// A batch's input: named facts, or the rows of nameless cases
        /// in one buffer.
        #[derive(Debug)]
        enum Input {
            Named(Vec<Facts>),
            Nameless(__rt::CaseRows<Row>),
        }

        impl Input {
            #access
            #check
            #normalize
        }

        #contradictions
    }
}

/// `Input::len`, `rows` and `names`.
fn access() -> TokenStream {
    quote! {
        /// How many cases.
        fn len(&self) -> usize {
            match self {
                Input::Named(v) => v.len(),
                Input::Nameless(r) => r.len(),
            }
        }

        /// Case `c`'s rows, in the order they were given.
        #[inline]
        fn rows(&self, c: usize) -> &[Row] {
            match self {
                Input::Named(v) => v.get(c).map_or(&[], |f| &f.case.rows[..]),
                Input::Nameless(r) => r.rows(c),
            }
        }

        /// How case `c`'s entities are named.
        fn names(&self, c: usize) -> __rt::CaseNames<'_> {
            match self {
                Input::Named(v) => match v.get(c) {
                    Some(f) => __rt::CaseNames::Named(&f.interner),
                    None => __rt::CaseNames::Nameless(&NAMELESS),
                },
                Input::Nameless(_) => __rt::CaseNames::Nameless(&NAMELESS),
            }
        }
    }
}

/// `Input::check`: every entity id of a case can be named.
fn check() -> TokenStream {
    quote! {
        /// Every entity id of case `c` can be named: issued by its
        /// `Facts`, or an index in range. The error names the method,
        /// which of its facts and the value.
        fn check(&self, c: usize) -> Result<(), __rt::Error> {
            match self {
                Input::Named(v) => {
                    let Some(f) = v.get(c) else { return Ok(()) };
                    let len = f.interner.len();
                    if f.case.hi as usize <= len {
                        return Ok(());
                    }
                    Err(__rt::bad_id(&f.case.rows, INPUT_RELS, |id| (id as usize) < len, __rt::not_issued(len))
                        .unwrap_or_else(|| __rt::Error::Internal("an entity id out of range that no row holds".into())))
                }
                Input::Nameless(r) => {
                    if let Some(e) = r.failure() {
                        return Err(e.clone());
                    }
                    if r.hi(c) <= __rt::MAX_ID + 1 {
                        return Ok(());
                    }
                    Err(__rt::bad_id(r.rows(c), INPUT_RELS, |id| id <= __rt::MAX_ID, __rt::out_of_range(FIRST_ID))
                        .unwrap_or_else(|| __rt::Error::Internal("an entity id out of range that no row holds".into())))
                }
            }
        }
    }
}

/// `Input::contradiction` and `Input::normalize`.
fn normalize() -> TokenStream {
    quote! {
        /// Sorts case `c`'s rows and finds the first fact given with
        /// its explicit negation (docs/reference.md#facts-files), so
        /// that every engine names the same one.
        fn contradiction(&mut self, c: usize) -> Option<__rt::Error> {
            match self {
                Input::Named(v) => {
                    let f = v.get_mut(c)?;
                    f.case.rows.sort_unstable();
                    first_contradiction(&f.case.rows, __rt::CaseNames::Named(&f.interner))
                }
                Input::Nameless(r) => {
                    r.rows_mut(c).sort_unstable();
                    first_contradiction(r.rows(c), __rt::CaseNames::Nameless(&NAMELESS))
                }
            }
        }

        /// Case `c`'s rows as a set (sorted, each once), or why the
        /// case cannot be evaluated.
        fn normalize(&mut self, c: usize) -> Result<&[Row], __rt::Error> {
            self.check(c)?;
            // Most cases are a set already, with no fact given with
            // its negation: one hash probe per row shows it, and
            // their rows need no sort.
            if __rt::plain_set(self.rows(c), &NEGATION) {
                return Ok(self.rows(c));
            }
            if let Some(e) = self.contradiction(c) {
                return Err(e);
            }
            let rows: &mut [Row] = match self {
                Input::Named(v) => v.get_mut(c).map_or(&mut [], |f| &mut f.case.rows[..]),
                Input::Nameless(r) => r.rows_mut(c),
            };
            let k = __rt::dedup_sorted(rows);
            Ok(&rows[..k])
        }
    }
}

/// Contradictions: p and ~p for the same tuple (docs/reference.md#facts-files).
fn contradictions(m: &ApiModel) -> TokenStream {
    let negations: BTreeMap<u32, u32> = m.negations.iter().map(|n| (n.pos, n.neg)).collect();
    let negation_len = negations.keys().next_back().map_or(0, |&p| p as usize + 1);
    let negation_table = (0..negation_len).map(|r| match negations.get(&(r as u32)) {
        Some(&n) => {
            let n = Literal::u32_unsuffixed(n);
            quote!(#n)
        }
        None => quote!(u32::MAX),
    });
    let negatable = m.negations.iter().map(|n| {
        let rel = Literal::u32_unsuffixed(n.pos);
        let predicate = Literal::string(&n.local);
        quote!(__rt::Negatable::new(#rel, #predicate))
    });
    quote! {
        /// By input relation, the relation stating its facts' explicit
        /// negations (`u32::MAX`: none).
        static NEGATION: [u32; #negation_len] = [#(#negation_table),*];

        /// Per input relation with explicit negations, the predicate the
        /// error naming a contradiction says (its columns: `INPUT_RELS`).
        static NEGATABLE: &[__rt::Negatable] = &[#(#negatable),*];

        /// The first row of sorted `rows` whose explicit negation is also
        /// there, as the error every engine reports.
        /// (A cold path: a case `plain_set` could not vouch for, or
        /// whose tables met in the Direct engine.)
        fn first_contradiction(rows: &[Row], names: __rt::CaseNames<'_>) -> Option<__rt::Error> {
            __rt::first_contradiction(rows, &NEGATION, NEGATABLE, INPUT_RELS, names)
        }
    }
}
