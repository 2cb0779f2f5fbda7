//! Each engine run over a slice of cases, returning the concluded counts
//! summed over all cases (per literal of [`crate::plain::LITERALS`]), so that
//! every engine's run is also a check against the others.

use crate::cases::{self, ChessCase};
use crate::plain::{self, Counts, LITERALS};
use lawgen_runtime::{Batching, Policy};

/// Concluded tuples per literal, summed over cases.
pub type Totals = [u64; 40];

/// The generated module's per-literal counts, in [`LITERALS`] order.
/// Debug builds (the tests) check that the module's literal order is that
/// one (a changed API); release builds (the measurements) do not compare
/// 40 names per game.
#[inline]
pub fn counts_of(named: &[(&'static str, usize); 40]) -> Counts {
    let mut out = [0u32; 40];
    for (k, (name, n)) in named.iter().enumerate() {
        debug_assert_eq!(*name, LITERALS[k], "concluded_counts() order changed");
        out[k] = *n as u32;
    }
    out
}

macro_rules! generated_engine {
    ($(#[$doc:meta])* $name:ident, $m:ident, $adapter:path) => {
        $(#[$doc])*
        pub fn $name(cases: &[ChessCase], policy: Policy, batching: &Batching) -> Totals {
            let mut totals = [0u64; 40];
            crate::$m::evaluate_indexed(
                cases.len(),
                policy,
                batching,
                |i| $adapter(&cases[i]),
                |_, c| counts_of(&c.expect("generated cases are consistent").concluded_counts()),
                |_, counts| plain::add(&mut totals, &counts),
            );
            totals
        }
    };
}

generated_engine!(
    /// The generated module (`evaluate_indexed`): typed facts are built on
    /// the worker threads from each case, then evaluated in batches.
    generated,
    fide_laws_chess,
    cases::to_facts
);
generated_engine!(
    /// [`generated`] with the module of the Direct engine.
    generated_direct,
    fide_laws_chess_direct,
    cases::to_facts_direct
);
#[cfg(feature = "overlay-variants")]
generated_engine!(
    /// [`generated`] on the variant with strict rules only and no priority.
    generated_strict,
    fide_laws_chess_strict,
    cases::to_facts_strict
);
#[cfg(feature = "overlay-variants")]
generated_engine!(
    /// [`generated`] on the variant with no contested predicate.
    generated_uncontested,
    fide_laws_chess_uncontested,
    cases::to_facts_uncontested
);

macro_rules! generated_case_engine {
    ($(#[$doc:meta])* $name:ident, $m:ident, $adapter:path) => {
        $(#[$doc])*
        pub fn $name(cases: &[ChessCase], policy: Policy, batching: &Batching) -> Totals {
            let mut totals = [0u64; 40];
            crate::$m::evaluate_cases(
                cases.len(),
                policy,
                batching,
                |i, case| $adapter(&cases[i], case),
                |_, c| counts_of(&c.expect("generated cases are consistent").concluded_counts()),
                |_, counts| plain::add(&mut totals, &counts),
            );
            totals
        }
    };
}

generated_case_engine!(
    /// The generated module's facts path without names
    /// (`evaluate_cases`): each case's facts are stated into the worker's
    /// nameless `Case` (ids, no names), then evaluated in batches.
    generated_case,
    fide_laws_chess,
    cases::fill_case
);
generated_case_engine!(
    /// [`generated_case`] with the module of the Direct engine.
    generated_direct_case,
    fide_laws_chess_direct,
    cases::fill_case_direct
);

/// The plain-Rust evaluator, one case after the other on this thread.
pub fn plain(cases: &[ChessCase]) -> Totals {
    let mut totals = [0u64; 40];
    for c in cases {
        plain::add(&mut totals, &plain::evaluate(c));
    }
    totals
}

/// The chess package's text (the same file `build.rs` compiles).
pub const PACKAGE: &str =
    include_str!("../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json");

/// lawgen's reference interpreter with the chess package loaded and lowered
/// once: what `lawgen::driver::evaluate` does per case, minus re-lowering.
pub struct Interpreter {
    pub loaded: lawgen::driver::Loaded,
    pub program: lawgen_runtime::program::Program,
    /// `LITERALS` index of each literal name, for reading the output.
    index: std::collections::HashMap<&'static str, usize>,
}

impl Default for Interpreter {
    fn default() -> Self {
        Self::new()
    }
}

impl Interpreter {
    pub fn new() -> Self {
        let loaded =
            lawgen::driver::load_bytes(PACKAGE.as_bytes(), &lawgen::driver::ReadLimits::default())
                .unwrap_or_else(|d| panic!("the chess package is valid:\n{}", d.render()));
        let program = lawgen::driver::lower(&loaded).expect("the chess package lowers");
        let index = LITERALS.iter().enumerate().map(|(k, l)| (*l, k)).collect();
        Interpreter {
            loaded,
            program,
            index,
        }
    }

    /// The case as the interpreter's input (read from a facts file, docs/reference.md#facts-files).
    pub fn facts(&self, c: &ChessCase) -> lawgen_runtime::interp::Facts {
        let json = cases::to_json(c);
        lawgen_runtime::formats::facts::read_facts(json.as_bytes(), &self.loaded.catalog)
            .unwrap_or_else(|d| panic!("facts of a generated case:\n{}\n{json}", d.render()))
    }

    /// The canonical conclusions (docs/reference.md#the-canonical-output) of one case's facts.
    pub fn conclusions(
        &self,
        facts: &lawgen_runtime::interp::Facts,
        policy: Policy,
    ) -> lawgen_runtime::interp::Conclusions {
        let store = lawgen_runtime::interp::evaluate(&self.program, facts, policy);
        lawgen_runtime::interp::conclusions(&self.program, &store, policy)
    }

    /// The concluded counts: rows of the `defeasibly` section (+∂, which
    /// includes +Δ) per institutional literal.
    pub fn counts(&self, c: &lawgen_runtime::interp::Conclusions) -> Counts {
        let mut out = [0u32; 40];
        if let Some(section) = c
            .sections
            .get(&lawgen_runtime::program::Section::Defeasibly)
        {
            for (lit, rows) in section {
                if let Some(&k) = self.index.get(lit.as_str()) {
                    out[k] = rows.len() as u32;
                }
            }
        }
        out
    }

    /// Every case evaluated in turn on this thread.
    pub fn run(&self, facts: &[lawgen_runtime::interp::Facts], policy: Policy) -> Totals {
        let mut totals = [0u64; 40];
        for f in facts {
            plain::add(&mut totals, &self.counts(&self.conclusions(f, policy)));
        }
        totals
    }
}
