//! What a large package costs to compile: for law-shaped packages of
//! thousands of rules, and each engine, the time to emit the generated
//! module, its size, and the CPU time and peak memory of a release build of
//! the generated crate (the runtime built beforehand, as a crate that
//! compiles a package from `build.rs` has it after its first build).
//!
//! ```text
//! cargo run --release -p lawgen-benches --bin large -- [OPTIONS] [SIZE...]
//!   SIZE              rules per package (default: 500 2000)
//!   --shape S         law (default), chain, conflict, recursive; repeatable
//!   --engine E        direct, ascent (default: both); repeatable
//!   --no-build        emit only (no rustc)
//!   --straight-line N the most lowered rules generated as engine code
//!                     (`EmitOptions::straight_line_rules`; default:
//!                     lawgen's); above it a module evaluates its rules
//!                     from the embedded program, whichever the engine,
//!                     and the row's engine reads `program`
//!   --ascent-rules N  the most lowered rules the Ascent engine is used for
//!                     (`EmitOptions::ascent_rules`; default: lawgen's);
//!                     above it a module asked for Ascent gets the Direct
//!                     engine, and the row's engine reads `direct`
//!   --time-passes     also print rustc's -Z time-passes of each build
//!                     (RUSTC_BOOTSTRAP on the stable compiler)
//!   --dir DIR         where the crates and their target dir go
//!                     (default: target/large)
//!   --json FILE       also write the rows as JSON
//!   --plot-only       build nothing: only write `--svg` from the `--with` files
//!   --svg FILE        also plot rustc's CPU seconds and peak memory per
//!                     rules, one line per engine, as an SVG, with the rows
//!                     of this run and those of every `--with FILE` (a
//!                     `--json` file of an earlier run, e.g. with another
//!                     `--straight-line`)
//!   --root DIR        the lawgen source tree whose lawgen-runtime and
//!                     Cargo.lock the crates use (default: this one)
//! ```
//!
//! Shapes (each package's rules count as SIZE, within a few):
//! * `law` — SIZE/3 predicates `p_i(Case, Person)`, each with a strict rule
//!   from its own empirical fact, a defeasible rule from the previous
//!   predicate (the first from a fact) and a defeasible rule for `~p_i` from the next fact, the first
//!   over the second by a priority: every predicate contested;
//! * `chain` — `q_0(x) <= e(x)`, `q_i(x) <= q_(i-1)(x)`: SIZE defeasible rules;
//! * `conflict` — SIZE/2 defeasible rules for `q(x)` and as many for
//!   `~q(x)`, each pair under a priority (capped at 490 pairs, as the rule
//!   body limit asks);
//! * `recursive` — the law shape with one recursive component (a transitive
//!   closure over a `link(Case, Person, Person)` fact) for every 50 rules.
//!
//! The rustc figures are of `cargo rustc --release --offline --lib` of the
//! generated crate, all its processes together (`wait4`): CPU seconds (user
//! and system, robust on a shared machine), wall seconds, and the peak
//! resident memory of the largest process.

use lawgen::driver::{load_file, Loaded, ReadLimits};
use lawgen::internals::check::size::{program_size_bound, MAX_NATIVE_PROGRAM_SIZE};
use lawgen::{generate, EmitOptions, Engine};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A law-shaped package in the text form.
fn package(shape: &str, size: usize) -> String {
    let mut s = String::new();
    let name = format!("large.{shape}{size}");
    let _ = writeln!(
        s,
        "schema \"law.core.ir/0.2\"\npackage \"{name}\" namespace \"urn:large\" version \"0.1.0\"\n\
         default package \"urn:large\"\n"
    );
    match shape {
        "law" | "recursive" => law(&mut s, size, shape == "recursive"),
        "chain" => {
            s.push_str("type T\n\nrelation empirical e(a: T)\n\n");
            for i in 0..size {
                let body = if i == 0 {
                    "e(x)".to_owned()
                } else {
                    format!("q{}(x)", i - 1)
                };
                let _ = writeln!(
                    s,
                    "relation institutional q{i}(a: T)\n\nrule r{i} defeasible\n  q{i}(x) :- {body}\n  vars [x: T]\n"
                );
            }
        }
        "conflict" => {
            s.push_str(
                "type T\n\nrelation empirical e(a: T)\n\nrelation institutional q(a: T)\n\n",
            );
            for i in 0..(size / 2).min(490) {
                let _ = writeln!(
                    s,
                    "rule p{i} defeasible\n  q(x) :- e(x)\n  vars [x: T]\n\n\
                     rule n{i} defeasible\n  ~q(x) :- e(x)\n  vars [x: T]\n\n\
                     priority pr{i}: p{i} > n{i}\n"
                );
            }
        }
        other => {
            eprintln!("unknown shape {other}: law, chain, conflict, recursive");
            std::process::exit(2)
        }
    }
    s
}

