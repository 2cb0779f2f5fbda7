//! `Columns`: many nameless cases' facts at once, one slice per column,
//! checked and gathered by case for `evaluate_columns`.

use super::super::{doc_attrs, split};
use super::model::{ApiModel, InputKind, InputMethod};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::Index;

/// What one input method contributes to `Columns` and its functions.
struct Field {
    /// The field, and its value in `Columns::default()`.
    decl: TokenStream,
    empty: TokenStream,
    /// Its descriptor, handed to the visitor of `columns_fields`.
    visit: TokenStream,
}

/// The `Columns` struct, `columns_dates`, `columns_fields`,
/// `columns_order` and `gather_columns`.
pub(super) fn items(m: &ApiModel) -> TokenStream {
    let fields: Vec<Field> = m.inputs.iter().map(|im| field(m, im)).collect();
    let decls = fields.iter().map(|f| &f.decl);
    let empties = fields.iter().map(|f| &f.empty);
    let dates = dates(m);
    let visit = visit(m, &fields);
    let gather = gather(m);
    quote! {
        /// The facts of many nameless cases at once, column-wise: per
        /// input method of [`Case`], one slice per column, the first
        /// (the case column) saying which case, below the batch's number
        /// of cases, each row belongs to (rows of a case may be
        /// anywhere; in case order they are grouped without sorting).
        /// Fields left out are empty (`..Columns::default()`).
        /// Evaluated by [`evaluate_columns`].
        #[derive(Clone, Copy, Debug)]
        pub struct Columns<'a> {
            /// The date of each case (`as_of[i]` of case `i`): each is
            /// judged by the law in force on its date
            /// (docs/reference.md#as-of-evaluation). Empty: every case
            /// as of the package's current date.
            pub as_of: &'a [__rt::Date],
            #(#decls,)*
        }

        impl Default for Columns<'_> {
            fn default() -> Self {
                Columns { as_of: &[], #(#empties,)* }
            }
        }

        #dates
        #visit
        #gather
    }
}

