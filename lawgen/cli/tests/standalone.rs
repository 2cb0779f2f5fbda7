//! A crate written by `lawgen build` stands on its own: written in one
//! directory, moved to another, it still builds (its runtime dependency is
//! what `--runtime` said, not a path relative to where it was written), and
//! at run time it needs nothing of the compiler — not even the limits the
//! package was built with: this package needs a raised `max_string_bytes`
//! (an article text of 1.5 MB), and its module reads facts, writes the
//! canonical output and explains a verdict from the program it embeds.

use lawgen_test_support as support;

use lawgen::driver::ReadLimits;
use lawgen::generate as emit;
use lawgen::EmitOptions;
use lawgen_cli::build::{write_crate, RuntimeDep};
use serde_json::{json, Value};
use std::path::Path;
use support::harness::{cargo_generated, generated_target, seed_lock_file, RunLock};

/// Columns of the wide predicate: as many as compiled engines take.
const WIDE: usize = lawgen::internals::emit::MAX_COMPILED_ARITY;

/// `tests/ui/valid/minimal.json` plus a predicate of arity `arity` and a
/// rule reading it (anchored to an article `article_bytes` long, when
/// given), every hash recomputed.
fn wide_package(arity: usize, article_bytes: Option<usize>) -> Vec<u8> {
    let text = std::fs::read_to_string("../../tests/ui/valid/minimal.json").unwrap();
    let mut pkg: Value = serde_json::from_str(&text).unwrap();
    let label = |t: &str| json!([{"language": "en", "status": "official", "text": t}]);
    let params: Vec<Value> = (0..arity)
        .map(|i| json!({"name": format!("c{i}"), "type": {"name": "urn:t#Game"}}))
        .collect();
    let args: Vec<Value> = (0..arity)
        .map(|_| json!({"kind": "var", "var": "g"}))
        .collect();
    let nodes = pkg["nodes"].as_array_mut().unwrap();
    if let Some(n) = article_bytes {
        let art = nodes.iter_mut().find(|x| x["id"] == "urn:t#ART_1").unwrap();
        let body = "Article 1. A wide game is ok. ".repeat(n / 30 + 1);
        art["texts"][0]["text"] = Value::from(body.as_str());
        art["texts"][0]["contentHash"] = Value::from(format!(
            "sha256:{}",
            lawgen::internals::syntax::hash::sha256_hex(body.as_bytes())
        ));
    }
    nodes.push(
        json!({"id": "urn:t#wide", "kind": "symbol_decl", "package": "urn:t",
        "labels": label("wide"), "name": "wide", "symbolKind": "relation",
        "relationKind": "empirical", "parameters": params}),
    );
    nodes.push(
        json!({"id": "urn:t#wide_ok", "kind": "symbol_decl", "package": "urn:t",
        "labels": label("wide ok"), "name": "wide_ok", "symbolKind": "relation",
        "relationKind": "institutional",
        "parameters": [{"name": "game", "type": {"name": "urn:t#Game"}}]}),
    );
    nodes.push(
        json!({"id": "urn:t#WideOk", "kind": "rule", "package": "urn:t",
        "labels": label("Article 1. A wide game is ok"),
        "head": {"kind": "literal", "predicate": "urn:t#wide_ok", "polarity": "positive",
                 "args": [{"kind": "var", "var": "g"}]},
        "body": {"kind": "status", "status": "established",
                 "formula": {"kind": "literal", "predicate": "urn:t#wide",
                             "polarity": "positive", "args": args}},
        "variables": [{"id": "g", "type": {"name": "urn:t#Game"}}],
        "strength": "defeasible", "anchors": ["urn:t#ART_1"],
        "scope": {"kind": "boolean", "value": true}}),
    );
    for n in nodes.iter_mut() {
        let hash = lawgen::internals::syntax::hash::node_hash(n.as_object().unwrap());
        n["contentHash"] = Value::from(hash);
    }
    serde_json::to_vec(&pkg).unwrap()
}

const MAIN: &str = r#"
fn main() {
    let facts = std::env::args().nth(1).expect("a facts file");
    let bytes = std::fs::read(facts).unwrap();
    let facts = wide::Facts::from_json(&bytes).unwrap();
    let c = facts.evaluate(lawgen_runtime::Policy::Blocking).unwrap();
    print!("{}", c.to_json().unwrap());
    println!("---");
    print!("{}", c.explain("wide_ok(g1)").unwrap());
}
"#;

