//! A valid package, mutated structurally (ids, arities, types, nodes,
//! cycles, polarity, strength, strings, integers) and re-hashed, through
//! reader → checker → lower → interpreter (on synthetic facts for its input
//! predicates and on empty facts) → emit → `syn::parse_file`.
//!
//! `LAWGEN_FUZZ_DUMP=path` writes the mutant package (how a crash becomes a
//! plain-JSON regression input); `LAWGEN_FUZZ_VERBOSE=1` prints its recipe.
#![no_main]

use lawgen_fuzz::mutate::{mutant, Flavour};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = mutant(data, Flavour::Wild) else {
        return;
    };
    lawgen_fuzz::dump(&m.bytes);
    if std::env::var_os("LAWGEN_FUZZ_VERBOSE").is_some() {
        eprintln!("seed {}: {:#?}", m.seed, m.ops);
    }
    let Ok(loaded) = lawgen::driver::load_bytes(&m.bytes, &Default::default()) else {
        return;
    };
    lawgen_fuzz::evaluate_all(&loaded, &Default::default(), 0);
    let seed = data
        .iter()
        .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(b as u64));
    lawgen_fuzz::evaluate_synthetic(&loaded, seed, 2);
    lawgen_fuzz::emit_and_parse(&loaded);
});
