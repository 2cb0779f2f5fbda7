//! Prints the generated chess games for other tools (`compare-clingo.sh`).
//!
//! ```text
//! cases N            # N lines, each a facts file (docs/reference.md#facts-files) (case 0, 1, ...)
//! cases N --totals   # the plain-Rust evaluator's concluded counts summed over
//!                    # the N games, as one JSON object {literal: count}
//! ```

use lawgen_benches::cases::{self, SEED};
use lawgen_benches::engines;
use lawgen_benches::plain::LITERALS;
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| {
            eprintln!("usage: cases N [--totals]");
            std::process::exit(2)
        });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    if args.iter().any(|a| a == "--totals") {
        let totals = engines::plain(&cases::cases(SEED, n));
        let map: serde_json::Map<String, serde_json::Value> = LITERALS
            .iter()
            .zip(totals)
            .map(|(l, t)| ((*l).to_owned(), t.into()))
            .collect();
        writeln!(out, "{}", serde_json::Value::Object(map)).expect("stdout");
        return;
    }
    for i in 0..n {
        writeln!(out, "{}", cases::to_json(&cases::case(SEED, i as u64))).expect("stdout");
    }
}