#[test]
fn a_crate_built_with_raised_limits_moves_and_explains_at_run_time() {
    let package = wide_package(WIDE, Some(3 << 19));
    // Default limits refuse it, so a run time that re-read the package
    // would fail.
    let refused = lawgen::driver::load_bytes(&package, &ReadLimits::default());
    assert!(
        refused.is_err(),
        "the package should need a raised max_string_bytes"
    );
    let limits = ReadLimits::default().max_string_bytes(4 << 20);
    let loaded = lawgen::driver::load_bytes(&package, &limits).unwrap();
    let emitted = emit(&loaded, &EmitOptions::default().module_name("wide")).unwrap();
    assert!(
        !emitted.source.contains("law.core.ir") && !emitted.source.contains("contentHash"),
        "the module embeds no package JSON"
    );

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/standalone");
    std::fs::create_dir_all(&root).unwrap();
    let _lock = RunLock::acquire(&root.join("lock"), "the standalone test");
    let (first, moved) = (root.join("written"), root.join("moved/elsewhere"));
    let _ = std::fs::remove_dir_all(&first);
    let _ = std::fs::remove_dir_all(root.join("moved"));
    let runtime: RuntimeDep = format!("path={}/../../lawgen-runtime", env!("CARGO_MANIFEST_DIR"))
        .parse()
        .unwrap();
    let name = write_crate(&first, Some("wide"), &emitted, &runtime, false).unwrap();
    assert_eq!(name, "wide");
    let manifest = std::fs::read_to_string(first.join("Cargo.toml")).unwrap();
    std::fs::write(
        first.join("Cargo.toml"),
        format!("{manifest}\n[[bin]]\nname = \"wide-demo\"\npath = \"src/demo.rs\"\n"),
    )
    .unwrap();
    std::fs::write(
        first.join("src/demo.rs"),
        MAIN.replace("wide::", "::wide::"),
    )
    .unwrap();
    let args: Vec<Value> = (0..WIDE).map(|_| json!("g1")).collect();
    assert!(WIDE <= ReadLimits::default().max_arity);
    let facts = json!({"facts": {"wide": [args]}}).to_string();
    std::fs::write(first.join("facts.json"), &facts).unwrap();
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&first, &moved).unwrap();
    seed_lock_file(&moved);

    // Built where every generated crate of the tests is, with their profile.
    let built = cargo_generated(
        &moved,
        &["build", "-q", "--release", "--bin", "wide-demo"],
        &[],
    );
    assert!(
        built.success,
        "the moved crate does not build:\n{}",
        built.stderr
    );
    let run = std::process::Command::new(generated_target().join("release/wide-demo"))
        .arg(moved.join("facts.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (json, explanation) = stdout.split_once("---\n").unwrap();
    assert!(json.contains("\"wide_ok\": [\n      [\"g1\"]"), "{json}");
    assert!(
        explanation.starts_with("wide_ok(g1): DEFEASIBLY holds"),
        "{explanation}"
    );
    assert!(
        explanation.contains("rule WideOk (defeasible)"),
        "{explanation}"
    );
    assert!(explanation.contains("anchor: article/1"), "{explanation}");
}

/// A predicate wider than compiled engines take (rows are Rust tuples) is
/// refused by the emitter with a message naming it — never a rustc error
/// inside generated code. The reference evaluator still takes it.
#[test]
fn a_predicate_too_wide_for_compiled_engines_is_refused_by_name() {
    let wide = lawgen::internals::emit::MAX_COMPILED_ARITY + 1;
    let limits = ReadLimits::default();
    let loaded = lawgen::driver::load_bytes(&wide_package(wide, None), &limits).unwrap();
    for engine in [lawgen::Engine::Ascent, lawgen::Engine::Direct] {
        let err = emit(&loaded, &EmitOptions::default().engine(engine))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "predicate `wide` has 12 parameters, and compiled engines support at most 11 \
             (a case's rows are Rust tuples): split it into narrower predicates, or evaluate \
             the package with the reference evaluator (`lawgen eval`)"
        );
    }
    let args: Vec<Value> = (0..wide).map(|_| json!("g1")).collect();
    let facts = json!({"facts": {"wide": [args]}}).to_string();
    let facts =
        lawgen_runtime::formats::facts::read_facts(facts.as_bytes(), &loaded.catalog).unwrap();
    let ev = lawgen::driver::evaluate(&loaded, &facts, lawgen_runtime::Policy::Blocking).unwrap();
    assert!(
        lawgen_runtime::formats::output::canonical_json(&ev.conclusions).contains("\"wide_ok\"")
    );
}

/// `--runtime` says where the runtime comes from, or why it cannot.
#[test]
fn runtime_sources_parse_or_say_what_to_write() {
    let help = "write `path=DIR` (a lawgen-runtime source directory), `git=URL` (a \
                repository holding lawgen-runtime) or `version=X` (a registry version)";
    let err = |s: &str| s.parse::<RuntimeDep>().unwrap_err();
    assert_eq!(
        err("../lawgen-runtime"),
        format!("`../lawgen-runtime` does not say where lawgen-runtime is; {help}")
    );
    assert_eq!(
        err("version="),
        format!("`version=` has an empty version; {help}")
    );
    assert_eq!(
        err("crate=x"),
        format!("unknown runtime source `crate`; {help}")
    );
    assert_eq!(
        err("path=."),
        ". is not the lawgen-runtime crate (no Cargo.toml naming `lawgen-runtime`); \
         give the directory of lawgen-runtime's Cargo.toml"
    );
    assert_eq!(
        "git=https://example.org/lawgen".parse::<RuntimeDep>(),
        Ok(RuntimeDep::Git("https://example.org/lawgen".into()))
    );
    assert_eq!(
        "version=0.1.0".parse::<RuntimeDep>(),
        Ok(RuntimeDep::Version("0.1.0".into()))
    );
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lawgen-runtime");
    match format!("path={}", here.display()).parse::<RuntimeDep>() {
        Ok(RuntimeDep::Path(p)) => assert!(p.is_absolute() && p.join("Cargo.toml").exists()),
        other => panic!("{other:?}"),
    }
}
