//! Differential test: compiled (ascent) against interpreted evaluation.
//!
//! Random valid packages from `support/gen.rs` are emitted by
//! `lawgen::emit::emit` into one generated Cargo package under
//! `target/differential/` (its own `[workspace]`, its own target dir
//! `target/differential/target`, so dependencies are built once and reused).
//! The package has a few binaries (`batchN`), each including a slice of the
//! package modules with `lawgen_runtime::include_package!`; cargo builds them
//! in parallel. Each binary reads every facts file of its packages and prints
//! `Conclusions::to_json()` for both policies; the output is compared byte for
//! byte with `canonical_json` of the reference interpreter.
//!
//! Environment:
//! - `LAWGEN_DIFF_PACKAGES` — how many accepted packages (default 200);
//! - `LAWGEN_DIFF_SEED` — the run's seed (decimal or `0x…`); package `i` has
//!   seed `seed + i` (`support::gen::package_seed`);
//! - `LAWGEN_DIFF_BATCH` — package modules per generated binary (default 20);
//! - `LAWGEN_DIFF_OPT` — opt-level of the generated crate (default 0);
//! - `LAWGEN_DIFF_REPEAT_VARS=0` — no variable twice in one literal
//!   (`p(X, X)`), to look past a failure that needs one.
//!
//! A mismatch (or an emitter error, or a generated module that does not
//! compile) is written to `target/differential/failures/p<i>-<seed>/` with the
//! package, its facts files and both outputs, and fails the test.

mod support;

use lawgen::driver::{self, Loaded};
use lawgen::emit::{emit, EmitOptions};
use lawgen::interp::{Conclusions, Policy};
use lawgen::program::Section;
use lawgen::syntax::facts::read_facts;
use lawgen::syntax::output::canonical_json;
use lawgen::syntax::RelationKind;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::gen::{generate, package_seed, GenConfig};

const DEFAULT_PACKAGES: usize = 200;
const DEFAULT_SEED: u64 = 0x00d1_ff5e_ed00_0000;
const DEFAULT_BATCH: usize = 20;
const FACTS_PER_PACKAGE: usize = 4;
/// Rules per package (`GenConfig::min_rules`, `max_rules`).
const RULES: (usize, usize) = (3, 8);
const POLICIES: [(Policy, &str); 2] = [
    (Policy::Blocking, "blocking"),
    (Policy::Propagating, "propagating"),
];
/// Starts each result in the generated binaries' output. A control character:
/// canonical JSON escapes it, so it never occurs inside an output.
const SEP: char = '\u{1e}';

fn env_num(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
        None => v.replace('_', "").parse(),
    };
    Some(parsed.unwrap_or_else(|e| panic!("{name}={v}: {e}")))
}

/// One accepted package and what the interpreter concludes from its facts.
struct Case {
    index: usize,
    seed: u64,
    description: String,
    package: Vec<u8>,
    facts: Vec<Vec<u8>>,
    module: String,
    source: String,
    /// `expected[facts file][policy]`.
    expected: Vec<[String; 2]>,
}

/// The generated Cargo package.
struct Crate {
    dir: PathBuf,
}

impl Crate {
    fn target(&self) -> PathBuf {
        self.dir.join("target")
    }
    fn failures(&self) -> PathBuf {
        self.dir.join("failures")
    }
}

/// Writes `bytes` unless the file already holds them (keeps mtimes, so cargo
/// does not rebuild what did not change).
fn write_if_changed(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return;
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

/// Removes every file under `dir` (recursively) not in `keep`.
fn remove_stale(dir: &Path, keep: &BTreeSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            remove_stale(&p, keep);
            if std::fs::read_dir(&p).is_ok_and(|mut d| d.next().is_none()) {
                let _ = std::fs::remove_dir(&p);
            }
        } else if !keep.contains(&p) {
            let _ = std::fs::remove_file(&p);
        }
    }
}

