//! `lawgen bench`: how fast a package evaluates, on synthetic cases.
//!
//! ```text
//! lawgen bench PACKAGE [--cases N] [--backend compiled|interp] [--threads T]
//!     [--batch B] [--policy blocking|propagating] [--seed S] [--entities E]
//!     [--density D] [--template FACTS.json] [--repeat R] [--json]
//! ```
//!
//! Cases come from [`synth`] (case `i` is a pure function of the seed,
//! `i` and the package), or are all the template. Each of `R` runs (default
//! 3) evaluates all `N` cases and sums, per institutional literal (`p` and
//! `~p`), the tuples concluded (+∂) — the same table for every backend and
//! every run, which makes the table a check rather than decoration: the runs
//! must agree with each other, and `--backend interp` and `--backend
//! compiled` must print the same table for the same seed and `N`.
//!
//! * **compiled** (default): the package's cached crate (see
//!   [`super::compiled`]) is built once; its binary, run as
//!   `BIN --bench key=value…`, draws the cases itself on the worker threads of
//!   the generated `evaluate_indexed` (`make` draws case `i` and pushes it into
//!   the generated `Facts`; `map` takes `concluded_counts()`), so generation is
//!   part of the timed work. A separate pass that only draws and pushes the
//!   cases measures generation alone. The child prints a JSON
//!   [`BenchResult`] on stdout, which this process renders; its peak memory is
//!   the child's own. The child runs [`child_main`] through a small
//!   [`CompiledPackage`] impl in the generated `main.rs`.
//! * **interp**: the reference evaluator, in this process: the program is
//!   lowered once, then each case is `interp::evaluate` + `interp::conclusions`
//!   (what `driver::evaluate` does, without lowering again per case), on
//!   `--threads` threads. Per-stratum times are estimated by evaluating a
//!   sample of cases with the first k program strata, for every k, and taking
//!   differences. The compiled backend has no per-stratum times: ascent's
//!   `scc_times_summary()` is not reachable through the generated API.
//!
//! Reported: cases/s, facts/s and µs per case (median, min and max over the
//! runs), generation alone, peak memory (`VmHWM` of the evaluating process,
//! which includes the package, the program and — for interp — the whole
//! `lawgen` process), the load average before and after (the machine may be
//! shared), and the count table.

use crate::driver::Loaded;
use crate::interp::{self, Policy};
use crate::model::{Lit, Model, PredId};
use crate::program::{Program, Role, Section};
use crate::syntax::RelationKind;
pub mod synth;

use serde_json::{json, Value as J};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use synth::{lit_slot, Draft, Synth, SynthOptions, Val};

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub cases: usize,
    pub threads: usize,
    /// Cases per engine run (compiled backend).
    pub batch: usize,
    pub policy: Policy,
    pub synth: SynthOptions,
    /// Every case is this facts file.
    pub template: Option<PathBuf>,
    pub repeat: usize,
    /// Draw a progress bar on stderr (when it is a terminal).
    pub progress: bool,
    /// Cases sampled for the interpreter's per-stratum estimate (0: none).
    pub strata_sample: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            cases: 10_000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            batch: 1024,
            policy: Policy::Blocking,
            synth: SynthOptions::default(),
            template: None,
            repeat: 3,
            progress: true,
            strata_sample: 32,
        }
    }
}

impl BenchConfig {
    /// Refuses settings that cannot run.
    pub fn validate(&self) -> Result<(), BenchError> {
        let bad = |what: &str| Err(BenchError::usage(what));
        if self.cases == 0 {
            return bad("--cases must be at least 1");
        }
        if self.threads == 0 {
            return bad("--threads must be at least 1");
        }
        if self.batch == 0 {
            return bad("--batch must be at least 1");
        }
        if self.repeat == 0 {
            return bad("--repeat must be at least 1");
        }
        if self.synth.entities_per_type == 0 {
            return bad("--entities must be at least 1");
        }
        if !(0.0..=1.0).contains(&self.synth.density) {
            return bad("--density must be between 0 and 1");
        }
        Ok(())
    }
}

/// Why a benchmark did not run. `code` is the CLI's exit code (1 invalid
/// input, 2 unreadable input, 3 internal error).
#[derive(Debug, Clone)]
pub struct BenchError {
    pub code: u8,
    pub message: String,
}

impl BenchError {
    fn usage(m: &str) -> Self {
        BenchError {
            code: 1,
            message: format!("error: {m}"),
        }
    }

    fn internal(m: impl std::fmt::Display) -> Self {
        BenchError {
            code: 3,
            message: format!("error: {m}"),
        }
    }
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BenchError {}

/// Time spent in one program stratum (interp only, estimated).
#[derive(Clone, Debug, PartialEq)]
pub struct StratumTime {
    /// The stratum's index, or `load` (facts into input relations) or
    /// `read` (the conclusions off the store).
    pub label: String,
    /// Program rules in the stratum.
    pub rules: usize,
    /// The relations its rules derive (the first few).
    pub heads: Vec<String>,
    /// Microseconds per case.
    pub us_per_case: f64,
}

/// A benchmark's measurements (what the compiled child prints as JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    pub backend: String,
    pub package: String,
    pub version: String,
    pub policy: String,
    pub cases: usize,
    pub threads: usize,
    pub batch: usize,
    pub seed: u64,
    pub entities_per_type: usize,
    pub density: f64,
    pub template: bool,
    /// Input facts (rows of `p` and `~p`) over all cases of one run.
    pub facts: u64,
    /// Seconds per run over all cases, generation included.
    pub runs: Vec<f64>,
    /// Seconds of one pass that only draws the cases (and, compiled, pushes
    /// them into the generated `Facts`).
    pub generation: f64,
    /// Peak resident memory of the evaluating process (KiB).
    pub peak_rss_kib: Option<u64>,
    /// Per institutional literal, +∂ tuples summed over the cases.
    pub counts: Vec<(String, u64)>,
    /// Estimated per-stratum times (interp only).
    pub strata: Option<Vec<StratumTime>>,
    /// The load average before and after (1, 5, 15 minutes).
    pub load_before: Option<[f64; 3]>,
    pub load_after: Option<[f64; 3]>,
    /// Literals with a strict or defeasible rule: how many there are, and
    /// those never concluded in any case.
    pub concludable: usize,
    pub never_concluded: Vec<String>,
    pub notes: Vec<String>,
}

