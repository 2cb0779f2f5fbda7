//! Differential test: three backends — the reference interpreter and the
//! compiled module of each engine (Ascent, Direct) — byte for byte.
//!
//! Random valid packages from `support/gen.rs`, and the chess package with
//! every hand-derived scenario of `tests/scenarios/chess` as its facts files,
//! are emitted by `lawgen::internals::emit::emit` once per engine into one generated
//! Cargo package under `target/differential/` (its own `[workspace]`, built
//! in the target directory every generated crate of the tests shares,
//! `target/generated/target`, so dependencies are built once and reused:
//! `support::harness::generated_dir`). The package has a few binaries per engine (`batchN`
//! with the Ascent modules `src/gen/pI.rs`, `directN` with the Direct
//! modules `src/direct/gen/pI.rs`), each including a slice of the package
//! modules with `lawgen_runtime::include_package!`; cargo builds them in
//! parallel. Each binary reads every facts file of its packages and prints
//! `Conclusions::to_json()` for both policies; each engine's output is
//! compared byte for byte with `canonical_json` of the reference interpreter.
//!
//! Every fourth package is dated: two or three editions of one work in
//! force in turn (sometimes one repealed), rules and priorities anchored
//! to one, two or no edition, and each facts file as of a day just before,
//! on or just after a boundary (`asOf`), so the in-force inputs a case's
//! date sets are compared on both engines.
//!
//! Every facts file also goes through the facts path without names
//! (`support/nameless.rs`): the same facts stated through `Case` methods
//! with `Type::from_index` ids, one `Case` at a time, all files of a package
//! through `evaluate_cases`, and all of them as one `Columns` batch (in case
//! order for even packages, reversed for odd ones); their output must equal
//! the interpreter's on the facts file with every entity renamed the way
//! conclusions name a nameless one (`Type#index`).
//!
//! Every second package (1, 3, 5, …) has the typed API's functions with one
//! line per input relation (`columns_fields`) split as a large package's
//! are, into functions of at most two lines, and its `concluded_counts` a
//! loop over a table (`EmitOptions::split_above`), on both engines.
//!
//! Environment:
//! - `LAWGEN_DIFF_PACKAGES` — how many accepted packages (default 200);
//! - `LAWGEN_DIFF_SEED` — the run's seed (decimal or `0x…`); package `i` has
//!   seed `seed + i` (`support::gen::package_seed`);
//! - `LAWGEN_DIFF_BATCH` — package modules per generated binary (default 20);
//! - `LAWGEN_DIFF_OPT` — opt-level of the generated crate (default 0, the
//!   profile of every generated crate: `support::harness::GENERATED_PROFILE`);
//! - `LAWGEN_DIFF_ENGINES` — `ascent`, `direct` or `ascent,direct` (the
//!   default): the engines whose modules are built and compared;
//! - `LAWGEN_DIFF_FROM_PROGRAM` — every how manyth package's Direct module
//!   evaluates its rules from the embedded program, as a package above the
//!   straight-line limit does (`EmitOptions::straight_line_rules` of 0;
//!   default 3: packages 2, 5, 8, …, whose nameless paths then read that
//!   module; 1: every package; 0: none);
//! - `LAWGEN_DIFF_REPEAT_VARS=0` — no variable twice in one literal
//!   (`p(X, X)`), to look past a failure that needs one.
//!
//! A mismatch (or an emitter error, or a generated module that does not
//! compile) is written to `target/differential/failures/p<i>-<seed>/` with the
//! package, its facts files and both outputs, and fails the test.

use lawgen_test_support as support;

use lawgen::driver::{self, Loaded};
use lawgen::generate as emit;
use lawgen::EmitOptions;
use lawgen::Engine;
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::interp::Conclusions;
use lawgen_runtime::program::RelationKind;
use lawgen_runtime::program::Section;
use lawgen_runtime::Policy;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use support::derogate::{self, derogate, derogate_dated};
use support::gen::{generate, package_seed, GenConfig, Rng};
use support::harness::{
    blame, cargo_generated, env_num, generated_profile_toml, generated_target, remove_stale,
    report, run_results, secs, seed_lock_file, write_if_changed, RunLock,
};
use support::nameless::{nameless, Nameless, PATHS};

