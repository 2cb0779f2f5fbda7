//! The hand-derived chess scenarios (tests/scenarios/chess): the reference
//! evaluator's institutional conclusions must equal the expectations exactly.

mod support;

use lawgen::driver;
use std::path::Path;

const PACKAGE: &str = "../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";

#[test]
fn every_chess_scenario_matches_its_hand_derived_expectation() {
    let bytes = std::fs::read(PACKAGE).unwrap();
    let loaded = driver::load_bytes(&bytes, &Default::default()).unwrap();
    support::scenarios::check_all(&loaded, Path::new("../tests/scenarios/chess"), 20);
}
