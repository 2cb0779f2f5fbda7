//! What generated package modules call at run time, and nothing else does
//! (the reference evaluator shares only the [`interner`]). Generated code
//! reaches all of it through `crate::__private`, under the names it has
//! always used, so moving an item here never changes generated code.
//!
//! - [`interner`]: entity names ↔ dense ids, with the package's constants
//!   first (also the reference evaluator's interner, so both number entities
//!   the same way);
//! - [`batch`]: many cases per engine run, on worker threads, and a batch's
//!   rows grouped by case;
//! - [`embedded`]: the lowered program a module embeds, decoded on first use;
//! - `bridge` (features `serde`, `explain`): facts files in, the canonical
//!   output out and explanations, all read through the embedded program.

pub mod batch;
#[cfg(any(feature = "serde", feature = "explain"))]
pub mod bridge;
pub mod embedded;
pub mod interner;
