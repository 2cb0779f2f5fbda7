//! The generated typed API of the chess package, used the way an arbiter app
//! would: typed facts in, typed verdicts and explanations out. Expected
//! verdicts are read from the FIDE Laws, not from a run. The same tests run
//! on the module of each engine: code that uses the module does not change
//! when the engine does.

mod ascent {
    use lawgen_golden::fide_laws_chess as chess;
    include!("typed_api/chess.rs");
}

mod direct {
    use lawgen_golden::fide_laws_chess_direct as chess;
    include!("typed_api/chess.rs");
}

use lawgen_runtime::{Arg, Policy};

#[test]
fn hostile_names_compile_to_distinct_safe_identifiers() {
    // Compiling is most of this test. With no facts, the constant `White`
    // is the only player: whether it touched is the one open judgment.
    let f = lawgen_golden::hostile_names::Facts::new();
    let c = f.evaluate(Policy::Blocking).unwrap();
    assert_eq!(c.requests().len(), 1);
    assert_eq!(c.requests()[0].predicate, "touched");
    assert_eq!(c.requests()[0].args, vec![Arg::Entity("White".into())]);
}