/// Institutional literals in table order: by predicate name, `p` before `~p`.
pub fn count_literals(m: &Model) -> Vec<String> {
    let mut preds: Vec<(usize, &str)> = m
        .preds
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == RelationKind::Institutional)
        .map(|(i, p)| (i, p.local.as_str()))
        .collect();
    preds.sort_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(&b.0)));
    preds
        .into_iter()
        .flat_map(|(i, _)| {
            [false, true].map(|negative| {
                m.lit_name(Lit {
                    pred: PredId(i as u32),
                    negative,
                })
            })
        })
        .collect()
}

/// The generator for `cfg`: synthetic, or the template (read and checked
/// against the package like `lawgen eval --facts`).
pub fn make_synth<'m>(model: &'m Model, cfg: &BenchConfig) -> Result<Synth<'m>, BenchError> {
    let synth = match &cfg.template {
        None => Synth::new(model, cfg.synth.clone()),
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| BenchError {
                code: 2,
                message: format!("error: cannot read {}: {e}", path.display()),
            })?;
            let facts = crate::syntax::facts::read_facts(&bytes, &crate::lower::catalog(model))
                .map_err(|d| BenchError {
                    code: 1,
                    message: format!(
                        "{}error: {} is not a valid facts file for {}",
                        d.render(),
                        path.display(),
                        model.name
                    ),
                })?;
            Synth::with_template(model, cfg.synth.clone(), &facts)
        }
    };
    synth.map_err(|e| BenchError::usage(&e.0))
}

fn result_shell(m: &Model, backend: &str, cfg: &BenchConfig) -> BenchResult {
    BenchResult {
        backend: backend.to_owned(),
        package: m.name.clone(),
        version: m.version.clone(),
        policy: cfg.policy.as_str().to_owned(),
        cases: cfg.cases,
        threads: cfg.threads,
        batch: cfg.batch,
        seed: cfg.synth.seed,
        entities_per_type: cfg.synth.entities_per_type,
        density: cfg.synth.density,
        template: cfg.template.is_some(),
        facts: 0,
        runs: Vec::new(),
        generation: 0.0,
        peak_rss_kib: None,
        counts: Vec::new(),
        strata: None,
        load_before: None,
        load_after: None,
        concludable: 0,
        never_concluded: Vec::new(),
        notes: Vec::new(),
    }
}

impl BenchResult {
    /// Fills in which literals with a concluding rule were never concluded.
    fn coverage(&mut self, m: &Model) {
        let can: std::collections::HashSet<String> = (0..m.preds.len())
            .flat_map(|i| {
                [false, true].map(|negative| Lit {
                    pred: PredId(i as u32),
                    negative,
                })
            })
            .filter(|l| m.has_concluding_rule(*l))
            .map(|l| m.lit_name(l))
            .collect();
        self.concludable = self.counts.iter().filter(|(l, _)| can.contains(l)).count();
        self.never_concluded = self
            .counts
            .iter()
            .filter(|(l, n)| *n == 0 && can.contains(l))
            .map(|(l, _)| l.clone())
            .collect();
    }
}

// ---------------------------------------------------------------------------
// The reference interpreter.

