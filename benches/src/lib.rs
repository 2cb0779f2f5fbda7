//! Throughput benchmarks of lawgen on the FIDE Laws of Chess.
//!
//! * [`fide_laws_chess`]: the package compiled by `build.rs` (the generated
//!   code under test, Ascent engine); [`fide_laws_chess_direct`]: the same
//!   package, Direct engine; [`fide_laws_chess_strict`] and
//!   [`fide_laws_chess_uncontested`]: the variants that measure the
//!   defeasible overlay's cost (see `scripts/make_strict_variant.py`).
//! * [`cases`]: a deterministic generator of chess games and the adapters to
//!   each engine's input.
//! * [`plain`]: the rules written by hand in plain Rust (the limit).
//! * [`engines`]: each engine run over `n` cases, summing the concluded
//!   counts, as the benches and the throughput binary call them.
//! * [`tournament`]: many games merged into one facts file (one case), for
//!   the `tournament` binary.

lawgen_runtime::include_package!(fide_laws_chess);
// The same package compiled by the Direct engine (the same API).
lawgen_runtime::include_package!(fide_laws_chess_direct);
// The variants cost two more compilations of a chess-sized engine: only
// with the `overlay-variants` feature (the throughput binary needs it).
#[cfg(feature = "overlay-variants")]
lawgen_runtime::include_package!(fide_laws_chess_strict);
#[cfg(feature = "overlay-variants")]
lawgen_runtime::include_package!(fide_laws_chess_uncontested);

pub mod cases;
pub mod engines;
pub mod plain;
pub mod tournament;