const DEFAULT_PACKAGES: usize = 200;
const DEFAULT_SEED: u64 = 0x00d1_ff5e_ed00_0000;
const DEFAULT_BATCH: usize = 20;
const FACTS_PER_PACKAGE: usize = 4;
/// Rules per package (`GenConfig::min_rules`, `max_rules`).
const RULES: (usize, usize) = (3, 8);
/// The engines, with the directory of their modules and the prefix of
/// their binaries in the generated crate.
const ENGINES: [(Engine, &str, &str); 2] = [
    (Engine::Ascent, "src/gen", "batch"),
    (Engine::Direct, "src/direct/gen", "direct"),
];
/// The chess package's case (its index and module name: it follows the
/// random packages' numbering far out of their range).
const CHESS_INDEX: usize = 9_000_000;
const POLICIES: [(Policy, &str); 2] = [
    (Policy::Blocking, "blocking"),
    (Policy::Propagating, "propagating"),
];

/// One accepted package and what the interpreter concludes from its facts.
struct Case {
    index: usize,
    seed: u64,
    description: String,
    package: Vec<u8>,
    facts: Vec<Vec<u8>>,
    module: String,
    /// The module of each engine (`ENGINES` order).
    sources: [String; 2],
    /// `expected[facts file][policy]`.
    expected: Vec<[String; 2]>,
    /// The nameless paths' code and expected output.
    nameless: Option<Nameless>,
}

/// The generated Cargo package.
struct Crate {
    dir: PathBuf,
}

impl Crate {
    fn failures(&self) -> PathBuf {
        self.dir.join("failures")
    }
}

fn interpret(loaded: &Loaded, facts: &[u8], policy: Policy) -> Conclusions {
    let facts = read_facts(facts, &loaded.catalog)
        .unwrap_or_else(|d| panic!("the generator wrote a bad facts file:\n{}", d.render()));
    driver::evaluate(loaded, &facts, policy)
        .expect("lowering a checked package")
        .conclusions
}

/// Sections (and requests) that hold some institutional literal.
fn nonempty_sections(c: &Conclusions, loaded: &Loaded) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (s, name) in [
        (Section::Definitely, "definitely"),
        (Section::Defeasibly, "defeasibly"),
        (Section::Supported, "supported"),
        (Section::Pending, "pending"),
    ] {
        let any = c.sections[&s].keys().any(|lit| {
            let p = loaded
                .model()
                .pred_by_name(lit.trim_start_matches('~'))
                .expect("output names a predicate");
            loaded.model().pred(p).kind == RelationKind::Institutional
        });
        if any {
            out.push(name);
        }
    }
    if !c.requests.is_empty() {
        out.push("requests");
    }
    out
}

/// A failure to report: where, and the files that reproduce it.
struct Failure {
    case: usize,
    what: String,
    /// Extra files to write next to the package and facts.
    files: Vec<(String, String)>,
}

