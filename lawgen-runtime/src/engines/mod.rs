//! The data structures the two engines' generated code runs on: one
//! `ascent!` program per batch of cases ([`ascent`], an ascent data
//! structure provider), or Direct per-case loops over small typed tables
//! ([`direct`]). Which engine a module uses changes neither its API nor any
//! result (`lawgen::Engine`).

#[cfg(feature = "ascent")]
pub mod ascent;
pub mod direct;
pub mod plan;
