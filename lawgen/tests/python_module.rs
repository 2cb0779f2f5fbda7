//! The Python modules of random packages (`support::gen`) against `lawgen
//! eval`: each package's `lawgen build --python` project is compiled (release,
//! or a debug build without debug info with `LAWGEN_PYTHON_DEV=1` as
//! scripts/test-python.sh sets it, in the target directory where
//! scripts/python-env.sh built the chess module with the same profile, so the
//! dependencies are built already), and `tests/python/check_random.py` compares
//! `evaluate_json` byte for byte with the interpreter's canonical output for
//! every facts file and both policies, and `evaluate_many` and
//! `evaluate_arrow` with it after parsing.
//!
//! Needs a Python with pyarrow: `LAWGEN_PYTHON` names it (scripts/test-python.sh
//! sets it up); without it the test is ignored. `LAWGEN_PY_PACKAGES` (default 3)
//! and `LAWGEN_PY_SEED` choose the packages.

mod support;

use lawgen::builder::RuntimeDep;
use lawgen::driver;
use lawgen::emit::EmitOptions;
use lawgen::generate as emit;
use lawgen::interp::Policy;
use lawgen::syntax::facts::read_facts;
use lawgen::syntax::output::canonical_json;
use std::path::Path;
use std::process::Command;
use support::gen::{generate, package_seed, GenConfig};
use support::harness::{cargo, env_num, tail, RunLock};

const DEFAULT_PACKAGES: usize = 3;
const DEFAULT_SEED: u64 = 0x5079;

#[test]
#[ignore = "needs LAWGEN_PYTHON, a Python with pyarrow (scripts/test-python.sh)"]
fn python_modules_of_random_packages_agree_with_lawgen_eval() {
    let python = std::env::var("LAWGEN_PYTHON").expect("LAWGEN_PYTHON names a Python with pyarrow");
    let wanted = env_num("LAWGEN_PY_PACKAGES").map_or(DEFAULT_PACKAGES, |n| n as usize);
    let base = env_num("LAWGEN_PY_SEED").unwrap_or(DEFAULT_SEED);
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let root = workspace.join("target/python-random");
    let target = workspace.join("target/python-target");
    let lib = root.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let _lock = RunLock::acquire(&root.join(".lock"), "python_module");
    let checker = workspace.join("tests/python/check_random.py");
    // The profile scripts/python-env.sh built the chess module with, so
    // that the dependencies built then are reused.
    let dev = std::env::var("LAWGEN_PYTHON_DEV").is_ok_and(|v| v == "1");
    let mut args = vec!["build", "--lib", "--message-format=short"];
    let mut env = vec![("PYO3_PYTHON", python.as_str())];
    let profile_dir = if dev {
        env.push(("CARGO_PROFILE_DEV_DEBUG", "false"));
        "debug"
    } else {
        args.push("--release");
        "release"
    };

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
        let emitted = emit(
            &loaded,
            &EmitOptions {
                module_name: Some(module.clone()),
                ..EmitOptions::default()
            },
        )
        .unwrap();
        lawgen::python::write_project(
            &dir,
            &loaded.model,
            &emitted,
            &RuntimeDep::default_for_this_build(),
        )
        .unwrap();
        let out = cargo(&dir, &target, &args, &env);
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
        // What maturin does for a pure-Rust abi3 module: the cdylib renamed.
        std::fs::copy(
            target.join(format!("{profile_dir}/lib{module}.so")),
            lib.join(format!("{module}.abi3.so")),
        )
        .unwrap();
        let run = Command::new(&python)
            .arg(&checker)
            .arg(&module)
            .arg(&data)
            .env("PYTHONPATH", &lib)
            .output()
            .expect("running python");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{module} (seed {seed:#x}: {}) disagrees with lawgen eval:\n{}\n{}",
            g.description,
            tail(&stdout, 80),
            String::from_utf8_lossy(&run.stderr)
        );
        eprintln!("{}", stdout.trim_end());
        built += 1;
    }
}

const CHESS: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";

fn chess() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(CHESS)
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
    let (loaded, emitted) = lawgen::builder::load_and_emit(
        &chess(),
        None,
        Default::default(),
        &Default::default(),
        &[],
    )
    .unwrap();
    let dist = lawgen::python::write_project(
        &project,
        &loaded.model,
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
    assert!(bindings.contains("#[pyo3(name = \"fide_laws_chess\")]"));
    assert!(!bindings.contains("__LAWGEN_MODULE__"));
    let stub = read(project.join("fide_laws_chess.pyi"));
    assert!(
        stub.contains("game_drawn(game: Game) -- the game is drawn"),
        "the stub documents predicates with their labels"
    );
    let pyproject = read(project.join("pyproject.toml"));
    assert!(pyproject.contains("module-name = \"fide_laws_chess\""));
    let cargo = read(project.join("Cargo.toml"));
    assert!(cargo.contains("crate-type = [\"cdylib\"]") && cargo.contains("abi3-py39"));
}

#[test]
fn a_module_name_python_cannot_import_is_refused() {
    let out = tempdir("refused");
    let e = lawgen::Builder::new()
        .package(chess())
        .module_name("lambda")
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .python(true)
        .compile()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lawgen: the module name `lambda` is not a Python identifier; give one with --module-name (Builder::module_name)"
    );
    // Without Python bindings the name is fine for Rust.
    lawgen::Builder::new()
        .package(chess())
        .module_name("lambda")
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap();
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("target/python-builder-tests")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
