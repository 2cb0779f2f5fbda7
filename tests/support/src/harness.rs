//! Building generated Cargo packages from tests (the differential,
//! injection and standalone tests, and the compiled backend of `lawgen`):
//! environment numbers, writing files without touching unchanged ones, an
//! exclusive lock per generated package, one target directory and profile
//! for every generated crate, cargo with an offline-first fallback, and
//! reading cargo's errors back to the generated module they blame.
//!
//! A test names its generated modules `p<index>` and writes them to
//! `…/gen/p<index>.rs`; its driver code mentions module `p12` as `case!(p12,`
//! or `p12::`. [`blame`] relies on these conventions.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A number from the environment, decimal or `0x…` hex, `_` separators
/// allowed; `None` if unset; a panic if malformed.
pub fn env_num(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
        None => v.replace('_', "").parse(),
    };
    Some(parsed.unwrap_or_else(|e| panic!("{name}={v}: {e}")))
}

/// Writes `bytes` unless the file already holds them (keeps mtimes, so cargo
/// does not rebuild what did not change).
pub fn write_if_changed(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return;
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

/// Removes every file under `dir` (recursively) not in `keep`.
pub fn remove_stale(dir: &Path, keep: &BTreeSet<PathBuf>) {
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

/// The directory in which every crate the tests generate is built: it is
/// the compiled-package cache the tests give `lawgen eval --backend
/// compiled` and `lawgen bench` (`--cache-dir`), and its `target/`
/// ([`generated_target`]) is where the differential, injection and
/// standalone crates are built too. With one target directory, one profile
/// ([`GENERATED_PROFILE`]) and one feature set of their dependencies,
/// `ascent`, `lawgen-runtime` and what they depend on compile once per
/// `cargo test`, not once per suite. Test binaries run one after the other,
/// and cargo's lock on the target directory orders the builds of the threads
/// of one binary.
pub fn generated_dir() -> PathBuf {
    crate::path("target/generated")
}

/// The target directory of every generated crate (`lawgen`'s compiled
/// cache keeps its target directory in `<cache>/target`).
pub fn generated_target() -> PathBuf {
    generated_dir().join("target")
}

/// The profile every generated crate is built with: `cargo build
/// --release` (the compiled cache's command) under these variables, which
/// take precedence over a manifest's `[profile.release]`. Unoptimized: the
/// tests compile hundreds of modules and run each on a few facts files, so
/// compile time is all that counts; debug assertions and overflow checks
/// on, as in a debug build. `ascent`'s macro runs unoptimized too (cargo's
/// default for build dependencies in release): optimizing it and its `syn`
/// costs more than it saves at these program sizes.
pub const GENERATED_PROFILE: [(&str, &str); 8] = [
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0"),
    ("CARGO_PROFILE_RELEASE_DEBUG", "false"),
    ("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "true"),
    ("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "true"),
    ("CARGO_PROFILE_RELEASE_INCREMENTAL", "false"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
    ("CARGO_PROFILE_RELEASE_LTO", "false"),
    ("CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OPT_LEVEL", "0"),
];

/// [`GENERATED_PROFILE`] as a manifest's `[profile.release]`, for the
/// manifests the tests write: a build by hand in their directory
/// (`cargo build --release --target-dir …`) builds what the test built.
pub fn generated_profile_toml() -> String {
    let mut main = String::from("[profile.release]\n");
    let mut build = String::from("[profile.release.build-override]\n");
    for (k, v) in GENERATED_PROFILE {
        let key = k.trim_start_matches("CARGO_PROFILE_RELEASE_");
        let (section, key) = match key.strip_prefix("BUILD_OVERRIDE_") {
            Some(key) => (&mut build, key),
            None => (&mut main, key),
        };
        let value = if v.parse::<u32>().is_ok() || v == "true" || v == "false" {
            v.to_owned()
        } else {
            format!("{v:?}")
        };
        let _ = writeln!(
            section,
            "{} = {value}",
            key.to_lowercase().replace('_', "-")
        );
    }
    format!(
        "# The profile of every crate the tests generate (lawgen/tests/support/harness.rs,\n\
         # GENERATED_PROFILE, which the tests also set in cargo's environment).\n\
         {main}\n{build}"
    )
}

/// Environment variables of the test's own cargo that must not reach the
/// cargo that builds a generated crate (its target dir, flags, jobserver).
const CARGO_ENV_REMOVED: [&str; 7] = [
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_MAKEFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_ENCODED_RUSTDOCFLAGS",
];

/// The `lawgen` binary (`env!("CARGO_BIN_EXE_lawgen")` in a test of the
/// lawgen package, which alone is told its path) set up to build compiled
/// packages as the other generated crates are: [`GENERATED_PROFILE`], and
/// nothing of this test's cargo environment. Give it `--cache-dir`
/// [`generated_dir`] where it compiles.
pub fn lawgen_command(lawgen: &str) -> Command {
    let mut cmd = Command::new(lawgen);
    for k in CARGO_ENV_REMOVED {
        cmd.env_remove(k);
    }
    cmd.envs(GENERATED_PROFILE);
    cmd
}

/// Starts `dir/Cargo.lock` as a copy of the workspace's lock file, so the
/// generated package resolves offline to the versions the workspace uses.
pub fn seed_lock_file(dir: &Path) {
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        let ws_lock = crate::path("Cargo.lock");
        if let Ok(b) = std::fs::read(ws_lock) {
            std::fs::write(&lock, b).unwrap();
        }
    }
}

/// The package indices cargo's error output blames: `--> …/gen/p12.rs`,
/// `case!(p12, 3)` (the driver code around module `p12`) or `p12::Item`.
pub fn modules_in_errors(stderr: &str) -> BTreeSet<usize> {
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
pub fn blame(stderr: &str) -> BTreeMap<usize, String> {
    blame_with(stderr, false)
}

/// As [`blame`], but a diagnostic whose primary location (its first
/// `--> …`) is in a generated module blames only that module, not every
/// module its notes mention (rustc lists other modules' types as candidates,
/// with their locations).
pub fn blame_by_location(stderr: &str) -> BTreeMap<usize, String> {
    blame_with(stderr, true)
}

fn blame_with(stderr: &str, by_location: bool) -> BTreeMap<usize, String> {
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
        let primary = b
            .lines()
            .find(|l| l.trim_start().starts_with("-->"))
            .unwrap_or_default();
        let mut blamed = modules_in_errors(primary);
        if !by_location || blamed.is_empty() {
            blamed = modules_in_errors(b);
        }
        for m in blamed {
            out.entry(m).or_insert_with(|| head.clone());
        }
    }
    out
}

/// What a cargo run printed.
pub struct CargoOutput {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// `cargo <args>` on the generated crate in `dir`, built in
/// [`generated_target`] with [`GENERATED_PROFILE`] (and `env`): what the
/// differential, injection and standalone tests build with.
pub fn cargo_generated(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> CargoOutput {
    let mut all: Vec<(&str, &str)> = GENERATED_PROFILE.to_vec();
    all.extend_from_slice(env);
    cargo(dir, &generated_target(), args, &all)
}

/// `cargo <args> --manifest-path <dir>/Cargo.toml --target-dir <target>`
/// in `dir`, with the environment of the test's own cargo removed (target
/// dir, rustc and rustdoc flags, jobserver) and `env` set: offline first,
/// online if offline resolution fails.
pub fn cargo(dir: &Path, target: &Path, args: &[&str], env: &[(&str, &str)]) -> CargoOutput {
    let mut last = None;
    for offline in [true, false] {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(args)
            .arg("--manifest-path")
            .arg(dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target)
            .current_dir(dir);
        for k in CARGO_ENV_REMOVED {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        if offline {
            cmd.arg("--offline");
        }
        let out = cmd.output().expect("running cargo");
        let output = CargoOutput {
            success: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        if output.success {
            return output;
        }
        let resolution = output.stderr.contains("offline")
            || output.stderr.contains("failed to select a version")
            || output.stderr.contains("failed to load source");
        last = Some(output);
        if !(offline && resolution) {
            break;
        }
    }
    last.expect("cargo ran at least once")
}

/// An exclusive lock on a generated package for a whole test run: a
/// directory created atomically, holding the owner's pid, removed on drop
/// (also when the test panics). A lock whose owner is gone (no `/proc/<pid>`
/// on Linux) or that is older than two hours is stale and taken over. `who`
/// starts the messages (the test's name).
pub struct RunLock(PathBuf);

impl RunLock {
    pub fn acquire(path: &Path, who: &str) -> RunLock {
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
                        eprintln!("{who}: taking over the stale lock {}", path.display());
                        let _ = std::fs::remove_dir_all(path);
                        continue;
                    }
                    if !told {
                        eprintln!(
                            "{who}: another run holds {}; waiting for it",
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

/// Writes `text` and a newline to stderr directly, past the test harness's
/// capture of `eprintln!`: a suite's summary (what it compared, where its
/// time went) shows in the log of a passing run too.
pub fn report(text: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

pub fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

/// Starts each result in the generated binaries' output. A control character:
/// canonical JSON escapes it, so it never occurs inside an output.
pub const SEP: char = '\u{1e}';

/// Runs a generated binary and returns its results (see [`results`]);
/// panics with its status, stderr and the end of its stdout if it fails.
pub fn run_results(exe: &std::path::Path) -> Vec<((String, usize, String), String)> {
    let out = std::process::Command::new(exe)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr),
        tail(&stdout, 40)
    );
    results(&stdout).collect()
}

/// The last `lines` lines of `text`.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The results a generated binary printed: `SEP` then a header line
/// `module facts-index policy`, then the output. Keyed by the header.
pub fn results(stdout: &str) -> impl Iterator<Item = ((String, usize, String), String)> + '_ {
    stdout.split(SEP).skip(1).map(|chunk| {
        let (head, text) = chunk.split_once('\n').expect("a result header");
        let mut it = head.split(' ');
        let key = (
            it.next().unwrap().to_owned(),
            it.next().unwrap().parse::<usize>().unwrap(),
            it.next().unwrap().to_owned(),
        );
        (key, text.to_owned())
    })
}
