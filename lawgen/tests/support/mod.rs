//! Helpers shared by integration tests (`mod support;` in a test file).
//!
//! Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod derogate;
pub mod gen;
pub mod harness;
pub mod nameless;
pub mod scenarios;
pub mod split;

/// `LAWGEN_BLESS=1`: tests that compare output with committed files
/// rewrite the files instead (docs/testing.md#blessing-expected-output).
/// Any other value, or none, compares.
pub fn bless() -> bool {
    std::env::var_os("LAWGEN_BLESS").is_some_and(|v| v == "1")
}
