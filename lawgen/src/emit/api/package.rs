//! The package's own items: the embedded program, name, version, the
//! constants and how a nameless case names entities, and the dated law.

use super::super::{doc_attrs, names};
use super::model::ApiModel;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `PACKAGE`, `PROGRAM`, the package's name and version, and its constants.
pub(super) fn header(m: &ApiModel) -> TokenStream {
    let p = &m.package;
    let name = Literal::string(&p.name);
    let version = Literal::string(&p.version);
    let hash = Literal::string(&p.semantic_hash);
    // The lowered program the engine was generated from, as data: what
    // facts files, the canonical output and explanations read at run
    // time (no package text, no compiler), deflated.
    let program = raw_string(&p.embedded);
    let generator = Literal::string(env!("CARGO_PKG_VERSION"));
    let doc = doc_attrs(&format!(
        "The package this module was generated from: {} {}.",
        names::doc(&p.name),
        names::doc(&p.version)
    ));
    let constants = constants(m);
    quote! {
        use ::lawgen_runtime::__private as __rt;
        pub use ::lawgen_runtime::{Arg, Batching, Error, Policy, Request, Verdict};

        #doc
        pub static PACKAGE: __rt::Embedded = __rt::Embedded::new(#name, #version, #hash, #generator, PROGRAM);

        /// The lowered program this module runs, encoded by `lawgen-runtime`
        /// (its JSON deflated, in base64; read by `Facts::from_json`,
        /// `Conclusions::to_json` and `explain*`).
        const PROGRAM: &str = #program;

        /// The package's name.
        pub const PACKAGE_NAME: &str = #name;

        /// The package's version.
        pub const PACKAGE_VERSION: &str = #version;

        #constants
    }
}

/// The constants' names and ids, and how a nameless case names entities.
fn constants(m: &ApiModel) -> TokenStream {
    let constants = &m.package.constants;
    let consts = constants.iter().map(|c| Literal::string(c));
    let first = constants.len() as u32;
    let separator = Literal::string(&m.package.separator);
    let const_arms = constants.iter().enumerate().map(|(i, c)| {
        let lit = Literal::string(c);
        let id = i as u32;
        quote!(#lit => Some(#id),)
    });
    quote! {
        /// Entity names with fixed ids: the package's constants.
        static CONSTANTS: &[&str] = &[#(#consts),*];

        /// The fixed id of a constant's name.
        fn constant_id(name: &str) -> Option<u32> {
            match name {
                #(#const_arms)*
                _ => None,
            }
        }

        /// The id of a case's first own entity: the constants' ids come
        /// before it.
        const FIRST_ID: u32 = #first;

        /// How conclusions name the entities of a nameless case: a
        /// constant by its name, every other entity `Type#index`.
        static NAMELESS: __rt::Nameless = __rt::Nameless::new(CONSTANTS, constant_id, #separator);
    }
}

/// The package's dated law (docs/reference.md#as-of-evaluation), built
/// once from tables, and the in-force inputs a case's date sets.
pub(super) fn law(m: &ApiModel) -> TokenStream {
    let tables = law_tables(m);
    let width = m.width;
    quote! {
        #tables

        /// The package's dated law, built on first use.
        fn law() -> &'static __rt::Law {
            static LAW: ::std::sync::OnceLock<__rt::Law> = ::std::sync::OnceLock::new();
            LAW.get_or_init(|| __rt::Law::from_tables(LAW_WORKS, LAW_EDITIONS, LAW_GATES))
        }

        /// Is `r` a relation a case's date sets?
        fn is_date_rel(r: u32) -> bool {
            AS_OF_REL == Some(r) || IN_FORCE_RELS.contains(&r)
        }

        /// The in-force inputs of the package's current date (what a
        /// case without a date starts with; none for a package with one
        /// edition per work).
        fn default_in_force() -> &'static [Row] {
            static ROWS: ::std::sync::OnceLock<Vec<Row>> = ::std::sync::OnceLock::new();
            ROWS.get_or_init(|| match law().on(None) {
                Ok(f) => f.gates.iter().zip(IN_FORCE_RELS).filter(|(on, _)| **on).map(|(_, &r)| (r, [0; #width])).collect(),
                Err(_) => Vec::new(),
            })
        }
    }
}

/// The works, editions and conditions of the dated law, as tables.
fn law_tables(m: &ApiModel) -> TokenStream {
    let law = m.law.law;
    let works = law.works.iter().map(|w| {
        let (id, local, req) = (
            Literal::string(&w.id),
            Literal::string(&w.local),
            w.required,
        );
        quote!((#id, #local, #req))
    });
    let editions = law.editions.iter().map(|e| {
        let (id, local, work) = (Literal::string(&e.id), Literal::string(&e.local), e.work);
        let inf = e.in_force.iter().map(|d| Literal::u32_unsuffixed(d.0));
        let rep = e.repealed.iter().map(|d| Literal::u32_unsuffixed(d.0));
        quote!((#id, #local, #work, &[#(#inf),*], &[#(#rep),*]))
    });
    let gates = law.gates.iter().map(|g| {
        let any = g.any.iter();
        let none = g.none.iter().map(|s| {
            let s = s.iter();
            quote!(&[#(#s),*])
        });
        quote!((&[#(#any),*], &[#(#none),*]))
    });
    let in_force = &m.law.in_force;
    let as_of = match m.law.as_of {
        Some(r) => quote!(Some(#r)),
        None => quote!(None),
    };
    quote! {
        /// The works with dated editions: id, local name, whether a rule is anchored to one.
        static LAW_WORKS: &[__rt::WorkRow] = &[#(#works),*];
        /// The dated editions: id, local name, work, in force and repeal dates.
        static LAW_EDITIONS: &[__rt::EditionRow] = &[#(#editions),*];
        /// The conditions of the in-force inputs.
        static LAW_GATES: &[__rt::GateRow] = &[#(#gates),*];
        /// The input relation of each condition.
        static IN_FORCE_RELS: &[u32] = &[#(#in_force),*];
        /// The input relation of a case's date, if the package dates anything.
        const AS_OF_REL: Option<u32> = #as_of;
    }
}

/// A raw string literal holding `text` verbatim (newlines included), with as
/// many `#` as it takes that no `"#…` inside ends it early.
fn raw_string(text: &str) -> Literal {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{text}\"{h}")
        .parse()
        .expect("a raw string literal always lexes")
}
