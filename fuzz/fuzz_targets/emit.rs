//! Mutants that tend to stay valid (hostile names by consistent renames,
//! flipped polarity and strength, new priorities, duplicated rules, swapped
//! heads), through lower → interpreter and lower → emit: no panic, the
//! module parses as Rust, and emitting twice gives the same bytes.
//!
//! `LAWGEN_FUZZ_DUMP=path` writes the mutant package; `LAWGEN_FUZZ_VERBOSE=1`
//! prints its recipe.
#![no_main]

use lawgen_fuzz::mutate::{mutant, Flavour};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = mutant(data, Flavour::Valid) else {
        return;
    };
    lawgen_fuzz::dump(&m.bytes);
    if std::env::var_os("LAWGEN_FUZZ_VERBOSE").is_some() {
        eprintln!("seed {}: {:#?}", m.seed, m.ops);
    }
    let Ok(loaded) = lawgen::driver::load_bytes(&m.bytes, &Default::default()) else {
        return;
    };
    let seed = data
        .iter()
        .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(b as u64));
    lawgen_fuzz::evaluate_synthetic(&loaded, seed, 1);
    let first = lawgen_fuzz::emit_and_parse(&loaded);
    if let Ok(again) = lawgen::generate(&loaded, &Default::default()) {
        assert!(first == again.source, "emit is not deterministic");
    }
});