fn save_failure(krate: &Crate, c: &Case, what: &str, files: &[(String, String)]) -> PathBuf {
    let dir = krate
        .failures()
        .join(format!("p{}-seed{:#x}", c.index, c.seed));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.json"), &c.package).unwrap();
    for (k, f) in c.facts.iter().enumerate() {
        std::fs::write(dir.join(format!("facts{k}.json")), f).unwrap();
    }
    for ((engine, ..), source) in ENGINES.iter().zip(&c.sources) {
        std::fs::write(dir.join(format!("{}.{engine}.rs", c.module)), source).unwrap();
    }
    let readme = format!(
        "package {} of a differential run; regenerate it alone with\n\
         GenConfig {{ seed: {:#x}, facts_files: {FACTS_PER_PACKAGE}, ..GenConfig::new(seed) }}\n\
         {}\n\n{what}\n\n\
         reproduce the interpreter side with\n\
         cargo run -p lawgen-cli -- eval {}/package.json --facts {}/facts0.json [--policy propagating]\n",
        c.index,
        c.seed,
        c.description,
        dir.display(),
        dir.display(),
    );
    std::fs::write(dir.join("README.txt"), readme).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

/// Writes the generated crate; returns the binaries of each engine
/// (`ENGINES` order; none for an engine not `on`).
fn write_crate(
    krate: &Crate,
    cases: &[&Case],
    batch: usize,
    opt: u64,
    on: [bool; 2],
) -> [Vec<String>; 2] {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../lawgen-runtime")
        .canonicalize()
        .unwrap();
    let chunks = cases.len().div_ceil(batch);
    let mut bins: [Vec<String>; 2] =
        ENGINES.map(|(_, _, prefix)| (0..chunks).map(|b| format!("{prefix}{b}")).collect());
    for (b, on) in bins.iter_mut().zip(on) {
        if !on {
            b.clear();
        }
    }
    let mut manifest = format!(
        r#"# Generated by lawgen/tests/differential.rs; rewritten on every run.
[package]
name = "lawgen-differential"
version = "0.0.0"
edition = "2021"
publish = false
autobins = false

[dependencies]
lawgen-runtime = {{ path = {:?} }}
ascent = {{ version = "=0.8.1", default-features = false }}

{}
[workspace]
"#,
        runtime.display().to_string(),
        generated_profile_toml().replacen("opt-level = 0\n", &format!("opt-level = {opt}\n"), 1),
    );
    for b in bins.iter().flatten() {
        let _ = write!(
            manifest,
            "\n[[bin]]\nname = \"{b}\"\npath = \"src/bin/{b}.rs\"\n"
        );
    }
    let mut keep = BTreeSet::new();
    let mut put = |path: PathBuf, bytes: &[u8]| {
        write_if_changed(&path, bytes);
        keep.insert(path);
    };
    put(krate.dir.join("Cargo.toml"), manifest.as_bytes());
    // Resolve offline against the versions the workspace already uses.
    seed_lock_file(&krate.dir);
    for (e, (_, gen_dir, _)) in ENGINES.iter().enumerate() {
        // From src/bin/ to the modules.
        let rel = gen_dir.trim_start_matches("src/");
        for (b, chunk) in bins[e].iter().zip(cases.chunks(batch)) {
            let mut main = String::from(
                "// Generated by lawgen/tests/differential.rs.\n\
                 use std::io::Write as _;\n\n\
                 trait Out { fn out(self) -> String; }\n\
                 impl Out for String { fn out(self) -> String { self } }\n\
                 impl<E: std::fmt::Display> Out for Result<String, E> {\n    \
                     fn out(self) -> String { match self { Ok(s) => s, Err(e) => format!(\"ERROR to_json: {e}\\n\") } }\n\
                 }\n\n\
                 macro_rules! case {\n    \
                     ($m:ident, $files:expr) => {{\n        \
                         let mut out = std::io::stdout().lock();\n        \
                         for k in 0..$files {\n            \
                             let path = format!(\"{}/data/{}/facts{k}.json\", env!(\"CARGO_MANIFEST_DIR\"), stringify!($m));\n            \
                             let bytes = std::fs::read(&path).unwrap();\n            \
                             for (policy, pname) in [(lawgen_runtime::Policy::Blocking, \"blocking\"), (lawgen_runtime::Policy::Propagating, \"propagating\")] {\n                \
                                 let text = match $m::Facts::from_json(&bytes) {\n                    \
                                     Ok(f) => match f.evaluate(policy) {\n                        \
                                         Ok(c) => c.to_json().out(),\n                        \
                                         Err(e) => format!(\"ERROR evaluate: {e}\\n\"),\n                    \
                                     },\n                    \
                                     Err(e) => format!(\"ERROR from_json: {e}\\n\"),\n                \
                                 };\n                \
                                 write!(out, \"\\u{1e}{} {k} {pname}\\n{text}\", stringify!($m)).unwrap();\n            \
                             }\n        \
                         }\n    \
                     }};\n\
                 }\n\n",
            );
            for c in chunk {
                let _ = writeln!(
                    main,
                    "lawgen_runtime::include_package!({}, \"../{rel}/{}.rs\");",
                    c.module, c.module
                );
            }
            for c in chunk {
                if let Some(n) = &c.nameless {
                    main.push_str(&n.code);
                }
            }
            main.push_str("\nfn main() {\n");
            for c in chunk {
                let _ = writeln!(main, "    case!({}, {});", c.module, c.facts.len());
                if c.nameless.is_some() {
                    let _ = writeln!(
                        main,
                        "    nameless_{}(&mut std::io::stdout().lock());",
                        c.module
                    );
                }
            }
            main.push_str("}\n");
            put(krate.dir.join(format!("src/bin/{b}.rs")), main.as_bytes());
            for c in chunk {
                put(
                    krate.dir.join(format!("{gen_dir}/{}.rs", c.module)),
                    c.sources[e].as_bytes(),
                );
            }
        }
    }
    for c in cases {
        for (k, f) in c.facts.iter().enumerate() {
            put(
                krate.dir.join(format!("data/{}/facts{k}.json", c.module)),
                f,
            );
        }
    }
    remove_stale(&krate.dir.join("src"), &keep);
    remove_stale(&krate.dir.join("data"), &keep);
    bins
}

/// The chess package, with every hand-derived scenario as a facts file.
fn chess_case() -> (Loaded, Case) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let package = std::fs::read(support::path(support::CHESS)).unwrap();
    let loaded = driver::load_bytes(&package, &Default::default()).unwrap();
    let dir = root.join("tests/scenarios/chess");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    names.sort();
    assert!(names.len() >= 20, "only {} chess scenarios", names.len());
    let facts: Vec<Vec<u8>> = names.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let case = Case {
        index: CHESS_INDEX,
        seed: 0,
        description: format!("the chess package, {} scenarios", facts.len()),
        package,
        facts,
        module: format!("p{CHESS_INDEX}"),
        sources: Default::default(),
        expected: Vec::new(),
        nameless: None,
    };
    (loaded, case)
}

