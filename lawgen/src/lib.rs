//! lawgen compiles rule packages — law written as code in the `law.core.ir`
//! schema, or in its text form (`.law`) — into typed Rust, and evaluates them.
//!
//! Most users need two things, both documented here:
//!
//! - [`Builder`], for `build.rs`: it reads and checks a package and writes a
//!   Rust module that `lawgen_runtime::include_package!` includes. A broken
//!   package fails `cargo build` with lawgen's diagnostics ([`BuildError`]).
//! - [`driver`], for tools: [`driver::load_file`] reads and checks a package
//!   and returns every problem at once as [`diagnostics::Diagnostics`].
//! - [`doc`], the review document: every node of a package read back in
//!   Russian or English, as text, Markdown or a self-contained HTML page
//!   (`doc::Builder`, `doc::render`).
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
//! assert_eq!(loaded.model.rules.len(), 47);
//! ```
//!
//! The other modules are the compiler's stages — `syntax` (read, verify
//! hashes, the text form) → `check` → `lower` (the defeasible overlay) →
//! `emit` — and the tools of the `lawgen` command (`fmt`, `lint`, and behind
//! the `cli` feature the benchmark, the compiled-package cache, the graph
//! and the check summary). They are public for lawgen's own tests and tools,
//! hidden from the documentation, and not a stable API; ARCHITECTURE.md in
//! the repository describes them. What compiled packages need at run time
//! (the lowered program, the reference evaluator, facts and output formats,
//! explanations) is `lawgen_runtime`'s, re-exported here under the same names.

#[cfg(feature = "emit")]
pub mod builder;
pub mod diagnostics;
pub mod doc;
pub mod driver;

#[doc(hidden)]
pub mod check;
#[cfg(any(feature = "cli", feature = "bench"))]
#[doc(hidden)]
pub mod cli;
#[cfg(feature = "emit")]
#[doc(hidden)]
pub mod emit;
#[doc(hidden)]
pub use lawgen_runtime::explain;
#[doc(hidden)]
pub mod imports;
#[doc(hidden)]
pub use lawgen_runtime::interp;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod model;
#[doc(hidden)]
pub use lawgen_runtime::program;
use lawgen_runtime::scc;
#[cfg(feature = "emit")]
#[doc(hidden)]
pub mod python;
mod suite;
#[doc(hidden)]
pub mod syntax;

#[cfg(feature = "emit")]
pub use builder::{BuildError, Builder};

/// The whole back of the pipeline for a checked package, without IO:
/// lower → emit (`emit::emit` unfolds, preloads and writes the engine). What
/// [`Builder`] calls; a build script that wants the source as a string can
/// call it after `driver::load_file`.
#[cfg(feature = "emit")]
pub fn generate(
    loaded: &driver::Loaded,
    opts: &emit::EmitOptions,
) -> Result<emit::Emitted, emit::EmitError> {
    let program = lower::lower(&loaded.model).map_err(emit::EmitError::Lower)?;
    let mut opts = opts.clone();
    opts.source_sha256 = Some(syntax::hash::sha256_hex(loaded.source.as_bytes()));
    emit::emit(&program, &opts)
}
#[cfg(feature = "emit")]
pub use emit::Engine;
