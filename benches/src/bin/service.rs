//! The decision service under load: the real `lawgen serve` on a loopback
//! port, driven over HTTP, against the same cases evaluated in process in
//! the same run.
//!
//! ```text
//! cargo build --release -p lawgen-cli
//! cargo run --release -p lawgen-benches --bin service -- \
//!     [--lawgen PATH] [--engine interp] [--rate 1000] [--seconds 5] \
//!     [--clients 8] [--batch 1000] [--batches 10]
//! ```
//!
//! The cases are the chess scenarios' facts files
//! (`tests/scenarios/chess/*.facts.json`), each on one line, taken in turn.
//! The service serves the FIDE package with a decision log (in a scratch
//! directory, removed at the end), as it would be deployed. Three phases,
//! one after the other, so that none competes with another for the cores:
//!
//! 1. **open loop**, 1 case per request (`evaluate`) at a fixed offered
//!    rate (`--rate` requests/s for `--seconds`): request `i` is due at
//!    `start + i / rate`, sent by the first of 64 client threads free at
//!    that time, and its latency is measured from when it was due, not from
//!    when it was sent, so a service that falls behind pays for the wait
//!    (no coordinated omission);
//! 2. **closed loop**, 1 case per request: `--clients` threads each send
//!    the next request as soon as the last is answered, for `--seconds`
//!    (the most requests/s the service answers);
//! 3. **batches against in process**, `--batches` rounds, each: one request
//!    of `--batch` cases (`evaluate-batch`), then the same cases through
//!    lawgen's public API with the service's engine (the reference
//!    interpreter: read the facts file, evaluate, conclusions, canonical
//!    output; the package loaded and lowered once, untimed, as the service
//!    does at start) on every core, each thread taking the next case as the
//!    service splits a batch, then on one thread. The rounds interleave the
//!    sides so that a change in the machine's load weighs on both alike;
//!    each side's figure is its median round.
//!
//! It prints one table and the two targets: 1,000-case requests at ≥ 70%
//! of the in-process throughput (every core), and p99 under 5 ms for
//! 1-case requests at 1,000 requests/s. It exits non-zero if a request was
//! refused or failed, or if a batch's receipt holds an output other than
//! the in-process canonical output of its case; the targets are reported,
//! not enforced (they depend on the machine and its load).

use lawgen::driver::{self, ReadLimits};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::interp;
use lawgen_runtime::program::Program;
use lawgen_runtime::Policy;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const PACKAGE: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";
const NAME: &str = "fide.laws.chess";
const SCENARIOS: &str = "tests/scenarios/chess";
/// Client threads of the open loop: requests in flight at most.
const OPEN_LOOP_THREADS: usize = 64;
/// The targets of the decision service.
const BATCH_RATIO_TARGET: f64 = 0.70;
const P99_TARGET_MS: f64 = 5.0;

struct Options {
    lawgen: PathBuf,
    engine: String,
    rate: u64,
    seconds: u64,
    clients: usize,
    batch: usize,
    batches: usize,
}

fn usage(msg: &str) -> ! {
    eprintln!("error: {msg}");
    eprintln!(
        "usage: service [--lawgen PATH] [--engine interp] [--rate REQ_PER_S] [--seconds S] [--clients N] [--batch CASES] [--batches N]"
    );
    std::process::exit(2)
}