/// The field of input method `im`: the case column, one slice per
/// argument, and `holds` for a decision; and its descriptor, one line.
fn field(m: &ApiModel, im: &InputMethod) -> Field {
    let name = &im.name;
    let name_lit = Literal::string(&name.to_string());
    // The struct's doc says what the case column is; a field's names its
    // columns, after the method it holds the facts of.
    let mut names: Vec<String> = im.params.iter().map(|(a, _)| format!("`{a}`")).collect();
    if matches!(im.kind, InputKind::Decide(..)) {
        names.push("`holds`".into());
    }
    let doc = doc_attrs(&format!(
        "The facts of `Case::{name}`: the case column{}{}.",
        if names.is_empty() { "" } else { ", then " },
        names.join(", ")
    ));
    let mut tys = vec![quote!(&'a [u32])];
    let mut labels = Vec::new();
    let mut cols = Vec::new();
    for (j, (a, t)) in im.params.iter().enumerate() {
        let ty = m.api_type(*t);
        tys.push(quote!(&'a [#ty]));
        labels.push(Literal::string(&format!("`{a}`")));
        let j = Index::from(j + 1);
        cols.push(quote!(&columns.#name.#j));
    }
    let rows = match im.kind {
        InputKind::Entity(r) | InputKind::Fact(r) => {
            let r = Literal::u32_unsuffixed(r.0);
            quote!(__rt::FieldRows::Fact(#r))
        }
        InputKind::Decide(yes, no) => {
            tys.push(quote!(&'a [bool]));
            let (yes, no) = (
                Literal::u32_unsuffixed(yes.0),
                Literal::u32_unsuffixed(no.0),
            );
            let h = Index::from(im.params.len() + 1);
            quote!(__rt::FieldRows::Decide(columns.#name.#h, #yes, #no))
        }
        InputKind::Nothing => quote!(__rt::FieldRows::Nothing),
    };
    let empty = tys.iter().map(|_| quote!(&[]));
    Field {
        decl: quote!(#doc pub #name: (#(#tys,)*)),
        empty: quote!(#name: (#(#empty,)*)),
        visit: quote!(f(__rt::ColumnsField::new(#name_lit, &[#(#labels),*], columns.#name.0, &[#(#cols),*], #rows));),
    }
}

/// `columns_dates`: the checked dates of the cases, as in-force row sets.
fn dates(m: &ApiModel) -> TokenStream {
    let width = m.width;
    quote! {
        /// The dates of `columns`, checked (one per case, each a
        /// calendar day on which the law is in force): per case, which
        /// of the sets of in-force rows it starts with, one set per
        /// distinct date. `None`: no dates.
        fn columns_dates(columns: &Columns<'_>, n: usize) -> Result<Option<(Vec<u32>, Vec<Vec<Row>>)>, __rt::Error> {
            if columns.as_of.is_empty() {
                return Ok(None);
            }
            if columns.as_of.len() != n {
                return Err(__rt::Error::Facts(format!(
                    "`Columns::as_of` holds {} dates and the batch {n} cases: give one date per case, or none",
                    columns.as_of.len()
                )));
            }
            let mut at: ::std::collections::HashMap<__rt::Date, u32> = ::std::collections::HashMap::new();
            let mut sets: Vec<Vec<Row>> = Vec::new();
            let mut of = Vec::with_capacity(n);
            for (i, &d) in columns.as_of.iter().enumerate() {
                if let Some(&k) = at.get(&d) {
                    of.push(k);
                    continue;
                }
                if __rt::Date::parse(&d.to_string()) != Some(d) {
                    return Err(__rt::Error::Facts(format!(
                        "`Columns::as_of`, case {i}: `{d}` is not a date: give a real calendar day (`Date::parse(\"2024-05-01\")`)"
                    )));
                }
                let f = law().on(Some(d)).map_err(|e| __rt::Error::Facts(format!("`Columns::as_of`, case {i}: {e}")))?;
                let mut rows: Vec<Row> = f.gates.iter().zip(IN_FORCE_RELS).filter(|(on, _)| **on).map(|(_, &r)| (r, [0; #width])).collect();
                if let (Some(r), Some(d)) = (AS_OF_REL, f.date) {
                    let mut v = [0i64; #width];
                    v[0] = i64::from(d.0);
                    rows.push((r, v));
                }
                let k = sets.len() as u32;
                sets.push(rows);
                at.insert(d, k);
                of.push(k);
            }
            Ok(Some((of, sets)))
        }
    }
}

/// `columns_fields`, one line per field, and `columns_order`: every
/// field checked by the runtime through its descriptor.
fn visit(m: &ApiModel, fields: &[Field]) -> TokenStream {
    let lines = split::split_seq(
        m.split_above,
        fields.iter().map(|f| f.visit.clone()).collect(),
        "__columns_fields",
        &|g| quote!(fn #g(columns: &Columns<'_>, f: &mut dyn FnMut(__rt::ColumnsField<'_>))),
        &|g| quote!(#g(columns, f);),
        &TokenStream::new(),
    );
    let (lines, line_fns) = (lines.body, lines.fns);
    quote! {
        /// Hands `f` each field of `columns`, in order, as the runtime
        /// reads it: its name, its columns' labels, its slices and the
        /// relation its rows state.
        #[allow(unused_variables)]
        fn columns_fields(columns: &Columns<'_>, f: &mut dyn FnMut(__rt::ColumnsField<'_>)) {
            #lines
        }

        #line_fns

        /// Checks every column of `columns` for `n` cases; returns, per
        /// field, the order of its rows by case when they are not in it.
        fn columns_order(columns: &Columns<'_>, n: usize) -> Result<Vec<Option<Vec<u32>>>, __rt::Error> {
            __rt::columns_order(n, FIRST_ID, |f| columns_fields(columns, f))
        }
    }
}

/// `gather_columns`: a range of cases' rows, grouped by case.
fn gather(m: &ApiModel) -> TokenStream {
    // Only a package whose rules depend on the date has in-force inputs
    // for a case to start with.
    let each_in_force = m
        .law
        .has_gates()
        .then(|| quote!(g.each(default_in_force());));
    quote! {
        /// The nameless cases `range` of checked `columns`, grouped by
        /// case, each with the in-force rows of its date (`dates`, from
        /// [`columns_dates`]).
        #[allow(unused_mut)]
        fn gather_columns(columns: &Columns<'_>, order: &[Option<Vec<u32>>], dates: Option<&(Vec<u32>, Vec<Vec<Row>>)>, range: ::std::ops::Range<usize>) -> Input {
            let mut g = __rt::Gather::new(range.clone());
            g.count_fields(order, |f| columns_fields(columns, f));
            match dates {
                Some((of, sets)) => g.each_of(&of[range], sets),
                None => { #each_in_force }
            }
            g.start_placing();
            g.place_fields(order, |f| columns_fields(columns, f));
            Input::Nameless(g.finish())
        }
    }
}
