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
//! - [`columns`]: a module's `Columns` read through one descriptor per
//!   field, and the contradiction error read from a table;
//! - [`input`]: cases without names (ids the caller chose), their rows in
//!   one reused buffer per batch, column-wise input grouped by case, and
//!   how conclusions name entities that have no name;
//! - [`embedded`]: the lowered program a module embeds, decoded on first use;
//! - `bridge` (features `serde`, `explain`): facts files in, the canonical
//!   output out and explanations, all read through the embedded program.

pub mod batch;
#[cfg(any(feature = "serde", feature = "explain"))]
pub mod bridge;
pub mod columns;
pub mod embedded;
pub mod input;
pub mod interner;