fn options() -> Options {
    let exe = std::env::current_exe().expect("own path");
    let mut o = Options {
        // `lawgen` is built beside this binary (target/release).
        lawgen: exe.with_file_name("lawgen"),
        engine: "interp".into(),
        rate: 1000,
        seconds: 5,
        clients: 8,
        batch: 1000,
        batches: 10,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("`{a}` needs a value")))
        };
        let number = |v: String| -> u64 {
            match v.parse::<u64>() {
                Ok(n) if n > 0 => n,
                _ => usage(&format!("`{a}` takes a positive whole number, not `{v}`")),
            }
        };
        match a.as_str() {
            "--lawgen" => o.lawgen = PathBuf::from(value()),
            "--engine" => o.engine = value(),
            "--rate" => o.rate = number(value()),
            "--seconds" => o.seconds = number(value()).min(600),
            "--clients" => o.clients = number(value()).min(1024) as usize,
            "--batch" => o.batch = number(value()).min(10_000) as usize,
            "--batches" => o.batches = number(value()).min(1000) as usize,
            _ => usage(&format!("unknown argument `{a}`")),
        }
    }
    if o.engine != "interp" {
        usage(&format!(
            "unknown engine `{}`: the service evaluates with `interp` (the reference interpreter)",
            o.engine
        ));
    }
    if !o.lawgen.is_file() {
        usage(&format!(
            "no `lawgen` binary at {}; build it with `cargo build --release -p lawgen-cli`, or name it with `--lawgen PATH`",
            o.lawgen.display()
        ));
    }
    o
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The chess scenarios' facts files, each on one line, in file name order.
fn cases() -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(SCENARIOS))
        .expect("the chess scenarios")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("a facts file");
            let v: Value = serde_json::from_str(&text).expect("a facts file is JSON");
            v.to_string()
        })
        .collect()
}

/// `lawgen serve` on a free loopback port, killed on drop.
struct Server {
    child: Child,
    base: String,
    scratch: PathBuf,
}

