//! Throughput of each engine on the chess package, as a markdown table and
//! `benches/results.json`.
//!
//! ```text
//! cargo run --release -p lawgen-benches --features overlay-variants --bin throughput [-- --quick] [-- --out FILE]
//! ```
//!
//! Every configuration (engine × number of games) runs in a fresh child
//! process of this binary, so that its peak memory (`VmHWM`) is its own. A
//! child generates its cases first (untimed; the interpreter's facts are also
//! converted untimed), then times three runs and reports the median. The
//! concluded counts summed over all games must be the same for every engine
//! of the same package: a check, not decoration.

use lawgen_benches::cases::{self, SEED};
use lawgen_benches::engines::{self, Interpreter, Totals};
use lawgen_runtime::{Batching, Policy};
use serde_json::{json, Value};
use std::process::Command;
use std::time::Instant;

const RUNS: usize = 3;

/// An engine configuration a child process can run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Engine {
    Generated1,
    GeneratedAll,
    Direct1,
    DirectAll,
    GeneratedCase1,
    GeneratedCaseAll,
    DirectCase1,
    DirectCaseAll,
    Plain,
    Interpreter,
    Strict1,
    Uncontested1,
}

impl Engine {
    const ALL: [Engine; 12] = [
        Engine::DirectCase1,
        Engine::DirectCaseAll,
        Engine::Direct1,
        Engine::DirectAll,
        Engine::GeneratedCase1,
        Engine::GeneratedCaseAll,
        Engine::Generated1,
        Engine::GeneratedAll,
        Engine::Plain,
        Engine::Interpreter,
        Engine::Strict1,
        Engine::Uncontested1,
    ];
    fn id(self) -> &'static str {
        match self {
            Engine::Generated1 => "generated-1t",
            Engine::GeneratedAll => "generated-all",
            Engine::Direct1 => "direct-1t",
            Engine::DirectAll => "direct-all",
            Engine::GeneratedCase1 => "generated-case-1t",
            Engine::GeneratedCaseAll => "generated-case-all",
            Engine::DirectCase1 => "direct-case-1t",
            Engine::DirectCaseAll => "direct-case-all",
            Engine::Plain => "plain",
            Engine::Interpreter => "interpreter",
            Engine::Strict1 => "strict-1t",
            Engine::Uncontested1 => "uncontested-1t",
        }
    }
    fn label(self, threads: usize) -> String {
        match self {
            Engine::Generated1 => "Ascent engine, named `Facts`, 1 thread".into(),
            Engine::GeneratedAll => {
                format!("Ascent engine, named `Facts`, all threads ({threads})")
            }
            Engine::Direct1 => "Direct engine, named `Facts`, 1 thread".into(),
            Engine::DirectAll => {
                format!("Direct engine, named `Facts`, all threads ({threads})")
            }
            Engine::GeneratedCase1 => "Ascent engine, nameless `Case`, 1 thread".into(),
            Engine::GeneratedCaseAll => {
                format!("Ascent engine, nameless `Case`, all threads ({threads})")
            }
            Engine::DirectCase1 => "Direct engine, nameless `Case`, 1 thread".into(),
            Engine::DirectCaseAll => {
                format!("Direct engine, nameless `Case`, all threads ({threads})")
            }
            Engine::Plain => "plain Rust, by hand (1 thread)".into(),
            Engine::Interpreter => "reference interpreter (1 thread)".into(),
            Engine::Strict1 => "generated, variant: strict rules, no priority (1 thread)".into(),
            Engine::Uncontested1 => {
                "generated, variant: nothing contested, no overlay (1 thread)".into()
            }
        }
    }
    /// Whether its counts must equal the chess package's (the variants
    /// are other packages).
    fn is_chess(self) -> bool {
        !matches!(self, Engine::Strict1 | Engine::Uncontested1)
    }
    fn from_id(s: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.id() == s)
    }
}

/// Reads a `kB` field of /proc/self/status.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time of this process so far (all threads, user + system), from
/// /proc/self/stat (in clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): state is
    // field 3, utime 14, stime 15.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        f.get(i - 3)
            .and_then(|x| x.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(14) + ticks(15)) / 100.0
}