/// The law shape: `size / 3` contested predicates over `(Case, Person)`,
/// and with `recursive`, a transitive closure every 50 rules.
fn law(s: &mut String, size: usize, recursive: bool) {
    s.push_str(
        "type Case\n\ntype Person\n\n\
         relation empirical party(c: Case, p: Person)\n\n\
         relation empirical link(c: Case, a: Person, b: Person)\n\n",
    );
    let closures = if recursive { size / 50 } else { 0 };
    let n = (size.saturating_sub(2 * closures) / 3).max(2);
    for i in 0..=n {
        let _ = writeln!(s, "relation empirical e{i}(c: Case, p: Person)\n");
    }
    for i in 0..n {
        // p0 reads a fact: the chain of predicates is stratified.
        let prev = if i == 0 {
            format!("e{n}")
        } else {
            format!("p{}", i - 1)
        };
        let _ = writeln!(
            s,
            "relation institutional p{i}(c: Case, p: Person)\n\n\
             rule s{i} strict\n  p{i}(c, x) :- party(c, x), e{i}(c, x)\n  vars [c: Case, x: Person]\n\n\
             rule a{i} defeasible\n  p{i}(c, x) :- party(c, x), {prev}(c, x)\n  vars [c: Case, x: Person]\n\n\
             rule b{i} defeasible\n  ~p{i}(c, x) :- party(c, x), e{}(c, x)\n  vars [c: Case, x: Person]\n\n\
             priority o{i}: a{i} > b{i}\n",
            i + 1
        );
    }
    for j in 0..closures {
        let base = (j * 7) % n;
        let _ = writeln!(
            s,
            "relation institutional reach{j}(c: Case, a: Person, b: Person)\n\n\
             rule t{j} strict\n  reach{j}(c, x, y) :- link(c, x, y), p{base}(c, x)\n  vars [c: Case, x: Person, y: Person]\n\n\
             rule u{j} strict\n  reach{j}(c, x, z) :- reach{j}(c, x, y), link(c, y, z)\n  vars [c: Case, x: Person, y: Person, z: Person]\n"
        );
    }
}

/// Writes the package text as `DIR/NAME.law` (to try with `lawgen`
/// itself) and loads it.
fn load_text(dir: &Path, name: &str, text: &str, limits: &ReadLimits) -> Loaded {
    let path = dir.join(format!("{name}.law"));
    std::fs::write(&path, text).expect("package file");
    load_file(&path, limits).unwrap_or_else(|e| panic!("{e}"))
}

struct Row {
    shape: String,
    rules: usize,
    engine: &'static str,
    emit_s: f64,
    bytes: usize,
    build: Option<Build>,
}

struct Build {
    cpu_s: f64,
    wall_s: f64,
    peak_mib: f64,
    ok: bool,
}

/// Runs `cmd`, waiting with `wait4` for the usage of it and its children.
fn measured(mut cmd: Command) -> Build {
    let t = Instant::now();
    // Reaped by the wait4 below (std's wait would not report the usage).
    #[allow(clippy::zombie_processes)]
    let child = cmd.spawn().expect("cargo runs");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not waited for yet; both out-pointers are valid.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 of the build");
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Build {
        cpu_s: tv(usage.ru_utime) + tv(usage.ru_stime),
        wall_s: t.elapsed().as_secs_f64(),
        peak_mib: usage.ru_maxrss as f64 / 1024.0,
        ok: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
    }
}

