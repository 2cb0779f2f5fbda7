//! `lawgen::Builder` as a build script uses it: each package's engine and
//! module name travel with the package ([`lawgen::Package`]) and apply to it
//! alone, whatever the order; a build with nothing to do or with an empty
//! setting is refused with a message; `BuildError::source` gives the
//! underlying error.

use lawgen_test_support as support;

use lawgen::{BuildError, Builder, Engine, Package};
use std::error::Error;
use std::path::PathBuf;
use support::CHESS;

fn tempdir(name: &str) -> PathBuf {
    let d = support::path("target/builder-tests").join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn builder(out: &PathBuf) -> Builder {
    Builder::new().out_dir(out).emit_rerun_if_changed(false)
}

/// The Direct package first, then the same package with the defaults: the
/// second is the Ascent module under the package's own name (an engine set
/// on one package does not carry over to the next), and each file is the
/// golden module of its engine, byte for byte.
#[test]
fn each_package_keeps_its_own_engine_and_module_name() {
    let out = tempdir("per-package");
    let chess = support::path(CHESS);
    let written = builder(&out)
        .package(
            Package::new(&chess)
                .engine(Engine::Direct)
                .module_name("fide_laws_chess_direct"),
        )
        .package(&chess)
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        written,
        [
            out.join("fide_laws_chess_direct.rs"),
            out.join("fide_laws_chess.rs")
        ]
    );
    for file in &written {
        let name = file.file_name().unwrap().to_str().unwrap();
        let golden = support::path(&format!("tests/golden/generated/{name}"));
        assert!(
            std::fs::read(file).unwrap() == std::fs::read(&golden).unwrap(),
            "{name} differs from {}",
            golden.display()
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_build_without_a_package_is_refused() {
    let out = tempdir("no-package");
    let e = builder(&out).compile().unwrap_err();
    assert!(matches!(e, BuildError::NoPackage));
    assert_eq!(
        e.to_string(),
        "lawgen: no package to compile; add one with Builder::package before compile"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_empty_path_or_module_name_is_refused_before_anything_is_written() {
    let out = tempdir("empty");
    let chess = support::path(CHESS);
    let e = builder(&out)
        .package(&chess)
        .package("")
        .compile()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lawgen: a package was added with an empty path; give Package::new the package file"
    );
    let e = builder(&out)
        .package(&chess)
        .package(Package::new(&chess).module_name(""))
        .compile()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "lawgen: the module name of {} is empty; give Package::module_name a Rust identifier, or leave it out for the package's own name",
            chess.display()
        )
    );
    // Checked before the first package is generated.
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn two_packages_with_one_module_name_are_refused() {
    let out = tempdir("duplicate");
    let chess = support::path(CHESS);
    let e = builder(&out)
        .package(&chess)
        .package(Package::new(&chess).engine(Engine::Direct))
        .compile()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lawgen: two packages generate the module `fide_laws_chess`; give one a different Package::module_name"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// A missing package file: the build error's source is the load error,
/// whose source is the operating system's.
#[test]
fn the_source_of_a_build_error_is_the_underlying_error() {
    let out = tempdir("source");
    let missing = out.join("missing.ir.json");
    let e = builder(&out).package(&missing).compile().unwrap_err();
    let load = e.source().expect("a load error");
    assert!(load.is::<lawgen::driver::LoadError>(), "{load:?}");
    let io = load.source().expect("an io error");
    assert_eq!(
        io.downcast_ref::<std::io::Error>().map(|e| e.kind()),
        Some(std::io::ErrorKind::NotFound)
    );
    assert!(BuildError::NoOutDir.source().is_none());
    let _ = std::fs::remove_dir_all(&out);
}
