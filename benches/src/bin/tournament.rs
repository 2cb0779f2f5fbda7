//! Many games in ONE facts file: how each backend's time and memory grow
//! with the number of games merged into a single case (a tournament's facts).
//!
//! ```text
//! cargo run --release -p lawgen-benches --bin tournament -- \
//!     [--sizes 1000,10000] [--backends interp,ascent,direct] [--out FILE] \
//!     [--max-seconds 300] [--max-mib 12288]
//! cargo run --release -p lawgen-benches --bin tournament -- --write-facts N FILE
//! ```
//!
//! Every backend × size runs in a fresh child process of this binary. The
//! child builds the merged facts file of N bench games (untimed,
//! `lawgen_benches::tournament`), loads its backend (untimed: the package
//! read, checked and lowered for the interpreter; the embedded program
//! decoded for the compiled modules), resets its peak-memory mark, then times
//! reading the text, evaluating it as one case under the blocking policy and
//! writing the canonical output: what `lawgen eval` does (interp), or
//! `Facts::from_json` → `evaluate` → `Conclusions::to_json` of the generated
//! module (ascent, direct). It prints one JSON line.
//!
//! The parent prints a markdown table and the ratio of each size to the one
//! before it (the target: 10× the games at most 12× the time and the peak
//! memory). A child over `--max-seconds` (wall) or `--max-mib` (resident
//! memory, watched every 50 ms) is killed and reported as "did not finish".
//! The checks, whose failure exits non-zero: the merged case's concluded
//! counts (per institutional literal) and its number of requests equal the
//! sums over the N games evaluated one by one (plain Rust for the counts,
//! the Direct engine for the requests), and every backend that finished a
//! size gave the same canonical output (hash).

use lawgen_benches::cases::{self, SEED};
use lawgen_benches::engines::{self, counts_of, Interpreter, Totals};
use lawgen_benches::plain::{self, LITERALS};
use lawgen_benches::{fide_laws_chess, fide_laws_chess_direct, tournament};
use lawgen_runtime::{Batching, Policy};
use serde_json::{json, Value};
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Backend {
    Interp,
    Ascent,
    Direct,
}

impl Backend {
    const ALL: [Backend; 3] = [Backend::Interp, Backend::Ascent, Backend::Direct];
    fn id(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::Ascent => "ascent",
            Backend::Direct => "direct",
        }
    }
    fn label(self) -> &'static str {
        match self {
            Backend::Interp => "reference interpreter",
            Backend::Ascent => "compiled, Ascent engine",
            Backend::Direct => "compiled, Direct engine",
        }
    }
    fn from_id(s: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.id() == s)
    }
}

/// The target: 10× the games in at most 12× the time and memory, i.e. at
/// most 1.2× the growth in games.
const SLACK: f64 = 1.2;

