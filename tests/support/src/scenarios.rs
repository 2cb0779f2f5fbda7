//! Hand-derived scenarios (`tests/scenarios/<set>/NAME.facts.json` beside
//! `NAME.expected.json`): the reference evaluator's institutional
//! conclusions and requests must equal each expectation exactly. The suite
//! runs through `lawgen test`'s own runner, so the test and the command
//! judge a scenario the same way.

use lawgen::driver::Loaded;
use lawgen_cli::test;
use lawgen_runtime::Policy;
use std::path::Path;

/// Checks every scenario of `dir` against `loaded` (at least `min` of
/// them); panics with every mismatch at once.
pub fn check_all(loaded: &Loaded, dir: &Path, min: usize) {
    let suite = test::discover(dir, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        suite.scenarios.len() >= min,
        "only {} scenarios",
        suite.scenarios.len()
    );
    let outcomes = test::run(loaded, &suite, Policy::Blocking, false);
    assert!(
        outcomes.iter().all(test::Outcome::passed),
        "{}",
        test::render_results(&outcomes)
    );
}
