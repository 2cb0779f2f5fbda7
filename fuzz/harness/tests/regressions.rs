//! Inputs a fuzz target once crashed on (`tests/fuzz-regressions/`), fed
//! again through the very function the target runs
//! (`lawgen_fuzz_harness::TARGETS`): each must return without panicking.
//!
//! A file is named `<target>-<n>.<ext>` after the target that found it, and
//! holds that target's input as libFuzzer saved it (for `package_structured`
//! and `emit`, the mutation recipe). A recipe means something only with the
//! mutator and seed packages it was made with, so those targets' findings
//! are also kept as the mutant package itself, `<target>-<n>.mutant.json`
//! (`LAWGEN_FUZZ_DUMP`), replayed through everything after the mutation.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fuzz-regressions")
}

fn inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/fuzz-regressions exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

/// What a file is replayed through, from its name.
fn runner(path: &Path) -> Option<lawgen_fuzz_harness::Run> {
    let name = path.file_name()?.to_str()?;
    let (target, _) = name.split_once('-')?;
    let run = lawgen_fuzz_harness::target(target)?;
    if name.ends_with(".mutant.json") {
        return match target {
            "package_structured" => Some(lawgen_fuzz_harness::package_structured_mutant),
            "emit" => Some(lawgen_fuzz_harness::emit_mutant),
            _ => None,
        };
    }
    Some(run)
}

#[test]
fn every_fuzz_regression_returns_without_panicking() {
    let mut ran = 0;
    let mut failed = Vec::new();
    for path in inputs() {
        let Some(run) = runner(&path) else { continue };
        let bytes = std::fs::read(&path).unwrap();
        ran += 1;
        if catch_unwind(AssertUnwindSafe(|| run(&bytes))).is_err() {
            failed.push(path.display().to_string());
        }
    }
    println!("{ran} fuzz regression input(s)");
    assert!(failed.is_empty(), "panicked on: {failed:#?}");
    assert!(ran > 0, "no regression input ran");
}

/// The file name says which target runs: a misnamed file would be skipped
/// silently, so every file but the README must name one.
#[test]
fn every_regression_file_names_its_target() {
    let names: Vec<&str> = lawgen_fuzz_harness::TARGETS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    for path in inputs() {
        assert!(
            runner(&path).is_some(),
            "{}: name it <target>-<n>.<ext> (targets: {}), or \
             <package_structured|emit>-<n>.mutant.json for a dumped mutant",
            path.display(),
            names.join(", ")
        );
    }
}