/// Runs the benchmark on the reference evaluator, in this process.
pub fn run_interp(loaded: &Loaded, cfg: &BenchConfig) -> Result<BenchResult, BenchError> {
    cfg.validate()?;
    let m = &loaded.model;
    let load_before = load_average();
    let synth = make_synth(m, cfg)?;
    let prog = crate::lower::lower(m).map_err(BenchError::internal)?;
    let lits = count_literals(m);
    let index: HashMap<&str, usize> = lits
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    let mut out = result_shell(m, "interp", cfg);
    let mut first: Option<Vec<u64>> = None;
    for r in 0..cfg.repeat {
        let progress = Mutex::new(Progress::new(
            format!("interp run {}/{}", r + 1, cfg.repeat),
            cfg.cases,
            cfg.progress,
        ));
        let start = Instant::now();
        let parts = parallel(
            cfg.cases,
            cfg.threads,
            16,
            Some(&progress),
            &|| vec![0u64; lits.len()],
            &|i, acc: &mut Vec<u64>| {
                let facts = synth.case(i as u64);
                let store = interp::evaluate(&prog, &facts, cfg.policy);
                let c = interp::conclusions(&prog, &store, cfg.policy);
                for (name, rows) in &c.sections[&Section::Defeasibly] {
                    if let Some(&k) = index.get(name.as_str()) {
                        acc[k] += rows.len() as u64;
                    }
                }
            },
        );
        out.runs.push(start.elapsed().as_secs_f64());
        progress.lock().map(|mut p| p.finish()).ok();
        let counts = sum(parts, lits.len());
        check_same_counts(&mut first, counts, r, &lits)?;
    }
    let progress = Mutex::new(Progress::new(
        "generation only".to_owned(),
        cfg.cases,
        cfg.progress,
    ));
    let start = Instant::now();
    let facts = parallel(
        cfg.cases,
        cfg.threads,
        64,
        Some(&progress),
        &|| 0u64,
        &|i, acc: &mut u64| {
            let f = synth.case(i as u64);
            *acc += f.rows.values().map(|r| r.len() as u64).sum::<u64>();
        },
    );
    out.generation = start.elapsed().as_secs_f64();
    progress.lock().map(|mut p| p.finish()).ok();
    out.facts = facts.into_iter().sum();
    if cfg.strata_sample > 0 {
        out.strata = Some(strata_profile(&prog, m, &synth, cfg));
        out.notes.push(format!(
            "per-stratum times: estimated on the first {} case(s), single-threaded, by \
             evaluating with the first k program strata for each k and taking differences",
            cfg.strata_sample.min(cfg.cases)
        ));
    }
    out.notes.push(
        "interp: each case is interp::evaluate + interp::conclusions on a program lowered once; \
         --batch does not apply"
            .to_owned(),
    );
    out.counts = lits.into_iter().zip(first.unwrap_or_default()).collect();
    out.peak_rss_kib = peak_rss_kib();
    out.load_before = load_before;
    out.load_after = load_average();
    out.coverage(m);
    add_template_note(&mut out);
    Ok(out)
}

/// Time per program stratum, by differences of prefix evaluations.
fn strata_profile(
    prog: &Program,
    _m: &Model,
    synth: &Synth,
    cfg: &BenchConfig,
) -> Vec<StratumTime> {
    let sample: Vec<_> = (0..cfg.strata_sample.min(cfg.cases))
        .map(|i| synth.case(i as u64))
        .collect();
    let per_case = |d: Duration| d.as_secs_f64() * 1e6 / sample.len().max(1) as f64;
    let mut p = prog.clone();
    let mut cumulative = Vec::with_capacity(prog.strata.len() + 1);
    let mut stores = Vec::new();
    for k in 0..=prog.strata.len() {
        p.strata = prog.strata[..k].to_vec();
        let start = Instant::now();
        // Kept until after the clock stops, so dropping them is not timed.
        stores = sample
            .iter()
            .map(|f| interp::evaluate(&p, f, cfg.policy))
            .collect::<Vec<_>>();
        cumulative.push(per_case(start.elapsed()));
    }
    let start = Instant::now();
    let conclusions: Vec<_> = stores
        .iter()
        .map(|st| interp::conclusions(prog, st, cfg.policy))
        .collect();
    let reading = per_case(start.elapsed());
    drop(conclusions);
    let mut out = vec![StratumTime {
        label: "load".to_owned(),
        rules: 0,
        heads: vec!["(the facts into the input relations)".to_owned()],
        us_per_case: cumulative[0],
    }];
    for (k, rules) in prog.strata.iter().enumerate() {
        let mut heads: Vec<String> = Vec::new();
        for &r in rules {
            let name = &prog.relations[prog.rules[r].head.rel.0 as usize].name;
            if !heads.contains(name) {
                heads.push(name.clone());
            }
        }
        out.push(StratumTime {
            label: k.to_string(),
            rules: rules.len(),
            heads,
            us_per_case: (cumulative[k + 1] - cumulative[k]).max(0.0),
        });
    }
    out.push(StratumTime {
        label: "read".to_owned(),
        rules: 0,
        heads: vec![
            "(the docs/reference.md#the-canonical-output sections off the store)".to_owned(),
        ],
        us_per_case: reading,
    });
    out
}

// ---------------------------------------------------------------------------
// The compiled backend: the child side (runs inside the package's binary).

