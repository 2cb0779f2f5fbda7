//! lawgen: compile `law.core.ir` rule packages into Rust, and evaluate them.
//!
//! The pipeline, one module per stage (see ARCHITECTURE.md):
//!
//! ```text
//! syntax (read JSON, verify hashes) → check (names, types, safety, priorities,
//! closures, judgments, strata) → lower (Datalog + defeasible overlay)
//! → interp (reference evaluator) → canonical output / explanations
//! ```
//!
//! ```
//! let bytes = std::fs::read("../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json").unwrap();
//! let loaded = lawgen::driver::load_bytes(&bytes, &Default::default()).unwrap();
//! assert_eq!(loaded.model.rules.len(), 47);
//! ```
pub mod bench;
#[cfg(feature = "emit")]
pub mod builder;
pub mod check;
#[cfg(feature = "emit")]
pub mod compiled;
pub mod diagnostics;
pub mod driver;
#[cfg(feature = "emit")]
pub mod emit;
pub mod explain;
pub mod graph;
pub mod interp;
pub mod lower;
pub mod model;
pub mod program;
mod scc;
pub mod summary;
pub mod syntax;
pub mod synth;

#[cfg(feature = "emit")]
pub use builder::{BuildError, Builder};
#[cfg(feature = "emit")]
pub use emit::Engine;
