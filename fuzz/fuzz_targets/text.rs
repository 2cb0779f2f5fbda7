//! Arbitrary bytes → the text-form reader (`.law`). On success: the JSON it
//! produced prints back as text that reads as the same JSON (the round trip
//! every `lawgen convert` relies on), and the package goes through reader +
//! checker like any other.
#![no_main]

use lawgen::syntax::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        // The byte-level entry point must refuse it without panicking too.
        assert!(text::to_json(data).is_err());
        return;
    };
    let parsed = match text::parse(src) {
        Ok(p) => p,
        Err(e) => {
            // Rendering slices the source at the spans: it must not panic.
            let _ = e.render("fuzz.law");
            return;
        }
    };
    let printed = text::print(&parsed.json).expect("parsed text always has nodes");
    let again = text::parse(&printed).unwrap_or_else(|e| {
        panic!(
            "printed text does not parse:\n{}\n{printed}",
            e.render("printed.law")
        )
    });
    assert_eq!(
        again.json, parsed.json,
        "print → parse changed the package:\n{printed}"
    );
    let json = lawgen::syntax::canon::serialize(&parsed.json);
    if let Ok(loaded) = lawgen::driver::load_bytes(json.as_bytes(), &Default::default()) {
        let _ = lawgen::summary::render(&loaded);
    }
});
