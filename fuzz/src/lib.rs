//! Shared code of the lawgen fuzz targets: the pipeline each target drives,
//! and the structure-aware package mutator (`package_structured`, `emit`).
//!
//! Every function here must return normally on any input: a panic anywhere
//! below is a finding. The targets only decide which pieces run.

pub mod mutate;

use lawgen::driver::{self, Loaded};
use lawgen::interp::Policy;
use lawgen::syntax::facts::Facts;
use std::sync::OnceLock;

/// The valid packages the structure-aware targets start from.
pub const SEEDS: &[(&str, &[u8])] = &[
    (
        "minimal",
        include_bytes!("../../tests/ui/valid/minimal.json"),
    ),
    (
        "hostile_but_valid_names",
        include_bytes!("../../tests/ui/valid/hostile_but_valid_names.json"),
    ),
    (
        "fide.laws.chess",
        include_bytes!("../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json"),
    ),
];

/// The chess package, loaded once (the `facts` target's model).
pub fn chess() -> &'static Loaded {
    static CHESS: OnceLock<Loaded> = OnceLock::new();
    CHESS.get_or_init(|| {
        driver::load_bytes(SEEDS[2].1, &Default::default()).expect("the chess package loads")
    })
}

/// Lowers and evaluates a checked package on `facts` under both policies,
/// and reads everything a user could ask for off the result: the canonical
/// output and (when `explain_limit > 0`) explanations of a few conclusions.
/// `lower::InternalError` is "never caused by user input" (lower/mod.rs):
/// on a checked package it is a lawgen bug, so it fails the run like a panic.
pub fn evaluate_all(loaded: &Loaded, facts: &Facts, explain_limit: usize) {
    for policy in [Policy::Blocking, Policy::Propagating] {
        let ev = match driver::evaluate(loaded, facts, policy) {
            Ok(ev) => ev,
            Err(e) => panic!("lowering a checked package failed: {e}"),
        };
        let json = lawgen::syntax::output::canonical_json(&ev.conclusions);
        // The canonical output is JSON.
        assert!(
            serde_json::from_str::<serde_json::Value>(&json).is_ok(),
            "canonical output is not JSON: {json}"
        );
        let mut explained = 0;
        'sections: for rows in ev.conclusions.sections.values() {
            for (name, tuples) in rows {
                for row in tuples {
                    if explained >= explain_limit {
                        break 'sections;
                    }
                    let Some(lit) = loaded.catalog.lit_of(name) else {
                        continue;
                    };
                    let q = lawgen::explain::Query {
                        lit,
                        args: row.clone(),
                    };
                    let e = lawgen::explain::explain(&ev.program, &ev.store, ev.conclusions.policy, &q, "en");
                    let _ = e.text();
                    let _ = e.to_json();
                    explained += 1;
                }
            }
        }
    }
}

/// Emits the module for a checked package and checks the text parses as a
/// Rust file. Every `Err` of `emit` is a lawgen bug by its own definition
/// (`EmitError::Lower` / `EmitError::Format`), so it fails the run too.
pub fn emit_and_parse(loaded: &Loaded) -> String {
    let emitted = match lawgen::generate(loaded, &Default::default()) {
        Ok(e) => e,
        Err(e) => panic!("emit failed on a checked package: {e}"),
    };
    if let Err(e) = syn::parse_file(&emitted.source) {
        panic!(
            "emitted module does not parse: {e} at {:?}\n----\n{}",
            e.span(),
            emitted.source
        );
    }
    emitted.source
}

/// Writes the bytes of a generated package to `$LAWGEN_FUZZ_DUMP`, if set:
/// how a structure-aware crash becomes a plain-JSON regression input.
pub fn dump(bytes: &[u8]) {
    if let Some(path) = std::env::var_os("LAWGEN_FUZZ_DUMP") {
        std::fs::write(&path, bytes).expect("write LAWGEN_FUZZ_DUMP");
    }
}

/// Evaluates `cases` synthetic fact sets drawn for the package's input
/// predicates (`lawgen::synth`, as `lawgen bench` draws them), under both
/// policies, explaining a few conclusions of each.
pub fn evaluate_synthetic(loaded: &Loaded, seed: u64, cases: u64) {
    let opts = lawgen::synth::SynthOptions {
        seed,
        ..Default::default()
    };
    let Ok(synth) = lawgen::synth::Synth::new(&loaded.model, opts) else {
        return;
    };
    for i in 0..cases {
        let facts = synth.case(i);
        evaluate_all(loaded, &facts, 2);
    }
}
