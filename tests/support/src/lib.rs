//! What lawgen's cross-stack tests share (the integration tests under
//! `lawgen/tests/`, which depend on this crate as `support`): the
//! repository's fixtures by path, [`bless`], the random package generator
//! ([`gen`]), the layering and derogation of generated packages ([`split`],
//! [`derogate`]), the harness that builds generated crates ([`harness`]) and
//! the scenario suites ([`scenarios`]).
//!
//! The tests themselves stay in the `lawgen` package: many run the `lawgen`
//! binary, and cargo tells only the tests of the package that owns a binary
//! where it is (`CARGO_BIN_EXE_lawgen`).

use std::path::{Path, PathBuf};

pub mod derogate;
pub mod gen;
pub mod harness;
pub mod nameless;
pub mod scenarios;
pub mod split;

/// The FIDE Laws of Chess, the reference package (relative to [`workspace`]).
pub const CHESS: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";
/// The directory of the FIDE package: the import path of the packages that
/// import it.
pub const CHESS_DIR: &str = "packages/fide.laws.chess";
/// The Russian competition rules, which import the FIDE package.
pub const RU: &str = "packages/ru.chess.competition/ru.chess.competition-0.3.0.ir.json";
/// The Russian rules as first shipped, kept to show what analysis and
/// derogations find in them.
pub const RU_0_1_0: &str = "tests/fixtures/ru.chess.competition-0.1.0.ir.json";
/// The Russian rules' second version, kept to compare the third with it
/// (`lawgen analyze --compare`).
pub const RU_0_2_0: &str = "tests/fixtures/ru.chess.competition-0.2.0.ir.json";
/// The hand-derived chess scenarios.
pub const CHESS_SCENARIOS: &str = "tests/scenarios/chess";
/// The hand-derived scenarios of the Russian rules.
pub const RU_SCENARIOS: &str = "tests/scenarios/ru";

/// The repository's root directory.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A path of the repository, given relative to its root.
pub fn path(relative: &str) -> PathBuf {
    workspace().join(relative)
}

/// The bytes of a file of the repository, given relative to its root.
pub fn read(relative: &str) -> Vec<u8> {
    let p = path(relative);
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// `LAWGEN_BLESS=1`: tests that compare output with committed files
/// rewrite the files instead (docs/testing.md#blessing-expected-output).
/// Any other value, or none, compares.
pub fn bless() -> bool {
    std::env::var_os("LAWGEN_BLESS").is_some_and(|v| v == "1")
}
