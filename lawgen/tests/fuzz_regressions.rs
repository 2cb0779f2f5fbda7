//! Inputs the fuzzer (`fuzz/`) once crashed on, fed again through the
//! same code path as the target that found them. Every one must return — Ok
//! or a diagnostic — without panicking.
//!
//! The files live in `tests/fuzz-regressions/`, named `<target>-<n>.<ext>`:
//!
//! - `package-*`: package bytes → `load_bytes`; a package that loads is
//!   summarised, graphed, lowered and evaluated on empty facts, both policies.
//! - `package_structured-*`, `emit-*`: the mutant package the structure-aware
//!   target built (dumped with `LAWGEN_FUZZ_DUMP`), as plain JSON → the same
//!   as `package-*`, plus evaluation on synthetic facts and a few
//!   explanations, then `emit` (twice: same bytes) and `syn::parse_file`.
//! - `facts-*`: facts bytes for the chess package → `read_facts` and
//!   `read_facts_from` (must agree); facts that read are evaluated, both
//!   policies, and a few conclusions explained.
//!
//! Other files (the directory's README) are skipped.

use lawgen::driver::{self, Loaded};
use lawgen::interp::Policy;
use lawgen::syntax::facts::{read_facts, read_facts_from, Facts};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const DIR: &str = "../tests/fuzz-regressions";
const CHESS: &str = "../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";

fn chess() -> &'static Loaded {
    static L: OnceLock<Loaded> = OnceLock::new();
    L.get_or_init(|| {
        let bytes = std::fs::read(CHESS).unwrap();
        driver::load_bytes(&bytes, &Default::default()).unwrap()
    })
}

/// Lowers and evaluates under both policies; reads the canonical output and
/// explains up to `explain_limit` conclusions. A lowering error on a checked
/// package is a lawgen bug ("never caused by user input"): it fails too.
fn evaluate_all(loaded: &Loaded, facts: &Facts, explain_limit: usize) {
    for policy in [Policy::Blocking, Policy::Propagating] {
        let ev = match driver::evaluate(loaded, facts, policy) {
            Ok(ev) => ev,
            Err(e) => panic!("lowering a checked package failed: {e}"),
        };
        let json = lawgen::syntax::output::canonical_json(&ev.conclusions);
        serde_json::from_str::<serde_json::Value>(&json).expect("canonical output is JSON");
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
                    let e = lawgen::explain::explain(
                        &ev.program,
                        &ev.store,
                        ev.conclusions.policy,
                        &q,
                        "en",
                    );
                    let _ = e.text();
                    let _ = e.to_json();
                    explained += 1;
                }
            }
        }
    }
}

fn package(bytes: &[u8]) {
    let Ok(loaded) = driver::load_bytes(bytes, &Default::default()) else {
        return;
    };
    let _ = lawgen::summary::render(&loaded);
    let _ = lawgen::graph::dot(&loaded.model);
    evaluate_all(&loaded, &Facts::default(), 0);
}

fn structured(bytes: &[u8]) {
    package(bytes);
    let Ok(loaded) = driver::load_bytes(bytes, &Default::default()) else {
        return;
    };
    for seed in 0..4 {
        let opts = lawgen::synth::SynthOptions {
            seed,
            ..Default::default()
        };
        if let Ok(synth) = lawgen::synth::Synth::new(&loaded.model, opts) {
            for i in 0..2 {
                evaluate_all(&loaded, &synth.case(i), 2);
            }
        }
    }
    emit(&loaded);
}

#[cfg(feature = "emit")]
fn emit(loaded: &Loaded) {
    let first = match lawgen::generate(loaded, &Default::default()) {
        Ok(e) => e,
        Err(e) => panic!("emit failed on a checked package: {e}"),
    };
    if let Err(e) = syn::parse_file(&first.source) {
        panic!("emitted module does not parse: {e} at {:?}", e.span());
    }
    let again = lawgen::generate(loaded, &Default::default()).expect("emit again");
    assert!(first.source == again.source, "emit is not deterministic");
}

#[cfg(not(feature = "emit"))]
fn emit(_: &Loaded) {}

fn facts(bytes: &[u8]) {
    let chess = chess();
    let slice = read_facts(bytes, &chess.catalog);
    let stream = read_facts_from(bytes, &chess.catalog);
    assert_eq!(
        slice.is_ok(),
        stream.is_ok(),
        "read_facts and read_facts_from disagree"
    );
    if let (Ok(a), Ok(b)) = (&slice, &stream) {
        assert_eq!(a.rows, b.rows, "read_facts and read_facts_from differ");
    }
    if let Ok(f) = slice {
        evaluate_all(chess, &f, 3);
    }
}

fn inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DIR)
        .expect("tests/fuzz-regressions exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn target_of(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    // Longest prefix first: `package_structured-` before `package-`.
    ["package_structured", "package", "emit", "facts"]
        .into_iter()
        .find(|t| name.starts_with(&format!("{t}-")))
}

#[test]
fn every_fuzz_regression_returns_without_panicking() {
    let mut ran = 0;
    let mut failed = Vec::new();
    for path in inputs() {
        let Some(target) = target_of(&path) else {
            continue;
        };
        let bytes = std::fs::read(&path).unwrap();
        let run: fn(&[u8]) = match target {
            "package" => package,
            "package_structured" | "emit" => structured,
            _ => facts,
        };
        ran += 1;
        if catch_unwind(AssertUnwindSafe(|| run(&bytes))).is_err() {
            failed.push(path.display().to_string());
        }
    }
    println!("{ran} fuzz regression input(s)");
    assert!(failed.is_empty(), "panicked on: {failed:#?}");
}

/// The file names say which code path runs: a misnamed file would be
/// silently skipped, so every file but the README must name a target.
#[test]
fn every_regression_file_names_its_target() {
    for path in inputs() {
        let name = path.file_name().unwrap().to_str().unwrap();
        if name == "README.md" {
            continue;
        }
        assert!(
            target_of(&path).is_some(),
            "{name}: name it <package|package_structured|emit|facts>-<n>.<ext>"
        );
    }
}
