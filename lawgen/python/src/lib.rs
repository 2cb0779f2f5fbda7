//! The Python module of a package compiled by lawgen: `evaluate`,
//! `evaluate_json`, `evaluate_many`, `explain` and `evaluate_arrow` (the
//! columnar layout of docs/python.md), with exceptions carrying lawgen's
//! diagnostics, over the Rust module lawgen generates for the package.
//!
//! Every binding is written once, here, for all packages: what differs from
//! one package to the next is the generated module, which this crate reaches
//! through the [`Package`] trait. A crate that builds the Python module of a
//! package (the maturin project `lawgen build --python` writes, or a crate of
//! one's own with `Builder::python`) includes the generated module and the
//! few lines of bindings lawgen writes beside it, which call
//! [`python_module!`]:
//!
//! ```ignore
//! // src/lib.rs
//! lawgen_runtime::include_package!(fide_laws_chess, "fide_laws_chess.rs");
//! include!("fide_laws_chess_python.rs");
//!
//! // fide_laws_chess_python.rs, written by lawgen
//! mod __lawgen_python_fide_laws_chess {
//!     lawgen_python::python_module! {
//!         package = super::fide_laws_chess,
//!         name = "fide_laws_chess",
//!         doc = "fide.laws.chess 0.1.0: the rule package compiled by lawgen …",
//!     }
//! }
//! ```
//!
//! The crate has two layers. [`Bindings`] is the package's module as plain
//! Rust — facts as JSON or as an Arrow record batch in, the canonical output,
//! an explanation or a verdict batch out — and needs no Python: its tests run
//! it on the golden chess module. The PyO3 layer (`py.rs`) only converts
//! arguments and errors, releases the GIL around the work, and moves record
//! batches across the Arrow C data interface. Every result is computed by the
//! generated engine and read out by lawgen's own code (`to_json`, and the
//! layout of the canonical output, `lawgen_runtime::interp::Layout`, that
//! `to_json` reads by), so the Python module prints
//! exactly what `lawgen eval` prints.

mod bindings;
mod py;
mod verdicts;

pub use bindings::Bindings;
pub use py::register;
pub use verdicts::ArrowError;

use lawgen_runtime::__private::Embedded;
use lawgen_runtime::{Batching, Error, Explanation, Policy};

/// The engines a module answers for, the first the default (the `engine`
/// argument of every function; `ENGINES` in Python).
pub const ENGINES: &[&str] = &["ascent"];

/// The languages explanations are worded in (docs/reference.md#languages);
/// labels and article texts come in the language asked for when the package
/// has them (`EXPLAIN_LANGUAGES` in Python).
pub const EXPLAIN_LANGUAGES: &[&str] = &["en", "ru"];

/// What the bindings need of a module lawgen generated: its types and
/// functions, named. [`python_module!`] implements it for a generated
/// module; nothing else needs to.
pub trait Package: 'static {
    /// The generated `Facts`.
    type Facts: Send + 'static;
    /// The generated `Conclusions`.
    type Conclusions: 'static;

    /// `PACKAGE_NAME`.
    const NAME: &'static str;
    /// `PACKAGE_VERSION`.
    const VERSION: &'static str;

    /// `PACKAGE`: the lowered program the module embeds.
    fn embedded() -> &'static Embedded;
    /// `Facts::new`.
    fn new_facts() -> Self::Facts;
    /// `Facts::from_json`.
    fn facts_from_json(bytes: &[u8]) -> Result<Self::Facts, Error>;
    /// `Facts::__intern`: the id of an entity, interned.
    fn intern(facts: &mut Self::Facts, name: &str) -> u32;
    /// `Facts::__push`: a row of an input relation (entities as ids).
    fn push(facts: &mut Self::Facts, rel: usize, row: &[i64]);
    /// `Facts::as_of`: the case's date.
    fn as_of(facts: &mut Self::Facts, date: lawgen_runtime::__private::Date) -> Result<(), Error>;
    /// `Facts::evaluate`.
    fn evaluate(facts: &Self::Facts, policy: Policy) -> Result<Self::Conclusions, Error>;
    /// The generated `evaluate_indexed`.
    fn evaluate_indexed<T: Send>(
        n: usize,
        policy: Policy,
        batching: &Batching,
        make: &(dyn Fn(usize) -> Self::Facts + Sync),
        map: &(dyn Fn(usize, Result<Self::Conclusions, Error>) -> T + Sync),
        sink: &mut dyn FnMut(usize, T),
    );
    /// `Conclusions::to_json`.
    fn to_json(c: &Self::Conclusions) -> Result<String, Error>;
    /// `Conclusions::explain_in`.
    fn explain_in(c: &Self::Conclusions, query: &str, lang: &str) -> Result<Explanation, Error>;
    /// `Conclusions::policy`.
    fn policy(c: &Self::Conclusions) -> Policy;
    /// `Conclusions::__rows`: the tuples of a relation (entities as ids).
    fn rows(c: &Self::Conclusions, rel: usize) -> Vec<Vec<i64>>;
    /// `Conclusions::name`: the name of an entity id of any type.
    fn entity_name(c: &Self::Conclusions, id: u32) -> Option<&str>;
}