fn interpret(loaded: &Loaded, facts: &[u8], policy: Policy) -> Conclusions {
    let facts = read_facts(facts, &loaded.model)
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
                .model
                .pred_by_name(lit.trim_start_matches('~'))
                .expect("output names a predicate");
            loaded.model.pred(p).kind == RelationKind::Institutional
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
    std::fs::write(dir.join(format!("{}.rs", c.module)), &c.source).unwrap();
    let readme = format!(
        "package {} of a differential run; regenerate it alone with\n\
         GenConfig {{ seed: {:#x}, facts_files: {FACTS_PER_PACKAGE}, ..GenConfig::new(seed) }}\n\
         {}\n\n{what}\n\n\
         reproduce the interpreter side with\n\
         cargo run -p lawgen -- eval {}/package.json --facts {}/facts0.json [--policy propagating]\n",
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

/// The package indices cargo's error output blames: `--> …/gen/p12.rs`,
/// `case!(p12, 3)` (the driver code around module `p12`) or `p12::Item`.
fn modules_in_errors(stderr: &str) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for (prefix, suffix) in [("gen/p", ".rs"), ("case!(p", ","), ("p", "::")] {
        let mut rest = stderr;
        while let Some(i) = rest.find(prefix) {
            // `p12::` must start a path, not end an identifier like `top12::`.
            let starts_word = prefix != "p"
                || stderr[..stderr.len() - rest.len() + i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric() && c != '_');
            rest = &rest[i + prefix.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if starts_word && !digits.is_empty() && rest[digits.len()..].starts_with(suffix) {
                out.insert(digits.parse().unwrap());
            }
        }
    }
    out
}

/// The package indices the error messages in cargo's output blame, each with
/// its first error message. Output is split into diagnostics (a line starting
/// with `error` or `warning` starts one); only errors count, and only those
/// pointing into a package's module or its `case!` in the driver.
fn blame(stderr: &str) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    let mut blocks: Vec<String> = Vec::new();
    for line in stderr.lines() {
        if line.starts_with("error") || line.starts_with("warning") || blocks.is_empty() {
            blocks.push(String::new());
        }
        let b = blocks.last_mut().unwrap();
        b.push_str(line);
        b.push('\n');
    }
    for b in &blocks {
        let head = b.lines().next().unwrap_or_default().to_owned();
        if !head.starts_with("error") || head.starts_with("error: could not compile") {
            continue;
        }
        for m in modules_in_errors(b) {
            out.entry(m).or_insert_with(|| head.clone());
        }
    }
    out
}

fn write_crate(krate: &Crate, cases: &[&Case], batch: usize, opt: u64) -> Vec<String> {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../lawgen-runtime")
        .canonicalize()
        .unwrap();
    let bins: Vec<String> = (0..cases.len().div_ceil(batch))
        .map(|b| format!("batch{b}"))
        .collect();
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
ascent = "=0.8.1"

[profile.release]
opt-level = {opt}
debug = false
incremental = false
codegen-units = 16

[workspace]
"#,
        runtime.display().to_string()
    );
    for b in &bins {
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
    let lock = krate.dir.join("Cargo.lock");
    if !lock.exists() {
        let ws_lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
        if let Ok(b) = std::fs::read(ws_lock) {
            std::fs::write(&lock, b).unwrap();
        }
    }
    for (b, chunk) in bins.iter().zip(cases.chunks(batch)) {
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
                "lawgen_runtime::include_package!({}, \"../gen/{}.rs\");",
                c.module, c.module
            );
        }
        main.push_str("\nfn main() {\n");
        for c in chunk {
            let _ = writeln!(main, "    case!({}, {});", c.module, c.facts.len());
        }
        main.push_str("}\n");
        put(krate.dir.join(format!("src/bin/{b}.rs")), main.as_bytes());
        for c in chunk {
            put(
                krate.dir.join(format!("src/gen/{}.rs", c.module)),
                c.source.as_bytes(),
            );
            for (k, f) in c.facts.iter().enumerate() {
                put(
                    krate.dir.join(format!("data/{}/facts{k}.json", c.module)),
                    f,
                );
            }
        }
    }
    remove_stale(&krate.dir.join("src"), &keep);
    remove_stale(&krate.dir.join("data"), &keep);
    bins
}

