//! The golden generated modules, compiled as a normal downstream crate would
//! (through `include_package!`), with warnings denied by CI's clippy run.
//! `lawgen/tests/emit_golden.rs` keeps the files equal to what lawgen emits.

lawgen_runtime::include_package!(fide_laws_chess, "../../generated/fide_laws_chess.rs");
lawgen_runtime::include_package!(minimal, "../../generated/minimal.rs");
lawgen_runtime::include_package!(hostile_names, "../../generated/hostile_names.rs");
lawgen_runtime::include_package!(
    fide_laws_chess_direct,
    "../../generated/fide_laws_chess_direct.rs"
);