/// What a compiled package's `main.rs` provides for `--bench` (generated by
/// `lawgen::builder::write_crate`; not a stable API).
pub trait CompiledPackage: Sync {
    /// The generated `Facts`.
    type Facts: Send;
    /// The package text the crate was built from (a copy beside the module).
    fn source(&self) -> &'static str;
    fn new_facts(&self) -> Self::Facts;
    /// Interns `name` through the constructor of the package's `ty`-th
    /// entity type (which also lists it as an entity of that type when the
    /// program has such a relation) and returns its id.
    fn intern(&self, facts: &mut Self::Facts, ty: usize, name: &str) -> i64;
    /// `Facts::__push`: a row of input relation `rel` (entities as ids).
    fn push(&self, facts: &mut Self::Facts, rel: usize, row: &[i64]);
    /// The generated `evaluate_indexed`, with `map` taking
    /// `concluded_counts()`; `sink` gets each case's counts (or error).
    #[allow(clippy::type_complexity)]
    fn evaluate_indexed(
        &self,
        n: usize,
        policy: Policy,
        batch: usize,
        threads: usize,
        make: &(dyn Fn(usize) -> Self::Facts + Sync),
        sink: &mut dyn FnMut(usize, Result<&[(&'static str, usize)], String>),
    );
}

/// The arguments the parent passes to `BIN --bench`.
pub fn child_args(cfg: &BenchConfig) -> Vec<String> {
    let mut a = vec![
        format!("cases={}", cfg.cases),
        format!("threads={}", cfg.threads),
        format!("batch={}", cfg.batch),
        format!("policy={}", cfg.policy.as_str()),
        format!("seed={}", cfg.synth.seed),
        format!("entities={}", cfg.synth.entities_per_type),
        format!("density={}", cfg.synth.density),
        format!("repeat={}", cfg.repeat),
        format!("progress={}", u8::from(cfg.progress)),
    ];
    if let Some(t) = &cfg.template {
        let t = t.canonicalize().unwrap_or_else(|_| t.clone());
        a.push(format!("template={}", t.display()));
    }
    a
}

fn parse_child_args(args: &[String]) -> Result<BenchConfig, BenchError> {
    let mut cfg = BenchConfig {
        strata_sample: 0,
        ..BenchConfig::default()
    };
    for a in args {
        let Some((k, v)) = a.split_once('=') else {
            return Err(BenchError::usage(&format!(
                "bench argument `{a}` is not key=value"
            )));
        };
        let num = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| BenchError::usage(&format!("bench argument `{a}`: not a number")))
        };
        match k {
            "cases" => cfg.cases = num(v)? as usize,
            "threads" => cfg.threads = num(v)? as usize,
            "batch" => cfg.batch = num(v)? as usize,
            "seed" => cfg.synth.seed = num(v)?,
            "entities" => cfg.synth.entities_per_type = num(v)? as usize,
            "repeat" => cfg.repeat = num(v)? as usize,
            "progress" => cfg.progress = num(v)? != 0,
            "density" => {
                cfg.synth.density = v
                    .parse()
                    .map_err(|_| BenchError::usage(&format!("bench argument `{a}`")))?
            }
            "policy" => {
                cfg.policy = match v {
                    "blocking" => Policy::Blocking,
                    "propagating" => Policy::Propagating,
                    _ => return Err(BenchError::usage(&format!("unknown policy `{v}`"))),
                }
            }
            "template" => cfg.template = Some(PathBuf::from(v)),
            _ => return Err(BenchError::usage(&format!("unknown bench argument `{k}`"))),
        }
    }
    cfg.validate()?;
    Ok(cfg)
}

/// `BIN --bench key=value…`: runs the benchmark in a compiled package's
/// process and prints the [`BenchResult`] as JSON on stdout. Returns the
/// exit code.
pub fn child_main<P: CompiledPackage>(pkg: &P, args: &[String]) -> i32 {
    match child(pkg, args) {
        Ok(r) => {
            println!("{}", r.to_json());
            0
        }
        Err(e) => {
            eprintln!("{e}");
            i32::from(e.code)
        }
    }
}

fn child<P: CompiledPackage>(pkg: &P, args: &[String]) -> Result<BenchResult, BenchError> {
    let cfg = parse_child_args(args)?;
    let loaded =
        crate::driver::load_bytes(pkg.source().as_bytes(), &Default::default()).map_err(|d| {
            BenchError::internal(format!(
                "the embedded package does not load:\n{}",
                d.render()
            ))
        })?;
    let m = &loaded.model;
    let prog = crate::lower::lower(m).map_err(BenchError::internal)?;
    // The input relation of each literal (as `read_facts_json` maps them).
    let mut rel_of: Vec<Option<usize>> = vec![None; 2 * m.preds.len()];
    for (i, rel) in prog.relations.iter().enumerate() {
        if let Role::Facts(l) = rel.role {
            rel_of[lit_slot(l)] = Some(i);
        }
    }
    let synth = make_synth(m, &cfg)?;
    let lits = count_literals(m);
    let index: HashMap<&str, usize> = lits
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    let make = |i: usize| -> P::Facts { push_case(pkg, &synth, &rel_of, &synth.draft(i as u64)) };
    let mut out = result_shell(m, "compiled", &cfg);
    let mut first: Option<Vec<u64>> = None;
    for r in 0..cfg.repeat {
        let mut progress = Progress::new(
            format!("compiled run {}/{}", r + 1, cfg.repeat),
            cfg.cases,
            cfg.progress,
        );
        let mut tally = Tally {
            totals: vec![0u64; lits.len()],
            perm: Vec::new(),
            error: None,
            done: 0,
        };
        let start = Instant::now();
        pkg.evaluate_indexed(
            cfg.cases,
            cfg.policy,
            cfg.batch,
            cfg.threads,
            &make,
            &mut |i, res| {
                tally.add(i, res, &index);
                if tally.done % 256 == 0 {
                    progress.update(tally.done);
                }
            },
        );
        out.runs.push(start.elapsed().as_secs_f64());
        progress.finish();
        if let Some(e) = tally.error {
            return Err(BenchError::internal(e));
        }
        if tally.done != cfg.cases {
            return Err(BenchError::internal(format!(
                "the compiled package returned {} results for {} cases",
                tally.done, cfg.cases
            )));
        }
        check_same_counts(&mut first, tally.totals, r, &lits)?;
    }
    let progress = Mutex::new(Progress::new(
        "generation only".to_owned(),
        cfg.cases,
        cfg.progress,
    ));
    let start = Instant::now();
    let facts = parallel(
        cfg.cases,
        cfg.threads,
        cfg.batch,
        Some(&progress),
        &|| 0u64,
        &|i, acc: &mut u64| {
            let d = synth.draft(i as u64);
            *acc += d.rows.len() as u64;
            drop(push_case(pkg, &synth, &rel_of, &d));
        },
    );
    out.generation = start.elapsed().as_secs_f64();
    progress.lock().map(|mut p| p.finish()).ok();
    out.facts = facts.into_iter().sum();
    out.counts = lits.into_iter().zip(first.unwrap_or_default()).collect();
    out.peak_rss_kib = peak_rss_kib();
    out.notes.push(
        "compiled: per-stratum times are not available (ascent's Engine::scc_times_summary() \
         is not reachable through the generated API)"
            .to_owned(),
    );
    add_template_note(&mut out);
    Ok(out)
}

/// The compiled child's sums of `concluded_counts()`.
struct Tally {
    totals: Vec<u64>,
    /// Position in `totals` of each entry of `concluded_counts()`, learnt
    /// from the first case (the array's order is fixed).
    perm: Vec<usize>,
    error: Option<String>,
    done: usize,
}

impl Tally {
    fn add(
        &mut self,
        case: usize,
        res: Result<&[(&'static str, usize)], String>,
        index: &HashMap<&str, usize>,
    ) {
        self.done += 1;
        let counts = match res {
            Ok(c) => c,
            Err(e) => {
                self.error
                    .get_or_insert_with(|| format!("case {case}: {e}"));
                return;
            }
        };
        if self.perm.len() != counts.len() {
            self.perm = counts
                .iter()
                .map(|(name, _)| index.get(name).copied().unwrap_or(usize::MAX))
                .collect();
            if let Some((l, _)) = index.iter().find(|(_, k)| !self.perm.contains(k)) {
                self.error.get_or_insert_with(|| {
                    format!("the compiled package does not count the literal `{l}`")
                });
            }
        }
        for (&k, (name, c)) in self.perm.iter().zip(counts) {
            match self.totals.get_mut(k) {
                Some(t) => *t += *c as u64,
                None => {
                    self.error.get_or_insert_with(|| {
                        format!(
                            "the compiled package counts `{name}`, \
                             which is not an institutional literal of the package"
                        )
                    });
                }
            }
        }
    }
}

/// One drawn case as the generated `Facts`: the same rows `Facts::from_json`
/// would push for the equivalent facts file. Entities are interned through
/// their type's constructor; for an entity that is not declared under
/// `entities` this also lists it as an entity of the type of the column it
/// occurs in, which changes nothing (docs/reference.md#undecided-judgments: an entity mentioned at a
/// column of type T is already an entity of T).
fn push_case<P: CompiledPackage>(
    pkg: &P,
    synth: &Synth,
    rel_of: &[Option<usize>],
    d: &Draft,
) -> P::Facts {
    let mut f = pkg.new_facts();
    let (names, types) = (synth.names(), synth.name_types());
    let mut ids = vec![-1i64; names.len()];
    for &(t, n) in &d.declared {
        ids[n as usize] = pkg.intern(&mut f, t.0 as usize, &names[n as usize]);
    }
    let mut row: Vec<i64> = Vec::with_capacity(8);
    for (lit, vals) in d.iter() {
        let Some(rel) = rel_of[lit_slot(lit)] else {
            continue;
        };
        row.clear();
        for v in vals {
            row.push(match *v {
                Val::Int(i) => i,
                Val::Ent(n) => {
                    let n = n as usize;
                    if ids[n] < 0 {
                        ids[n] = pkg.intern(&mut f, types[n].0 as usize, &names[n]);
                    }
                    ids[n]
                }
            });
        }
        pkg.push(&mut f, rel, &row);
    }
    f
}

// ---------------------------------------------------------------------------
// The compiled backend: the parent side.

/// Runs the benchmark through the package's compiled crate (built in `cache`
/// if needed; `progress` gets one-line build messages).
#[cfg(feature = "cli")]
pub fn run_compiled(
    loaded: &Loaded,
    cfg: &BenchConfig,
    cache: &std::path::Path,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchResult, BenchError> {
    run_compiled_with(loaded, cfg, crate::emit::Engine::default(), cache, progress)
}

/// [`run_compiled`] with the package compiled by `engine`.
#[cfg(feature = "cli")]
pub fn run_compiled_with(
    loaded: &Loaded,
    cfg: &BenchConfig,
    engine: crate::emit::Engine,
    cache: &std::path::Path,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchResult, BenchError> {
    use std::process::{Command, Stdio};
    cfg.validate()?;
    // The same errors as the interp backend, before any build.
    make_synth(&loaded.model, cfg)?;
    let load_before = load_average();
    let built = super::compiled::ensure_built_with(loaded, engine, cache, progress, true)
        .map_err(BenchError::internal)?;
    let out = Command::new(&built.binary)
        .arg("--bench")
        .args(child_args(cfg))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| BenchError::internal(format!("cannot run {}: {e}", built.binary.display())))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let code = out.status.code().unwrap_or(3);
        return Err(BenchError {
            code: if code == 1 || code == 2 {
                code as u8
            } else {
                3
            },
            message: format!(
                "error: the compiled package's benchmark failed ({}); see its messages above{}",
                out.status,
                if stdout.trim().is_empty() {
                    String::new()
                } else {
                    format!("\n{stdout}")
                }
            ),
        });
    }
    let json: J = serde_json::from_str(stdout.trim()).map_err(|e| {
        BenchError::internal(format!(
            "the compiled package's benchmark printed no result ({e}):\n{stdout}"
        ))
    })?;
    let mut r = BenchResult::from_json(&json).map_err(BenchError::internal)?;
    let want = count_literals(&loaded.model);
    let got: Vec<&String> = r.counts.iter().map(|(l, _)| l).collect();
    if got.len() != want.len() || got.iter().zip(&want).any(|(a, b)| *a != b) {
        return Err(BenchError::internal(
            "the compiled package's count table does not list the package's institutional literals",
        ));
    }
    r.load_before = load_before;
    r.load_after = load_average();
    r.coverage(&loaded.model);
    r.notes.push(format!("engine: {engine}"));
    if !built.cached && built.build_secs > 0.0 {
        r.notes.push(format!(
            "the package was compiled first ({:.1} s, not included)",
            built.build_secs
        ));
    }
    Ok(r)
}

// ---------------------------------------------------------------------------
// Shared pieces.

fn add_template_note(out: &mut BenchResult) {
    if out.template {
        out.notes.push(
            "template: every case is the template with its entity names unchanged \
             (cases are evaluated independently, so renaming would change nothing)"
                .to_owned(),
        );
    }
}

fn check_same_counts(
    first: &mut Option<Vec<u64>>,
    counts: Vec<u64>,
    run: usize,
    lits: &[String],
) -> Result<(), BenchError> {
    match first {
        None => {
            *first = Some(counts);
            Ok(())
        }
        Some(f) if *f == counts => Ok(()),
        Some(f) => {
            let k = f.iter().zip(&counts).position(|(a, b)| a != b).unwrap_or(0);
            Err(BenchError::internal(format!(
                "run {} concluded {} `{}` tuples, run 1 concluded {}: \
                 evaluation is not deterministic",
                run + 1,
                counts[k],
                lits.get(k).map_or("?", String::as_str),
                f[k]
            )))
        }
    }
}

fn sum(parts: Vec<Vec<u64>>, n: usize) -> Vec<u64> {
    let mut out = vec![0u64; n];
    for p in parts {
        for (o, x) in out.iter_mut().zip(p) {
            *o += x;
        }
    }
    out
}

/// Runs `work` over `0..n` in chunks on `threads` scoped threads, each with
/// its own accumulator; returns the accumulators.
fn parallel<A: Send>(
    n: usize,
    threads: usize,
    chunk: usize,
    progress: Option<&Mutex<Progress>>,
    init: &(dyn Fn() -> A + Sync),
    work: &(dyn Fn(usize, &mut A) + Sync),
) -> Vec<A> {
    let chunk = chunk.max(1);
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, n.max(1)))
            .map(|_| {
                let (next, done) = (&next, &done);
                scope.spawn(move || {
                    let mut acc = init();
                    loop {
                        let lo = next.fetch_add(chunk, Ordering::Relaxed);
                        if lo >= n {
                            break;
                        }
                        let hi = (lo + chunk).min(n);
                        for i in lo..hi {
                            work(i, &mut acc);
                        }
                        let d = done.fetch_add(hi - lo, Ordering::Relaxed) + hi - lo;
                        if let Some(Ok(mut p)) = progress.map(Mutex::try_lock) {
                            p.update(d);
                        }
                    }
                    acc
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A one-line progress bar on stderr (`\r`, ANSI erase-line), drawn only
/// when stderr is a terminal, at most ten times a second.
struct Progress {
    label: String,
    total: usize,
    start: Instant,
    last: Option<Instant>,
    enabled: bool,
}

impl Progress {
    fn new(label: String, total: usize, wanted: bool) -> Self {
        Progress {
            label,
            total,
            start: Instant::now(),
            last: None,
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    fn update(&mut self, done: usize) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self
            .last
            .is_some_and(|l| now.duration_since(l) < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(now);
        let frac = done as f64 / self.total.max(1) as f64;
        let width = 30;
        let filled = ((frac * width as f64) as usize).min(width);
        let secs = now.duration_since(self.start).as_secs_f64();
        let rate = done as f64 / secs.max(1e-9);
        let eta = (self.total.saturating_sub(done)) as f64 / rate.max(1e-9);
        eprint!(
            "\r\x1b[2K{} [{}{}] {:>3.0}% {}/{} cases, {}/s, {:.0} s left",
            self.label,
            "#".repeat(filled),
            " ".repeat(width - filled),
            frac * 100.0,
            done,
            self.total,
            si(rate),
            eta
        );
    }

    fn finish(&mut self) {
        if self.enabled && self.last.is_some() {
            eprint!("\r\x1b[2K");
        }
    }
}

/// `VmHWM` of this process, in KiB (Linux).
pub fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The 1, 5 and 15 minute load averages (Linux).
pub fn load_average() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// 1234567 → `1.23M`.
fn si(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.1}")
    }
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median, min and max of `f(run seconds)` (min/max of the value, not of
/// the time).
fn stats(runs: &[f64], f: impl Fn(f64) -> f64) -> [f64; 3] {
    let vals: Vec<f64> = runs.iter().map(|&s| f(s)).collect();
    let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    [median(&vals), min, max]
}

impl BenchResult {
    /// Cases per second: median, min, max over the runs.
    pub fn cases_per_sec(&self) -> [f64; 3] {
        let n = self.cases as f64;
        stats(&self.runs, |s| n / s.max(1e-12))
    }

    /// Facts per second: median, min, max.
    pub fn facts_per_sec(&self) -> [f64; 3] {
        let n = self.facts as f64;
        stats(&self.runs, |s| n / s.max(1e-12))
    }

    /// Microseconds per case: median, min, max.
    pub fn us_per_case(&self) -> [f64; 3] {
        let n = self.cases.max(1) as f64;
        stats(&self.runs, |s| s * 1e6 / n)
    }

    /// The measurements as JSON (what `--json` prints, and what the compiled
    /// child hands its parent).
    pub fn to_json(&self) -> J {
        let three = |a: [f64; 3]| json!({"median": a[0], "min": a[1], "max": a[2]});
        json!({
            "backend": self.backend,
            "package": self.package,
            "version": self.version,
            "policy": self.policy,
            "cases": self.cases,
            "threads": self.threads,
            "batch": self.batch,
            "seed": self.seed,
            "entities_per_type": self.entities_per_type,
            "density": self.density,
            "template": self.template,
            "facts": self.facts,
            "runs_secs": self.runs,
            "generation_secs": self.generation,
            "peak_rss_kib": self.peak_rss_kib,
            "counts": self.counts.iter().map(|(l, n)| json!([l, n])).collect::<Vec<_>>(),
            "strata": self.strata.as_ref().map(|s| s.iter().map(|t| json!({
                "stratum": t.label,
                "rules": t.rules,
                "heads": t.heads,
                "us_per_case": t.us_per_case,
            })).collect::<Vec<_>>()),
            "load_before": self.load_before,
            "load_after": self.load_after,
            "concludable": self.concludable,
            "never_concluded": self.never_concluded,
            "notes": self.notes,
            "cases_per_sec": three(self.cases_per_sec()),
            "facts_per_sec": three(self.facts_per_sec()),
            "us_per_case": three(self.us_per_case()),
            "generation_us_per_case": self.generation * 1e6 / self.cases.max(1) as f64,
        })
    }

    /// Reads [`BenchResult::to_json`] back.
    pub fn from_json(j: &J) -> Result<BenchResult, String> {
        let bad = |k: &str| format!("bench result: missing or invalid `{k}`");
        let s = |k: &str| j[k].as_str().map(str::to_owned).ok_or_else(|| bad(k));
        let u = |k: &str| j[k].as_u64().ok_or_else(|| bad(k));
        let f = |k: &str| j[k].as_f64().ok_or_else(|| bad(k));
        let three = |k: &str| -> Result<Option<[f64; 3]>, String> {
            match &j[k] {
                J::Null => Ok(None),
                J::Array(a) if a.len() == 3 => {
                    let v: Option<Vec<f64>> = a.iter().map(J::as_f64).collect();
                    let v = v.ok_or_else(|| bad(k))?;
                    Ok(Some([v[0], v[1], v[2]]))
                }
                _ => Err(bad(k)),
            }
        };
        let counts = j["counts"]
            .as_array()
            .ok_or_else(|| bad("counts"))?
            .iter()
            .map(|e| match (e[0].as_str(), e[1].as_u64()) {
                (Some(l), Some(n)) => Ok((l.to_owned(), n)),
                _ => Err(bad("counts")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let strata = match &j["strata"] {
            J::Null => None,
            J::Array(a) => Some(
                a.iter()
                    .map(|t| {
                        Ok(StratumTime {
                            label: t["stratum"]
                                .as_str()
                                .ok_or_else(|| bad("strata"))?
                                .to_owned(),
                            rules: t["rules"].as_u64().ok_or_else(|| bad("strata"))? as usize,
                            heads: t["heads"]
                                .as_array()
                                .ok_or_else(|| bad("strata"))?
                                .iter()
                                .filter_map(|h| h.as_str().map(str::to_owned))
                                .collect(),
                            us_per_case: t["us_per_case"].as_f64().ok_or_else(|| bad("strata"))?,
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            ),
            _ => return Err(bad("strata")),
        };
        Ok(BenchResult {
            backend: s("backend")?,
            package: s("package")?,
            version: s("version")?,
            policy: s("policy")?,
            cases: u("cases")? as usize,
            threads: u("threads")? as usize,
            batch: u("batch")? as usize,
            seed: u("seed")?,
            entities_per_type: u("entities_per_type")? as usize,
            density: f("density")?,
            template: j["template"].as_bool().ok_or_else(|| bad("template"))?,
            facts: u("facts")?,
            runs: j["runs_secs"]
                .as_array()
                .ok_or_else(|| bad("runs_secs"))?
                .iter()
                .map(|x| x.as_f64().ok_or_else(|| bad("runs_secs")))
                .collect::<Result<_, _>>()?,
            generation: f("generation_secs")?,
            peak_rss_kib: j["peak_rss_kib"].as_u64(),
            counts,
            strata,
            load_before: three("load_before")?,
            load_after: three("load_after")?,
            concludable: j["concludable"].as_u64().unwrap_or(0) as usize,
            never_concluded: j["never_concluded"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            notes: j["notes"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        })
    }

    /// The human-readable report.
    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "lawgen bench: {} {} — backend {}, policy {}",
            self.package, self.version, self.backend, self.policy
        );
        let what = if self.template {
            "every case the template".to_owned()
        } else {
            format!(
                "synthetic: seed {}, {} entities per type, density {}",
                self.seed, self.entities_per_type, self.density
            )
        };
        let _ = writeln!(
            o,
            "{} cases ({what}); {} input facts, {:.1} per case",
            self.cases,
            self.facts,
            self.facts as f64 / self.cases.max(1) as f64
        );
        let _ = writeln!(
            o,
            "{} thread(s), batch {}, {} run(s); times include drawing the cases",
            self.threads,
            self.batch,
            self.runs.len()
        );
        let _ = writeln!(o, "\n{:<16}{:>12}{:>12}{:>12}", "", "median", "min", "max");
        let row = |o: &mut String, name: &str, a: [f64; 3], fmt: &dyn Fn(f64) -> String| {
            let _ = writeln!(
                o,
                "{name:<16}{:>12}{:>12}{:>12}",
                fmt(a[0]),
                fmt(a[1]),
                fmt(a[2])
            );
        };
        row(&mut o, "cases/s", self.cases_per_sec(), &si);
        row(&mut o, "facts/s", self.facts_per_sec(), &si);
        row(&mut o, "µs per case", self.us_per_case(), &|x| {
            format!("{x:.2}")
        });
        let med = median(&self.runs);
        let _ = writeln!(o, "{:<16}{:>12}", "run (s)", format!("{med:.3}"));
        let gen_us = self.generation * 1e6 / self.cases.max(1) as f64;
        let _ = writeln!(
            o,
            "\ngeneration only: {:.3} s ({gen_us:.2} µs per case, {:.0}% of the median run); \
             without it ≈ {:.2} µs per case",
            self.generation,
            100.0 * self.generation / med.max(1e-12),
            (self.us_per_case()[0] - gen_us).max(0.0)
        );
        match self.peak_rss_kib {
            Some(k) => {
                let _ = writeln!(
                    o,
                    "peak memory: {:.1} MiB (VmHWM of the {} process)",
                    k as f64 / 1024.0,
                    if self.backend == "compiled" {
                        "compiled package's"
                    } else {
                        "lawgen"
                    }
                );
            }
            None => {
                let _ = writeln!(o, "peak memory: not available (no /proc/self/status)");
            }
        }
        let load = |l: Option<[f64; 3]>| {
            l.map_or("?".to_owned(), |l| {
                format!("{:.2} {:.2} {:.2}", l[0], l[1], l[2])
            })
        };
        let _ = writeln!(
            o,
            "load average: {} before, {} after ({} cores)",
            load(self.load_before),
            load(self.load_after),
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
        if let Some(strata) = &self.strata {
            let total: f64 = strata.iter().map(|s| s.us_per_case).sum();
            let _ = writeln!(o, "\ntime per stratum (µs per case, estimated):");
            for s in strata {
                let name = &s.label;
                let mut heads = s
                    .heads
                    .iter()
                    .take(4)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ");
                if s.heads.len() > 4 {
                    heads.push_str(&format!(", … ({} relations)", s.heads.len()));
                }
                let _ = writeln!(
                    o,
                    "  {name:>5} {:>10.2} {:>5.1}%  {} rules: {heads}",
                    s.us_per_case,
                    100.0 * s.us_per_case / total.max(1e-12),
                    s.rules
                );
            }
        }
        for n in &self.notes {
            let _ = writeln!(o, "note: {n}");
        }
        let _ = writeln!(
            o,
            "\nconcluded (+∂) tuples per institutional literal, all cases:"
        );
        let w = self
            .counts
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (l, n) in &self.counts {
            let _ = writeln!(o, "  {l:<w$}  {n:>12}");
        }
        let _ = writeln!(
            o,
            "{} of the {} literals with a strict or defeasible rule concluded at least once{}",
            self.concludable - self.never_concluded.len(),
            self.concludable,
            if self.never_concluded.is_empty() {
                String::new()
            } else {
                format!("; never: {}", self.never_concluded.join(", "))
            }
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess() -> Loaded {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json");
        crate::driver::load_file(&p, &Default::default()).expect("chess loads")
    }

    #[test]
    fn results_survive_json() {
        let cfg = BenchConfig {
            cases: 40,
            threads: 2,
            repeat: 2,
            progress: false,
            strata_sample: 4,
            ..BenchConfig::default()
        };
        let r = run_interp(&chess(), &cfg).unwrap();
        assert_eq!(r.runs.len(), 2);
        assert!(r.facts > 0 && r.strata.is_some());
        assert_eq!(BenchResult::from_json(&r.to_json()).unwrap(), r);
        let text = r.render_text();
        assert!(text.contains("cases/s") && text.contains("~game_drawn"));
    }

    #[test]
    fn child_arguments_round_trip() {
        let cfg = BenchConfig {
            cases: 7,
            threads: 3,
            batch: 5,
            policy: Policy::Propagating,
            synth: SynthOptions {
                seed: 9,
                entities_per_type: 4,
                density: 0.25,
            },
            repeat: 2,
            progress: false,
            ..BenchConfig::default()
        };
        let back = parse_child_args(&child_args(&cfg)).unwrap();
        assert_eq!(
            (back.cases, back.threads, back.batch, back.repeat),
            (7, 3, 5, 2)
        );
        assert_eq!(back.policy, Policy::Propagating);
        assert_eq!(back.synth, cfg.synth);
        assert!(!back.progress);
        assert!(parse_child_args(&["cases=0".to_owned()]).is_err());
        assert!(parse_child_args(&["nonsense".to_owned()]).is_err());
    }

    #[test]
    fn thread_count_does_not_change_the_counts() {
        let l = chess();
        let run = |threads| {
            let cfg = BenchConfig {
                cases: 60,
                threads,
                repeat: 1,
                progress: false,
                strata_sample: 0,
                ..BenchConfig::default()
            };
            run_interp(&l, &cfg).unwrap().counts
        };
        assert_eq!(run(1), run(3));
    }
}
