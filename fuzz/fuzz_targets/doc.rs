//! Arbitrary bytes → reader + checker; for a package that loads (a closure
//! bundle brings its imports), `lawgen doc` in both languages and every
//! format must neither panic nor fail: a document that is not total is an
//! error of `doc::render`, so any error here is a bug. The page must make no
//! request, no control character but line breaks (package strings are
//! escaped), and the same package must give the same bytes twice.
#![no_main]

use lawgen::doc::{render, Format, Lang, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = lawgen::driver::load_bytes(data, &Default::default()) else {
        return;
    };
    for lang in [Lang::Ru, Lang::En] {
        for format in [Format::Text, Format::Markdown, Format::Html] {
            let options = Options::new(lang, format);
            let out = render(&loaded, &options).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(out, render(&loaded, &options).unwrap(), "not deterministic");
            assert!(
                !out.chars().any(|c| c.is_control() && c != '\n'),
                "a control character in the document"
            );
            if format == Format::Html {
                assert!(!out.contains("<script") && !out.contains(" src="));
            }
        }
    }
});