/// Reads a `kB` field of /proc/<pid>/status (`self` for this process).
fn status_kib(pid: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets this process's peak resident set (`VmHWM`) to its current size
/// (Linux ≥ 4.0), so that the peak measured after it is the timed part's.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// CPU time of this process so far (all threads, user + system), from
/// getrusage (microseconds; /proc/self/stat counts 10 ms ticks, too coarse
/// for the small sizes).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes one `rusage` into the zeroed value we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return f64::NAN;
    }
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// FNV-1a, 64 bits: a fingerprint of the canonical output, the same in
/// every child.
fn fnv1a(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// What a timed run measured, phase by phase.
struct Timed {
    read_s: f64,
    eval_s: f64,
    output_s: f64,
    /// Freeing what evaluation built (part of what `lawgen eval` does too).
    free_s: f64,
    output: String,
    counts: plain::Counts,
    requests: usize,
}

macro_rules! compiled_run {
    ($m:ident, $text:expr) => {{
        let t = Instant::now();
        let facts = $m::Facts::from_json($text.as_bytes()).expect("the merged facts file reads");
        let read_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let c = facts
            .evaluate(Policy::Blocking)
            .expect("the merged facts are consistent");
        let eval_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let output = c.to_json().expect("canonical output");
        let output_s = t.elapsed().as_secs_f64();
        let counts = counts_of(&c.concluded_counts());
        let requests = c.requests().len();
        let t = Instant::now();
        drop(c);
        drop(facts);
        Timed {
            read_s,
            eval_s,
            output_s,
            free_s: t.elapsed().as_secs_f64(),
            output,
            counts,
            requests,
        }
    }};
}

fn child(backend: Backend, n: usize) -> Value {
    // Untimed: the merged text (the JSON trees it is built from are freed
    // here), then the backend's one-time setup.
    let text = tournament::tournament(n);
    let interp = (backend == Backend::Interp).then(Interpreter::new);
    // The whole path once on an empty facts file, so that what is done once
    // per process (decoding the embedded program, lazy indices) is not timed.
    const EMPTY: &str = r#"{"facts":{}}"#;
    match backend {
        Backend::Interp => {
            let i = interp.as_ref().expect("loaded");
            let facts =
                lawgen_runtime::formats::facts::read_facts(EMPTY.as_bytes(), &i.loaded.catalog)
                    .expect("empty facts");
            lawgen_runtime::formats::output::canonical_json(
                &i.conclusions(&facts, Policy::Blocking),
            );
        }
        Backend::Ascent => {
            compiled_run!(fide_laws_chess, EMPTY);
        }
        Backend::Direct => {
            compiled_run!(fide_laws_chess_direct, EMPTY);
        }
    }
    let setup_peak_kib = status_kib("self", "VmHWM:");
    // Give the heap the setup freed (the JSON trees of the merge) back to the
    // system, so that the peak below is the timed part's, not the setup's.
    // SAFETY: malloc_trim only releases free memory of glibc's allocator.
    unsafe { libc::malloc_trim(0) };
    let reset = reset_peak();
    let start_kib = status_kib("self", "VmRSS:");
    let c0 = cpu_seconds();
    let t0 = Instant::now();
    let timed = match backend {
        Backend::Interp => {
            let i = interp.as_ref().expect("loaded");
            let t = Instant::now();
            let facts =
                lawgen_runtime::formats::facts::read_facts(text.as_bytes(), &i.loaded.catalog)
                    .unwrap_or_else(|d| panic!("the merged facts file reads:\n{}", d.render()));
            let read_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let policy = lawgen_runtime::Policy::Blocking;
            let store = lawgen_runtime::interp::evaluate(&i.program, &facts, policy);
            let conclusions = lawgen_runtime::interp::conclusions(&i.program, &store, policy);
            let eval_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let output = lawgen_runtime::formats::output::canonical_json(&conclusions);
            let output_s = t.elapsed().as_secs_f64();
            let counts = i.counts(&conclusions);
            let requests = conclusions.requests.len();
            let t = Instant::now();
            drop(conclusions);
            drop(store);
            drop(facts);
            Timed {
                read_s,
                eval_s,
                output_s,
                free_s: t.elapsed().as_secs_f64(),
                output,
                counts,
                requests,
            }
        }
        Backend::Ascent => compiled_run!(fide_laws_chess, text),
        Backend::Direct => compiled_run!(fide_laws_chess_direct, text),
    };
    let wall_s = t0.elapsed().as_secs_f64();
    let cpu_s = cpu_seconds() - c0;
    json!({
        "backend": backend.id(),
        "n": n,
        "facts_bytes": text.len(),
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "read_s": timed.read_s,
        "eval_s": timed.eval_s,
        "output_s": timed.output_s,
        "free_s": timed.free_s,
        "peak_kib": status_kib("self", "VmHWM:"),
        "peak_reset": reset,
        "start_kib": start_kib,
        "setup_peak_kib": setup_peak_kib,
        "output_bytes": timed.output.len(),
        "output_fnv1a": fnv1a(timed.output.as_bytes()),
        "counts": timed.counts.to_vec(),
        "requests": timed.requests,
    })
}

/// How a child ended.
enum Outcome {
    Done(Value),
    /// Killed at a cap: why, after how long, the most memory seen.
    Capped(String),
    /// It failed on its own (a panic, a signal).
    Failed(String),
}

fn run_child(exe: &std::path::Path, b: Backend, n: usize, max_s: f64, max_kib: u64) -> Outcome {
    let mut child = Command::new(exe)
        .args(["--child", b.id(), &n.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a child");
    let pid = child.id().to_string();
    // Drain both pipes on threads, so that a chatty child never blocks.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let t = Instant::now();
    let mut max_rss = 0u64;
    let mut capped = None;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for a child") {
            break status;
        }
        let rss = status_kib(&pid, "VmRSS:").unwrap_or(0);
        max_rss = max_rss.max(rss);
        let secs = t.elapsed().as_secs_f64();
        let why = if rss > max_kib {
            Some(format!("memory cap {}", mib(max_kib)))
        } else if secs > max_s {
            Some(format!("time cap {max_s:.0} s"))
        } else {
            None
        };
        if let Some(why) = why {
            // This child, by its id; then reap it.
            let _ = child.kill();
            capped = Some(format!(
                "{why} (killed after {secs:.1} s at {} resident)",
                mib(max_rss)
            ));
            break child.wait().expect("reap a killed child");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if let Some(why) = capped {
        return Outcome::Capped(why);
    }
    if status.signal() == Some(libc::SIGKILL) {
        // Not by us: most likely the kernel's out-of-memory killer.
        return Outcome::Capped(format!(
            "killed by SIGKILL, not by this run (out of memory?), after {:.1} s at {} resident",
            t.elapsed().as_secs_f64(),
            mib(max_rss)
        ));
    }
    if !status.success() {
        return Outcome::Failed(format!("{status}: {}", stderr.trim()));
    }
    match serde_json::from_str::<Value>(stdout.trim()) {
        Ok(v) => Outcome::Done(v),
        Err(e) => Outcome::Failed(format!("unreadable child output ({e}): {stdout}")),
    }
}

/// The expected results, from the games evaluated one by one: the concluded
/// counts summed (plain Rust) and the requests summed (the Direct engine,
/// whose per-game requests `tests/agree.rs` ties to the interpreter's).
fn per_game(n: usize) -> (Totals, u64) {
    let all = cases::cases(SEED, n);
    let totals = engines::plain(&all);
    let mut requests = 0u64;
    fide_laws_chess_direct::evaluate_indexed(
        n,
        Policy::Blocking,
        &Batching::default(),
        |i| cases::to_facts_direct(&all[i]),
        |_, c| c.expect("generated cases are consistent").requests().len(),
        |_, r| requests += r as u64,
    );
    (totals, requests)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn meminfo_kib(field: &str) -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = m.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn mib(kib: u64) -> String {
    if kib >= 1024 * 1024 {
        format!("{:.2} GiB", kib as f64 / 1024.0 / 1024.0)
    } else {
        format!("{:.1} MiB", kib as f64 / 1024.0)
    }
}

fn bytes(b: u64) -> String {
    if b >= 1_000_000 {
        format!("{:.1} MB", b as f64 / 1e6)
    } else {
        format!("{:.0} kB", b as f64 / 1e3)
    }
}

fn secs(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.1} s")
    } else if s >= 0.1 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1000.0)
    }
}