/// `cargo build --release` of the generated package: offline first, online if
/// offline resolution fails. Returns success and stderr.
fn cargo_build(krate: &Crate) -> (bool, String) {
    let mut last = String::new();
    for offline in [true, false] {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.arg("build")
            .arg("--release")
            // Report every binary's errors in one build, not only the first.
            .arg("--keep-going")
            .arg("--manifest-path")
            .arg(krate.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(krate.target())
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR")
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_MAKEFLAGS")
            .current_dir(&krate.dir);
        if offline {
            cmd.arg("--offline");
        }
        let out = cmd.output().expect("running cargo");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.success() {
            return (true, stderr);
        }
        let resolution = stderr.contains("offline")
            || stderr.contains("failed to select a version")
            || stderr.contains("failed to load source");
        last = stderr;
        if !(offline && resolution) {
            break;
        }
    }
    (false, last)
}

/// An exclusive lock on the generated crate for the whole run: a directory
/// created atomically, holding the owner's pid, removed on drop (also when
/// the test panics). A lock whose owner is gone (no `/proc/<pid>` on Linux) or
/// that is older than two hours is stale and taken over.
struct RunLock(PathBuf);

impl RunLock {
    fn acquire(path: &Path) -> RunLock {
        let started = Instant::now();
        let mut told = false;
        loop {
            match std::fs::create_dir(path) {
                Ok(()) => {
                    std::fs::write(path.join("pid"), std::process::id().to_string()).unwrap();
                    return RunLock(path.to_owned());
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if Self::stale(path) {
                        eprintln!(
                            "differential: taking over the stale lock {}",
                            path.display()
                        );
                        let _ = std::fs::remove_dir_all(path);
                        continue;
                    }
                    if !told {
                        eprintln!(
                            "differential: another run holds {}; waiting for it",
                            path.display()
                        );
                        told = true;
                    }
                    assert!(
                        started.elapsed() < Duration::from_secs(3600),
                        "waited an hour for {}; remove it if no run is going on",
                        path.display()
                    );
                    std::thread::sleep(Duration::from_secs(2));
                }
                Err(e) => panic!("creating {}: {e}", path.display()),
            }
        }
    }

    fn stale(path: &Path) -> bool {
        let old = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > Duration::from_secs(2 * 3600));
        let pid = std::fs::read_to_string(path.join("pid")).ok();
        let gone = match pid.as_deref().map(str::trim) {
            Some(pid) if !pid.is_empty() && Path::new("/proc/self").exists() => {
                !Path::new("/proc").join(pid).exists()
            }
            // Between create_dir and writing the pid: give the owner a moment.
            _ => false,
        };
        old || gone
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

#[test]
fn compiled_packages_agree_with_the_interpreter() {
    let wanted = env_num("LAWGEN_DIFF_PACKAGES").map_or(DEFAULT_PACKAGES, |n| n as usize);
    let base = env_num("LAWGEN_DIFF_SEED").unwrap_or(DEFAULT_SEED);
    let batch = env_num("LAWGEN_DIFF_BATCH").map_or(DEFAULT_BATCH, |n| n.max(1) as usize);
    let opt = env_num("LAWGEN_DIFF_OPT").unwrap_or(0);
    let repeat_vars = env_num("LAWGEN_DIFF_REPEAT_VARS") != Some(0);
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
    let _lock = RunLock::acquire(&krate.dir.join(".lock"));
    let _ = std::fs::remove_dir_all(krate.failures());

    // 1. Generate, check, interpret, emit.
    let t0 = Instant::now();
    let (mut tried, mut rejected) = (0usize, 0usize);
    let mut cases: Vec<Case> = Vec::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut sections: BTreeMap<&'static str, usize> = BTreeMap::new();
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
        let g = generate(&cfg);
        let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) else {
            rejected += 1;
            continue;
        };
        let mut expected = Vec::new();
        for f in &g.facts {
            let mut both: [String; 2] = Default::default();
            for (slot, (policy, _)) in both.iter_mut().zip(POLICIES) {
                let c = interpret(&loaded, f, policy);
                for s in nonempty_sections(&c, &loaded) {
                    *sections.entry(s).or_default() += 1;
                }
                *slot = canonical_json(&c);
            }
            expected.push(both);
        }
        let module = format!("p{index}");
        let opts = EmitOptions {
            module_name: Some(module.clone()),
        };
        let mut case = Case {
            index,
            seed,
            description: g.description,
            package: g.package,
            facts: g.facts,
            module: module.clone(),
            source: String::new(),
            expected,
        };
        match emit(&loaded, &opts) {
            Ok(e) => {
                let again = emit(&loaded, &opts).expect("emitting twice");
                assert!(
                    again.source == e.source,
                    "emitting package {index} twice gave different code"
                );
                assert_eq!(e.module_name, module, "the module name option was not kept");
                case.source = e.source;
            }
            Err(e) => failures.push(Failure {
                case: cases.len(),
                what: format!("emit failed: {e}"),
                files: Vec::new(),
            }),
        }
        cases.push(case);
    }
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
        let bins = write_crate(&krate, &live, batch, opt);
        builds += 1;
        eprintln!(
            "differential: cargo build of {} modules in {} binaries ({})",
            live.len(),
            bins.len(),
            krate.dir.display()
        );
        let (ok, stderr) = cargo_build(&krate);
        if ok {
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
    let mut actual: BTreeMap<(String, usize, String), String> = BTreeMap::new();
    for b in &bins {
        let exe = krate.target().join("release").join(b);
        let out = Command::new(&exe)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
        let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
        assert!(
            out.status.success(),
            "{} failed ({}):\n{}\n{}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr),
            stdout
                .chars()
                .rev()
                .take(2000)
                .collect::<String>()
                .chars()
                .rev()
                .collect::<String>()
        );
        for chunk in stdout.split(SEP).skip(1) {
            let (head, text) = chunk.split_once('\n').expect("a result header");
            let mut it = head.split(' ');
            let (m, k, p) = (
                it.next().unwrap().to_owned(),
                it.next().unwrap().parse::<usize>().unwrap(),
                it.next().unwrap().to_owned(),
            );
            actual.insert((m, k, p), text.to_owned());
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
        for (k, both) in c.expected.iter().enumerate() {
            for (want, (_, pname)) in both.iter().zip(POLICIES) {
                let key = (c.module.clone(), k, pname.to_owned());
                let Some(got) = actual.get(&key) else {
                    panic!("no output for {} facts{k} {pname}", c.module);
                };
                compared_outputs += 1;
                if got != want {
                    mismatches.push((k, pname, want.clone(), got.clone()));
                }
            }
        }
        if !mismatches.is_empty() {
            let mut files = Vec::new();
            let mut what = String::new();
            for (k, pname, want, got) in &mismatches {
                let _ = writeln!(what, "facts{k}.json, policy {pname}: outputs differ");
                files.push((format!("expected-facts{k}-{pname}.json"), want.clone()));
                files.push((format!("actual-facts{k}-{pname}.json"), got.clone()));
            }
            let (k, pname, want, got) = &mismatches[0];
            eprintln!(
                "MISMATCH package {} (seed {:#x}), facts{k}, policy {pname}\n{}\n--- interpreter ---\n{want}--- compiled ---\n{got}",
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
    eprintln!(
        "differential: seed {base:#x}; generated {tried} packages, {rejected} refused by the checker \
         ({:.0}% accepted); {compared_packages} packages, {compared_outputs} outputs compared; \
         {} failures\n  timings: generate+interpret+emit {}, cargo build {} ({builds} build(s), {} binaries, \
         {batch} modules each, opt-level {opt}), run {}\n  institutional literals per section \
         (outputs with some): {sections:?}",
        100.0 * cases.len() as f64 / tried as f64,
        failures.len(),
        secs(t_gen),
        secs(t_build),
        bins.len(),
        secs(t_run),
    );
    assert!(
        failures.is_empty(),
        "{} package(s) disagree or fail to compile:\n{}",
        failures.len(),
        dirs.join("\n")
    );
    assert!(
        compared_packages >= wanted,
        "compared {compared_packages} packages, wanted {wanted}"
    );
    assert_eq!(
        compared_outputs,
        wanted * FACTS_PER_PACKAGE * POLICIES.len()
    );
    // Institutional conclusions in every section, and requests, somewhere in
    // the run (a handful of packages may legitimately have none).
    if wanted >= 20 {
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
