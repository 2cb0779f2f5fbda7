//! Token helpers the renderers share: typed-API types, engine columns,
//! `Facts` rows and a case's rows of a relation.

use super::model::{ApiModel, InputKind, InputMethod};
use crate::program::{RelId, Ty};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// `t.k` of a tuple `t`.
pub(super) fn index(k: usize) -> syn::Index {
    syn::Index::from(k)
}

/// Expression turning a typed-API argument into an engine column.
pub(super) fn to_col(t: Ty, arg: &Ident) -> TokenStream {
    match t {
        Ty::Int => quote!(#arg),
        Ty::Entity(_) => quote!(#arg.0),
    }
}

impl ApiModel<'_> {
    /// The Rust type of a predicate column in the typed API.
    pub fn api_type(&self, t: Ty) -> TokenStream {
        match t {
            Ty::Int => quote!(i64),
            Ty::Entity(id) => {
                let i = self.type_ident(id);
                quote!(#i)
            }
        }
    }

    /// Expression decoding column `k` of tuple `t` into an `Arg`, given an
    /// expression for the case's names.
    pub fn col_arg(&self, t: Ty, k: usize, names: &TokenStream) -> TokenStream {
        let idx = index(k);
        match t {
            Ty::Int => quote!(__rt::Arg::Int(t.#idx)),
            Ty::Entity(id) => {
                let n = Literal::string(self.type_name(id));
                quote!(__rt::entity(#names, #n, t.#idx))
            }
        }
    }

    /// `(t.1, t.2, …)`: an engine tuple without its case id.
    fn without_case(&self, r: RelId) -> TokenStream {
        let cols = (1..=self.rel(r).columns.len()).map(|k| {
            let i = index(k);
            quote!(t.#i)
        });
        quote!((#(#cols,)*))
    }

    /// `self`'s rows of relation `r`, as tuples without the case column.
    pub fn case_rows(&self, r: RelId) -> TokenStream {
        if self.rel(r).input {
            let rel = r.0;
            let cols = self
                .rel(r)
                .columns
                .iter()
                .enumerate()
                .map(|(k, t)| match t {
                    Ty::Int => quote!(v[#k]),
                    Ty::Entity(_) => quote!(v[#k] as u32),
                });
            let t = quote!((#(#cols,)*));
            quote!(self.batch.input.rows(self.case as usize).iter().filter(|(r, _)| *r == #rel).map(|(_, v)| #t))
        } else {
            let o = self.out(r);
            let t = self.without_case(r);
            quote!(#o.case(self.case).iter().map(|t| #t))
        }
    }

    /// The number of `self`'s rows in kept relation `r`.
    pub fn case_count(&self, r: RelId) -> TokenStream {
        let o = self.out(r);
        quote!(#o.count(self.case))
    }

    /// `(R, [c0, c1, 0, …])`: a `Facts` row of input relation `r`.
    pub fn row_expr(&self, r: RelId, cols: &[TokenStream]) -> TokenStream {
        let rel = r.0;
        let types = self.rel(r).columns;
        let mut vals: Vec<TokenStream> = cols
            .iter()
            .zip(types)
            .map(|(c, t)| match t {
                Ty::Int => quote!(#c),
                Ty::Entity(_) => quote!(i64::from(#c)),
            })
            .collect();
        vals.resize(self.width, quote!(0));
        quote!((#rel, [#(#vals),*]))
    }

    /// The typed arguments of a method, `holds` last for a decision.
    pub fn method_args(&self, im: &InputMethod) -> (Vec<TokenStream>, Vec<Ident>) {
        let mut decl: Vec<TokenStream> = im
            .params
            .iter()
            .map(|(a, t)| {
                let ty = self.api_type(*t);
                quote!(#a: #ty)
            })
            .collect();
        let mut names: Vec<Ident> = im.params.iter().map(|(a, _)| a.clone()).collect();
        if matches!(im.kind, InputKind::Decide(..)) {
            decl.push(quote!(holds: bool));
            names.push(format_ident!("holds"));
        }
        (decl, names)
    }
}
