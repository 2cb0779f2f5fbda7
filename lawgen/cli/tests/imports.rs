//! Imports (docs/reference.md#imports).
//!
//! - Split and merged packages mean the same: a package cut into two or
//!   three importing layers (`support/split.rs`) evaluates exactly like the
//!   unsplit package — canonical output byte for byte, under both policies —
//!   for random packages (`support/gen.rs`) and for the chess package.
//! - Every resolution error, with its exact message: `tests/ui/imports/<case>/`
//!   holds a broken closure (`root.json` and what it imports, `args` with
//!   extra command-line arguments, `facts.json` for a facts error) and
//!   `<case>.stderr` what `lawgen check` (or `eval`) prints on stderr, run
//!   from the workspace root. `LAWGEN_BLESS=1` rewrites the `.stderr` files;
//!   `tests/imports/gen.py` writes the cases.
//! - The two-layer example of `docs/imports.md` (`tests/imports/example/`).

use lawgen_test_support as support;

use lawgen::driver::{self, Loaded};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::Policy;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::gen::{generate, package_seed, GenConfig, Rng};
use support::split::split;

fn canonical(loaded: &Loaded, facts: &[u8], policy: Policy) -> String {
    let facts = read_facts(facts, &loaded.catalog).unwrap_or_else(|d| panic!("{}", d.render()));
    let ev = driver::evaluate(loaded, &facts, policy).unwrap();
    lawgen_runtime::formats::output::canonical_json(&ev.conclusions)
}

/// Writes the layers of `package` to a fresh directory and loads the top one.
fn load_layers(
    package: &[u8],
    layers: usize,
    seed: u64,
    dir: &Path,
) -> (Loaded, support::split::Renames) {
    let (files, renames) = split(package, layers, &mut Rng::new(seed));
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    for l in &files {
        std::fs::write(
            dir.join(&l.file),
            serde_json::to_vec_pretty(&l.json).unwrap(),
        )
        .unwrap();
    }
    let top = dir.join(&files.last().unwrap().file);
    let loaded = driver::load_file(&top, &Default::default())
        .unwrap_or_else(|e| panic!("the layers of seed {seed:#x} do not load:\n{e}"));
    // Each layer once, though some are imported by several layers above.
    assert_eq!(loaded.model().packages.len(), layers);
    assert_eq!(loaded.files.len(), layers);
    (loaded, renames)
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("lawgen-imports-{}-{name}", std::process::id()))
}

