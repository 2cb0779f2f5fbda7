//! `Case`: the input of one evaluation without names, one method per input
//! literal, judgment and declared type; and the rows every input is made of.

use super::super::doc_attrs;
use super::model::{ApiModel, InputKind, InputMethod};
use super::tokens::to_col;
use crate::program::Ty;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `Row`, the fact row every input is made of.
pub(super) fn row_type(m: &ApiModel) -> TokenStream {
    let width = m.width;
    quote! {
        /// A fact row: the input relation and its columns (entities as ids).
        type Row = (u32, [i64; #width]);
    }
}

/// `INPUT_RELS`: what messages about a bad id say of each input relation.
pub(super) fn input_rels(m: &ApiModel) -> TokenStream {
    let input_rels = m.input_rels.iter().map(|(r, method)| {
        let rel = r.0;
        let method = Literal::string(method);
        let cols = m.rel(*r).columns.iter().map(|t| match t {
            Ty::Int => quote!(None),
            Ty::Entity(id) => {
                let n = Literal::string(m.type_name(*id));
                quote!(Some(#n))
            }
        });
        quote!(__rt::InputRel { rel: #rel, method: #method, columns: &[#(#cols),*] })
    });
    quote! {
        /// What a message about a bad id says of each input relation.
        static INPUT_RELS: &[__rt::InputRel] = &[#(#input_rels),*];
    }
}

/// The `Case` struct and its methods.
pub(super) fn items(m: &ApiModel) -> TokenStream {
    let methods = m.inputs.iter().map(|im| case_method(m, im));
    let as_of = as_of(m);
    quote! {
        /// The input of one evaluation without names: entities are ids
        /// the caller chooses (`Game::from_index(0)`, …, dense per case,
        /// each type counted from 0, and the package's constants), facts
        /// are rows of ids. Conclusions call such an entity `Game#0`.
        ///
        /// Cost: a method pushes one row; nothing is interned, hashed or
        /// sorted. A `Case` of its own (`Case::new`) owns one buffer;
        /// the `Case` that [`evaluate_cases`] hands to its `fill` writes
        /// into its batch's buffer, which the worker thread reuses batch
        /// after batch, so many cases allocate nothing per case.
        #[derive(Clone, Debug)]
        pub struct Case {
            rows: Vec<Row>,
            /// Where this case's rows start in `rows` (in a batch, after
            /// the earlier cases').
            start: usize,
            /// One past the largest entity id of the case (0: none).
            hi: u32,
            /// The batch that handed this case to `fill` (0: none).
            tag: u64,
        }

        impl Default for Case {
            fn default() -> Self {
                Self::new()
            }
        }

        impl Case {
            /// An empty case (the package's constants are known
            /// already), as of the package's current date.
            pub fn new() -> Self {
                Case { rows: default_in_force().to_vec(), start: 0, hi: 0, tag: 0 }
            }

            #as_of

            #(#methods)*

            /// Evaluates the package on this case under `policy`. Fails
            /// if a fact and its explicit negation were both given, or an
            /// entity id is out of range (`from_index` past its last
            /// index); the error names the method and which of its facts.
            /// For many cases, [`evaluate_cases`] is much faster.
            pub fn evaluate(&self, policy: __rt::Policy) -> Result<Conclusions, __rt::Error> {
                let mut rows = __rt::CaseRows::new();
                rows.push_case(self.rows.get(self.start..).unwrap_or(&[]), self.hi);
                evaluate_batch(Input::Nameless(rows), policy)
                    .pop()
                    .unwrap_or_else(|| Err(__rt::Error::Internal("a batch of one gave no result".into())))
            }
        }
    }
}

/// `Case::as_of`: the case's date rows replaced by those of `date`.
fn as_of(m: &ApiModel) -> TokenStream {
    let width = m.width;
    quote! {
        /// Judges this case as of `date` (docs/reference.md#as-of-evaluation):
        /// the law in force on it applies (without a date: the
        /// package's current date). Fails, changing nothing, when
        /// no edition of a work some rule is anchored to is in
        /// force on `date`; the error names the work and the dates
        /// it has an edition in force.
        pub fn as_of(&mut self, date: __rt::Date) -> Result<&mut Self, __rt::Error> {
            let f = law().on(Some(date)).map_err(|e| __rt::Error::Facts(e.to_string()))?;
            let start = self.start.min(self.rows.len());
            let mut k = start;
            for i in start..self.rows.len() {
                let r = self.rows[i];
                if !is_date_rel(r.0) {
                    self.rows[k] = r;
                    k += 1;
                }
            }
            self.rows.truncate(k);
            for (g, &on) in f.gates.iter().enumerate() {
                if on {
                    self.rows.push((IN_FORCE_RELS[g], [0; #width]));
                }
            }
            if let (Some(r), Some(d)) = (AS_OF_REL, f.date) {
                let mut v = [0i64; #width];
                v[0] = i64::from(d.0);
                self.rows.push((r, v));
            }
            Ok(self)
        }
    }
}

/// One method of `Case`: its row pushed.
fn case_method(m: &ApiModel, im: &InputMethod) -> TokenStream {
    let name = &im.name;
    let (decl, _) = m.method_args(im);
    let body = case_body(m, im);
    let doc = doc_attrs(&im.doc);
    quote! {
        #doc
        #[inline]
        pub fn #name(&mut self, #(#decl),*) -> &mut Self {
            #body
            self
        }
    }
}

/// The statements of a `Case` method: its row pushed, and each entity
/// argument counted in `hi` (one past the case's largest id).
fn case_body(m: &ApiModel, im: &InputMethod) -> TokenStream {
    let cols: Vec<TokenStream> = im.params.iter().map(|(a, t)| to_col(*t, a)).collect();
    let seen = im.params.iter().filter_map(|(a, t)| match t {
        Ty::Entity(_) => Some(quote!(self.hi = __rt::seen(self.hi, #a.0);)),
        Ty::Int => None,
    });
    let push = match im.kind {
        InputKind::Entity(r) | InputKind::Fact(r) => {
            let row = m.row_expr(r, &cols);
            quote!(self.rows.push(#row);)
        }
        InputKind::Decide(yes, no) => {
            let (ry, rn) = (m.row_expr(yes, &cols), m.row_expr(no, &cols));
            quote!(self.rows.push(if holds { #ry } else { #rn });)
        }
        InputKind::Nothing => quote!(),
    };
    quote!(#push #(#seen)*)
}
