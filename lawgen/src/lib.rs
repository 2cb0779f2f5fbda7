//! lawgen compiles rule packages — law written as code in the `law.core.ir`
//! schema, or in its text form (`.law`) — into typed Rust, and evaluates them.
//!
//! What a user of the library needs is documented here:
//!
//! - [`Builder`], for `build.rs`: it reads and checks a package and writes a
//!   Rust module that `lawgen_runtime::include_package!` includes; a
//!   [`Package`] carries one module's own engine and name. A broken package
//!   fails `cargo build` with lawgen's diagnostics ([`BuildError`]).
//! - [`driver`], for tools: [`driver::load_file`] reads and checks a package
//!   and returns every problem at once as [`diagnostics::Diagnostics`];
//!   [`driver::lower`] gives its lowered program and [`driver::evaluate`]
//!   evaluates it with the reference evaluator; [`generate`] gives the Rust
//!   module [`Builder`] writes, as a string.
//! - [`doc`], the review document: every node of a package read back in
//!   Russian or English, as text, Markdown or a self-contained HTML page
//!   (`doc::Builder`, `doc::render`).
//! - [`suite`], scenario suites (docs/testing.md#scenario-suites-lawgen-test):
//!   [`suite::discover`] reads a directory of facts files and their expected
//!   conclusions, [`suite::run`] evaluates each and compares; what `lawgen
//!   test` reports and the review document's `--scenarios` shows.
//! - [`format`](mod@format), a package file in canonical form or converted to the
//!   other form (`lawgen fmt`, `lawgen convert`).
//! - `python` (feature `emit`), a package's Python module: the bindings
//!   file `Builder::python` writes and its docstring.
//! - [`graph`], the predicate dependency graph of a package as Graphviz DOT
//!   (`lawgen graph`).
//! - [`lint`], the second opinion on a package that checks:
//!   [`lint::warnings`] gives the `W0xx` warnings `lawgen lint` prints.
//! - [`summary`], the one-screen summary of a checked package that `lawgen
//!   check` prints ([`summary::render`]).
//! - [`synth`], synthetic cases drawn from a package's rules, what `lawgen
//!   bench` evaluates ([`synth::Synth`]).
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), lawgen::BuildError> {
//!     lawgen::Builder::new()
//!         .package("laws/fide.laws.chess-0.1.0.ir.json")
//!         .compile()?;
//!     Ok(())
//! }
//! ```
//!
//! ```
//! let loaded = lawgen::driver::load_file(
//!     "../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json".as_ref(),
//!     &Default::default(),
//! )
//! .unwrap();
//! assert_eq!(loaded.catalog.rules.len(), 47);
//! ```
//!
//! Nothing else is public. The compiler's stages — `syntax` (read, verify
//! hashes, the text form) → `check` → `lower` (the defeasible overlay) →
//! `emit` — are private modules behind these entry points, and the `lawgen`
//! command is a crate of its own (`lawgen-cli`) that the library never
//! names, and which uses only what is listed here. lawgen's own
//! cross-stack tests, fuzz harness and benches reach the stages through
//! `internals` (feature `internals`), which is hidden and not a stable API. ARCHITECTURE.md in the repository
//! says where these boundaries are. What compiled packages need at run time
//! (the lowered program, the reference evaluator, facts and output formats,
//! explanations) is `lawgen_runtime`'s.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod diagnostics;
pub mod doc;
pub mod driver;
pub mod format;
pub mod graph;
pub mod lint;
pub mod suite;
pub mod summary;
pub mod synth;

// Every tool of the `lawgen` command is built on the public modules above,
// so the stages have no code that only a tool uses. Some of the checked
// model (`model`: nodes' labels and texts, a few lookups) serves only
// lawgen's own tests, fuzz harness and benches, which reach it through
// `internals`: without `internals` that is dead code by design, and not
// reported. The workspace build, which clippy checks with `-D warnings`, has
// `internals` (the fuzz harness and the test targets ask for it), so dead
// code is still found there.
//
// `internals` re-exports these stages whole, which makes every `pub` item in
// them reachable; they are not an API and are not documented as one, so
// `missing_docs` is off for them in that build. What the public modules
// re-export from a stage is still held to it by every build without
// `internals` (what a user compiles).
#[cfg(feature = "emit")]
#[cfg_attr(feature = "internals", allow(missing_docs))]
mod builder;
#[cfg_attr(feature = "internals", allow(missing_docs))]
mod check;
#[cfg(feature = "emit")]
#[cfg_attr(feature = "internals", allow(missing_docs))]
mod emit;
#[cfg_attr(feature = "internals", allow(missing_docs))]
mod imports;
#[cfg_attr(feature = "internals", allow(missing_docs))]
mod lower;
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
#[cfg_attr(feature = "internals", allow(missing_docs))]
mod model;
#[cfg(feature = "emit")]
pub mod python;
#[cfg_attr(feature = "internals", allow(missing_docs))]
mod syntax;

// The runtime's modules the stages name as `crate::…`.
#[cfg(feature = "emit")]
use lawgen_runtime::explain;
use lawgen_runtime::{program, scc};

// The door to the stages is public in the Rust sense only (ARCHITECTURE.md,
// "API boundaries"): hidden, and not documented as an API.
#[cfg(feature = "internals")]
#[doc(hidden)]
#[allow(missing_docs)]
pub mod internals;

#[cfg(feature = "emit")]
pub use builder::{BuildError, Builder, Package, ASCENT_DEPENDENCY, ASCENT_VERSION};
#[cfg(feature = "emit")]
pub use emit::{EmitError, EmitOptions, Emitted, Engine, ASCENT_RULES, STRAIGHT_LINE_RULES};
/// Hex SHA-256 of bytes, lower case: the digest packages' hashes, lock files
/// and the service's receipts are written with (docs/reference.md#integrity).
pub use syntax::hash::sha256_hex;

/// The whole back of the pipeline for a checked package, without IO:
/// lower → emit (unfold, preload, the engine, the typed API). What
/// [`Builder`] calls; a build script that wants the source as a string can
/// call it after [`driver::load_file`].
#[cfg(feature = "emit")]
pub fn generate(loaded: &driver::Loaded, opts: &EmitOptions) -> Result<Emitted, EmitError> {
    check::size::native(&loaded.model).map_err(EmitError::Unsupported)?;
    let program = lower::lower(&loaded.model).map_err(EmitError::Lower)?;
    let mut opts = opts.clone();
    opts.source_sha256 = Some(syntax::hash::sha256_hex(loaded.source.as_bytes()));
    emit::emit(&program, &opts)
}
