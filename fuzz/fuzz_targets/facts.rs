//! Arbitrary bytes → the facts reader for the chess package (streaming and
//! in-memory readers must agree); facts that read are evaluated under both
//! policies and a few conclusions explained.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let chess = lawgen_fuzz::chess();
    let slice = lawgen::syntax::facts::read_facts(data, &chess.catalog);
    let stream = lawgen::syntax::facts::read_facts_from(data, &chess.catalog);
    assert_eq!(
        slice.is_ok(),
        stream.is_ok(),
        "read_facts and read_facts_from disagree: {:?} vs {:?}",
        slice.as_ref().err().map(|d| d.render()),
        stream.as_ref().err().map(|d| d.render()),
    );
    if let (Ok(a), Ok(b)) = (&slice, &stream) {
        assert_eq!(
            a.rows, b.rows,
            "read_facts and read_facts_from read different rows"
        );
    }
    let Ok(facts) = slice else {
        return;
    };
    lawgen_fuzz::evaluate_all(chess, &facts, 3);
});
