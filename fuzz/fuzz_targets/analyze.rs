//! The `analyze` target: `lawgen_fuzz_harness::analyze` (what it runs and must
//! hold is documented there and in fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lawgen_fuzz_harness::analyze(data));
