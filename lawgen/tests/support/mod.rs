//! Helpers shared by integration tests (`mod support;` in a test file).
//!
//! Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod derogate;
pub mod gen;
pub mod harness;
pub mod scenarios;
pub mod split;
