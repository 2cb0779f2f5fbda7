//! The hand-derived chess scenarios (tests/scenarios/chess): the reference
//! evaluator's institutional conclusions must equal the expectations exactly.

use lawgen_test_support as support;

use lawgen::driver;

#[test]
fn every_chess_scenario_matches_its_hand_derived_expectation() {
    let bytes = support::read(support::CHESS);
    let loaded = driver::load_bytes(&bytes, &Default::default()).unwrap();
    support::scenarios::check_all(&loaded, &support::path(support::CHESS_SCENARIOS), 20);
}
