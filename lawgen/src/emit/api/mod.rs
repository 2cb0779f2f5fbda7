//! The typed API around the engine: entity types, `Facts`, batch
//! evaluation, `Conclusions` (docs/reference.md#generated-code). Built as
//! tokens from an [`model::ApiModel`], computed once from the program; one
//! renderer per kind of item reads it. Every package string is either a
//! `Literal::string` or has gone through `names`.

mod batch;
mod case;
mod columns;
mod conclusions;
mod facts;
mod ids;
mod input;
mod model;
mod package;
mod tokens;

use super::names::ApiNames;
use super::plan::Plan;
use super::EmitOptions;
use model::ApiModel;
use proc_macro2::TokenStream;
use quote::quote;

/// The typed API's items: those before `mod __engine` and those after it.
pub(super) struct Items {
    pub before: TokenStream,
    pub after: TokenStream,
}

/// Writes the typed API of one module.
pub(super) struct Api<'a> {
    model: ApiModel<'a>,
}

impl<'a> Api<'a> {
    pub(super) fn new(plan: &'a Plan<'a>, names: &'a ApiNames, opts: &'a EmitOptions) -> Self {
        Api {
            model: ApiModel::new(plan, names, opts),
        }
    }

    /// The API's items, around `evaluate_batch` and `CASES_PER_RUN`, the
    /// engine's.
    pub(super) fn items(&self, evaluate_batch: TokenStream) -> Items {
        let m = &self.model;
        let header = package::header(m);
        let types = ids::items(m);
        let row = case::row_type(m);
        let law = package::law(m);
        let input_rels = case::input_rels(m);
        let case = case::items(m);
        let facts = facts::items(m);
        let input = input::items(m);
        let columns = columns::items(m);
        let batch = batch::items(m, evaluate_batch);
        let conclusions = conclusions::items(m);
        Items {
            before: quote! {
                #header
                #(#types)*
            },
            after: quote! {
                #row
                #law
                #input_rels
                #case
                #facts
                #input
                #columns
                #batch
                #conclusions
            },
        }
    }
}