/// Writes the crate of one generated module, next to the others (one
/// target dir, so the runtime is built once).
fn write_crate(root: &Path, dir: &Path, module: &str, source: &str) -> PathBuf {
    let krate = dir.join(module);
    std::fs::create_dir_all(krate.join("src")).expect("crate dir");
    let runtime = root.join("lawgen-runtime");
    let toml = format!(
        "[package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nlawgen-runtime = {{ path = {:?} }}\n\
         ascent = {{ version = \"=0.8.1\", default-features = false }}\n\n[workspace]\n",
        module.replace('_', "-"),
        runtime.display().to_string()
    );
    std::fs::write(krate.join("Cargo.toml"), toml).expect("Cargo.toml");
    // The workspace's lock file: the same dependency versions, offline.
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).expect("Cargo.lock");
    std::fs::write(krate.join(format!("src/{module}.rs")), source).expect("module");
    std::fs::write(
        krate.join("src/lib.rs"),
        format!("lawgen_runtime::include_package!({module}, \"{module}.rs\");\n"),
    )
    .expect("lib.rs");
    krate
}

fn cargo_build(krate: &Path, target: &Path, time_passes: bool) -> Build {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .args(["rustc", "--release", "--offline", "--quiet", "--lib"]);
    if time_passes {
        // For this crate only: its dependencies stay as they were built.
        cmd.env("RUSTC_BOOTSTRAP", "1");
        cmd.args(["--", "-Ztime-passes"]);
    }
    measured(cmd)
}

