//! Compiles the FIDE chess package into `$OUT_DIR/fide_laws_chess.rs` (the
//! Ascent engine) and `fide_laws_chess_direct.rs` (the Direct engine), and the
//! two variants that measure the defeasible overlay's cost (written by
//! `scripts/make_strict_variant.py`) into `fide_laws_chess_strict.rs` and
//! `fide_laws_chess_uncontested.rs`.

use std::path::{Path, PathBuf};

fn path(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    p.canonicalize().unwrap_or(p)
}

fn main() -> Result<(), lawgen::BuildError> {
    use lawgen::{Engine, Package};
    let chess = path("../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json");
    let mut b = lawgen::Builder::new().package(&chess).package(
        Package::new(&chess)
            .module_name("fide_laws_chess_direct")
            .engine(Engine::Direct),
    );
    // The variants only with the `overlay-variants` feature (see lib.rs).
    if std::env::var_os("CARGO_FEATURE_OVERLAY_VARIANTS").is_some() {
        b = b
            .package(
                Package::new(path("fide.laws.chess-strict.ir.json"))
                    .module_name("fide_laws_chess_strict"),
            )
            .package(
                Package::new(path("fide.laws.chess-uncontested.ir.json"))
                    .module_name("fide_laws_chess_uncontested"),
            );
    }
    b.compile()?;
    Ok(())
}
