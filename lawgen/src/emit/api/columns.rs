//! `Columns`: many nameless cases' facts at once, one slice per column,
//! checked and gathered by case for `evaluate_columns`.

use super::super::{doc_attrs, split};
use super::model::{ApiModel, InputKind, InputMethod};
use crate::program::Ty;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// What one input method contributes to `Columns` and its functions.
struct Field {
    /// The field, and its value in `Columns::default()`.
    decl: TokenStream,
    empty: TokenStream,
    /// Its check in `columns_order`.
    check: TokenStream,
    /// Its count and placing in `gather_columns` (none for a declaration
    /// with no relation to load).
    count: Option<TokenStream>,
    place: Option<TokenStream>,
}

/// The typed slices of one field and the variables they are read into.
struct Slices {
    tys: Vec<TokenStream>,
    vars: Vec<Ident>,
    /// `(label, len)` of each slice, for `same_lengths`.
    lens: Vec<TokenStream>,
    /// The entity-id checks of its entity columns.
    id_checks: Vec<TokenStream>,
}

/// The `Columns` struct, `columns_dates`, `columns_order` and
/// `gather_columns`.
pub(super) fn items(m: &ApiModel) -> TokenStream {
    // A large package's closures go through one `&dyn Fn` copy of
    // `Gather::place`, not one copy each.
    let placing = m
        .inputs
        .iter()
        .filter(|im| im.kind != InputKind::Nothing)
        .count();
    let dyn_row = split::splits(m.split_above, placing);
    let fields: Vec<Field> = m
        .inputs
        .iter()
        .enumerate()
        .map(|(k, im)| field(m, k, im, dyn_row))
        .collect();
    let decls = fields.iter().map(|f| &f.decl);
    let empties = fields.iter().map(|f| &f.empty);
    let dates = dates(m);
    let order = order(m, &fields);
    let gather = gather(m, &fields);
    quote! {
        /// The facts of many nameless cases at once, column-wise: per
        /// input method of [`Case`], one slice per column, the first
        /// saying which case each row belongs to (rows of a case may be
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
        #order
        #gather
    }
}

