//! `Conclusions`: the result of evaluating one case, with per
//! institutional literal its verdict method, `_all` iterator and
//! explanations, the open requests, the counts and the canonical output.

use super::super::{code, doc_attrs, split};
use super::model::{ApiModel, LitModel};
use super::tokens::{index, to_col};
use crate::program::Ty;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// How a case's entities are named, in a method of `Conclusions`.
fn names() -> TokenStream {
    quote!(self.batch.input.names(self.case as usize))
}

/// The `Conclusions` struct, its methods, its canonical output and its
/// explanations.
pub(super) fn items(m: &ApiModel) -> TokenStream {
    let core = core(m);
    let naming = naming();
    let counts = counts(m);
    let ncounts = m.lits.len();
    let verdicts = m.lits.iter().map(|l| lit_methods(m, l));
    let rows = rows(m);
    let trailers = trailers();
    // Defined only where it is called: an unused macro is a warning.
    let explain_fns = if m.lits.is_empty() {
        TokenStream::new()
    } else {
        explain_fns()
    };
    quote! {
        #explain_fns

        /// The result of evaluating one case: a verdict per ground literal.
        /// (The cases of one engine run share their storage; see
        /// `Batching::batch_size`.)
        #[derive(Clone, Debug)]
        pub struct Conclusions {
            batch: ::std::sync::Arc<Batch>,
            case: u32,
            policy: __rt::Policy,
            /// Decoded on first use: most callers read verdicts or
            /// counts, and a request owns its names.
            requests: ::std::sync::OnceLock<Vec<__rt::Request>>,
        }

        impl Conclusions {
            #core
            #naming

            /// For each institutional literal (`p`, `~p`), how many tuples
            /// are concluded (definitely or defeasibly).
            pub fn concluded_counts(&self) -> [(&'static str, usize); #ncounts] {
                #counts
            }


            #(#verdicts)*

            #[doc(hidden)]
            pub fn __rows(&self, rel: usize) -> Vec<Vec<i64>> {
                #rows
            }

        }

        #trailers
    }
}

/// The statements decoding each judgment's open requests into `out`.
fn request_decodes(m: &ApiModel) -> Vec<TokenStream> {
    let names = names();
    let decodes = m.requests.iter().map(|rv| {
        let v = m.case_rows(rv.rel);
        let local = Literal::string(&rv.local);
        let pred = rv.pred;
        let auth = Literal::string(&rv.authority);
        let cap = Literal::string(&rv.capability);
        let cols = m.rel(rv.rel).columns.iter().enumerate();
        let decode = cols.map(|(k, t)| m.col_arg(*t, k, &names));
        quote! {
            if of.is_none_or(|j| j.contains(&#pred)) {
                for t in #v {
                    out.push(__rt::Request { predicate: #local.to_owned(), args: vec![#(#decode),*], authority: #auth.to_owned(), capability: #cap.to_owned() });
                }
            }
        }
    });
    decodes.collect()
}

/// `new`, the requests, the verdict every verdict method calls, the
/// policy and the facts.
fn core(m: &ApiModel) -> TokenStream {
    let request_decodes = request_decodes(m);
    quote! {
        fn new(batch: ::std::sync::Arc<Batch>, case: u32, policy: __rt::Policy) -> Self {
            Conclusions { batch, case, policy, requests: ::std::sync::OnceLock::new() }
        }

        /// The open requests of the judgments `of` (by predicate id; all
        /// of them for `None`), sorted.
        #[allow(unused_variables)]
        fn collect_requests(&self, of: Option<&[u32]>) -> Vec<__rt::Request> {
            let mut out = Vec::new();
            #(#request_decodes)*
            out.sort();
            out.dedup();
            out
        }

        /// The open requests a pending verdict waits on: those of the
        /// judgments in its dependency past, matched by predicate id, not
        /// by name (two packages may each have a judgment of one name).
        fn requests_on(&self, judgments: &[u32]) -> Vec<__rt::Request> {
            self.collect_requests(Some(judgments))
        }

        /// The verdict on one row: what every verdict method calls,
        /// compiled once per row type.
        #[allow(dead_code)]
        fn __verdict<T: Ord + Copy>(&self, row: &T, sections: [&[__rt::SectionRel]; 4], judgments: &[u32]) -> __rt::Verdict
        where
            Outputs: __rt::Kept<T>,
        {
            __rt::verdict(&self.batch.out, self.case, row, sections, || self.requests_on(judgments))
        }

        /// The conflict policy this evaluation used.
        pub fn policy(&self) -> __rt::Policy {
            self.policy
        }

        /// Every judgment the authorities are asked to decide, sorted.
        pub fn requests(&self) -> &[__rt::Request] {
            self.requests.get_or_init(|| {
                self.collect_requests(None)
            })
        }

        /// The facts this evaluation ran on (`None` for a nameless
        /// case: a [`Case`] or [`Columns`]).
        pub fn facts(&self) -> Option<&Facts> {
            match &self.batch.input {
                Input::Named(v) => v.get(self.case as usize),
                Input::Nameless(_) => None,
            }
        }
    }
}

/// `name`, `get` and `entity_name`.
fn naming() -> TokenStream {
    let names = names();
    quote! {
        /// The name an entity was given (`None` for an id from other
        /// facts, and for a nameless case's own entities: see
        /// [`Conclusions::entity_name`]).
        pub fn name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<&str> {
            #names.given(e.id())
        }

        /// The entity called `name` in these conclusions: by its name
        /// in the facts or the package, or `Type#index` in a nameless
        /// case.
        pub fn get<E: ::lawgen_runtime::Entity>(&self, name: &str) -> Option<E> {
            #names.id(E::TYPE_NAME, name).map(E::__from_id)
        }

        /// What `to_json`, explanations and requests call an entity:
        /// its name, or `Type#index` for a nameless case's own
        /// (`Game#0`; never a constant's name). `None` for an id
        /// these conclusions cannot hold.
        pub fn entity_name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<String> {
            #names.name(E::TYPE_NAME, e.id()).map(|n| n.into_owned())
        }
    }
}

/// `concluded_counts`'s body: per literal, its name and count; above the
/// split threshold, a loop over a table of literals and kept relations.
fn counts(m: &ApiModel) -> TokenStream {
    let ncounts = m.lits.len();
    if !split::splits(m.split_above, ncounts) {
        let counts = m.lits.iter().map(|l| {
            let text = Literal::string(&l.text);
            let count = match l.defeasibly() {
                Some(r) => m.case_count(r),
                None => quote!(0),
            };
            quote!((#text, #count))
        });
        return quote!([#(#counts),*]);
    }
    let counted = m.lits.iter().map(|l| {
        let text = Literal::string(&l.text);
        match l.defeasibly() {
            Some(r) => {
                let k = Literal::usize_unsuffixed(m.kept[&r].index);
                quote!((#text, Some(#k)))
            }
            None => quote!((#text, None)),
        }
    });
    quote! {
        /// Per literal, the kept relation of its defeasible section.
        static COUNTED: [(&str, Option<usize>); #ncounts] = [#(#counted),*];
        ::std::array::from_fn(|j| {
            let (lit, k) = COUNTED[j];
            (lit, k.map_or(0, |k| self.batch.out.count(k, self.case)))
        })
    }
}

/// `__rows`'s body: where the rows of every relation the reference bridge
/// asks for are, as a table read by one lookup (one match arm per
/// relation was a tenth of a large module).
fn rows(m: &ApiModel) -> TokenStream {
    let sources = m.row_rels.iter().map(|&r| {
        let rel = Literal::u32_unsuffixed(r.0);
        if m.rel(r).input {
            let arity = Literal::usize_unsuffixed(m.rel(r).columns.len());
            quote!((#rel, Input(#arity)))
        } else {
            let k = Literal::usize_unsuffixed(m.kept[&r].index);
            quote!((#rel, Kept(#k)))
        }
    });
    let n = m.row_rels.len();
    quote! {
        use __rt::RowSource::{Input, Kept};
        /// Per relation (sorted), where its rows are.
        static SOURCES: [(u32, __rt::RowSource); #n] = [#(#sources),*];
        match SOURCES.binary_search_by_key(&rel, |(r, _)| *r as usize) {
            Ok(i) => match SOURCES[i].1 {
                Input(arity) => __rt::input_rows(self.batch.input.rows(self.case as usize), rel as u32, arity),
                Kept(k) => self.batch.out.rows(k, self.case),
            },
            Err(_) => Vec::new(),
        }
    }
}

/// The four methods of one institutional literal: its verdict, `_all`,
/// and `explain_*` and `explain_*_in` by one call of `__explain_fns!`.
fn lit_methods(m: &ApiModel, l: &LitModel) -> TokenStream {
    let (vn, alln, exn, exn_in) = (&l.verdict, &l.all, &l.explain, &l.explain_in);
    let args = &l.args;
    let tys: Vec<TokenStream> = l.params.iter().map(|t| m.api_type(*t)).collect();
    let verdict_body = verdict_body(m, l);
    let all_body = all_body(m, l);
    let lit_name = code(&l.text);
    let doc = doc_attrs(&l.doc);
    let all_doc = doc_attrs(&format!(
        "Every tuple for which `{lit_name}` is concluded (definitely or defeasibly), sorted by id."
    ));
    let lit_name = Literal::string(&lit_name);
    let full_id = Literal::string(&l.full_id);
    let negative = l.negative;
    quote! {
        #doc
        pub fn #vn(&self, #(#args: #tys),*) -> __rt::Verdict {
            #verdict_body
        }
        #all_doc
        pub fn #alln(&self) -> impl Iterator<Item = (#(#tys,)*)> + '_ {
            #all_body
        }
        __explain_fns!(#lit_name, #full_id, #negative, #vn, #exn, #exn_in, #(#args: #tys),*);
    }
}

/// `__explain_fns!`: the two explanation methods of one institutional
/// literal, written once (per literal they were a fifth of a large
/// module), each a call of `__explain`.
fn explain_fns() -> TokenStream {
    let names = names();
    quote! {
        /// `explain_*` and `explain_*_in` of one institutional literal:
        /// its text, its predicate's full id, whether it is negative, its
        /// verdict method, the two methods' names and the arguments.
        macro_rules! __explain_fns {
            ($lit:literal, $id:literal, $negative:literal, $verdict:ident, $explain:ident, $explain_in:ident, $($a:ident: $t:ty),*) => {
                ::lawgen_runtime::__if_explain! {
                    #[doc = concat!(" Explains the verdict on `", $lit, "` for these arguments (the same tree as `lawgen explain`).")]
                    pub fn $explain(&self, $($a: $t),*) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                        self.$explain_in($($a,)* "en")
                    }
                    #[doc = concat!(" Explains the verdict on `", $lit, "` in language `lang` (`en`, `ru`): labels, article texts and lawgen's own words.")]
                    pub fn $explain_in(&self, $($a: $t,)* lang: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                        let args = vec![$(__rt::QueryArg::query_arg($a, #names)?),*];
                        self.__explain($id, $negative, args, &self.$verdict($($a),*), lang)
                    }
                }
            };
        }
    }
}

/// A verdict method's body: one call of `__verdict`, compiled once per row
/// type, with each section's relations (`rel \ minus`) in the order the
/// runtime's `verdict` ranks them, as `lawgen explain` does.
fn verdict_body(m: &ApiModel, l: &LitModel) -> TokenStream {
    let args = &l.args;
    if !l.concluded_ever() {
        // No section of this literal is kept: never concluded.
        return quote! {
            let _ = (#(#args,)*);
            __rt::Verdict::NotConcluded
        };
    }
    let cols = l.params.iter().zip(args).map(|(t, a)| to_col(*t, a));
    let sections = l.sections.iter().map(|rels| {
        let rels = rels.iter().map(|(r, minus)| {
            let k = Literal::usize_unsuffixed(m.kept[r].index);
            let minus = match minus {
                Some(mr) => {
                    let mk = Literal::usize_unsuffixed(m.kept[mr].index);
                    quote!(Some(#mk))
                }
                None => quote!(None),
            };
            quote!((#k, #minus))
        });
        quote!(&[#(#rels),*])
    });
    let judgments = l.judgments.iter();
    quote!(self.__verdict(&(self.case, #(#cols,)*), [#(#sections),*], &[#(#judgments),*]))
}

/// A tuple's columns from `first` on, typed: the typed tuple of a row
/// without its case column (an output row's column 0 is the case;
/// `case_rows` drops it from an input row).
fn wrap(m: &ApiModel, l: &LitModel, first: usize) -> Vec<TokenStream> {
    let cols = l.params.iter().enumerate();
    cols.map(|(k, t)| {
        let idx = index(first + k);
        match t {
            Ty::Int => quote!(t.#idx),
            Ty::Entity(id) => {
                let ti = m.type_ident(*id);
                quote!(#ti(t.#idx))
            }
        }
    })
    .collect()
}

/// An `_all` iterator's body: the rows of the defeasible section, typed.
fn all_body(m: &ApiModel, l: &LitModel) -> TokenStream {
    match l.defeasibly() {
        Some(r) if !m.rel(r).input => {
            // The row without its case column, typed, in one map.
            let o = m.out(r);
            let wrap_row = wrap(m, l, 1);
            quote!(#o.case(self.case).iter().map(|t| (#(#wrap_row,)*)))
        }
        Some(r) => {
            let rows = m.case_rows(r);
            let wrap = wrap(m, l, 0);
            quote!(#rows.map(|t| (#(#wrap,)*)))
        }
        None => quote!(::std::iter::empty()),
    }
}

/// The canonical output and the explanations by text.
fn trailers() -> TokenStream {
    let names = names();
    quote! {
        ::lawgen_runtime::__if_serde! {
            impl Conclusions {
                /// The canonical output of docs/reference.md#the-canonical-output (what `lawgen eval` prints).
                pub fn to_json(&self) -> Result<String, __rt::Error> {
                    __rt::canonical_json(&PACKAGE, self.policy, #names, &|r| self.__rows(r))
                }

                /// The canonical output, typed: per section, per literal
                /// (`game_drawn`, `~game_drawn`), its rows of values, with the
                /// open requests, the date and the editions in force; what
                /// `to_json` prints, without a JSON reader.
                pub fn to_canonical(&self) -> Result<::lawgen_runtime::interp::Conclusions, __rt::Error> {
                    __rt::canonical(&PACKAGE, self.policy, #names, &|r| self.__rows(r))
                }
            }
        }

        ::lawgen_runtime::__if_explain! {
            impl Conclusions {
                /// Explains a literal given as text: `game_drawn(g1)`,
                /// `~castling_legal(g1, white, "king side")`.
                pub fn explain(&self, query: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                    self.explain_in(query, "en")
                }

                /// [`Conclusions::explain`] with labels, article texts and lawgen's own
                /// words in language `lang` (`en`, `ru`; others get English words).
                pub fn explain_in(&self, query: &str, lang: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                    __rt::explain(&PACKAGE, self.policy, #names, &|r| self.__rows(r), query, lang)
                }

                /// The explanation of one literal, with the verdict this
                /// module computed for it: what every `explain_*_in`
                /// calls, compiled once.
                #[allow(dead_code)]
                fn __explain(&self, predicate: &str, negative: bool, args: Vec<__rt::Arg>, verdict: &__rt::Verdict, lang: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                    __rt::explain_literal(&PACKAGE, self.policy, #names, &|r| self.__rows(r), predicate, negative, args, Some(verdict), lang)
                }
            }
        }
    }
}