fn child(engine: Engine, n: usize) -> Value {
    let all = cases::cases(SEED, n);
    let interp;
    let mut facts = Vec::new();
    if engine == Engine::Interpreter {
        interp = Some(Interpreter::new());
        let i = interp.as_ref().expect("just set");
        facts = all.iter().map(|c| i.facts(c)).collect();
    } else {
        interp = None;
    }
    let setup_kib = status_kib("VmHWM:");
    let one = Batching {
        threads: 1,
        ..Batching::default()
    };
    let every = Batching::default();
    let policy = Policy::Blocking;
    let run = || -> Totals {
        match engine {
            Engine::Generated1 => engines::generated(&all, policy, &one),
            Engine::GeneratedAll => engines::generated(&all, policy, &every),
            Engine::Direct1 => engines::generated_direct(&all, policy, &one),
            Engine::DirectAll => engines::generated_direct(&all, policy, &every),
            Engine::GeneratedCase1 => engines::generated_case(&all, policy, &one),
            Engine::GeneratedCaseAll => engines::generated_case(&all, policy, &every),
            Engine::DirectCase1 => engines::generated_direct_case(&all, policy, &one),
            Engine::DirectCaseAll => engines::generated_direct_case(&all, policy, &every),
            Engine::Plain => engines::plain(std::hint::black_box(&all)),
            Engine::Interpreter => interp.as_ref().expect("set").run(&facts, policy),
            Engine::Strict1 => engines::generated_strict(&all, policy, &one),
            Engine::Uncontested1 => engines::generated_uncontested(&all, policy, &one),
        }
    };
    let mut secs = Vec::new();
    let mut cpu = Vec::new();
    let mut totals: Option<Totals> = None;
    // The plain evaluator is so fast that one pass over 10k games takes
    // well under a millisecond: repeat it within a run for a stable clock.
    let reps = if engine == Engine::Plain {
        (20_000_000 / n.max(1)).max(1)
    } else {
        1
    };
    for _ in 0..RUNS {
        let c0 = cpu_seconds();
        let t = Instant::now();
        for _ in 0..reps {
            let got = std::hint::black_box(run());
            if let Some(prev) = &totals {
                assert_eq!(prev, &got, "an engine gave different counts on a rerun");
            }
            totals = Some(got);
        }
        secs.push(t.elapsed().as_secs_f64() / reps as f64);
        cpu.push((cpu_seconds() - c0) / reps as f64);
    }
    let mut sorted = secs.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[RUNS / 2];
    let mut cpu_sorted = cpu.clone();
    cpu_sorted.sort_by(f64::total_cmp);
    let cpu_median = cpu_sorted[RUNS / 2];
    json!({
        "engine": engine.id(),
        "n": n,
        "runs_s": secs,
        "median_s": median,
        "cases_per_s": n as f64 / median,
        "cpu_s": cpu,
        "cases_per_cpu_s": n as f64 / cpu_median,
        "cpus_used": cpu.iter().sum::<f64>() / secs.iter().sum::<f64>(),
        "peak_kib": status_kib("VmHWM:"),
        "setup_peak_kib": setup_kib,
        "threads": match engine {
            Engine::GeneratedAll
            | Engine::DirectAll
            | Engine::GeneratedCaseAll
            | Engine::DirectCaseAll => every.threads,
            _ => 1,
        },
        "totals": totals.expect("at least one run").to_vec(),
    })
}

fn machine() -> Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown".into(), |s| s.trim().to_owned());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_kib: u64 = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    json!({
        "cpu": model,
        "threads_available": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "memory_gib": (mem_kib as f64 / 1024.0 / 1024.0 * 10.0).round() / 10.0,
        "kernel": std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim(),
    })
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2} M/s", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1} k/s", r / 1e3)
    } else {
        format!("{r:.0} /s")
    }
}

fn mib(kib: u64) -> String {
    if kib >= 1024 * 1024 {
        format!("{:.2} GiB", kib as f64 / 1024.0 / 1024.0)
    } else {
        format!("{:.0} MiB", kib as f64 / 1024.0)
    }
}