/// The slices of input method `im`'s field: the case column, one per
/// argument, and `holds` for a decision.
fn slices(m: &ApiModel, im: &InputMethod, name_lit: &Literal) -> Slices {
    let mut s = Slices {
        tys: vec![quote!(&'a [u32])],
        vars: vec![format_ident!("cases")],
        lens: vec![quote!(("the case column", cases.len()))],
        id_checks: Vec::new(),
    };
    for (j, (a, t)) in im.params.iter().enumerate() {
        let ty = m.api_type(*t);
        s.tys.push(quote!(&'a [#ty]));
        let v = format_ident!("c{j}");
        let label = Literal::string(&format!("`{a}`"));
        s.lens.push(quote!((#label, #v.len())));
        if let Ty::Entity(id) = t {
            let tn = Literal::string(m.type_name(*id));
            s.id_checks
                .push(quote!(__rt::column_ids(#name_lit, #tn, FIRST_ID, #v.iter().map(|e| e.0))?;));
        }
        s.vars.push(v);
    }
    if matches!(im.kind, InputKind::Decide(..)) {
        s.tys.push(quote!(&'a [bool]));
        let v = format_ident!("holds");
        s.lens.push(quote!(("`holds`", #v.len())));
        s.vars.push(v);
    }
    s
}

/// The field of input method `im`, the `k`th.
fn field(m: &ApiModel, k: usize, im: &InputMethod, dyn_row: bool) -> Field {
    let name = &im.name;
    let name_lit = Literal::string(&name.to_string());
    let doc = doc_attrs(&format!(
        "`{name}`, one row per fact: the case column (each row's case, below the batch's number of cases), then one column per argument{}.",
        if matches!(im.kind, InputKind::Decide(..)) { " and `holds`" } else { "" }
    ));
    let Slices {
        tys,
        vars,
        lens,
        id_checks,
    } = slices(m, im, &name_lit);
    let empty = tys.iter().map(|_| quote!(&[]));
    let check = quote! {
        {
            let (#(#vars,)*) = columns.#name;
            __rt::same_lengths(#name_lit, &[#(#lens),*])?;
            #(#id_checks)*
            order.push(__rt::case_order(#name_lit, cases, n)?);
        }
    };
    let loads = im.kind != InputKind::Nothing;
    Field {
        decl: quote!(#doc pub #name: (#(#tys,)*)),
        empty: quote!(#name: (#(#empty,)*)),
        check,
        count: loads.then(|| quote!(g.count(columns.#name.0, order[#k].as_deref());)),
        place: loads.then(|| place(m, k, im, &vars, dyn_row)),
    }
}

/// The placing of input method `im`'s rows (its `k`th field's) in
/// `gather_columns`.
fn place(m: &ApiModel, k: usize, im: &InputMethod, vars: &[Ident], dyn_row: bool) -> TokenStream {
    let name = &im.name;
    // Row `i` of the columns, with one past its largest id.
    let cols: Vec<TokenStream> = im
        .params
        .iter()
        .enumerate()
        .map(|(j, (_, t))| {
            let v = format_ident!("c{j}");
            match t {
                Ty::Int => quote!(#v[i]),
                Ty::Entity(_) => quote!(#v[i].0),
            }
        })
        .collect();
    let mut hi = quote!(0u32);
    for (j, (_, t)) in im.params.iter().enumerate() {
        if let Ty::Entity(_) = t {
            let v = format_ident!("c{j}");
            hi = quote!(__rt::seen(#hi, #v[i].0));
        }
    }
    let row = match im.kind {
        InputKind::Entity(r) | InputKind::Fact(r) => m.row_expr(r, &cols),
        InputKind::Decide(yes, no) => {
            let (ry, rn) = (m.row_expr(yes, &cols), m.row_expr(no, &cols));
            quote!(if holds[i] { #ry } else { #rn })
        }
        InputKind::Nothing => unreachable!("a declaration with no relation places nothing"),
    };
    let place = if dyn_row {
        quote! {
            let row: &dyn Fn(usize) -> (Row, u32) = &|i| (#row, #hi);
            g.place(cases, order[#k].as_deref(), row);
        }
    } else {
        quote!(g.place(cases, order[#k].as_deref(), |i| (#row, #hi));)
    };
    quote! {
        {
            let (#(#vars,)*) = columns.#name;
            #place
        }
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

/// `columns_order`: every field checked, and its rows' order by case.
fn order(m: &ApiModel, fields: &[Field]) -> TokenStream {
    let nrel = fields.len();
    let checks = split::split_seq(
        m.split_above,
        fields.iter().map(|f| f.check.clone()).collect(),
        "__columns_order",
        &|f| quote!(fn #f(columns: &Columns<'_>, n: usize, order: &mut Vec<Option<Vec<u32>>>) -> Result<(), __rt::Error>),
        &|f| quote!(#f(columns, n, &mut order)?;),
        &quote!(Ok(())),
    );
    let (checks, check_fns) = (checks.body, checks.fns);
    quote! {
        /// Checks every column of `columns` for `n` cases; returns, per
        /// field, the order of its rows by case when they are not in it.
        #[allow(unused_variables, clippy::let_unit_value)]
        fn columns_order(columns: &Columns<'_>, n: usize) -> Result<Vec<Option<Vec<u32>>>, __rt::Error> {
            let mut order = Vec::with_capacity(#nrel);
            #checks
            Ok(order)
        }

        #check_fns
    }
}

/// `gather_columns`: a range of cases' rows, grouped by case.
fn gather(m: &ApiModel, fields: &[Field]) -> TokenStream {
    // Only a package whose rules depend on the date has in-force inputs
    // for a case to start with.
    let each_in_force = m
        .law
        .has_gates()
        .then(|| quote!(g.each(default_in_force());));
    let stage = |stmts: Vec<TokenStream>, name: &str| {
        let s = split::split_seq(
            m.split_above,
            stmts,
            name,
            &|f| quote!(fn #f(g: &mut __rt::Gather<Row>, columns: &Columns<'_>, order: &[Option<Vec<u32>>])),
            &|f| quote!(#f(&mut g, columns, order);),
            &TokenStream::new(),
        );
        (s.body, s.fns)
    };
    let (counts, count_fns) = stage(
        fields.iter().filter_map(|f| f.count.clone()).collect(),
        "__gather_counts",
    );
    let (places, place_fns) = stage(
        fields.iter().filter_map(|f| f.place.clone()).collect(),
        "__gather_places",
    );
    quote! {
        /// The nameless cases `range` of checked `columns`, grouped by
        /// case, each with the in-force rows of its date (`dates`, from
        /// [`columns_dates`]).
        #[allow(unused_variables, unused_mut)]
        fn gather_columns(columns: &Columns<'_>, order: &[Option<Vec<u32>>], dates: Option<&(Vec<u32>, Vec<Vec<Row>>)>, range: ::std::ops::Range<usize>) -> Input {
            let mut g = __rt::Gather::new(range.clone());
            #counts
            match dates {
                Some((of, sets)) => g.each_of(&of[range], sets),
                None => { #each_in_force }
            }
            g.start_placing();
            #places
            Input::Nameless(g.finish())
        }

        #count_fns
        #place_fns
    }
}
