//! The tools of the `lawgen` command that are not compiler stages: they use
//! the stages (a checked package, its lowered program, the reference
//! evaluator), and no stage uses them. Behind the `cli` feature, except the
//! child side of `lawgen bench` (feature `bench`), which the crates the
//! benchmark compiles link.

#[cfg(feature = "cli")]
pub mod analyze;
pub mod bench;
#[cfg(feature = "cli")]
pub mod check;
#[cfg(feature = "cli")]
pub mod compiled;
#[cfg(feature = "cli")]
pub mod fmt;
#[cfg(feature = "cli")]
pub mod graph;
#[cfg(feature = "cli")]
pub mod lint;
#[cfg(feature = "cli")]
pub mod test;