fn main() {
    let mut sizes = Vec::new();
    let mut shapes = Vec::new();
    let mut engines = Vec::new();
    let (mut build, mut time_passes) = (true, false);
    let mut straight_line_rules = None;
    let mut ascent_rules = None;
    let mut dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/large"));
    let mut json_out = None;
    let mut svg_out = None;
    let mut with = Vec::new();
    let mut plot_only = false;
    let mut root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches sits in the workspace")
        .to_path_buf();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--shape" => shapes.push(args.next().expect("--shape S")),
            "--engine" => engines.push(match args.next().as_deref() {
                Some("direct") => Engine::Direct,
                Some("ascent") => Engine::Ascent,
                _ => {
                    eprintln!("--engine direct|ascent");
                    std::process::exit(2)
                }
            }),
            "--no-build" => build = false,
            "--ascent-rules" => {
                ascent_rules = Some(
                    args.next()
                        .and_then(|n| n.parse::<usize>().ok())
                        .expect("--ascent-rules N"),
                );
            }
            "--straight-line" => {
                straight_line_rules = Some(
                    args.next()
                        .and_then(|n| n.parse::<usize>().ok())
                        .expect("--straight-line N"),
                )
            }
            "--time-passes" => time_passes = true,
            "--root" => root = PathBuf::from(args.next().expect("--root DIR")),
            "--dir" => dir = PathBuf::from(args.next().expect("--dir DIR")),
            "--json" => json_out = Some(PathBuf::from(args.next().expect("--json FILE"))),
            "--svg" => svg_out = Some(PathBuf::from(args.next().expect("--svg FILE"))),
            "--with" => with.push(PathBuf::from(args.next().expect("--with FILE"))),
            "--plot-only" => plot_only = true,
            n => sizes.push(n.parse::<usize>().unwrap_or_else(|_| {
                eprintln!("usage: large [--shape S] [--engine E] [--no-build] [--time-passes] [--dir DIR] [--json FILE] [SIZE...]");
                std::process::exit(2)
            })),
        }
    }
    if plot_only {
        sizes.clear();
        build = false;
    } else if sizes.is_empty() {
        sizes = vec![500, 2000];
    }
    if shapes.is_empty() {
        shapes.push("law".to_owned());
    }
    if engines.is_empty() {
        engines = vec![Engine::Direct, Engine::Ascent];
    }
    std::fs::create_dir_all(&dir).expect("the crates' dir");
    let target = dir.join("target");
    if build {
        // The runtime (and ascent) built once, by a small crate.
        let loaded = load_text(&dir, "warm_up", &package("law", 9), &ReadLimits::default());
        for &engine in &engines {
            let opts = EmitOptions::default().module_name("warm_up").engine(engine);
            let m = generate(&loaded, &opts).expect("emits");
            let krate = write_crate(&root, &dir, "warm_up", &m.source);
            let b = cargo_build(&krate, &target, false);
            assert!(b.ok, "the warm-up crate builds");
        }
    }
    let load = |s: &str| {
        println!(
            "load average: {}",
            std::fs::read_to_string("/proc/loadavg")
                .unwrap_or_default()
                .trim()
        );
        let _ = s;
    };
    load("start");
    println!(
        "{:<10} {:>6} {:<7} {:>8} {:>10} {:>8} {:>9} {:>9} {:>9} {:>8}",
        "shape",
        "rules",
        "engine",
        "emit s",
        "bytes",
        "B/rule",
        "rustc cpu",
        "wall s",
        "peak MiB",
        "build"
    );
    let mut rows = Vec::new();
    for shape in &shapes {
        for &size in &sizes {
            let text = package(shape, size);
            let limits = ReadLimits::default().max_rule_body(2000);
            let loaded = load_text(&dir, &format!("{shape}{size}"), &text, &limits);
            let rules = loaded.model().rules.len();
            let bound = program_size_bound(loaded.model());
            println!("{shape} {rules}: lowered program of up to {bound} body items");
            for &engine in &engines {
                let label = match engine {
                    Engine::Direct => "direct",
                    _ => "ascent",
                };
                let module = format!("large_{shape}{size}_{label}");
                let mut opts = EmitOptions::default().module_name(&module).engine(engine);
                if let Some(n) = straight_line_rules {
                    opts = opts.straight_line_rules(n);
                }
                if let Some(n) = ascent_rules {
                    opts = opts.ascent_rules(n);
                }
                let t = Instant::now();
                // Past `check::size::MAX_NATIVE_PROGRAM_SIZE` too, which
                // these figures set: lowered and emitted without the check
                // `generate` makes first.
                let m = if bound > MAX_NATIVE_PROGRAM_SIZE {
                    let program = lawgen::driver::lower(&loaded).expect("lowers");
                    lawgen::internals::emit::emit(&program, &opts)
                } else {
                    generate(&loaded, &opts)
                }
                .unwrap_or_else(|e| panic!("emit: {e}"));
                let emit_s = t.elapsed().as_secs_f64();
                // Above the straight-line limit both engines give the same
                // module, and above the Ascent limit a module asked for
                // Ascent is the Direct engine's: each measured once.
                let label = if m.from_program {
                    "program"
                } else {
                    m.engine.as_str()
                };
                if rows
                    .iter()
                    .any(|r: &Row| r.shape == *shape && r.rules == rules && r.engine == label)
                {
                    continue;
                }
                let bytes = m.source.len();
                let b = build.then(|| {
                    let krate = write_crate(&root, &dir, &module, &m.source);
                    cargo_build(&krate, &target, time_passes)
                });
                let row = Row {
                    shape: shape.clone(),
                    rules,
                    engine: label,
                    emit_s,
                    bytes,
                    build: b,
                };
                let (cpu, wall, peak, ok) = match &row.build {
                    Some(b) => (
                        format!("{:.1}", b.cpu_s),
                        format!("{:.1}", b.wall_s),
                        format!("{:.0}", b.peak_mib),
                        if b.ok { "ok" } else { "FAILED" },
                    ),
                    None => ("-".into(), "-".into(), "-".into(), "-"),
                };
                println!(
                    "{:<10} {:>6} {:<7} {:>8.2} {:>10} {:>8.0} {:>9} {:>9} {:>9} {:>8}",
                    row.shape,
                    row.rules,
                    row.engine,
                    row.emit_s,
                    row.bytes,
                    row.bytes as f64 / row.rules.max(1) as f64,
                    cpu,
                    wall,
                    peak,
                    ok
                );
                rows.push(row);
            }
        }
    }
    load("end");
    let json: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "shape": r.shape, "rules": r.rules, "engine": r.engine,
                "emit_seconds": r.emit_s, "bytes": r.bytes,
                "rustc_cpu_seconds": r.build.as_ref().map(|b| b.cpu_s),
                "rustc_wall_seconds": r.build.as_ref().map(|b| b.wall_s),
                "rustc_peak_mib": r.build.as_ref().map(|b| b.peak_mib),
                "built": r.build.as_ref().map(|b| b.ok),
            })
        })
        .collect();
    if let Some(path) = json_out {
        std::fs::write(&path, serde_json::to_vec_pretty(&json).expect("json")).expect("write json");
    }
    if let Some(path) = svg_out {
        let mut all = json;
        for f in &with {
            let text =
                std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let more: Vec<serde_json::Value> =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            all.extend(more);
        }
        std::fs::write(&path, plot(&all)).expect("write svg");
    }
}

