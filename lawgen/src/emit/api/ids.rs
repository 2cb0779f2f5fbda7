//! The entity id types: one `Copy` newtype over a `u32` per entity type,
//! with the package's constants of that type.

use super::super::doc_attrs;
use super::model::{ApiModel, EntityModel};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Every entity type's id type, in declaration order.
pub(super) fn items(m: &ApiModel) -> Vec<TokenStream> {
    m.types.iter().map(entity_type).collect()
}

fn entity_type(t: &EntityModel) -> TokenStream {
    let id = &t.ident;
    let doc = doc_attrs(&t.doc);
    let consts = t.consts.iter().map(|(c, v, doc)| {
        let doc = doc_attrs(doc);
        quote!(#doc pub const #c: #id = #id(#v);)
    });
    let tname = Literal::string(&t.name);
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #id(u32);
        impl #id {
            #(#consts)*

            /// The entity with index `index` of a nameless case
            /// ([`Case`], [`Columns`]): the caller numbers each type's
            /// entities of a case densely from 0, and conclusions call
            /// this one `Type#index`. An index too large for a case to
            /// hold gives an id with which the case fails to evaluate.
            #[inline]
            pub const fn from_index(index: u32) -> Self {
                #id(__rt::id_of_index(FIRST_ID, index))
            }

            /// The entity's index in its case (`None` for a package
            /// constant). In a `Facts`, the order it was named in
            /// among all types.
            #[inline]
            pub const fn index(self) -> Option<u32> {
                __rt::index_of_id(FIRST_ID, self.0)
            }
        }
        impl ::lawgen_runtime::Entity for #id {
            const TYPE_NAME: &'static str = #tname;
            fn id(self) -> u32 { self.0 }
            fn __from_id(id: u32) -> Self { #id(id) }
        }
    }
}
