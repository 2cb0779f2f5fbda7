//! Arbitrary bytes → reader + checker; a package that loads is lowered and
//! evaluated on empty facts under both policies.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = lawgen::driver::load_bytes(data, &Default::default()) else {
        return;
    };
    let _ = lawgen::summary::render(&loaded);
    let _ = lawgen::graph::dot(&loaded.model);
    lawgen_fuzz::evaluate_all(&loaded, &Default::default(), 0);
});