/// Two panels, rustc CPU seconds and peak MiB against rules (both axes
/// logarithmic), one line per shape and engine, from rows as `--json`
/// writes them (those without a finished build left out).
fn plot(rows: &[serde_json::Value]) -> String {
    let mut lines: std::collections::BTreeMap<String, Vec<(f64, f64, f64)>> = Default::default();
    for r in rows {
        let (Some(rules), Some(cpu), Some(mib), Some(true)) = (
            r["rules"].as_f64(),
            r["rustc_cpu_seconds"].as_f64(),
            r["rustc_peak_mib"].as_f64(),
            r["built"].as_bool(),
        ) else {
            continue;
        };
        let key = format!(
            "{} {}",
            r["engine"].as_str().unwrap_or("?"),
            r["shape"].as_str().unwrap_or("?")
        );
        lines.entry(key).or_default().push((rules, cpu, mib));
    }
    for l in lines.values_mut() {
        l.sort_by(|a, b| a.0.total_cmp(&b.0));
        l.dedup_by(|a, b| a.0 == b.0);
    }
    let colours = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
    ];
    let (w, h, m) = (420.0, 300.0, 55.0);
    let x_range = (50.0f64, 20_000.0f64);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
        2.0 * w + 20.0,
        h + 40.0 + 16.0 * lines.len() as f64
    );
    /// A panel: its title, the range of its y axis, and its value of a point.
    type Panel = (&'static str, (f64, f64), fn(&(f64, f64, f64)) -> f64);
    let panels: [Panel; 2] = [
        ("rustc CPU seconds", (1.0, 10_000.0), |p| p.1),
        ("rustc peak MiB", (10.0, 10_000.0), |p| p.2),
    ];
    for (k, (title, y_range, get)) in panels.iter().enumerate() {
        let x0 = k as f64 * (w + 20.0);
        let sx = |x: f64| {
            x0 + m + (x.ln() - x_range.0.ln()) / (x_range.1.ln() - x_range.0.ln()) * (w - m - 10.0)
        };
        let sy = |y: f64| {
            let y = y.max(y_range.0);
            h - m + 20.0
                - (y.ln() - y_range.0.ln()) / (y_range.1.ln() - y_range.0.ln()) * (h - m - 10.0)
        };
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"14\" font-weight=\"bold\">{title}</text>",
            x0 + m
        );
        let mut t = x_range.0;
        while t <= x_range.1 {
            for f in [1.0, 2.0, 5.0] {
                let x = t * f;
                if x > x_range.1 {
                    break;
                }
                let _ = writeln!(
                    svg,
                    "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.1}\" y2=\"{2:.1}\" stroke=\"#ddd\"/>\
                     <text x=\"{0:.1}\" y=\"{3:.1}\" text-anchor=\"middle\">{x}</text>",
                    sx(x),
                    sy(y_range.0),
                    sy(y_range.1),
                    sy(y_range.0) + 14.0
                );
            }
            t *= 10.0;
        }
        let mut t = y_range.0;
        while t <= y_range.1 {
            let _ = writeln!(
                svg,
                "<line x1=\"{0:.1}\" x2=\"{1:.1}\" y1=\"{2:.1}\" y2=\"{2:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{3:.1}\" y=\"{4:.1}\" text-anchor=\"end\">{t}</text>",
                sx(x_range.0),
                sx(x_range.1),
                sy(t),
                sx(x_range.0) - 4.0,
                sy(t) + 4.0
            );
            t *= 10.0;
        }
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">source rules</text>",
            (sx(x_range.0) + sx(x_range.1)) / 2.0,
            sy(y_range.0) + 28.0
        );
        for (i, (_, pts)) in lines.iter().enumerate() {
            let c = colours[i % colours.len()];
            let path: Vec<String> = pts
                .iter()
                .map(|p| format!("{:.1},{:.1}", sx(p.0), sy(get(p))))
                .collect();
            let _ = writeln!(
                svg,
                "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
                path.join(" ")
            );
            for p in pts {
                let _ = writeln!(
                    svg,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{c}\"/>",
                    sx(p.0),
                    sy(get(p))
                );
            }
        }
    }
    for (i, key) in lines.keys().enumerate() {
        let y = h + 36.0 + 16.0 * i as f64;
        let c = colours[i % colours.len()];
        let _ = writeln!(
            svg,
            "<rect x=\"{m}\" y=\"{:.1}\" width=\"14\" height=\"4\" fill=\"{c}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{key}</text>",
            y - 4.0,
            m + 20.0,
            y
        );
    }
    svg.push_str("</svg>\n");
    svg
}