/// Fills `case.expected` (the interpreter's output for every facts file and
/// policy) and `case.sources` (the module of each engine); an emitter
/// error is a failure of case number `at`.
fn interpret_and_emit(
    loaded: &Loaded,
    mut case: Case,
    on: [bool; 2],
    sections: &mut BTreeMap<&'static str, usize>,
    at: usize,
    failures: &mut Vec<Failure>,
) -> Case {
    for f in &case.facts {
        let mut both: [String; 2] = Default::default();
        for (slot, (policy, _)) in both.iter_mut().zip(POLICIES) {
            let c = interpret(loaded, f, policy);
            for s in nonempty_sections(&c, loaded) {
                *sections.entry(s).or_default() += 1;
            }
            *slot = canonical_json(&c);
        }
        case.expected.push(both);
    }
    for ((slot, (engine, ..)), _) in case
        .sources
        .iter_mut()
        .zip(ENGINES)
        .zip(on)
        .filter(|(_, on)| *on)
    {
        // The engine asked for, whatever the package's size: the test is of
        // the Ascent engine's code too (`EmitOptions::ascent_rules`).
        let mut opts = EmitOptions::default()
            .module_name(&case.module)
            .engine(engine)
            .ascent_rules(usize::MAX);
        if engine == Engine::Direct && from_program(case.index) {
            opts = opts.straight_line_rules(0);
        }
        if split_api(case.index) {
            opts = opts.split_above(2);
        }
        match emit(loaded, &opts) {
            Ok(e) => {
                let again = emit(loaded, &opts).expect("emitting twice");
                assert!(
                    again.source == e.source,
                    "emitting package {} twice for {engine} gave different code",
                    case.index
                );
                assert_eq!(
                    e.module_name, case.module,
                    "the module name option was not kept"
                );
                assert_eq!(
                    e.from_program,
                    opts.straight_line_rules == Some(0) && e.rules > 0,
                    "package {}: the straight-line limit was not kept",
                    case.index
                );
                *slot = e.source;
            }
            Err(e) => failures.push(Failure {
                case: at,
                what: format!("emit failed for {engine}: {e}"),
                files: Vec::new(),
            }),
        }
    }
    // The nameless paths read the API from a module (the same in both),
    // and evaluate with its engine: the one from the program where the
    // package has it.
    let from = if from_program(case.index) && on[1] {
        1
    } else {
        0
    };
    if let Some(source) = case.sources[from..]
        .iter()
        .chain(&case.sources)
        .find(|s| !s.is_empty())
    {
        match nameless(
            loaded,
            &case.module,
            source,
            &case.facts,
            POLICIES.map(|(p, _)| p),
            case.index % 2 == 1,
        ) {
            Ok(n) => case.nameless = Some(n),
            Err(e) => failures.push(Failure {
                case: at,
                what: format!("the nameless paths of {}: {e}", case.module),
                files: Vec::new(),
            }),
        }
    }
    case
}

