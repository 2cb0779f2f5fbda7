//! The tools of the `lawgen` command that are not compiler stages: they use
//! the stages (a checked package, its lowered program, the reference
//! evaluator), and no stage uses them.

pub mod test;
