//! The text form (`.law`): exact round trips with package JSON, parse errors
//! with their exact rendering, and `.law` files wherever packages are read.
//!
//! * JSON → text → JSON gives the reference package back byte for byte, and
//!   every package JSON in the repository and random packages back as the
//!   same JSON value (hashes recomputed, which changes only files whose
//!   hashes were wrong on purpose); printing is idempotent.
//! * `tests/text/*.law` are broken text files beside the exact errors
//!   `lawgen check` prints (`LAWGEN_BLESS=1` rewrites the expectations).

mod support;

use lawgen::syntax::canon;
use lawgen::syntax::text;
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::gen::{generate, package_seed, GenConfig};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const CHESS: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";

/// JSON value → text → JSON value, with the text.
fn round_trip(v: &Value) -> (String, Value) {
    let t = text::print(v).unwrap_or_else(|e| panic!("cannot print: {e}"));
    let back = text::parse(&t)
        .unwrap_or_else(|e| {
            panic!(
                "the printed text does not parse:\n{}\n{t}",
                e.render("printed.law")
            )
        })
        .json;
    (t, back)
}

#[test]
fn the_reference_package_round_trips_byte_for_byte() {
    let bytes = std::fs::read(root().join(CHESS)).unwrap();
    let v = canon::parse(&bytes).unwrap();
    // The seed is itself in canonical form: re-serialising gives its bytes.
    assert_eq!(canon::serialize(&v).as_bytes(), bytes.as_slice());
    let (t, back) = round_trip(&v);
    assert_eq!(canon::serialize(&back).as_bytes(), bytes.as_slice());
    assert!(
        !t.contains("\nnode "),
        "every chess node has a statement:\n{t}"
    );
    // Through the bytes-level entry point too.
    assert_eq!(
        text::to_json(t.as_bytes()).unwrap().as_bytes(),
        bytes.as_slice()
    );
}

/// Every JSON file under `dir` (skipping build output).
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if !matches!(name.as_str(), "target" | ".git" | "corpus" | "artifacts") {
                json_files(&p, out);
            }
        } else if name.ends_with(".json") {
            out.push(p);
        }
    }
}

#[test]
fn every_package_in_the_repository_round_trips() {
    let mut files = Vec::new();
    for d in ["packages", "tests", "lawgen/tests", "examples", "benches"] {
        json_files(&root().join(d), &mut files);
    }
    let mut packages = 0;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(mut v) = canon::parse(&bytes) else {
            continue; // not JSON at all (a ui test of the JSON reader)
        };
        if v.get("nodes").and_then(Value::as_array).is_none() {
            continue; // facts, outputs, expectations: not packages
        }
        packages += 1;
        let (t, back) = round_trip(&v);
        canon::rehash(&mut v);
        // A node without a hash stays without one in the text form.
        let mut back_hashed = back.clone();
        canon::rehash(&mut back_hashed);
        assert_eq!(back_hashed, v, "{} does not round-trip:\n{t}", f.display());
        let (t2, _) = round_trip(&back);
        assert_eq!(t, t2, "printing {} is not idempotent", f.display());
    }
    assert!(packages >= 40, "only {packages} packages found");
}

fn random_round_trips(cfg: &GenConfig, n: u64) -> usize {
    let mut raw = 0;
    for i in 0..n {
        let mut c = cfg.clone();
        c.seed = package_seed(cfg.seed, i);
        let g = generate(&c);
        let v: Value = serde_json::from_slice(&g.package).unwrap();
        let (t, back) = round_trip(&v);
        assert_eq!(back, v, "seed {:#x} does not round-trip:\n{t}", c.seed);
        assert_eq!(
            canon::serialize(&back),
            canon::serialize(&v),
            "seed {:#x}",
            c.seed
        );
        raw += t.matches("\nnode ").count();
    }
    raw
}

#[test]
fn random_packages_round_trip_as_the_same_json_value() {
    let raw = random_round_trips(&GenConfig::new(0x7e47), 300);
    // Generated nodes all have statements: none falls back to a raw node.
    assert_eq!(raw, 0, "{raw} raw nodes");
}

#[test]
fn hostile_packages_round_trip_as_the_same_json_value() {
    let mut cfg = GenConfig::new(0x4057);
    cfg.hostile = true;
    random_round_trips(&cfg, 150);
}
