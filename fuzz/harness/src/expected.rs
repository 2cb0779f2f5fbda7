//! The `expected` target: arbitrary bytes as a `lawgen test` expectation
//! file (`NAME.expected.json`, docs/testing.md) for a chess scenario, read by
//! `lawgen_cli::test::read_expected`; one that reads is run against the
//! scenario's facts like `lawgen test` runs a suite (with coverage on one
//! input in four), and its results rendered as text, JSON and JUnit XML.
//!
//! What must hold: no panic; a refusal says how to fix it; the rendered
//! JSON is JSON.

use lawgen_cli::test::{self, Scenario, Suite};
use lawgen_runtime::Policy;
use std::path::{Path, PathBuf};

/// Chess scenarios the expectations are run against (facts files of the
/// repository; the target runs where it was built).
const SCENARIOS: &[&str] = &[
    "agreed_draw",
    "arbiter_duty",
    "castling_king_has_moved",
    "castling_legal_by_closures",
];

fn facts_path(i: usize) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/scenarios/chess")
        .join(format!("{}.facts.json", SCENARIOS[i]))
}

fn suite(name: &str, facts: PathBuf, expected: test::Expected) -> Suite {
    Suite {
        dir: facts.parent().map(Path::to_owned).unwrap_or_default(),
        scenarios: vec![Scenario {
            name: name.to_owned(),
            facts,
            expected,
        }],
        package: None,
        import_path: Vec::new(),
        allowed: Vec::new(),
        limits: Default::default(),
    }
}

/// The target.
pub fn expected(data: &[u8]) {
    let path = Path::new("fuzz.expected.json");
    let h = crate::recipe_seed(data);
    let i = (h % SCENARIOS.len() as u64) as usize;
    let expected = match test::read_expected(path, data) {
        Ok(e) => e,
        Err(e) => {
            assert!(
                e.message.contains("help:"),
                "a refusal without a fix: {}",
                e.message
            );
            return;
        }
    };
    let chess = crate::chess();
    let s = suite("fuzz", facts_path(i), expected);
    let with_coverage = h % 4 == 0;
    let outcomes = test::run(chess, &s, Policy::Blocking, with_coverage);
    let _ = test::render_results(&outcomes);
    let _ = test::render_junit("fide.laws.chess", &outcomes);
    let c = if with_coverage {
        test::coverage(chess, &s, &outcomes).ok()
    } else {
        None
    };
    if let Some(c) = &c {
        let _ = test::render_coverage(c, Some(50.0));
    }
    let json = test::render_json("fide.laws.chess", &outcomes, c.as_ref());
    assert!(
        serde_json::from_str::<serde_json::Value>(&json).is_ok(),
        "the JSON report is not JSON: {json}"
    );
}
