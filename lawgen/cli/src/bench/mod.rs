//! `lawgen bench`: how fast a package evaluates, on synthetic cases.
//!
//! ```text
//! lawgen bench PACKAGE [--cases N] [--backend compiled|interp] [--threads T]
//!     [--batch B] [--policy blocking|propagating] [--seed S] [--entities E]
//!     [--density D] [--template FACTS.json] [--repeat R] [--json]
//! ```
//!
//! Cases come from [`lawgen::synth`] (case `i` is a pure function of the seed,
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
//!
//! One file per job: `config` (what to run), `result` (what a run measures, the count table), `interp` and `strata`
//! (the reference evaluator and its per-stratum estimate), `child` and
//! `compiled` (the compiled backend, in the package's process and in this
//! one) and `protocol` (between the two), `measure` (worker threads, the
//! progress bar, memory and load readings), `report` (the text).

mod config;
mod measure;
mod protocol;
mod result;

mod child;
#[cfg(feature = "cli")]
mod compiled;
#[cfg(feature = "cli")]
mod interp;
#[cfg(feature = "cli")]
mod report;
#[cfg(feature = "cli")]
mod strata;

pub use child::{child_main, CompiledPackage};
#[cfg(feature = "cli")]
pub use compiled::{run_compiled, run_compiled_with};
pub use config::{BenchConfig, BenchError};
#[cfg(feature = "cli")]
pub use interp::run_interp;
pub use measure::{load_average, peak_rss_kib};
pub use protocol::child_args;
pub use result::{count_literals, make_synth, BenchResult, StratumTime};

#[cfg(feature = "cli")]
pub use command::{command, Args};

/// The command line of `lawgen bench`.
#[cfg(feature = "cli")]
mod command {
    use super::{run_compiled_with, run_interp, BenchConfig, BenchError};
    use crate::{Backend, Failure, Inputs, PolicyArg};
    use clap::ValueEnum;
    use lawgen::synth::SynthOptions;
    use std::path::PathBuf;

    /// `lawgen bench PACKAGE [--cases N] [--backend B | --engine E] …`.
    #[derive(clap::Args)]
    pub struct Args {
        package: PathBuf,
        /// How many cases to evaluate per run.
        #[arg(long, default_value_t = 10_000)]
        cases: usize,
        /// `compiled`: the package's cached crate, cases drawn in its
        /// process. `interp`: the reference evaluator.
        #[arg(long, value_enum, default_value_t = Backend::Compiled)]
        backend: Backend,
        /// `ascent` or `direct`: the compiled backend with that engine;
        /// `interp`: the reference evaluator (as `--backend interp`).
        #[arg(long, value_enum)]
        engine: Option<BenchEngine>,
        /// Worker threads (default: the available cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Cases per engine run (compiled backend).
        #[arg(long, default_value_t = 1024)]
        batch: usize,
        #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
        policy: PolicyArg,
        /// Seed of the case generator (case i depends on the seed and i only).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Generated entities per entity type in each case (constants come on top).
        #[arg(long, default_value_t = 2)]
        entities: usize,
        /// Mean chance, 0 to 1, that each rule is instantiated in a case.
        #[arg(long, default_value_t = 0.5)]
        density: f64,
        /// Evaluate this facts file as every case instead of synthetic ones.
        #[arg(long)]
        template: Option<PathBuf>,
        /// Timed runs over all cases (the report gives their median, min and max).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Print the result as JSON instead of the report.
        #[arg(long)]
        json: bool,
        /// Where compiled packages are cached (default: $LAWGEN_CACHE_DIR or ~/.cache/lawgen).
        #[arg(long)]
        cache_dir: Option<PathBuf>,
    }

    #[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
    enum BenchEngine {
        Ascent,
        Direct,
        Interp,
    }

    /// Runs the benchmark and prints the report (or its JSON).
    pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
        let loaded = inputs.load(&args.package)?;
        let cfg = BenchConfig {
            cases: args.cases,
            threads: args
                .threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            batch: args.batch,
            policy: args.policy.into(),
            synth: SynthOptions {
                seed: args.seed,
                entities_per_type: args.entities,
                density: args.density,
            },
            template: args.template,
            repeat: args.repeat,
            progress: true,
            ..Default::default()
        };
        let fail = |e: BenchError| Failure::new(e.code, e.message);
        // `--engine interp` is `--backend interp`; `--engine ascent|direct`
        // the compiled backend with that engine.
        let engine = match (args.engine, args.backend) {
            (Some(BenchEngine::Interp), _) | (None, Backend::Interp) => None,
            (Some(BenchEngine::Direct), _) => Some(lawgen::Engine::Direct),
            (Some(BenchEngine::Ascent), _) | (None, Backend::Compiled) => {
                Some(lawgen::Engine::Ascent)
            }
        };
        let result = match engine {
            None => run_interp(&loaded, &cfg),
            Some(engine) => {
                let cache = args
                    .cache_dir
                    .unwrap_or_else(crate::compiled::default_cache_dir);
                run_compiled_with(&loaded, &cfg, engine, &cache, &mut |m| {
                    eprintln!("lawgen: {m}")
                })
            }
        }
        .map_err(fail)?;
        if args.json {
            println!("{:#}", result.to_json());
        } else {
            print!("{}", result.render_text());
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::protocol::parse_child_args;
    use super::*;
    use lawgen::driver::Loaded;
    use lawgen::synth::SynthOptions;
    use lawgen_runtime::Policy;

    fn chess() -> Loaded {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json");
        lawgen::driver::load_file(&p, &Default::default()).expect("chess loads")
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