/// The Python module of a generated package: implements [`Package`] for
/// it (as a type named `Package` in the calling module) and defines the
/// `#[pymodule]` named `name`, whose docstring is `doc`. The calling crate
/// depends on `pyo3` (the `#[pymodule]` attribute is pyo3's), on
/// `lawgen-runtime` and on this crate.
#[macro_export]
macro_rules! python_module {
    (
        package = $($package:ident)::+,
        name = $name:tt,
        doc = $doc:expr $(,)?
    ) => {
        /// The generated module, as the bindings reach it.
        pub struct Package;

        impl $crate::Package for Package {
            type Facts = $($package)::+::Facts;
            type Conclusions = $($package)::+::Conclusions;

            const NAME: &'static str = $($package)::+::PACKAGE_NAME;
            const VERSION: &'static str = $($package)::+::PACKAGE_VERSION;

            fn embedded() -> &'static ::lawgen_runtime::__private::Embedded {
                &$($package)::+::PACKAGE
            }
            fn new_facts() -> Self::Facts {
                $($package)::+::Facts::new()
            }
            fn facts_from_json(bytes: &[u8]) -> Result<Self::Facts, ::lawgen_runtime::Error> {
                $($package)::+::Facts::from_json(bytes)
            }
            fn intern(facts: &mut Self::Facts, name: &str) -> u32 {
                facts.__intern(name)
            }
            fn push(facts: &mut Self::Facts, rel: usize, row: &[i64]) {
                facts.__push(rel, row)
            }
            fn as_of(
                facts: &mut Self::Facts,
                date: ::lawgen_runtime::__private::Date,
            ) -> Result<(), ::lawgen_runtime::Error> {
                facts.as_of(date).map(|_| ())
            }
            fn evaluate(
                facts: &Self::Facts,
                policy: ::lawgen_runtime::Policy,
            ) -> Result<Self::Conclusions, ::lawgen_runtime::Error> {
                facts.evaluate(policy)
            }
            fn evaluate_indexed<T: Send>(
                n: usize,
                policy: ::lawgen_runtime::Policy,
                batching: &::lawgen_runtime::Batching,
                make: &(dyn Fn(usize) -> Self::Facts + Sync),
                map: &(dyn Fn(usize, Result<Self::Conclusions, ::lawgen_runtime::Error>) -> T + Sync),
                sink: &mut dyn FnMut(usize, T),
            ) {
                $($package)::+::evaluate_indexed(n, policy, batching, make, map, sink)
            }
            fn to_json(c: &Self::Conclusions) -> Result<String, ::lawgen_runtime::Error> {
                c.to_json()
            }
            fn explain_in(
                c: &Self::Conclusions,
                query: &str,
                lang: &str,
            ) -> Result<::lawgen_runtime::Explanation, ::lawgen_runtime::Error> {
                c.explain_in(query, lang)
            }
            fn policy(c: &Self::Conclusions) -> ::lawgen_runtime::Policy {
                c.policy()
            }
            fn rows(c: &Self::Conclusions, rel: usize) -> Vec<Vec<i64>> {
                c.__rows(rel)
            }
            fn entity_name(c: &Self::Conclusions, id: u32) -> Option<&str> {
                c.name($crate::AnyEntity(id))
            }
        }

        #[::pyo3::pymodule]
        #[pyo3(name = $name)]
        fn init(
            m: &::pyo3::Bound<'_, ::pyo3::types::PyModule>,
        ) -> ::pyo3::PyResult<()> {
            $crate::register::<Package>(m, $name, $doc)
        }
    };
}

/// An id of any entity type, to ask a `Conclusions` for an entity's name.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct AnyEntity(pub u32);

impl lawgen_runtime::Entity for AnyEntity {
    const TYPE_NAME: &'static str = "entity";
    fn id(self) -> u32 {
        self.0
    }
    fn __from_id(id: u32) -> Self {
        AnyEntity(id)
    }
}