/// Whether package `index`'s Direct module evaluates its rules from the
/// embedded program (`LAWGEN_DIFF_FROM_PROGRAM`).
fn from_program(index: usize) -> bool {
    let every = env_num("LAWGEN_DIFF_FROM_PROGRAM").map_or(3, |n| n as usize);
    every > 0 && index % every == every - 1
}

/// Whether package `index`'s modules have the typed API's functions with
/// one line per relation split, as a large package's are.
fn split_api(index: usize) -> bool {
    index % 2 == 1
}

#[test]
fn compiled_packages_agree_with_the_interpreter() {
    let wanted = env_num("LAWGEN_DIFF_PACKAGES").map_or(DEFAULT_PACKAGES, |n| n as usize);
    let base = env_num("LAWGEN_DIFF_SEED").unwrap_or(DEFAULT_SEED);
    let batch = env_num("LAWGEN_DIFF_BATCH").map_or(DEFAULT_BATCH, |n| n.max(1) as usize);
    let opt = env_num("LAWGEN_DIFF_OPT").unwrap_or(0);
    let repeat_vars = env_num("LAWGEN_DIFF_REPEAT_VARS") != Some(0);
    let on: [bool; 2] = match std::env::var("LAWGEN_DIFF_ENGINES") {
        Ok(v) => {
            let names: Vec<&str> = v.split(',').map(str::trim).collect();
            for n in &names {
                assert!(
                    ENGINES.iter().any(|(e, ..)| e.as_str() == *n),
                    "LAWGEN_DIFF_ENGINES: unknown engine `{n}` (ascent, direct)"
                );
            }
            ENGINES.map(|(e, ..)| names.contains(&e.as_str()))
        }
        Err(_) => [true; 2],
    };
    let engines_on = on.iter().filter(|o| **o).count();
    assert!(engines_on > 0, "LAWGEN_DIFF_ENGINES names no engine");
    assert!(wanted > 0, "LAWGEN_DIFF_PACKAGES must be positive");
    let krate = Crate {
        dir: Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace root")
            .join("target/differential"),
    };
    std::fs::create_dir_all(&krate.dir).unwrap();
    // One run at a time: a second `cargo test` would rewrite the generated
    // crate under this one's feet (and run the other's binaries).
    let _lock = RunLock::acquire(&krate.dir.join(".lock"), "differential");
    let _ = std::fs::remove_dir_all(krate.failures());

    // 1. Generate, check, interpret, emit.
    let t0 = Instant::now();
    let (mut tried, mut rejected) = (0usize, 0usize);
    let mut cases: Vec<Case> = Vec::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut sections: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut derogated = 0usize;
    let mut dated_derogated = 0usize;
    let mut dated = 0usize;
    while cases.len() < wanted {
        assert!(
            tried < 3 * wanted + 50,
            "the checker refused {rejected} of {tried} generated packages"
        );
        let index = tried;
        let seed = package_seed(base, index as u64);
        tried += 1;
        let mut cfg = GenConfig::new(seed);
        cfg.facts_files = FACTS_PER_PACKAGE;
        cfg.repeat_vars = repeat_vars;
        // Compile time grows with the rules of a package (about 25 ms of rustc
        // per ascent rule, 0.6 s per module besides): a few fewer rules than
        // the property tests use, and more facts files, which cost nothing.
        (cfg.min_rules, cfg.max_rules) = (RULES.0, RULES.1);
        // Every fourth package dates its rules (docs/reference.md#as-of-evaluation):
        // editions in force in turn, sometimes one repealed, each facts
        // file as of a day around a boundary.
        cfg.dated = index % 4 == 1;
        let g = generate(&cfg);
        let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) else {
            rejected += 1;
            continue;
        };
        dated += usize::from(cfg.dated);
        let mut case = Case {
            index,
            seed,
            description: g.description,
            package: g.package,
            facts: g.facts,
            module: format!("p{index}"),
            sources: Default::default(),
            expected: Vec::new(),
            nameless: None,
        };
        // Every fourth package is cut into layers whose top one sets some
        // imported rules aside (docs/reference.md#derogations): the engines
        // compile the closure, and the interpreter's output of the package
        // with those rules deleted by hand is what they must print.
        // Every eighth package, a dated one, is cut into layers whose
        // derogations are mostly anchored to its dated editions, in force
        // on some dates only: the engines must agree with the interpreter
        // on every date (tests/editions.rs compares the interpreter with
        // the rules deleted by hand, date by date).
        let mut deleted: Option<(Loaded, Vec<Vec<u8>>)> = None;
        let dated_derogations = index % 8 == 5;
        let loaded = match (index % 4 == 3)
            .then(|| derogate(&case.package, 2 + index % 2, &mut Rng::new(seed ^ 0xde70)))
            .or_else(|| {
                dated_derogations.then(|| {
                    derogate_dated(&case.package, 2 + index % 2, &mut Rng::new(seed ^ 0xde71))
                })
            })
            .flatten()
        {
            Some(d) if dated_derogations => {
                let closure = driver::load_bytes(&derogate::bundle(&d.layers), &Default::default())
                    .unwrap_or_else(|e| {
                        panic!(
                            "seed {seed:#x}: dated derogating layers refused:\n{}",
                            e.render()
                        )
                    });
                let _ = write!(
                    case.description,
                    ", in layers, {} derogation(s), {} dated",
                    d.lists.len(),
                    d.lists.iter().filter(|(_, a)| !a.is_empty()).count()
                );
                case.facts = case.facts.iter().map(|f| d.renames.facts(f)).collect();
                case.package = derogate::bundle(&d.layers);
                derogated += 1;
                dated_derogated += 1;
                closure
            }
            Some(d) => {
                let bundle = derogate::bundle(&d.layers);
                let closure =
                    driver::load_bytes(&bundle, &Default::default()).unwrap_or_else(|e| {
                        panic!("seed {seed:#x}: derogating layers refused:\n{}", e.render())
                    });
                let by_hand = driver::load_bytes(&d.deleted, &Default::default())
                    .expect("the package with rules deleted by hand is valid");
                let _ = write!(
                    case.description,
                    ", in layers, {} rule(s) set aside",
                    d.set_aside.len()
                );
                let renamed = case.facts.iter().map(|f| d.renames.facts(f)).collect();
                deleted = Some((by_hand, std::mem::replace(&mut case.facts, renamed)));
                case.package = bundle;
                derogated += 1;
                closure
            }
            None => loaded,
        };
        let case = interpret_and_emit(&loaded, case, on, &mut sections, cases.len(), &mut failures);
        if let Some((deleted, facts)) = deleted {
            for (k, f) in facts.iter().enumerate() {
                for (p, (policy, pname)) in POLICIES.into_iter().enumerate() {
                    let want = canonical_json(&interpret(&deleted, f, policy));
                    assert!(
                        case.expected[k][p] == want,
                        "seed {seed:#x}, facts{k}, {pname}: the interpreter's output of the \
                         derogating closure is not that of the package with the rules deleted"
                    );
                }
            }
        }
        cases.push(case);
    }
    // Every chess scenario, through the same pipeline (its sections are not
    // counted: the random packages must cover every section on their own).
    let (chess, case) = chess_case();
    let case = interpret_and_emit(
        &chess,
        case,
        on,
        &mut BTreeMap::new(),
        cases.len(),
        &mut failures,
    );
    let chess_outputs = case.facts.len() * POLICIES.len() * engines_on * (1 + PATHS.len());
    cases.push(case);
    let t_gen = t0.elapsed();
    eprintln!(
        "differential: {} packages generated, interpreted and emitted in {}",
        cases.len(),
        secs(t_gen)
    );

    // 2. Write the crate and build it; drop modules that do not compile (each
    //    is a failure) and build the rest again.
    let t1 = Instant::now();
    let mut excluded: BTreeSet<usize> = failures.iter().map(|f| f.case).collect();
    let mut builds = 0;
    let bins = loop {
        let live: Vec<&Case> = cases
            .iter()
            .enumerate()
            .filter(|(i, _)| !excluded.contains(i))
            .map(|(_, c)| c)
            .collect();
        let bins = write_crate(&krate, &live, batch, opt, on);
        builds += 1;
        eprintln!(
            "differential: cargo build of {} packages, a module per engine compared ({engines_on}), in {} binaries ({})",
            live.len(),
            bins.iter().map(Vec::len).sum::<usize>(),
            krate.dir.display()
        );
        let opt = opt.to_string();
        let out = cargo_generated(
            &krate.dir,
            // Report every binary's errors in one build, not only the first.
            &["build", "--release", "--keep-going"],
            &[("CARGO_PROFILE_RELEASE_OPT_LEVEL", &opt)],
        );
        let stderr = out.stderr;
        if out.success {
            break bins;
        }
        let blamed = blame(&stderr);
        let bad: BTreeSet<usize> = blamed
            .keys()
            .copied()
            .filter_map(|pi| cases.iter().position(|c| c.index == pi))
            .filter(|i| !excluded.contains(i))
            .collect();
        let tail: String = {
            let lines: Vec<&str> = stderr.lines().collect();
            lines[lines.len().saturating_sub(200)..].join("\n")
        };
        if bad.is_empty() || builds >= 6 {
            panic!(
                "the generated crate {} does not build (and no generated module is to blame):\n{tail}",
                krate.dir.display()
            );
        }
        for &i in &bad {
            let why = blamed
                .get(&cases[i].index)
                .map_or(String::new(), |e| format!(": {e}"));
            failures.push(Failure {
                case: i,
                what: format!(
                    "the generated module {} does not compile{why}",
                    cases[i].module
                ),
                files: vec![("cargo-stderr.txt".into(), stderr.clone())],
            });
        }
        eprintln!(
            "differential: {} generated module(s) do not compile ({}); building without them",
            bad.len(),
            bad.iter()
                .map(|&i| cases[i].module.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        excluded.extend(bad);
    };
    let t_build = t1.elapsed();

    // 3. Run the binaries and collect their outputs.
    let t2 = Instant::now();
    // Per engine: (module, facts file, policy) → output.
    let mut actual: [BTreeMap<(String, usize, String), String>; 2] = Default::default();
    for (e, engine_bins) in bins.iter().enumerate() {
        for b in engine_bins {
            actual[e].extend(run_results(&generated_target().join("release").join(b)));
        }
    }
    let t_run = t2.elapsed();

    // 4. Compare.
    let mut compared_packages = 0;
    let mut compared_outputs = 0;
    for (i, c) in cases.iter().enumerate() {
        if excluded.contains(&i) {
            continue;
        }
        compared_packages += 1;
        let mut mismatches = Vec::new();
        for (((engine, ..), outputs), _) in
            ENGINES.iter().zip(&actual).zip(on).filter(|(_, on)| *on)
        {
            let nameless = c
                .nameless
                .as_ref()
                .expect("a compared package has nameless paths");
            // The named facts against the interpreter on the facts file,
            // each nameless path against it on the renamed file.
            let mut paths = vec![("", &c.expected)];
            paths.extend(PATHS.iter().map(|p| (*p, &nameless.expected)));
            for (path, expected) in paths {
                let module = match path {
                    "" => c.module.clone(),
                    p => format!("{}:{p}", c.module),
                };
                for (k, both) in expected.iter().enumerate() {
                    for (want, (_, pname)) in both.iter().zip(POLICIES) {
                        let key = (module.clone(), k, pname.to_owned());
                        let Some(got) = outputs.get(&key) else {
                            panic!("no output for {module} ({engine}) facts{k} {pname}");
                        };
                        compared_outputs += 1;
                        if got != want {
                            mismatches.push((*engine, path, k, pname, want.clone(), got.clone()));
                        }
                    }
                }
            }
        }
        if !mismatches.is_empty() {
            let mut files = Vec::new();
            let mut what = String::new();
            for (engine, path, k, pname, want, got) in &mismatches {
                let via = if path.is_empty() {
                    "named".to_owned()
                } else {
                    format!("nameless {path}")
                };
                let _ = writeln!(
                    what,
                    "facts{k}.json, policy {pname}, engine {engine}, {via}: outputs differ"
                );
                files.push((
                    format!("expected-facts{k}-{pname}-{via}.json"),
                    want.clone(),
                ));
                files.push((
                    format!("actual-facts{k}-{pname}-{engine}-{via}.json"),
                    got.clone(),
                ));
            }
            if let Some(n) = &c.nameless {
                files.push(("nameless.rs".to_owned(), n.code.clone()));
            }
            let (engine, path, k, pname, want, got) = &mismatches[0];
            eprintln!(
                "MISMATCH package {} (seed {:#x}), facts{k}, policy {pname}, engine {engine}, path {path:?}\n{}\n--- interpreter ---\n{want}--- compiled ({engine}) ---\n{got}",
                c.index, c.seed, c.description
            );
            failures.push(Failure {
                case: i,
                what,
                files,
            });
        }
    }

    let mut dirs = Vec::new();
    for f in &failures {
        let dir = save_failure(&krate, &cases[f.case], &f.what, &f.files);
        dirs.push(format!(
            "  package {} (seed {:#x}): {}\n    -> {}",
            cases[f.case].index,
            cases[f.case].seed,
            f.what.trim_end().replace('\n', "; "),
            dir.display()
        ));
    }
    report(&format!(
        "differential: seed {base:#x}; generated {tried} packages, {rejected} refused by the checker \
         ({:.0}% accepted); {compared_packages} packages ({derogated} with derogations, {dated_derogated} of them dated ones; {dated} dated), {compared_outputs} outputs compared; \
         {} failures\n  timings: generate+interpret+emit {}, cargo build {} ({builds} build(s), {} binaries, \
         {batch} modules each, opt-level {opt}), run {}\n  institutional literals per section \
         (outputs with some): {sections:?}",
        100.0 * cases.len() as f64 / tried as f64,
        failures.len(),
        secs(t_gen),
        secs(t_build),
        bins.iter().map(Vec::len).sum::<usize>(),
        secs(t_run),
    ));
    assert!(
        failures.is_empty(),
        "{} package(s) disagree or fail to compile:\n{}",
        failures.len(),
        dirs.join("\n")
    );
    // The random packages and the chess package.
    assert!(
        compared_packages > wanted,
        "compared {compared_packages} packages, wanted {wanted} and chess"
    );
    assert_eq!(
        compared_outputs,
        wanted * FACTS_PER_PACKAGE * POLICIES.len() * engines_on * (1 + PATHS.len())
            + chess_outputs
    );
    // Institutional conclusions in every section, and requests, somewhere in
    // the run (a handful of packages may legitimately have none).
    if wanted >= 20 {
        assert!(
            derogated * 8 >= wanted,
            "only {derogated} of {wanted} packages had rules set aside"
        );
        assert!(
            dated_derogated * 16 >= wanted,
            "only {dated_derogated} of {wanted} packages had dated derogations"
        );
        for s in [
            "definitely",
            "defeasibly",
            "supported",
            "pending",
            "requests",
        ] {
            assert!(
                sections.get(s).copied().unwrap_or(0) > 0,
                "no output had anything in `{s}`: the run is vacuous there"
            );
        }
    }
}
