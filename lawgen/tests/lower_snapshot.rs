//! The lowered program of the chess package, held as a snapshot
//! (tests/golden/fide.laws.chess.lower.txt). Bless with LAWGEN_BLESS=1.

mod support;

#[test]
fn chess_lowering_matches_its_snapshot() {
    let bytes = std::fs::read("../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json").unwrap();
    let loaded = lawgen::driver::load_bytes(&bytes, &Default::default()).unwrap();
    let actual = lawgen::driver::lower(&loaded).unwrap().to_string();
    let path = "../tests/golden/fide.laws.chess.lower.txt";
    if support::bless() {
        std::fs::write(path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if actual != expected {
        let diff: Vec<String> = expected
            .lines()
            .zip(actual.lines())
            .enumerate()
            .filter(|(_, (e, a))| e != a)
            .take(10)
            .map(|(i, (e, a))| format!("line {}:\n  - {e}\n  + {a}", i + 1))
            .collect();
        panic!(
            "lowering changed ({} vs {} lines); rerun with LAWGEN_BLESS=1 if intended\n{}",
            expected.lines().count(),
            actual.lines().count(),
            diff.join("\n")
        );
    }
}