impl Server {
    fn start(o: &Options) -> Server {
        let scratch =
            std::env::temp_dir().join(format!("lawgen-service-bench-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).expect("a scratch directory");
        let mut child = Command::new(&o.lawgen)
            .arg("serve")
            .arg("--package")
            .arg(root().join(PACKAGE))
            .args(["--listen", "127.0.0.1:0", "--engine", &o.engine])
            .arg("--decision-log")
            .arg(scratch.join("decisions.jsonl"))
            .arg("--max-concurrent")
            .arg((OPEN_LOOP_THREADS + o.clients).to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| usage(&format!("cannot start {}: {e}", o.lawgen.display())));
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the first line of lawgen serve");
        let Some(base) = line.trim().strip_prefix("lawgen serve: listening on ") else {
            let _ = child.kill();
            panic!("unexpected first line of lawgen serve: {line:?}");
        };
        let base = base.to_owned();
        Server {
            child,
            base,
            scratch,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// One request: its answer's body, or why it failed.
fn post(agent: &ureq::Agent, url: &str, content_type: &str, body: &[u8]) -> Result<String, String> {
    let mut r = agent
        .post(url)
        .header("Content-Type", content_type)
        .send(body)
        .map_err(|e| e.to_string())?;
    let status = r.status().as_u16();
    let text = r
        .body_mut()
        .with_config()
        .limit(1 << 30)
        .read_to_string()
        .map_err(|e| e.to_string())?;
    if status == 200 {
        Ok(text)
    } else {
        Err(format!("status {status}: {}", text.trim_end()))
    }
}

/// Latencies, in microseconds: the nearest-rank percentile.
fn percentile_ms(sorted_us: &[u64], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted_us.len() as f64).ceil() as usize;
    sorted_us[rank.clamp(1, sorted_us.len()) - 1] as f64 / 1000.0
}

struct Phase {
    requests: usize,
    cases: usize,
    seconds: f64,
    latencies_us: Vec<u64>,
    failures: Vec<String>,
    /// CPU seconds the service process spent on the phase.
    service_cpu_s: f64,
}

impl Phase {
    fn row(&self, what: &str) -> String {
        format!(
            "| {what} | {} | {:.2} | {:.0} | {:.0} | {:.2} | {:.2} | {:.3} |",
            self.requests,
            self.seconds,
            self.requests as f64 / self.seconds,
            self.cases as f64 / self.seconds,
            percentile_ms(&self.latencies_us, 50.0),
            percentile_ms(&self.latencies_us, 99.0),
            self.service_cpu_s * 1000.0 / self.cases as f64,
        )
    }
}

/// Requests due at `rate` per second for `seconds`, each timed from when
/// it was due.
fn open_loop(url: &str, cases: &[String], rate: u64, seconds: u64) -> Phase {
    let total = (rate * seconds) as usize;
    let next = AtomicUsize::new(0);
    let results = Mutex::new((Vec::with_capacity(total), Vec::new()));
    let start = Instant::now() + Duration::from_millis(50);
    let due = |i: usize| start + Duration::from_nanos(i as u64 * 1_000_000_000 / rate);
    let last = Mutex::new(start);
    std::thread::scope(|scope| {
        for _ in 0..OPEN_LOOP_THREADS {
            scope.spawn(|| {
                let agent = agent();
                let mut mine = Vec::new();
                let mut failed = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    let at = due(i);
                    let now = Instant::now();
                    if at > now {
                        std::thread::sleep(at - now);
                    }
                    let body = cases[i % cases.len()].as_bytes();
                    if let Err(e) = post(&agent, url, "application/json", body) {
                        failed.push(e);
                    }
                    let done = Instant::now();
                    mine.push(done.duration_since(at).as_micros() as u64);
                    let mut l = last.lock().unwrap();
                    *l = (*l).max(done);
                }
                let mut r = results.lock().unwrap();
                r.0.extend(mine);
                r.1.extend(failed);
            });
        }
    });
    let (mut latencies_us, failures) = results.into_inner().unwrap();
    latencies_us.sort_unstable();
    Phase {
        requests: total,
        cases: total,
        seconds: last
            .into_inner()
            .unwrap()
            .duration_since(start)
            .as_secs_f64(),
        latencies_us,
        failures,
        service_cpu_s: 0.0,
    }
}

/// `clients` threads sending back to back for `seconds`.
fn closed_loop(url: &str, cases: &[String], clients: usize, seconds: u64) -> Phase {
    let results = Mutex::new((Vec::new(), Vec::new()));
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    std::thread::scope(|scope| {
        for _ in 0..clients {
            scope.spawn(|| {
                let agent = agent();
                let mut mine = Vec::new();
                let mut failed = Vec::new();
                while Instant::now() < end {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let sent = Instant::now();
                    if let Err(e) = post(
                        &agent,
                        url,
                        "application/json",
                        cases[i % cases.len()].as_bytes(),
                    ) {
                        failed.push(e);
                    }
                    mine.push(sent.elapsed().as_micros() as u64);
                }
                let mut r = results.lock().unwrap();
                r.0.extend(mine);
                r.1.extend(failed);
            });
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    let (mut latencies_us, failures) = results.into_inner().unwrap();
    latencies_us.sort_unstable();
    Phase {
        requests: latencies_us.len(),
        cases: latencies_us.len(),
        seconds,
        latencies_us,
        failures,
        service_cpu_s: 0.0,
    }
}

/// CPU seconds (user and system, every thread) of process `pid` so far,
/// from /proc (clock ticks, 10 ms).
fn cpu_of(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name, which is in parentheses: utime
    // and stime are the 14th and 15th of the line.
    let after = stat.rsplit_once(')').map_or("", |(_, a)| a);
    let f: Vec<f64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // SAFETY: sysconf reads a constant of the system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / ticks
}

/// CPU seconds of this process so far (all threads, user + system), from
/// getrusage, to the microsecond.
fn own_cpu() -> f64 {
    // SAFETY: getrusage writes one `rusage` into the zeroed value we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return f64::NAN;
    }
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// The median of some seconds.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// What the batch rounds measured: the seconds of each round of each
/// side, the service's answers, and the in-process outputs.
struct Rounds {
    service_s: Vec<f64>,
    all_s: Vec<f64>,
    one_s: Vec<f64>,
    /// CPU seconds, summed over the rounds: of the service process, of
    /// this process sending and reading the batches, and in process.
    service_cpu_s: f64,
    client_cpu_s: f64,
    all_cpu_s: f64,
    one_cpu_s: f64,
    answers: Vec<String>,
    failures: Vec<String>,
    outputs: Vec<String>,
}

/// `rounds` rounds, each: one batch request to the service, then the same
/// cases in process on every core, then on one thread. Interleaved, so
/// that a change in the machine's load during the run weighs on both sides
/// alike.
/// `local(threads)` evaluates the batch in process on that many threads.
fn batch_rounds(
    url: &str,
    body: &str,
    local: impl Fn(usize) -> (f64, Vec<String>),
    rounds: usize,
    cores: usize,
    server: u32,
) -> Rounds {
    let agent = agent();
    let mut r = Rounds {
        service_s: Vec::new(),
        all_s: Vec::new(),
        one_s: Vec::new(),
        service_cpu_s: 0.0,
        client_cpu_s: 0.0,
        all_cpu_s: 0.0,
        one_cpu_s: 0.0,
        answers: Vec::new(),
        failures: Vec::new(),
        outputs: Vec::new(),
    };
    for _ in 0..rounds {
        let (service_cpu, client_cpu) = (cpu_of(server), own_cpu());
        let sent = Instant::now();
        match post(&agent, url, "application/jsonl", body.as_bytes()) {
            Ok(a) => r.answers.push(a),
            Err(e) => r.failures.push(e),
        }
        r.service_s.push(sent.elapsed().as_secs_f64());
        r.service_cpu_s += cpu_of(server) - service_cpu;
        let cpu = own_cpu();
        r.client_cpu_s += cpu - client_cpu;
        let (s, outputs) = local(cores);
        r.all_s.push(s);
        r.outputs = outputs;
        let cpu2 = own_cpu();
        r.all_cpu_s += cpu2 - cpu;
        r.one_s.push(local(1).0);
        r.one_cpu_s += own_cpu() - cpu2;
    }
    r
}

/// One case as `lawgen eval` evaluates it: the canonical output.
fn evaluate(program: &Program, catalog: &lawgen_runtime::program::Catalog, line: &str) -> String {
    let facts = read_facts(line.as_bytes(), catalog).expect("a scenario's facts check");
    interp::in_force(program, &facts).expect("a scenario's law is in force");
    let store = interp::evaluate(program, &facts, Policy::Blocking);
    let conclusions = interp::conclusions(program, &store, Policy::Blocking);
    canonical_json(&conclusions)
}

/// The batch evaluated in process on `threads` threads, each taking the
/// next case not yet taken (as the service splits a batch): the seconds,
/// and the outputs in the order of the cases.
fn in_process(
    program: &Program,
    catalog: &lawgen_runtime::program::Catalog,
    batch: &[&str],
    threads: usize,
) -> (f64, Vec<String>) {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let mut outputs: Vec<(usize, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(batch.len()).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(line) = batch.get(i) else { break };
                        mine.push((i, evaluate(program, catalog, line)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("an evaluation"))
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    outputs.sort_unstable_by_key(|(i, _)| *i);
    (seconds, outputs.into_iter().map(|(_, o)| o).collect())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".into())
}

fn main() {
    let o = options();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let cases = cases();
    let batch: Vec<&str> = (0..o.batch)
        .map(|i| cases[i % cases.len()].as_str())
        .collect();
    let mut batch_body = batch.join("\n");
    batch_body.push('\n');

    println!(
        "decision service: {} ({} scenarios taken in turn), engine {}, {cores} cores",
        NAME,
        cases.len(),
        o.engine
    );
    println!("load before: {}", loadavg());

    let server = Server::start(&o);
    let one = format!("{}/v1/packages/{NAME}/evaluate", server.base);
    let many = format!("{}/v1/packages/{NAME}/evaluate-batch", server.base);
    // Warm the service: its pages and allocator, and a connection's path.
    let warm = agent();
    for c in &cases {
        post(&warm, &one, "application/json", c.as_bytes())
            .unwrap_or_else(|e| panic!("a warm-up request failed: {e}"));
    }
    post(&warm, &many, "application/jsonl", batch_body.as_bytes())
        .unwrap_or_else(|e| panic!("a warm-up batch failed: {e}"));

    // In process, with the service's engine: the package loaded, checked
    // and lowered once (untimed), as the service does at start.
    let limits = ReadLimits::default();
    let loaded = driver::load_file_with(&root().join(PACKAGE), &limits, &[])
        .unwrap_or_else(|e| panic!("the chess package loads: {e}"));
    let program = driver::lower(&loaded).expect("the chess package lowers");
    let catalog = &loaded.catalog;
    in_process(&program, catalog, &batch, cores); // warm-up

    let pid = server.child.id();
    let cpu = cpu_of(pid);
    let mut open = open_loop(&one, &cases, o.rate, o.seconds);
    let cpu2 = cpu_of(pid);
    open.service_cpu_s = cpu2 - cpu;
    let mut closed = closed_loop(&one, &cases, o.clients, o.seconds);
    closed.service_cpu_s = cpu_of(pid) - cpu2;
    let rounds = batch_rounds(
        &many,
        &batch_body,
        |threads| in_process(&program, catalog, &batch, threads),
        o.batches,
        cores,
        pid,
    );
    drop(server);
    let load_after = loadavg();

    // Every batch answered every case with the output evaluated in process.
    let mut wrong = 0;
    for a in &rounds.answers {
        let lines: Vec<&str> = a.lines().collect();
        if lines.len() != o.batch {
            wrong += 1;
            continue;
        }
        for (line, want) in lines.iter().zip(&rounds.outputs) {
            let receipt: Value = serde_json::from_str(line).expect("a receipt is JSON");
            if receipt["output"].as_str() != Some(want.as_str()) {
                wrong += 1;
            }
        }
    }

    let n = o.batch as f64;
    let total = (o.batch * o.batches) as f64;
    let service_s = median(rounds.service_s.clone());
    let all_s = median(rounds.all_s.clone());
    let one_s = median(rounds.one_s.clone());
    let (service, in_all, in_one) = (n / service_s, n / all_s, n / one_s);
    println!();
    println!("| run | requests | seconds | requests/s | cases/s | p50 ms | p99 ms | CPU ms/case |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "{}",
        open.row(&format!("1 case a request, open loop at {} req/s", o.rate))
    );
    println!(
        "{}",
        closed.row(&format!(
            "1 case a request, closed loop, {} clients",
            o.clients
        ))
    );
    println!(
        "| {} cases a request, one client (median of {}) | {} | {:.2} | {:.2} | {service:.0} | {:.0} | | {:.3} |",
        o.batch,
        o.batches,
        o.batches,
        rounds.service_s.iter().sum::<f64>(),
        1.0 / service_s,
        service_s * 1000.0,
        rounds.service_cpu_s * 1000.0 / total,
    );
    println!(
        "| the same cases in process, {cores} threads (median of {}) | | {:.2} | | {in_all:.0} | | | {:.3} |",
        o.batches,
        rounds.all_s.iter().sum::<f64>(),
        rounds.all_cpu_s * 1000.0 / total,
    );
    println!(
        "| the same cases in process, 1 thread (median of {}) | | {:.2} | | {in_one:.0} | | | {:.3} |",
        o.batches,
        rounds.one_s.iter().sum::<f64>(),
        rounds.one_cpu_s * 1000.0 / total,
    );
    println!();
    println!(
        "CPU ms/case: of the service process for the requests; in process, of the evaluation. The client sending and reading the batches spent {:.3} ms/case more.",
        rounds.client_cpu_s * 1000.0 / total
    );
    let ratio = service / in_all;
    let p99 = percentile_ms(&open.latencies_us, 99.0);
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "{}-case requests: {:.0}% of in-process throughput on {cores} threads (target ≥ {:.0}%: {})",
        o.batch,
        ratio * 100.0,
        BATCH_RATIO_TARGET * 100.0,
        verdict(ratio >= BATCH_RATIO_TARGET)
    );
    println!(
        "1-case requests at {} req/s: p99 {p99:.2} ms (target < {P99_TARGET_MS} ms: {})",
        o.rate,
        verdict(p99 < P99_TARGET_MS)
    );
    println!("load after: {load_after}");

    let failures: Vec<&String> = open
        .failures
        .iter()
        .chain(&closed.failures)
        .chain(&rounds.failures)
        .collect();
    if !failures.is_empty() || wrong > 0 {
        for f in failures.iter().take(5) {
            eprintln!("error: a request failed: {f}");
        }
        eprintln!(
            "error: {} requests failed, {wrong} batch answers differ from the in-process output",
            failures.len()
        );
        std::process::exit(1);
    }
}
