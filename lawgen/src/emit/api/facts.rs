//! `Facts`: the input of one evaluation with entities by name, the same
//! methods as `Case` over its own `Case`, and `Facts::from_json`.

use super::super::{code, doc_attrs};
use super::model::{ApiModel, InputKind, InputMethod};
use crate::program::Ty;
use proc_macro2::TokenStream;
use quote::quote;

/// The `Facts` struct, its buffers and its methods.
pub(super) fn items(m: &ApiModel) -> TokenStream {
    let methods = m.inputs.iter().map(|im| facts_method(m, im));
    let private = private_methods(m);
    let from_json = from_json();
    quote! {
        /// The input of one evaluation (one case): entities by name,
        /// facts, explicit negations and decided judgments.
        ///
        /// Cost: every name is interned (hashed and looked up among the
        /// case's names and the package's constants), and each `Facts`
        /// owns its buffers (taken from, and given back to, the buffers
        /// of `Facts` its thread dropped); the rows are then those of a
        /// [`Case`]. Without names, [`Case`], [`evaluate_cases`] and
        /// [`evaluate_columns`] skip both.
        #[derive(Clone, Debug)]
        pub struct Facts {
            interner: __rt::Interner,
            case: Case,
        }

        impl Default for Facts {
            fn default() -> Self {
                Self::new()
            }
        }

        /// The buffers of this thread's dropped `Facts`, for its next ones.
        fn spare_facts() -> &'static ::std::thread::LocalKey<__rt::SparePool<Row>> {
            ::std::thread_local! {
                static SPARE: __rt::SparePool<Row> = const { ::std::cell::RefCell::new(Vec::new()) };
            }
            &SPARE
        }

        impl Drop for Facts {
            fn drop(&mut self) {
                self.interner.recycle(::std::mem::take(&mut self.case.rows), spare_facts());
            }
        }

        impl Facts {
            /// Empty facts (the package's constants are known already).
            /// Reuses the buffers of a `Facts` this thread dropped.
            pub fn new() -> Self {
                let (interner, mut rows) = __rt::Interner::reuse(CONSTANTS, constant_id, spare_facts(), 48);
                rows.extend_from_slice(default_in_force());
                Facts { interner, case: Case { rows, start: 0, hi: 0, tag: 0 } }
            }

            /// Judges these facts as of `date` ([`Case::as_of`]).
            pub fn as_of(&mut self, date: __rt::Date) -> Result<&mut Self, __rt::Error> {
                self.case.as_of(date)?;
                Ok(self)
            }

            /// The name of an entity of these facts (`None` for an id from elsewhere).
            pub fn name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<&str> {
                self.interner.name_of(e.id())
            }

            /// The entity named `name`, if these facts or the package
            /// know it (unlike the typed constructors, this declares nothing).
            pub fn get<E: ::lawgen_runtime::Entity>(&self, name: &str) -> Option<E> {
                self.interner.get(name).map(E::__from_id)
            }

            #(#methods)*

            #private
        }

        #from_json
    }
}

/// `Facts::evaluate`, and what bench and bridge code calls.
fn private_methods(m: &ApiModel) -> TokenStream {
    let width = m.width;
    quote! {
        /// Evaluates the package on these facts under `policy`.
        /// Fails if a fact and its explicit negation were both given,
        /// or a method got an entity id these facts did not issue.
        /// For many cases, [`evaluate_many`] is much faster.
        pub fn evaluate(&self, policy: __rt::Policy) -> Result<Conclusions, __rt::Error> {
            evaluate_batch(Input::Named(vec![self.clone()]), policy)
                .pop()
                .unwrap_or_else(|| Err(__rt::Error::Internal("a batch of one gave no result".into())))
        }

        /// Interns a name without declaring it (bench and bridge code).
        #[doc(hidden)]
        pub fn __intern(&mut self, name: &str) -> u32 {
            self.interner.intern(name)
        }

        #[doc(hidden)]
        pub fn __push(&mut self, rel: usize, row: &[i64]) {
            let mut v = [0i64; #width];
            for (slot, x) in v.iter_mut().zip(row) {
                *slot = *x;
            }
            self.case.rows.push((rel as u32, v));
        }
    }
}

fn from_json() -> TokenStream {
    quote! {
        ::lawgen_runtime::__if_serde! {
            impl Facts {
                /// Reads a facts file (docs/reference.md#facts-files): keys are predicate names,
                /// `~p` states an explicit negation; errors name the key and row.
                pub fn from_json(bytes: &[u8]) -> Result<Facts, __rt::Error> {
                    let mut facts = Facts::new();
                    let mut rows: Vec<(usize, Vec<i64>)> = Vec::new();
                    let date = __rt::read_facts_json(&PACKAGE, bytes, &mut facts.interner, &mut |r, row| rows.push((r, row.to_vec())))?;
                    for (r, row) in rows {
                        facts.__push(r, &row);
                    }
                    if let Some(d) = date {
                        facts.as_of(d)?;
                    }
                    Ok(facts)
                }
            }
        }
    }
}

/// One method of `Facts`: an entity by name, or the `Case` method of the
/// same name.
fn facts_method(m: &ApiModel, im: &InputMethod) -> TokenStream {
    let name = &im.name;
    let (decl, args) = m.method_args(im);
    match im.kind {
        InputKind::Entity(_) | InputKind::Nothing => {
            let Ty::Entity(t) = im.params[0].1 else {
                unreachable!("a declaration's parameter is an entity")
            };
            let ty = m.type_ident(t);
            let declare =
                (im.kind != InputKind::Nothing).then(|| quote!(self.case.#name(#ty(id));));
            let doc = doc_attrs(&format!(
                "The `{}` entity named `name` (interned; declared as an entity of the input).",
                code(m.type_name(t))
            ));
            quote! {
                #doc
                pub fn #name(&mut self, name: &str) -> #ty {
                    let id = self.interner.intern(name);
                    #declare
                    #ty(id)
                }
            }
        }
        _ => {
            let doc = doc_attrs(&im.doc);
            quote! {
                #doc
                #[inline]
                pub fn #name(&mut self, #(#decl),*) -> &mut Self {
                    self.case.#name(#(#args),*);
                    self
                }
            }
        }
    }
}