#[test]
fn random_packages_cut_into_layers_mean_what_they_meant() {
    let (mut compared, mut layered, mut imported_priorities) = (0, 0, 0);
    let dir = scratch("random");
    for i in 0..120 {
        let seed = package_seed(0x1a7e_4ed5, i);
        let mut cfg = GenConfig::new(seed);
        cfg.facts_files = 2;
        let g = generate(&cfg);
        let Ok(whole) = driver::load_bytes(&g.package, &Default::default()) else {
            continue;
        };
        let layers = 2 + (i as usize % 2);
        let (split, renames) = load_layers(&g.package, layers, seed ^ 0x5911, &dir);
        let m = &split.model();
        // Really cut: rules in more than one package.
        let with_rules: std::collections::BTreeSet<usize> =
            m.rules.iter().map(|r| m.package_index_of(&r.id)).collect();
        if with_rules.len() > 1 {
            layered += 1;
        }
        if m.priorities.iter().any(|p| m.package_index_of(&p.id) != 0) {
            imported_priorities += 1;
        }
        for facts in &g.facts {
            for policy in [Policy::Blocking, Policy::Propagating] {
                let expected = canonical(&whole, facts, policy);
                let actual = canonical(&split, &renames.facts(facts), policy);
                assert_eq!(
                    actual, expected,
                    "seed {seed:#x}, {layers} layers, {policy:?}: the layered package means something else"
                );
                compared += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(compared >= 300, "only {compared} comparisons");
    assert!(
        layered >= 80,
        "only {layered} packages were really cut into layers"
    );
    assert!(
        imported_priorities >= 10,
        "only {imported_priorities} packages with a priority in an imported layer"
    );
}

#[test]
fn the_chess_package_cut_into_layers_means_what_it_meant() {
    let bytes = std::fs::read(support::path(support::CHESS)).unwrap();
    let whole = driver::load_bytes(&bytes, &Default::default()).unwrap();
    let scenarios = support::workspace().join("tests/scenarios/chess");
    let mut facts: Vec<PathBuf> = std::fs::read_dir(&scenarios)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    facts.sort();
    assert!(facts.len() >= 20);
    // Over the splits: rules and the priority end up in imported layers, and
    // the priority apart from a rule it ranks.
    let (mut imported_priority, mut priority_across) = (false, false);
    for (k, layers) in [(0u64, 2usize), (1, 3), (2, 3), (3, 2), (4, 3), (5, 3)] {
        let dir = scratch(&format!("chess{k}"));
        let (split, renames) = load_layers(&bytes, layers, 0x1 + k, &dir);
        assert!(
            split.model().packages.len() >= 2,
            "{layers} layers: only one package"
        );
        assert_eq!(split.files.len(), split.model().packages.len());
        let m = &split.model();
        let imported = |idx: usize| idx != 0;
        let rules = (0..m.rules.len())
            .filter(|&r| imported(m.package_index_of(&m.rules[r].id)))
            .count();
        let priorities = (0..m.priorities.len())
            .filter(|&p| imported(m.package_index_of(&m.priorities[p].id)))
            .count();
        assert!(rules > 0, "{layers} layers: no rule in an imported layer");
        imported_priority |= priorities > 0;
        priority_across |= m.priorities.iter().any(|p| {
            m.package_index_of(&p.id) != m.package_index_of(&m.rule(p.higher).id)
                || m.package_index_of(&p.id) != m.package_index_of(&m.rule(p.lower).id)
        });
        for f in &facts {
            let text = std::fs::read(f).unwrap();
            for policy in [Policy::Blocking, Policy::Propagating] {
                assert_eq!(
                    canonical(&split, &renames.facts(&text), policy),
                    canonical(&whole, &text, policy),
                    "{} in {layers} layers, {policy:?}",
                    f.display()
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(imported_priority && priority_across);
}

// ---------------------------------------------------------------- derogations

/// docs/reference.md#derogations: a derogation sets the listed imported
/// rules aside as if they were deleted, with every priority naming one.
/// Returns `None` when no rule could be set aside, else whether setting
/// them aside changed some output of the package, and whether the
/// derogation was in a layer below the root.
fn derogation_means_deletion(
    package: &[u8],
    facts: &[Vec<u8>],
    layers: usize,
    seed: u64,
) -> Option<(bool, bool)> {
    let mut rng = Rng::new(seed);
    let d = support::derogate::derogate(package, layers, &mut rng)?;
    let whole = driver::load_bytes(package, &Default::default()).expect("a valid package");
    let mut changed = false;
    let closure = driver::load_bytes(&support::derogate::bundle(&d.layers), &Default::default())
        .unwrap_or_else(|e| {
            panic!(
                "seed {seed:#x}: the derogating layers do not load:\n{}",
                e.render()
            )
        });
    let deleted = driver::load_bytes(&d.deleted, &Default::default()).unwrap_or_else(|e| {
        panic!(
            "seed {seed:#x}: the package with rules deleted does not load:\n{}",
            e.render()
        )
    });
    let m = &closure.model();
    assert_eq!(m.set_aside.len(), d.set_aside.len(), "seed {seed:#x}");
    assert_eq!(m.derogations.len(), d.derogations, "seed {seed:#x}");
    assert_eq!(m.rules.len(), deleted.model().rules.len(), "seed {seed:#x}");
    assert_eq!(
        m.priorities.len(),
        deleted.model().priorities.len(),
        "seed {seed:#x}"
    );
    for f in facts {
        for policy in [Policy::Blocking, Policy::Propagating] {
            let expected = canonical(&deleted, f, policy);
            assert_eq!(
                canonical(&closure, &d.renames.facts(f), policy),
                expected,
                "seed {seed:#x}, {layers} layers, {policy:?}: setting {:?} aside is not deleting them",
                d.set_aside
            );
            changed |= canonical(&whole, f, policy) != expected;
        }
    }
    Some((changed, d.at + 1 < d.layers.len()))
}

#[test]
fn random_derogations_mean_the_rules_deleted_by_hand() {
    let (mut tested, mut changed, mut in_the_middle) = (0, 0, 0);
    for i in 0..150 {
        let seed = package_seed(0xde70_6a7e, i);
        let mut cfg = GenConfig::new(seed);
        cfg.facts_files = 2;
        let g = generate(&cfg);
        if driver::load_bytes(&g.package, &Default::default()).is_err() {
            continue;
        }
        if let Some((c, middle)) =
            derogation_means_deletion(&g.package, &g.facts, 2 + (i as usize % 2), seed ^ 0xd0)
        {
            tested += 1;
            changed += usize::from(c);
            in_the_middle += usize::from(middle);
        }
    }
    assert!(
        in_the_middle >= 10,
        "only {in_the_middle} derogations in a layer the root imports"
    );
    assert!(
        tested >= 80,
        "only {tested} packages had a rule to set aside"
    );
    // Not vacuous: in many, what was set aside mattered.
    assert!(
        changed >= 30,
        "only {changed} of {tested} derogations changed an output"
    );
}

#[test]
fn derogations_of_chess_rules_mean_the_rules_deleted_by_hand() {
    let bytes = std::fs::read(support::path(support::CHESS)).unwrap();
    let facts: Vec<Vec<u8>> = std::fs::read_dir(support::workspace().join("tests/scenarios/chess"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let (mut tested, mut changed) = (0, 0);
    for k in 0..6u64 {
        if let Some((c, _)) =
            derogation_means_deletion(&bytes, &facts, 2 + (k as usize % 2), 0xc0 + k)
        {
            tested += 1;
            changed += usize::from(c);
        }
    }
    assert!(tested >= 5, "only {tested} splits had a rule to set aside");
    assert!(
        changed >= 3,
        "only {changed} of {tested} derogations changed a scenario"
    );
}

// ---------------------------------------------------------------- resolution errors

#[test]
fn every_resolution_error_has_its_exact_message() {
    let ui = support::workspace().join("tests/ui/imports");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&ui)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let rel = format!("tests/ui/imports/{name}");
        let args: Vec<String> = std::fs::read_to_string(dir.join("args"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lawgen"));
        cmd.current_dir(support::workspace());
        if dir.join("facts.json").exists() {
            cmd.args([
                "eval",
                &format!("{rel}/root.json"),
                "--facts",
                &format!("{rel}/facts.json"),
            ]);
        } else {
            cmd.args(["check", &format!("{rel}/root.json")]);
        }
        let out = cmd.args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() != Some(1) {
            failures.push(format!(
                "{name}: exit {:?} (1 expected):\n{stderr}",
                out.status.code()
            ));
            continue;
        }
        let code = name.split('_').next().unwrap().to_ascii_uppercase();
        if !stderr.starts_with(&format!("error[{code}]")) {
            failures.push(format!("{name}: the first error is not {code}:\n{stderr}"));
        }
        let expected_path = ui.join(format!("{name}.stderr"));
        if support::bless() {
            std::fs::write(&expected_path, &stderr).unwrap();
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(e) if e == stderr => {}
            Ok(e) => failures.push(format!("{name}: expected\n{e}\nactual\n{stderr}")),
            Err(_) => failures.push(format!(
                "{name}: no {name}.stderr (LAWGEN_BLESS=1):\n{stderr}"
            )),
        }
    }
    for f in std::fs::read_dir(&ui).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|x| x == "stderr") && !p.with_extension("").is_dir() {
            failures.push(format!("{}: no case directory (delete it)", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------- the example

fn example() -> PathBuf {
    support::workspace().join("tests/imports/example")
}

fn example_facts(name: &str) -> Vec<u8> {
    std::fs::read(example().join(format!("facts/{name}.facts.json"))).unwrap()
}

fn club() -> Loaded {
    driver::load_file_with(
        &example().join("club/example.club-1.0.0.json"),
        &Default::default(),
        &[example()],
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn section<'a>(out: &'a serde_json::Value, s: &str, lit: &str) -> Option<&'a serde_json::Value> {
    out[s].get(lit)
}

fn eval_json(loaded: &Loaded, facts: &str) -> serde_json::Value {
    serde_json::from_str(&canonical(loaded, &example_facts(facts), Policy::Blocking)).unwrap()
}

#[test]
fn the_example_base_law_draws_after_75_moves() {
    let laws = driver::load_file(
        &example().join("example.laws-1.0.0.json"),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(laws.model().packages.len(), 1);
    let out = eval_json(&laws, "long-game");
    assert_eq!(
        section(&out, "defeasibly", "game_drawn"),
        Some(&serde_json::json!([["g1"]]))
    );
}

#[test]
fn the_example_club_rules_set_the_draw_aside_and_leave_it_to_the_arbiter() {
    let club = club();
    let m = &club.model();
    let names: Vec<&str> = m.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["example.club", "example.laws"]);
    assert_eq!(club.files.len(), 2);
    // Which package each rule comes from.
    let rule = |local: &str| {
        let r = m.rules.iter().position(|r| r.local == local).unwrap();
        m.package_of_rule(lawgen::internals::model::RuleId(r as u32))
            .name
            .clone()
    };
    assert_eq!(rule("SeventyFiveMoveDraw"), "example.laws");
    assert_eq!(rule("UpheldClaimDraws"), "example.club");
    let p = m
        .priorities
        .iter()
        .position(|p| p.id.ends_with("#LossBeforeClaim"))
        .unwrap();
    assert_eq!(m.package_of_priority(p).name, "example.club");

    // No draw by the move count alone: pending the arbiter's decision.
    let out = eval_json(&club, "long-game");
    assert_eq!(out["package"], "example.club");
    assert_eq!(section(&out, "defeasibly", "game_drawn"), None);
    assert_eq!(
        section(&out, "pending", "game_drawn"),
        Some(&serde_json::json!([["g1"]]))
    );
    assert_eq!(out["requests"][0]["predicate"], "claim_upheld");
    assert_eq!(out["requests"][0]["authority"], "ClubArbiter");
    // Upheld: drawn. Rejected: not drawn (the 75-move rule only supports it).
    let out = eval_json(&club, "claim-upheld");
    assert_eq!(
        section(&out, "defeasibly", "game_drawn"),
        Some(&serde_json::json!([["g1"]]))
    );
    let out = eval_json(&club, "claim-rejected");
    assert_eq!(section(&out, "defeasibly", "game_drawn"), None);
    assert_eq!(section(&out, "pending", "game_drawn"), None);
    // A loss beats an upheld claim (an imported rule over a club rule).
    let out = eval_json(&club, "resigned-after-claim");
    assert_eq!(
        section(&out, "defeasibly", "~game_drawn"),
        Some(&serde_json::json!([["g1"]]))
    );
    assert_eq!(
        section(&out, "defeasibly", "game_lost_by"),
        Some(&serde_json::json!([["g1", "black"]]))
    );
}

#[test]
fn without_the_import_path_the_example_names_where_it_looked() {
    let path = example().join("club/example.club-1.0.0.json");
    let err = driver::load_file(&path, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("error[E100]: no package `example.laws` 1.0.0 on the import search path: "),
        "{err}"
    );
    assert!(err.contains("tests/imports/example/club"), "{err}");
}

#[test]
fn the_embedded_closure_reads_back_as_the_same_model() {
    let club = club();
    assert!(club
        .source
        .starts_with(r#"{"schemaVersion":"lawgen.closure/1","#));
    let again = driver::load_bytes(club.source.as_bytes(), &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    assert_eq!(again.model().packages.len(), 2);
    assert_eq!(again.model().packages[1].file, "example.laws-1.0.0.json");
    for f in ["long-game", "claim-upheld", "resigned-after-claim"] {
        for p in [Policy::Blocking, Policy::Propagating] {
            assert_eq!(
                canonical(&again, &example_facts(f), p),
                canonical(&club, &example_facts(f), p)
            );
        }
    }
}

#[test]
fn the_cli_checks_graphs_and_evaluates_the_example() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
            .current_dir(support::workspace())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let pkg = "tests/imports/example/club/example.club-1.0.0.json";
    let ip = ["--import-path", "tests/imports/example"];
    let check = run(&[&["check", pkg][..], &ip].concat());
    assert!(check.contains("closure (2 packages, the root first):\n  example.club 1.0.0 (tests/imports/example/club/example.club-1.0.0.json): 0 types, 1 predicate, 0 constants, 2 rules, 2 priorities, 0 closures, 1 fragment; imports example.laws 1.0.0\n"), "{check}");
    assert!(
        check.contains("example.laws 1.0.0 (tests/imports/example/example.laws-1.0.0.json)"),
        "{check}"
    );
    let graph = run(&[&["graph", pkg][..], &ip].concat());
    assert!(
        graph.contains("subgraph \"cluster_pkg0\" {\n    label=\"example.club 1.0.0\";"),
        "{graph}"
    );
    assert!(
        graph.contains("subgraph \"cluster_pkg1\" {\n    label=\"example.laws 1.0.0\";"),
        "{graph}"
    );
    let eval = run(&[
        &[
            "eval",
            pkg,
            "--facts",
            "tests/imports/example/facts/long-game.facts.json",
        ][..],
        &ip,
    ]
    .concat());
    assert!(
        eval.contains("\"pending\": {\n    \"game_drawn\""),
        "{eval}"
    );
    let lower = run(&[&["lower", pkg][..], &ip].concat());
    assert!(lower.contains("UpheldClaimDraws"), "{lower}");
    let verdicts = run(&[
        &[
            "verdicts",
            pkg,
            "--facts",
            "tests/imports/example/facts/claim-upheld.facts.json",
        ][..],
        &ip,
    ]
    .concat());
    assert!(verdicts.contains("game_drawn(g1)"), "{verdicts}");
    let explain = run(&[
        &[
            "explain",
            pkg,
            "--facts",
            "tests/imports/example/facts/resigned-after-claim.facts.json",
            "~game_drawn(g1)",
        ][..],
        &ip,
    ]
    .concat());
    assert!(explain.contains("LostIsNotDrawn"), "{explain}");
}

/// The generated crate covers the closure: compiled with ascent, it gives
/// the reference evaluator's output byte for byte. (One crate build, in the
/// cache every generated crate of the tests shares: `support::harness`.)
#[test]
fn the_compiled_example_agrees_with_the_reference_evaluator() {
    let cache = support::harness::generated_dir();
    let pkg = "tests/imports/example/club/example.club-1.0.0.json";
    for facts in [
        "long-game",
        "claim-upheld",
        "claim-rejected",
        "resigned-after-claim",
    ] {
        let f = format!("tests/imports/example/facts/{facts}.facts.json");
        for policy in ["blocking", "propagating"] {
            let run = |backend: &str| {
                let out = support::harness::lawgen_command(env!("CARGO_BIN_EXE_lawgen"))
                    .current_dir(support::workspace())
                    .args([
                        "eval",
                        pkg,
                        "--import-path",
                        "tests/imports/example",
                        "--facts",
                        &f,
                    ])
                    .args(["--policy", policy, "--backend", backend, "--cache-dir"])
                    .arg(&cache)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{backend}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                out.stdout
            };
            assert_eq!(
                String::from_utf8(run("compiled")).unwrap(),
                String::from_utf8(run("interp")).unwrap(),
                "{facts}, {policy}"
            );
        }
    }
}

/// Two packages with a predicate `seen` each: facts and output name them by
/// full id, the typed API by local name made unique (`seen`, then `seen_2`).
#[test]
fn a_shared_local_name_is_a_full_id_at_the_edges_and_unique_in_the_api() {
    let dir = support::workspace().join("tests/ui/imports/e086_ambiguous_local_name_in_facts");
    let loaded = driver::load_file(&dir.join("root.json"), &Default::default()).unwrap();
    let m = &loaded.model();
    assert_eq!(
        m.ambiguous_pred("seen").unwrap(),
        ["urn:ui:base#seen", "urn:ui:top#seen"]
    );
    let facts = br#"{"facts": {"urn:ui:base#seen": [["a"]], "urn:ui:top#seen": [["b"]], "heard": [["c"]]}}"#;
    let out = canonical(&loaded, facts, Policy::Blocking);
    assert!(
        out.contains("\"urn:ui:base#seen\": [\n      [\"a\"]\n    ]"),
        "{out}"
    );
    assert!(
        out.contains("\"known\": [\n      [\"a\"],\n      [\"c\"]\n    ]"),
        "{out}"
    );
    let emitted = lawgen::generate(&loaded, &Default::default()).unwrap();
    // Each fact method once per way of stating facts: by name (`Facts`)
    // and without names (`Case`); a second `seen` would be a collision.
    for f in [
        "pub fn seen(",
        "pub fn not_seen(",
        "pub fn seen_2(",
        "pub fn not_seen_2(",
        "pub fn heard(",
    ] {
        assert_eq!(emitted.source.matches(f).count(), 2, "{f}");
    }
    assert!(emitted
        .source
        .contains("// imports: ui.base 1.0.0 (semantic hash sha256:"));
}

/// The Builder takes an import path; the module covers the closure.
#[test]
fn the_builder_generates_the_module_of_an_importing_package() {
    let out = scratch("builder");
    let written = lawgen::Builder::new()
        .package(example().join("club/example.club-1.0.0.json"))
        .import_path(example())
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
    let source = std::fs::read_to_string(&written[0]).unwrap();
    assert!(written[0].ends_with("example_club.rs"));
    assert!(source.contains("// imports: example.laws 1.0.0 (semantic hash sha256:7509"));
    // Both layers' predicates are in the typed API.
    assert!(
        source.contains("pub fn decide_claim_upheld("),
        "club judgment"
    );
    assert!(
        source.contains("pub fn moves_without_capture("),
        "imported input"
    );
    // Without the import path the build fails with the search path named.
    let err = lawgen::Builder::new()
        .package(example().join("club/example.club-1.0.0.json"))
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap_err()
        .to_string();
    assert!(err.contains("error[E100]"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

// ---------------------------------------------------------------- lock files and ambiguity

/// `lawgen ARGS…` in `dir`: exit code and stderr.
fn lawgen_in(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_lock_file_pins_every_import_and_every_load_verifies_it() {
    let ui = support::workspace().join("tests/ui/imports");
    let dir = scratch("lock");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let case = ui.join("e109_import_matched_by_two_files");
    for f in ["root.json", "base.json"] {
        std::fs::copy(case.join(f), dir.join(f)).unwrap();
    }
    let (code, err) = lawgen_in(&dir, &["lock", "root.json"]);
    assert_eq!(code, Some(0), "{err}");
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("root.json.lock")).unwrap()).unwrap();
    // The same digest as the generator's (sha256 of the canonical JSON),
    // which pinned the unchanged package in the E151 case.
    let generated: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ui.join("e151_import_changed_since_locked/root.json.lock")).unwrap(),
    )
    .unwrap();
    assert_eq!(written, generated);
    assert_eq!(lawgen_in(&dir, &["check", "root.json"]).0, Some(0));
    // Its own directory given again is one candidate, not two.
    let again = lawgen_in(&dir, &["check", "root.json", "--import-path", "."]);
    assert_eq!(again.0, Some(0), "{}", again.1);

    // Reformatted, the import is the same package.
    let base: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("base.json")).unwrap()).unwrap();
    std::fs::write(
        dir.join("base.json"),
        serde_json::to_string_pretty(&base).unwrap(),
    )
    .unwrap();
    let (code, err) = lawgen_in(&dir, &["check", "root.json"]);
    assert_eq!(code, Some(0), "{err}");

    // Changed, re-hashed, its semanticHash kept: refused by check, eval,
    // build and the Builder's loader.
    std::fs::copy(
        ui.join("e151_import_changed_since_locked/base.json"),
        dir.join("base.json"),
    )
    .unwrap();
    std::fs::write(dir.join("facts.json"), r#"{"seen": [["a"]]}"#).unwrap();
    for args in [
        vec!["check", "root.json"],
        vec!["eval", "root.json", "--facts", "facts.json"],
        vec!["build", "root.json", "--out", "crate"],
    ] {
        let (code, err) = lawgen_in(&dir, &args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.contains("error[E151]: `ui.base` 1.0.0 has SHA-256 "),
            "{args:?}: {err}"
        );
    }
    assert!(!dir.join("crate").exists());
    let err = driver::load_file_with(&dir.join("root.json"), &Default::default(), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("error[E151]"), "{err}");

    // Locked again after review, it loads.
    assert_eq!(lawgen_in(&dir, &["lock", "root.json"]).0, Some(0));
    assert_eq!(lawgen_in(&dir, &["check", "root.json"]).0, Some(0));

    // A lock file that is not one is an error, never ignored.
    std::fs::write(dir.join("root.json.lock"), "{}").unwrap();
    let (code, err) = lawgen_in(&dir, &["check", "root.json"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("error[E152]: the lock file root.json.lock is not a lawgen lock file"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_import_matched_in_two_directories_is_ambiguous() {
    let case = support::workspace().join("tests/ui/imports/e109_import_matched_by_two_files");
    let dir = scratch("ambiguous");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::copy(case.join("root.json"), dir.join("root.json")).unwrap();
    std::fs::copy(case.join("base.json"), dir.join("base.json")).unwrap();
    std::fs::copy(case.join("base.json"), dir.join("lib/base-1.0.0.json")).unwrap();
    let (code, err) = lawgen_in(&dir, &["check", "root.json", "--import-path", "lib"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("error[E109]: 2 files on the import search path are package `ui.base` 1.0.0: base.json, lib/base-1.0.0.json\n"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chain of `n` packages in `dir`, each importing the one before: the
/// base of the ui cases, then layers of one relation each. Returns the
/// last file.
fn write_chain(dir: &Path, n: usize, width: usize) -> PathBuf {
    use lawgen::internals::syntax::hash::node_hash;
    let base_file =
        support::workspace().join("tests/ui/imports/e109_import_matched_by_two_files/base.json");
    let base: serde_json::Value =
        serde_json::from_slice(&std::fs::read(base_file).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("p0.json"), serde_json::to_vec(&base).unwrap()).unwrap();
    let mut prev = (
        "ui.base".to_owned(),
        "urn:ui:base".to_owned(),
        base["semanticHash"].clone(),
    );
    for i in 1..n {
        let ns = format!("urn:c:p{i}");
        let nodes: Vec<serde_json::Value> = (0..width)
            .map(|k| {
                let mut node = serde_json::json!({
                    "id": format!("{ns}#heard{i}_{k}"), "kind": "symbol_decl", "package": ns,
                    "labels": [{"language": "en", "status": "official", "text": "heard"}],
                    "name": format!("heard{i}_{k}"), "symbolKind": "relation", "relationKind": "empirical",
                    "parameters": [{"name": "thing", "type": {"name": "urn:ui:base#Thing"}}],
                });
                let hash = node_hash(node.as_object().unwrap());
                node["contentHash"] = serde_json::Value::from(hash);
                node
            })
            .collect();
        let semantic = serde_json::Value::from(format!("sha256:{i:064}"));
        let pkg = serde_json::json!({
            "schemaVersion": "law.core.ir/0.2",
            "package": {"name": format!("c.p{i}"), "namespace": ns, "version": "1.0.0"},
            "semanticHash": semantic,
            "features": ["core-executable"],
            "imports": [{"name": prev.0, "namespace": prev.1, "version": "1.0.0", "semanticHash": prev.2}],
            "strata": [],
            "metadata": {},
            "nodes": nodes,
        });
        std::fs::write(
            dir.join(format!("p{i}.json")),
            serde_json::to_vec(&pkg).unwrap(),
        )
        .unwrap();
        prev = (format!("c.p{i}"), ns, semantic);
    }
    dir.join(format!("p{}.json", n - 1))
}

#[test]
fn chains_of_imports_load_or_are_refused_at_once() {
    let dir = scratch("chain");
    // Within the limits: loads, every package in the model.
    let top = write_chain(&dir, 200, 1);
    let loaded = driver::load_file(&top, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.model().packages.len(), 200);
    // 1,300 packages of one node: checked each with its own imports, fewer
    // than a million node checks, but they nest deeper than resolution
    // reads (depth first, so a deep chain would exhaust the stack).
    let top = write_chain(&dir, 1300, 1);
    let err = driver::load_file(&top, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "error[E090]: the imports nest more than 200 packages deep (here `c.p1099` 1.0.0)\n"
        ),
        "{err}"
    );
    assert!(
        err.contains("= help: import the packages a layer builds on directly rather than through a long chain, or merge layers\n"),
        "{err}"
    );
    // 200 packages of 60 nodes: 1.2 million node checks.
    let top = write_chain(&dir, 200, 60);
    let err = driver::load_file(&top, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("error[E090]: the imports nest too deep to check: each of the 200 packages is checked with its own imports, 1195400 nodes in all, more than the limit of 1000000 (8 times the closure's 11947 nodes, and at least 1000000)\n"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