fn n_label(n: usize) -> String {
    if n >= 1_000_000 {
        format!("{}M", n / 1_000_000)
    } else {
        format!("{}k", n / 1000)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let engine = Engine::from_id(&args[1]).expect("an engine id");
        let n: usize = args[2].parse().expect("a number of games");
        println!("{}", child(engine, n));
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let out = args
        .iter()
        .position(|a| a == "--out")
        .map(|i| args[i + 1].clone())
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/results.json").to_owned());
    let sizes: Vec<usize> = if quick {
        vec![10_000, 100_000]
    } else {
        vec![10_000, 100_000, 1_000_000]
    };
    let mut plan = Vec::new();
    for &n in &sizes {
        for e in [
            Engine::Plain,
            Engine::DirectCase1,
            Engine::DirectCaseAll,
            Engine::Direct1,
            Engine::DirectAll,
            Engine::GeneratedCase1,
            Engine::GeneratedCaseAll,
            Engine::Generated1,
            Engine::GeneratedAll,
        ] {
            plan.push((e, n));
        }
        if n <= 10_000 {
            plan.push((Engine::Interpreter, n));
        }
        if n >= 100_000 {
            plan.push((Engine::Strict1, n));
            plan.push((Engine::Uncontested1, n));
        }
    }
    let exe = std::env::current_exe().expect("own path");
    let load_before = loadavg();
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut results: Vec<Value> = Vec::new();
    for (e, n) in &plan {
        eprint!("{:>15} × {:>9} games ... ", e.id(), n);
        let output = Command::new(&exe)
            .args(["--child", e.id(), &n.to_string()])
            .output()
            .expect("run a child");
        assert!(
            output.status.success(),
            "child {} {n} failed:\n{}",
            e.id(),
            String::from_utf8_lossy(&output.stderr)
        );
        let v: Value = serde_json::from_slice(&output.stdout).expect("a child's JSON line");
        eprintln!(
            "{} (median of {RUNS}), peak {}",
            rate(v["cases_per_s"].as_f64().unwrap_or(0.0)),
            mib(v["peak_kib"].as_u64().unwrap_or(0))
        );
        results.push(v);
    }
    let load_after = loadavg();
    let get = |e: Engine, n: usize| {
        results
            .iter()
            .find(|v| v["engine"] == e.id() && v["n"] == n)
            .cloned()
    };
    // The check: every engine concluded the same on the same games.
    for &n in &sizes {
        let plain = get(Engine::Plain, n).expect("plain ran")["totals"].clone();
        for e in Engine::ALL.into_iter().filter(|e| e.is_chess()) {
            if let Some(v) = get(e, n) {
                assert_eq!(
                    v["totals"],
                    plain,
                    "{} and plain Rust disagree at {n} games",
                    e.id()
                );
            }
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let secs = |e: Engine, n: usize| get(e, n).and_then(|v| v["median_s"].as_f64());
    let tput = |e: Engine, n: usize| get(e, n).and_then(|v| v["cases_per_s"].as_f64());

    let mut md = String::new();
    md.push_str("| engine |");
    for &n in &sizes {
        md.push_str(&format!(" {} games |", n_label(n)));
    }
    for &n in &sizes {
        md.push_str(&format!(" peak memory at {} |", n_label(n)));
    }
    md.push('\n');
    md.push_str(&"|---".repeat(1 + 2 * sizes.len()));
    md.push_str("|\n");
    for e in Engine::ALL {
        if !sizes.iter().any(|&n| get(e, n).is_some()) {
            continue;
        }
        md.push_str(&format!("| {} |", e.label(threads)));
        for &n in &sizes {
            match (secs(e, n), secs(Engine::Plain, n)) {
                (Some(s), Some(p)) if e != Engine::Plain => {
                    md.push_str(&format!(" {} ({:.0}×) |", rate(n as f64 / s), s / p));
                }
                (Some(s), _) => md.push_str(&format!(" {} |", rate(n as f64 / s))),
                _ => md.push_str(" — |"),
            }
        }
        for &n in &sizes {
            match get(e, n).and_then(|v| v["peak_kib"].as_u64()) {
                Some(k) => md.push_str(&format!(" {} |", mib(k))),
                None => md.push_str(" — |"),
            }
        }
        md.push('\n');
    }
    md.push_str(
        "\nCells: games per second, median of 3 runs, and (in parentheses) the time \
         relative to plain Rust on the same games. Peak memory: VmHWM of the process, \
         including the pre-generated cases (80 bytes per game) and, for the interpreter, \
         its pre-converted facts.\n",
    );

    md.push_str(
        "\nThe same runs per CPU-second (user + system time of all the process's threads), \
        which a loaded machine distorts less for single-threaded engines, and the CPUs each \
        run actually got (CPU time / wall time, mean over the sizes):\n\n| engine |",
    );
    for &n in &sizes {
        md.push_str(&format!(" {} games |", n_label(n)));
    }
    md.push_str(" CPUs used |\n");
    md.push_str(&"|---".repeat(2 + sizes.len()));
    md.push_str("|\n");
    for e in Engine::ALL {
        let runs: Vec<Value> = sizes.iter().filter_map(|&n| get(e, n)).collect();
        if runs.is_empty() {
            continue;
        }
        md.push_str(&format!("| {} |", e.label(threads)));
        for &n in &sizes {
            match get(e, n).and_then(|v| v["cases_per_cpu_s"].as_f64()) {
                Some(r) => md.push_str(&format!(" {} |", rate(r))),
                None => md.push_str(" — |"),
            }
        }
        let used: f64 = runs
            .iter()
            .filter_map(|v| v["cpus_used"].as_f64())
            .sum::<f64>()
            / runs.len() as f64;
        md.push_str(&format!(" {used:.2} |\n"));
    }

    // The targets: time relative to plain Rust at the largest size on one
    // thread (Direct without names ≤ 10×, with names ≤ 20×, Ascent without
    // names ≤ 40×), throughput kept from 10k to the largest size, all cores
    // against one, peak memory.
    let big = *sizes.last().expect("sizes");
    let mut targets = Vec::new();
    let mut target = |name: &str, value: Option<f64>, goal: &str, met: Option<bool>| {
        targets.push(json!({"target": name, "value": value, "goal": goal, "met": met}));
    };
    for (one, all, limit) in [
        (Engine::DirectCase1, Engine::DirectCaseAll, Some(10.0)),
        (Engine::Direct1, Engine::DirectAll, Some(20.0)),
        (Engine::GeneratedCase1, Engine::GeneratedCaseAll, Some(40.0)),
        (Engine::Generated1, Engine::GeneratedAll, None),
    ] {
        let r = secs(one, big)
            .zip(secs(Engine::Plain, big))
            .map(|(a, b)| a / b);
        target(
            &format!(
                "{}: time relative to plain Rust at {} games",
                one.id(),
                n_label(big)
            ),
            r,
            &limit.map_or("report".to_owned(), |l| format!("≤ {l}×")),
            limit.and_then(|l| r.map(|r| r <= l)),
        );
        for e in [one, all] {
            let r = tput(e, 10_000).zip(tput(e, big)).map(|(a, b)| a / b);
            target(
                &format!(
                    "{}: throughput at 10k / throughput at {}",
                    e.id(),
                    n_label(big)
                ),
                r,
                "≤ 1.3",
                r.map(|r| r <= 1.3),
            );
            let m = get(e, big)
                .and_then(|v| v["peak_kib"].as_u64())
                .map(|k| k as f64 / 1024.0);
            target(
                &format!("{}: peak memory at {} games (MiB)", e.id(), n_label(big)),
                m,
                "< 200 MiB",
                m.map(|m| m < 200.0),
            );
        }
        let r = tput(all, big).zip(tput(one, big)).map(|(a, b)| a / b);
        target(
            &format!(
                "{}: all threads ({threads}) / 1 thread at {} games",
                all.id(),
                n_label(big)
            ),
            r,
            "≥ 1.9",
            r.map(|r| r >= 1.9),
        );
    }
    for n in sizes.iter().copied().filter(|&n| n >= 100_000) {
        let r = secs(Engine::Generated1, n)
            .zip(secs(Engine::Strict1, n))
            .map(|(a, b)| a / b - 1.0);
        target(
            &format!(
                "overlay cost vs strict variant at {} games (time +%)",
                n_label(n)
            ),
            r.map(|r| r * 100.0),
            "≤ 20%",
            r.map(|r| r <= 0.2),
        );
        let r = secs(Engine::Generated1, n)
            .zip(secs(Engine::Uncontested1, n))
            .map(|(a, b)| a / b - 1.0);
        target(
            &format!(
                "overlay cost vs uncontested variant at {} games (time +%)",
                n_label(n)
            ),
            r.map(|r| r * 100.0),
            "report",
            None,
        );
    }
    for e in [
        Engine::DirectCase1,
        Engine::Direct1,
        Engine::GeneratedCase1,
        Engine::Generated1,
    ] {
        let r = tput(e, 10_000)
            .zip(tput(Engine::Interpreter, 10_000))
            .map(|(a, b)| a / b);
        target(
            &format!("{}: speed-up over the reference interpreter at 10k", e.id()),
            r,
            "report (≥ 50× is not a target)",
            None,
        );
    }
    md.push_str("\n| target | measured | goal | met |\n|---|---|---|---|\n");
    for t in &targets {
        let v = t["value"]
            .as_f64()
            .map_or("—".into(), |v| format!("{v:.2}"));
        let met = match t["met"].as_bool() {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "—",
        };
        md.push_str(&format!(
            "| {} | {v} | {} | {met} |\n",
            t["target"].as_str().unwrap_or(""),
            t["goal"].as_str().unwrap_or("")
        ));
    }
    md.push_str(&format!(
        "\nLoad average (1, 5, 15 min) before: {load_before}; after: {load_after}.\n"
    ));
    println!("{md}");

    let doc = json!({
        "package": "fide.laws.chess 0.1.0",
        "seed": SEED,
        "runs_per_configuration": RUNS,
        "policy": "blocking",
        "batching": {"batch_size": Batching::default().batch_size},
        "started_unix_s": started,
        "machine": machine(),
        "load_before": load_before,
        "load_after": load_after,
        "engines": Engine::ALL.iter().map(|e| json!({"id": e.id(), "label": e.label(threads)})).collect::<Vec<_>>(),
        "results": results,
        "targets": targets,
        "markdown": md,
    });
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&doc).expect("JSON") + "\n",
    )
    .expect("write results");
    eprintln!("wrote {out}");
}
