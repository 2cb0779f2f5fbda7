//! The Python projects of random packages (`support::gen`) and of the chess
//! package.
//!
//! Each random package's `lawgen build --python` project is written under
//! `target/python-random/pN`, with its facts files and, for each file and
//! policy, the reference evaluator's canonical output (`data/`), and checked
//! with cargo: the bindings compile without warnings for any package (its
//! names, arities and types), with nothing but Rust installed. What the
//! modules do in Python is the next step of scripts/test-python.sh, which
//! builds each of these projects as a module and runs
//! `tests/python/check_random.py` on it: `evaluate_json` byte for byte
//! against those outputs, `evaluate_many` and `evaluate_arrow` after parsing.
//! (The bindings themselves are tested without Python by lawgen-python's own
//! tests, on the golden chess module.) `LAWGEN_PY_PACKAGES` (default 3) and
//! `LAWGEN_PY_SEED` choose the packages.

use lawgen_test_support as support;

use lawgen::driver;
use lawgen::generate as emit;
use lawgen::EmitOptions;
use lawgen_cli::build::RuntimeDep;
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::Policy;
use std::path::Path;
use support::gen::{generate, package_seed, GenConfig};
use support::harness::{cargo, env_num, tail, RunLock};

const DEFAULT_PACKAGES: usize = 3;
const DEFAULT_SEED: u64 = 0x5079;

#[test]
fn python_projects_of_random_packages_compile_without_warnings() {
    let wanted = env_num("LAWGEN_PY_PACKAGES").map_or(DEFAULT_PACKAGES, |n| n as usize);
    let base = env_num("LAWGEN_PY_SEED").unwrap_or(DEFAULT_SEED);
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap();
    let root = workspace.join("target/python-random");
    std::fs::create_dir_all(&root).unwrap();
    let _lock = RunLock::acquire(&root.join(".lock"), "python_module");
    // The projects of an earlier run: scripts/test-python.sh builds every
    // `p*` directory it finds.
    for e in std::fs::read_dir(&root).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().starts_with('p') && e.path().is_dir() {
            std::fs::remove_dir_all(e.path()).unwrap();
        }
    }
    let target = workspace.join("target/python-check");

    let (mut built, mut tried) = (0usize, 0u64);
    while built < wanted {
        assert!(
            tried < 3 * wanted as u64 + 20,
            "the checker refused most generated packages"
        );
        let seed = package_seed(base, tried);
        tried += 1;
        let mut cfg = GenConfig::new(seed);
        cfg.facts_files = 6;
        let g = generate(&cfg);
        let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) else {
            continue;
        };
        let module = format!("p{built}");
        let dir = root.join(&module);
        let data = dir.join("data");
        std::fs::create_dir_all(&data).unwrap();
        for (k, f) in g.facts.iter().enumerate() {
            std::fs::write(data.join(format!("facts-{k}.json")), f).unwrap();
            let facts = read_facts(f, &loaded.catalog).expect("the generator writes valid facts");
            for (policy, name) in [
                (Policy::Blocking, "blocking"),
                (Policy::Propagating, "propagating"),
            ] {
                let ev = driver::evaluate(&loaded, &facts, policy).unwrap();
                std::fs::write(
                    data.join(format!("expected-{k}-{name}.json")),
                    canonical_json(&ev.conclusions),
                )
                .unwrap();
            }
        }
        let emitted = emit(&loaded, &EmitOptions::default().module_name(&module)).unwrap();
        lawgen_cli::build::python::write_project(
            &dir,
            &loaded,
            &emitted,
            &RuntimeDep::default_for_this_build(),
        )
        .unwrap();
        let out = cargo(
            &dir,
            &target,
            &["check", "--lib", "--message-format=short"],
            &[],
        );
        assert!(
            out.success,
            "{module} (seed {seed:#x}: {}) does not build:\n{}",
            g.description,
            tail(&out.stderr, 60)
        );
        let warnings: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.contains("warning") && l.contains(module.as_str()))
            .collect();
        assert!(
            warnings.is_empty(),
            "{module} builds with warnings:\n{}",
            warnings.join("\n")
        );
        built += 1;
    }
}

const CHESS: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";

fn chess() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(CHESS)
}

#[test]
fn builder_writes_the_bindings_next_to_the_module() {
    let out = tempdir("builder");
    let written = lawgen::Builder::new()
        .package(chess())
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .python(true)
        .compile()
        .unwrap();
    assert_eq!(
        written,
        vec![
            out.join("fide_laws_chess.rs"),
            out.join("fide_laws_chess_python.rs")
        ]
    );
    // The same bindings as the `lawgen build --python` project holds.
    let project = tempdir("project");
    let (loaded, emitted) = lawgen_cli::build::load_and_emit(
        &chess(),
        None,
        Default::default(),
        &Default::default(),
        &[],
    )
    .unwrap();
    let dist = lawgen_cli::build::python::write_project(
        &project,
        &loaded,
        &emitted,
        &RuntimeDep::default_for_this_build(),
    )
    .unwrap();
    assert_eq!(dist, "fide-laws-chess");
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).unwrap();
    assert_eq!(
        read(out.join("fide_laws_chess_python.rs")),
        read(project.join("src/fide_laws_chess_python.rs"))
    );
    assert_eq!(
        read(out.join("fide_laws_chess.rs")),
        read(project.join("src/fide_laws_chess.rs"))
    );
    let bindings = read(project.join("src/fide_laws_chess_python.rs"));
    assert!(bindings.contains("::lawgen_python::python_module! {"));
    assert!(bindings.contains("name = \"fide_laws_chess\","));
    let stub = read(project.join("fide_laws_chess.pyi"));
    assert!(
        stub.contains("game_drawn(game: Game) -- the game is drawn"),
        "the stub documents predicates with their labels"
    );
    let pyproject = read(project.join("pyproject.toml"));
    assert!(pyproject.contains("module-name = \"fide_laws_chess\""));
    let cargo = read(project.join("Cargo.toml"));
    assert!(cargo.contains("crate-type = [\"cdylib\"]") && cargo.contains("abi3-py39"));
    // The bindings crate from this checkout, beside lawgen-runtime.
    let python = support::path("lawgen/python");
    let python = python.canonicalize().unwrap();
    assert!(
        cargo.contains(&format!(
            "lawgen-python = {{ path = {:?} }}",
            python.display().to_string()
        )),
        "{cargo}"
    );
}

#[test]
fn a_module_name_python_cannot_import_is_refused() {
    let out = tempdir("refused");
    let e = lawgen::Builder::new()
        .package(lawgen::Package::new(chess()).module_name("lambda"))
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .python(true)
        .compile()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lawgen: the module name `lambda` is not a Python identifier; give one with --module-name (Package::module_name)"
    );
    // Without Python bindings the name is fine for Rust.
    lawgen::Builder::new()
        .package(lawgen::Package::new(chess()).module_name("lambda"))
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap();
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d =
        support::path("target/python-builder-tests").join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