fn games(n: usize) -> String {
    if n >= 1000 && n % 1000 == 0 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: tournament [--sizes 1000,10000] [--backends interp,ascent,direct] [--out FILE] \
         [--max-seconds S] [--max-mib M]\n       tournament --write-facts N FILE"
    );
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let b = args
            .get(1)
            .and_then(|s| Backend::from_id(s))
            .unwrap_or_else(|| usage());
        let n = args
            .get(2)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| usage());
        println!("{}", child(b, n));
        return;
    }
    let opt = |name: &str| -> Option<String> {
        let i = args.iter().position(|a| a == name)?;
        Some(args.get(i + 1).cloned().unwrap_or_else(|| usage()))
    };
    if let Some(n) = opt("--write-facts") {
        let n: usize = n.parse().unwrap_or_else(|_| usage());
        let i = args
            .iter()
            .position(|a| a == "--write-facts")
            .expect("found");
        let file = args.get(i + 2).unwrap_or_else(|| usage());
        std::fs::write(file, tournament::tournament(n)).expect("write the facts file");
        eprintln!("wrote {n} merged games to {file}");
        return;
    }
    let mut sizes: Vec<usize> = opt("--sizes")
        .unwrap_or_else(|| "1000,10000".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap_or_else(|_| usage()))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let backends: Vec<Backend> = opt("--backends")
        .unwrap_or_else(|| "interp,ascent,direct".into())
        .split(',')
        .map(|s| Backend::from_id(s.trim()).unwrap_or_else(|| usage()))
        .collect();
    let max_s: f64 = opt("--max-seconds").map_or(300.0, |s| s.parse().unwrap_or_else(|_| usage()));
    // Default memory cap: 12 GiB, or 60% of the memory available now if less
    // (the machine may be shared).
    let max_kib: u64 = opt("--max-mib").map_or_else(
        || {
            let avail = meminfo_kib("MemAvailable:").unwrap_or(u64::MAX);
            (12 * 1024 * 1024).min(avail / 10 * 6)
        },
        |s| s.parse::<u64>().unwrap_or_else(|_| usage()) * 1024,
    );
    let out_file = opt("--out");

    let exe = std::env::current_exe().expect("own path");
    let load_before = loadavg();
    eprintln!(
        "load average before: {load_before}; caps: {max_s:.0} s wall, {} resident per child",
        mib(max_kib)
    );
    // What the merged runs must give: the games one by one.
    let expected: Vec<(usize, Totals, u64)> = sizes
        .iter()
        .map(|&n| {
            let (t, r) = per_game(n);
            (n, t, r)
        })
        .collect();

    let mut results: Vec<Value> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for &b in &backends {
        let mut stopped: Option<usize> = None;
        for &n in &sizes {
            eprint!("{:>6} × {:>6} games ... ", b.id(), n);
            let row = if let Some(smaller) = stopped {
                eprintln!("not run");
                json!({"backend": b.id(), "n": n, "not_run":
                    format!("did not finish at {} games", games(smaller))})
            } else {
                match run_child(&exe, b, n, max_s, max_kib) {
                    Outcome::Done(v) => {
                        eprintln!(
                            "{} wall, {} CPU, peak {}",
                            secs(v["wall_s"].as_f64().unwrap_or(0.0)),
                            secs(v["cpu_s"].as_f64().unwrap_or(0.0)),
                            mib(v["peak_kib"].as_u64().unwrap_or(0))
                        );
                        v
                    }
                    Outcome::Capped(why) => {
                        eprintln!("did not finish: {why}");
                        stopped = Some(n);
                        json!({"backend": b.id(), "n": n, "did_not_finish": why})
                    }
                    Outcome::Failed(why) => {
                        eprintln!("FAILED: {why}");
                        failures.push(format!("{} at {n} games failed: {why}", b.id()));
                        stopped = Some(n);
                        json!({"backend": b.id(), "n": n, "did_not_finish": format!("failed: {why}")})
                    }
                }
            };
            results.push(row);
        }
    }
    let load_after = loadavg();
    let get = |b: Backend, n: usize| {
        results
            .iter()
            .find(|v| v["backend"] == b.id() && v["n"] == n && v.get("wall_s").is_some())
    };

    // The checks.
    for (n, totals, requests) in &expected {
        let mut hashes: Vec<(Backend, &str)> = Vec::new();
        for &b in &backends {
            let Some(v) = get(b, *n) else { continue };
            let got: Vec<u64> = v["counts"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            if got != totals.to_vec() {
                let diff: Vec<String> = (0..LITERALS.len())
                    .filter(|&k| got.get(k) != Some(&totals[k]))
                    .map(|k| {
                        format!(
                            "{}: merged {} vs per-game sum {}",
                            LITERALS[k],
                            got.get(k).map_or("?".into(), u64::to_string),
                            totals[k]
                        )
                    })
                    .collect();
                failures.push(format!(
                    "{} at {n} games: concluded counts differ from the games one by one: {}",
                    b.id(),
                    diff.join("; ")
                ));
            }
            if v["requests"].as_u64() != Some(*requests) {
                failures.push(format!(
                    "{} at {n} games: {} requests, the games one by one {requests}",
                    b.id(),
                    v["requests"]
                ));
            }
            hashes.push((b, v["output_fnv1a"].as_str().unwrap_or("")));
        }
        if let Some((b0, h0)) = hashes.first() {
            for (b, h) in &hashes[1..] {
                if h != h0 {
                    failures.push(format!(
                        "at {n} games the canonical outputs differ: {} {h0}, {} {h}",
                        b0.id(),
                        b.id()
                    ));
                }
            }
        }
    }

    let mut md = String::new();
    md.push_str(
        "| backend | games | facts file | wall | CPU | peak memory | read / evaluate / output / free |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for &b in &backends {
        for &n in &sizes {
            let v = results
                .iter()
                .find(|v| v["backend"] == b.id() && v["n"] == n)
                .expect("every configuration has a row");
            let skipped = match (v["did_not_finish"].as_str(), v["not_run"].as_str()) {
                (Some(why), _) => Some(format!("did not finish: {why}")),
                (_, Some(why)) => Some(format!("not run: {why}")),
                _ => None,
            };
            if let Some(why) = skipped {
                md.push_str(&format!(
                    "| {} | {} | — | {why} | — | — | — |\n",
                    b.label(),
                    games(n)
                ));
                continue;
            }
            let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} / {} / {} / {} |\n",
                b.label(),
                games(n),
                bytes(v["facts_bytes"].as_u64().unwrap_or(0)),
                secs(f("wall_s")),
                secs(f("cpu_s")),
                mib(v["peak_kib"].as_u64().unwrap_or(0)),
                secs(f("read_s")),
                secs(f("eval_s")),
                secs(f("output_s")),
                secs(f("free_s")),
            ));
        }
    }
    md.push_str(
        "\nOne case holding N games; timed: read the facts file text, evaluate (blocking), \
         write the canonical output, free what was built. Peak memory: VmHWM of the child process from just \
         before the timed part (the facts file text and the loaded package included; \
         building the text is not).\n",
    );

    let mut ratios = Vec::new();
    md.push_str(
        "\n| backend | games | time ratio | CPU ratio | memory ratio | goal | met |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for &b in &backends {
        for w in sizes.windows(2) {
            let (a, z) = (w[0], w[1]);
            let growth = z as f64 / a as f64;
            let goal = SLACK * growth;
            let (small, big) = (get(b, a), get(b, z));
            let ratio = |k: &str| -> Option<f64> { Some(big?[k].as_f64()? / small?[k].as_f64()?) };
            let mem = big
                .and_then(|v| v["peak_kib"].as_f64())
                .zip(small.and_then(|v| v["peak_kib"].as_f64()))
                .map(|(x, y)| x / y);
            let (time, cpu) = (ratio("wall_s"), ratio("cpu_s"));
            let met = match (time, mem) {
                (Some(t), Some(m)) => t <= goal && m <= goal,
                _ => false,
            };
            let shown = |r: Option<f64>| r.map_or("—".into(), |r| format!("{r:.1}×"));
            let why = if small.is_none() {
                format!(" (did not finish at {})", games(a))
            } else if big.is_none() {
                format!(" (did not finish at {})", games(z))
            } else {
                String::new()
            };
            md.push_str(&format!(
                "| {} | {} → {} | {} | {} | {} | ≤ {goal:.0}× | {}{why} |\n",
                b.label(),
                games(a),
                games(z),
                shown(time),
                shown(cpu),
                shown(mem),
                if met { "met" } else { "not met" },
            ));
            ratios.push(json!({
                "backend": b.id(), "from": a, "to": z, "time_ratio": time, "cpu_ratio": cpu,
                "memory_ratio": mem, "goal": goal, "met": met,
            }));
        }
    }
    md.push_str(&format!(
        "\nChecks (concluded counts and requests = the sums over the games one by one; \
         canonical outputs equal across backends): {}.\n",
        if failures.is_empty() {
            "passed".to_owned()
        } else {
            format!("**{} failed**", failures.len())
        }
    ));
    for f in &failures {
        md.push_str(&format!("* {f}\n"));
    }
    md.push_str(&format!(
        "\nLoad average (1, 5, 15 min) before: {load_before}; after: {load_after}.\n"
    ));
    println!("{md}");

    if let Some(out) = out_file {
        let doc = json!({
            "package": "fide.laws.chess 0.1.0",
            "seed": SEED,
            "policy": "blocking",
            "max_seconds": max_s,
            "max_kib": max_kib,
            "load_before": load_before,
            "load_after": load_after,
            "expected": expected.iter().map(|(n, t, r)| json!({
                "n": n, "counts": t.to_vec(), "requests": r,
            })).collect::<Vec<_>>(),
            "results": results,
            "ratios": ratios,
            "failures": failures,
            "markdown": md,
        });
        std::fs::write(
            &out,
            serde_json::to_string_pretty(&doc).expect("JSON") + "\n",
        )
        .expect("write results");
        eprintln!("wrote {out}");
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
