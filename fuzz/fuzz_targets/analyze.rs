//! `lawgen analyze`: properties files (JSON and the text form) read,
//! resolved and answered, and facts files fixed as the input of the
//! encoding, whose model is checked against the reference evaluator
//! (`lawgen_fuzz::analyze`). Bad input is an error value, never a panic or
//! an internal error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    lawgen_fuzz::analyze(data);
});
