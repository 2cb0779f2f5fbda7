//! The `lawgen` command line: a thin layer of argument parsing over the library.

use clap::{Parser, Subcommand, ValueEnum};
use lawgen::driver::{self, Loaded};
use lawgen::explain;
use lawgen::interp::Policy;
use lawgen::program::Section;
use lawgen::syntax::facts::{read_facts_from, Facts};
use lawgen::syntax::ReadLimits;
use lawgen::syntax::RelationKind;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "lawgen",
    version,
    about = "Compile and evaluate law.core.ir rule packages"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    limits: LimitArgs,
    /// A directory to search for imported packages, after the importing
    /// file's own directory (repeatable; searched in order).
    #[arg(long = "import-path", value_name = "DIR", global = true)]
    import_path: Vec<PathBuf>,
}

/// Resource limits on packages (docs/security.md).
#[derive(clap::Args)]
struct LimitArgs {
    /// Largest accepted package file, in bytes.
    #[arg(long, global = true, default_value_t = ReadLimits::default().max_bytes)]
    max_package_bytes: usize,
    /// Most nodes in a package.
    #[arg(long, global = true, default_value_t = ReadLimits::default().max_nodes)]
    max_nodes: usize,
    /// Deepest JSON nesting (at most 128).
    #[arg(long, global = true, default_value_t = ReadLimits::default().max_depth)]
    max_depth: usize,
    /// Longest JSON string, in bytes.
    #[arg(long, global = true, default_value_t = ReadLimits::default().max_string_bytes)]
    max_string_bytes: usize,
    /// Most parameters of one predicate.
    #[arg(long, global = true, default_value_t = ReadLimits::default().max_arity)]
    max_arity: usize,
    /// Most items in one rule body (and two more than the most rules attacking one literal); at most 2000.
    #[arg(long, global = true, default_value_t = ReadLimits::default().max_rule_body)]
    max_rule_body: usize,
    /// Largest lowered program, in body items (an upper bound computed before lowering).
    #[arg(long, global = true, default_value_t = ReadLimits::default().max_program_size)]
    max_program_size: usize,
}

/// How this invocation reads packages: its limits and its `--import-path`
/// directories (from the global options, passed to every command).
struct Inputs {
    limits: ReadLimits,
    import_path: Vec<PathBuf>,
}

impl Inputs {
    fn load(&self, path: &Path) -> Result<Loaded, Failure> {
        Ok(driver::load_file_with(
            path,
            &self.limits,
            &self.import_path,
        )?)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Validate a package and print a summary (exit 1 with diagnostics if invalid).
    Check {
        /// The package JSON (law.core.ir/0.2).
        package: PathBuf,
        /// Language of the summary (`en`, `ru`).
        #[arg(long, default_value = "en")]
        lang: String,
    },
    /// Print the lowered Datalog program (the defeasible overlay made explicit).
    Lower { package: PathBuf },
    /// Evaluate a package on facts and print the canonical conclusions.
    Eval {
        package: PathBuf,
        /// The facts file (JSON: `{"facts": {"predicate": [[value, ...]]}}`).
        #[arg(long)]
        facts: PathBuf,
        #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
        policy: PolicyArg,
        /// `interp`: the reference evaluator. `compiled`: generate a crate,
        /// build it once with cargo (cached by package), run it through ascent.
        #[arg(long, value_enum, default_value_t = Backend::Interp)]
        backend: Backend,
        /// The compiled backend's engine (the generated API is the same).
        #[arg(long, value_enum, default_value_t = EngineArg::Ascent)]
        engine: EngineArg,
        /// Where compiled packages are cached (default: $LAWGEN_CACHE_DIR or ~/.cache/lawgen).
        #[arg(long)]
        cache_dir: Option<PathBuf>,
    },
    /// Generate a standalone Rust crate (Cargo.toml + src) for a package.
    Build {
        package: PathBuf,
        /// The crate directory to write (created if needed; files are rewritten only when changed).
        #[arg(long)]
        out: PathBuf,
        /// The module/crate name (default: the package name in snake case).
        #[arg(long)]
        module_name: Option<String>,
        /// Where the crate gets lawgen-runtime: `path=DIR`, `git=URL` or
        /// `version=X` (default: the lawgen-runtime of this lawgen's source tree).
        #[arg(long, value_parser = clap::value_parser!(lawgen::builder::RuntimeDep))]
        runtime: Option<lawgen::builder::RuntimeDep>,
        /// Write a maturin project for a Python module instead (`pip install DIR`; docs/python.md).
        #[arg(long)]
        python: bool,
        /// The engine behind the generated API.
        #[arg(long, value_enum, default_value_t = EngineArg::Ascent)]
        engine: EngineArg,
    },
    /// Explain one literal: the derivation, the rules that lost and why, or why it does not hold.
    Explain {
        package: PathBuf,
        #[arg(long)]
        facts: PathBuf,
        /// The literal, e.g. 'game_drawn(g1)' or '~game_drawn(g1)'.
        literal: String,
        #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
        format: ExplainFormat,
        #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
        policy: PolicyArg,
        /// Language of labels, article texts and lawgen's own words (`en`, `ru`;
        /// a node without a label in that language shows its first one).
        #[arg(long, default_value = "en")]
        lang: String,
    },
    /// Every institutional conclusion (concluded, pending, or only supported), each explained.
    Verdicts {
        package: PathBuf,
        #[arg(long)]
        facts: PathBuf,
        #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
        policy: PolicyArg,
        /// Language of the explanations (`en`, `ru`).
        #[arg(long, default_value = "en")]
        lang: String,
    },
    /// Measure throughput on synthetic cases drawn from the package (or a template),
    /// with a per-literal count of conclusions that every backend must agree on.
    Bench {
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
    },
    /// Convert a package between package JSON and the text form (by
    /// extension: `.law` is the text form, anything else JSON).
    Convert {
        /// The package to read (`.json` or `.law`).
        input: PathBuf,
        /// The file to write; its extension picks the form.
        output: PathBuf,
    },
    /// Rewrite a package file in canonical form: JSON compact with sorted
    /// keys and every hash recomputed, the text form in its canonical layout.
    Fmt {
        file: PathBuf,
        /// Write nothing; exit 1 if the file is not in canonical form.
        #[arg(long)]
        check: bool,
    },
    /// Warnings about a package that checks: cross-case leaks, dropped
    /// cases, rules that never fire, unused declarations and judgments,
    /// priorities over strict rules, closures that close nothing (docs/lints.md).
    Lint {
        package: PathBuf,
        /// `--deny warnings`: exit 1 when there is any warning.
        #[arg(long, value_enum)]
        deny: Option<Deny>,
        #[arg(long, value_enum, default_value_t = LintFormat::Text)]
        format: LintFormat,
    },
    /// Questions about every input at once, within a bound: a witness facts
    /// file, or a proof that none exists with at most K entities of each
    /// type (docs/analyze.md).
    Analyze {
        package: PathBuf,
        /// Fresh entities of each type besides the package's constants.
        #[arg(long, default_value_t = 2)]
        bound: usize,
        /// Each integer constant c of the rules brings c-N..=c+N.
        #[arg(long, default_value_t = 1)]
        spread: u32,
        #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
        policy: PolicyArg,
        /// Two literals concluded for one binding: `--exclusive 'game_drawn(G)' 'game_lost_by(G, _)'`.
        #[arg(long, num_args = 2, value_names = ["LIT", "LIT"], action = clap::ArgAction::Append)]
        exclusive: Vec<String>,
        /// A conjunction `LIT, not LIT, …` that some input reaches.
        #[arg(long, value_name = "GOAL")]
        goal: Vec<String>,
        /// The section literals are read from: definitely, defeasibly (the default), supported, pending.
        #[arg(long)]
        level: Option<String>,
        /// An input under which the rule applies and concludes its head.
        #[arg(long, value_name = "RULE")]
        reachable: Vec<String>,
        /// Every rule: list those that can never apply, or never conclude.
        #[arg(long)]
        unreachable: bool,
        /// The fewest facts that conclude the literal.
        #[arg(long, value_name = "LIT")]
        requires: Vec<String>,
        /// Another package (often one this package imports): for each
        /// institutional literal, an input on which the two disagree.
        #[arg(long, value_name = "OTHER")]
        compare: Option<PathBuf>,
        /// Named properties (JSON, or the text form); exit 1 on a violation.
        #[arg(long, value_name = "FILE")]
        properties: Option<PathBuf>,
        /// Keep the first witness found instead of the one with fewest facts.
        #[arg(long)]
        no_minimize: bool,
        /// Seconds minimizing one witness may take (past them the smallest
        /// found so far is shown, not claimed to be the fewest).
        #[arg(long, default_value_t = 20.0)]
        minimize_seconds: f64,
        /// Language of explanations (`en`, `ru`).
        #[arg(long, default_value = "en")]
        lang: String,
        /// Print the answers as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a suite of scenarios (NAME.facts.json beside NAME.expected.json):
    /// exit 1 on any difference; `--coverage` reports what happened to every
    /// rule, priority and judgment of the closure across the suite.
    Test {
        /// The suite directory.
        dir: PathBuf,
        /// The package (default: `package` of DIR/suite.json).
        #[arg(long)]
        package: Option<PathBuf>,
        /// The policy of scenarios whose expectation names none.
        #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
        policy: PolicyArg,
        /// Report coverage: per rule, per priority, per judgment.
        #[arg(long)]
        coverage: bool,
        /// Exit 1 when fewer rules than N% were concluded or defeated (or
        /// allow-listed in DIR/coverage.allow); implies --coverage.
        #[arg(long, value_name = "N")]
        min_coverage: Option<f64>,
        #[arg(long, value_enum, default_value_t = TestFormat::Text)]
        format: TestFormat,
    },
    /// Print the predicate dependency graph (DOT, or SVG through Graphviz).
    Graph {
        package: PathBuf,
        #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
        format: GraphFormat,
    },
    /// Write the review document: every node of the package and its imports
    /// in controlled Russian or English (docs/review-document.md).
    Doc {
        package: PathBuf,
        /// Language of the document (`ru`, `en`).
        #[arg(long, default_value = "en")]
        lang: String,
        /// `text`, `md` or `html` (one self-contained page).
        #[arg(long, default_value = "text")]
        format: String,
        /// A scenario suite (`NAME.facts.json` files): the page shows, for
        /// each rule, what each scenario concluded of it.
        #[arg(long, value_name = "DIR")]
        scenarios: Option<PathBuf>,
        /// The policy the scenarios are evaluated under.
        #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
        policy: PolicyArg,
        /// Write to this file (only when its bytes change) instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TestFormat {
    Text,
    Json,
    Junit,
}

#[derive(Clone, Copy, ValueEnum)]
enum PolicyArg {
    /// Ambiguity blocking (default).
    Blocking,
    /// Ambiguity propagation.
    Propagating,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Blocking => Policy::Blocking,
            PolicyArg::Propagating => Policy::Propagating,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    Interp,
    Compiled,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// Every rule in one `ascent!` program per batch (default).
    Ascent,
    /// Per-case Rust with small typed tables.
    Direct,
}

impl From<EngineArg> for lawgen::Engine {
    fn from(e: EngineArg) -> lawgen::Engine {
        match e {
            EngineArg::Ascent => lawgen::Engine::Ascent,
            EngineArg::Direct => lawgen::Engine::Direct,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchEngine {
    Ascent,
    Direct,
    Interp,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExplainFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Deny {
    Warnings,
}

#[derive(Clone, Copy, ValueEnum)]
enum LintFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphFormat {
    Dot,
    Svg,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let l = &cli.limits;
    let inputs = Inputs {
        limits: ReadLimits {
            max_bytes: l.max_package_bytes,
            max_nodes: l.max_nodes,
            max_depth: l.max_depth,
            max_string_bytes: l.max_string_bytes,
            max_arity: l.max_arity,
            max_rule_body: l.max_rule_body,
            max_program_size: l.max_program_size,
        },
        import_path: cli.import_path.clone(),
    };
    match run(cli.command, &inputs) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { message, code }) => {
            eprintln!("{message}");
            ExitCode::from(code)
        }
    }
}

struct Failure {
    message: String,
    code: u8,
}

impl From<driver::LoadError> for Failure {
    fn from(e: driver::LoadError) -> Self {
        Failure {
            code: e.exit_code() as u8,
            message: e.to_string(),
        }
    }
}

fn read_input(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure {
        code: 2,
        message: format!("error: cannot read {}: {e}", path.display()),
    })
}

/// Reads a facts file streaming (never the whole file in memory).
fn read_facts_file(path: &Path, loaded: &Loaded) -> Result<Facts, Failure> {
    let file = std::fs::File::open(path).map_err(|e| Failure {
        code: 2,
        message: format!("error: cannot read {}: {e}", path.display()),
    })?;
    let facts = read_facts_from(file, &loaded.catalog).map_err(|d| Failure {
        code: 1,
        message: format!(
            "{}error: {} is not a valid facts file for {}",
            d.render(),
            path.display(),
            loaded.model.name
        ),
    })?;
    if facts.duplicates > 0 {
        eprintln!(
            "warning: {} duplicated fact row(s) in {} were counted once",
            facts.duplicates,
            path.display()
        );
    }
    Ok(facts)
}

fn internal(e: lawgen::lower::InternalError) -> Failure {
    Failure {
        code: 3,
        message: format!("error: {e}"),
    }
}

impl From<lawgen::doc::DocError> for Failure {
    fn from(e: lawgen::doc::DocError) -> Self {
        Failure {
            code: e.exit_code() as u8,
            message: e.to_string(),
        }
    }
}

fn run(command: Command, inputs: &Inputs) -> Result<(), Failure> {
    match command {
        Command::Doc {
            package,
            lang,
            format,
            scenarios,
            policy,
            out,
        } => {
            let usage = |message: String| Failure {
                code: 2,
                message: format!("error: {message}"),
            };
            let mut b = lawgen::doc::Builder::new();
            b.package(&package)
                .lang(lang.parse().map_err(usage)?)
                .format(format.parse().map_err(usage)?)
                .policy(policy.into())
                .limits(inputs.limits);
            for d in &inputs.import_path {
                b.import_path(d);
            }
            if let Some(dir) = &scenarios {
                b.scenarios(dir);
            }
            match &out {
                Some(file) => b.write(file)?,
                None => print!("{}", b.render()?),
            }
        }
        Command::Lower { package } => {
            let loaded = inputs.load(&package)?;
            let program = lawgen::lower::lower(&loaded.model).map_err(internal)?;
            print!("{program}");
        }
        Command::Eval {
            package,
            facts,
            policy,
            backend: Backend::Compiled,
            engine,
            cache_dir,
        } => {
            let loaded = inputs.load(&package)?;
            // Read the facts here too, so errors look the same on both backends.
            read_facts_file(&facts, &loaded)?;
            let cache = cache_dir.unwrap_or_else(lawgen::cli::compiled::default_cache_dir);
            let fail = |e: lawgen::cli::compiled::CompiledError| Failure {
                code: 3,
                message: format!("error: {e}"),
            };
            let built = lawgen::cli::compiled::ensure_built_with(
                &loaded,
                engine.into(),
                &cache,
                &mut |m| eprintln!("lawgen: {m}"),
                false,
            )
            .map_err(fail)?;
            let out = lawgen::cli::compiled::run(&built, &facts, Policy::from(policy).as_str())
                .map_err(fail)?;
            if out.code != 0 {
                return Err(Failure {
                    code: out.code.clamp(1, 3) as u8,
                    message: out.stderr,
                });
            }
            print!("{}", out.stdout);
        }
        Command::Build {
            package,
            out,
            module_name,
            runtime,
            python,
            engine,
        } => {
            let fail = |e: lawgen::BuildError| Failure {
                code: match &e {
                    lawgen::BuildError::Package(l) => l.exit_code() as u8,
                    _ => 3,
                },
                message: e.to_string(),
            };
            let runtime =
                runtime.unwrap_or_else(lawgen::builder::RuntimeDep::default_for_this_build);
            if python {
                let (loaded, emitted) = lawgen::builder::load_and_emit(
                    &package,
                    module_name.as_deref(),
                    engine.into(),
                    &inputs.limits,
                    &inputs.import_path,
                )
                .map_err(fail)?;
                let name = lawgen::python::write_project(&out, &loaded.model, &emitted, &runtime)
                    .map_err(fail)?;
                eprintln!(
                    "wrote the Python project `{name}` (module `{}`) to {}; `pip install {}` builds it",
                    emitted.module_name,
                    out.display(),
                    out.display()
                );
                return Ok(());
            }
            let emitted = lawgen::builder::generate_with(
                &package,
                module_name.as_deref(),
                engine.into(),
                &inputs.limits,
                &inputs.import_path,
            )
            .map_err(fail)?;
            let name = lawgen::builder::write_crate(&out, None, &emitted, &runtime, false)
                .map_err(fail)?;
            eprintln!(
                "wrote crate `{name}` to {} ({} relations, {} rules); it depends on lawgen-runtime and ascent {}",
                out.display(),
                emitted.relations,
                emitted.rules,
                lawgen::builder::ASCENT_VERSION
            );
        }
        Command::Eval {
            package,
            facts,
            policy,
            backend: Backend::Interp,
            ..
        } => {
            let loaded = inputs.load(&package)?;
            let facts = read_facts_file(&facts, &loaded)?;
            let ev = driver::evaluate(&loaded, &facts, policy.into()).map_err(internal)?;
            print!(
                "{}",
                lawgen::syntax::output::canonical_json(&ev.conclusions)
            );
        }
        Command::Check { package, lang } => {
            let loaded = inputs.load(&package)?;
            print!("{}", lawgen::cli::check::render_in(&loaded, &lang));
        }
        Command::Explain {
            package,
            facts,
            literal,
            format,
            policy,
            lang,
        } => {
            let loaded = inputs.load(&package)?;
            let facts = read_facts_file(&facts, &loaded)?;
            let ev = driver::evaluate(&loaded, &facts, policy.into()).map_err(internal)?;
            let q = explain::parse_query(&loaded.catalog, &literal).map_err(|m| Failure {
                code: 1,
                message: format!("error: {m}"),
            })?;
            let e = explain::explain(&ev.program, &ev.store, ev.conclusions.policy, &q, &lang);
            match format {
                ExplainFormat::Text => print!("{}", e.text()),
                ExplainFormat::Json => print!("{}", e.to_json()),
            }
        }
        Command::Verdicts {
            package,
            facts,
            policy,
            lang,
        } => {
            let loaded = inputs.load(&package)?;
            let facts_path = facts;
            let facts = read_facts_file(&facts_path, &loaded)?;
            let ev = driver::evaluate(&loaded, &facts, policy.into()).map_err(internal)?;
            print!("{}", verdicts(&loaded, &ev, &facts_path, &lang));
        }
        Command::Bench {
            package,
            cases,
            backend,
            engine,
            threads,
            batch,
            policy,
            seed,
            entities,
            density,
            template,
            repeat,
            json,
            cache_dir,
        } => {
            let loaded = inputs.load(&package)?;
            let cfg = lawgen::cli::bench::BenchConfig {
                cases,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                batch,
                policy: policy.into(),
                synth: lawgen::cli::bench::synth::SynthOptions {
                    seed,
                    entities_per_type: entities,
                    density,
                },
                template,
                repeat,
                progress: true,
                ..Default::default()
            };
            let fail = |e: lawgen::cli::bench::BenchError| Failure {
                code: e.code,
                message: e.message,
            };
            // `--engine interp` is `--backend interp`; `--engine ascent|direct`
            // the compiled backend with that engine.
            let engine = match (engine, backend) {
                (Some(BenchEngine::Interp), _) | (None, Backend::Interp) => None,
                (Some(BenchEngine::Direct), _) => Some(lawgen::Engine::Direct),
                (Some(BenchEngine::Ascent), _) | (None, Backend::Compiled) => {
                    Some(lawgen::Engine::Ascent)
                }
            };
            let result = match engine {
                None => lawgen::cli::bench::run_interp(&loaded, &cfg),
                Some(engine) => {
                    let cache = cache_dir.unwrap_or_else(lawgen::cli::compiled::default_cache_dir);
                    lawgen::cli::bench::run_compiled_with(&loaded, &cfg, engine, &cache, &mut |m| {
                        eprintln!("lawgen: {m}")
                    })
                }
            }
            .map_err(fail)?;
            if json {
                println!("{:#}", result.to_json());
            } else {
                print!("{}", result.render_text());
            }
        }
        Command::Convert { input, output } => {
            let bytes = read_input(&input)?;
            let r = lawgen::cli::fmt::convert(&input, &bytes, &output).map_err(|e| Failure {
                code: 1,
                message: e.render(&input),
            })?;
            eprint!("{}", lawgen::cli::fmt::describe_changes(&r.changes));
            std::fs::write(&output, r.output.as_bytes()).map_err(|e| Failure {
                code: 2,
                message: format!("error: cannot write {}: {e}", output.display()),
            })?;
            eprintln!("lawgen: wrote {}", output.display());
        }
        Command::Fmt { file, check } => {
            let bytes = read_input(&file)?;
            let r = lawgen::cli::fmt::format(&file, &bytes).map_err(|e| Failure {
                code: 1,
                message: e.render(&file),
            })?;
            let canonical = r.output.as_bytes() == bytes.as_slice();
            eprint!("{}", lawgen::cli::fmt::describe_changes(&r.changes));
            if check {
                if !canonical {
                    return Err(Failure {
                        code: 1,
                        message: format!(
                            "error: {} is not in canonical form
  = help: run `lawgen fmt {}`",
                            file.display(),
                            file.display()
                        ),
                    });
                }
            } else if canonical {
                eprintln!("lawgen: {} is already in canonical form", file.display());
            } else {
                std::fs::write(&file, r.output.as_bytes()).map_err(|e| Failure {
                    code: 2,
                    message: format!("error: cannot write {}: {e}", file.display()),
                })?;
                eprintln!("lawgen: rewrote {}", file.display());
            }
        }
        Command::Lint {
            package,
            deny,
            format,
        } => {
            let bytes = read_input(&package)?;
            let file = driver::package_json(&package, bytes, &inputs.limits)?;
            let loaded =
                driver::load_package_json(&package, &file, &inputs.limits, &inputs.import_path)?;
            let warnings = file.locate(lawgen::cli::lint::lint(&loaded));
            match format {
                LintFormat::Json => {
                    print!("{}", lawgen::syntax::canon::diagnostics_json(&warnings))
                }
                LintFormat::Text if warnings.is_empty() => {
                    println!("{}: no warnings", package.display())
                }
                LintFormat::Text => print!("{}", warnings.render()),
            }
            if deny.is_some() && !warnings.is_empty() {
                return Err(Failure {
                    code: 1,
                    message: format!(
                        "error: {} has {} warning(s) and warnings are denied",
                        package.display(),
                        warnings.len()
                    ),
                });
            }
        }
        Command::Analyze {
            package,
            bound,
            spread,
            policy,
            exclusive,
            goal,
            level,
            reachable,
            unreachable,
            requires,
            compare,
            properties,
            no_minimize,
            minimize_seconds,
            lang,
            json,
        } => {
            use lawgen::cli::analyze;
            let fail = |e: analyze::Error| Failure {
                code: e.code,
                message: e.to_string(),
            };
            let loaded = inputs.load(&package)?;
            let program = lawgen::lower::lower(&loaded.model).map_err(internal)?;
            let other = match &compare {
                Some(p) => {
                    let l = inputs.load(p)?;
                    Some(lawgen::lower::lower(&l.model).map_err(internal)?)
                }
                None => None,
            };
            let properties = match properties {
                Some(p) => Some((p.display().to_string(), read_input(&p)?)),
                None => None,
            };
            let req = analyze::run::Request {
                exclusive: exclusive
                    .chunks(2)
                    .map(|c| (c[0].clone(), c[1].clone()))
                    .collect(),
                goals: goal,
                level: level
                    .map(|l| analyze::pattern::parse_level(&l))
                    .transpose()
                    .map_err(|m| fail(analyze::Error::usage(m)))?,
                reachable,
                unreachable,
                requires,
                compare: other.is_some(),
                properties,
                json,
            };
            let opts = analyze::Options {
                bound: analyze::domain::Bound {
                    entities: bound,
                    spread,
                },
                policy: policy.into(),
                minimize: !no_minimize,
                symmetry: true,
                lang,
                minimize_seconds,
                explain: true,
            };
            let report = analyze::run::run(&program, other.as_ref(), &req, &opts).map_err(fail)?;
            print!("{}", report.text);
            if report.code != 0 {
                return Err(Failure {
                    code: report.code,
                    message: "error: a property is violated (its witness is above)".into(),
                });
            }
        }
        Command::Test {
            dir,
            package,
            policy,
            coverage,
            min_coverage,
            format,
        } => {
            use lawgen::cli::test;
            let fail = |e: test::SuiteError| Failure {
                code: e.code,
                message: e.message,
            };
            let suite = test::discover(&dir).map_err(fail)?;
            let Some(package) = package.or_else(|| suite.package.clone()) else {
                return Err(Failure {
                    code: 2,
                    message: format!(
                        "error: no package for the suite {}\n  = help: pass `--package PACKAGE`, or name it in {}",
                        dir.display(),
                        dir.join(test::SUITE_FILE).display()
                    ),
                });
            };
            let mut import_path = suite.import_path.clone();
            import_path.extend(inputs.import_path.iter().cloned());
            let loaded = driver::load_file_with(&package, &inputs.limits, &import_path)?;
            let with_coverage = coverage || min_coverage.is_some();
            let outcomes = test::run(&loaded, &suite, policy.into(), with_coverage);
            let cov = if with_coverage {
                Some(test::coverage(&loaded, &suite, &outcomes).map_err(fail)?)
            } else {
                None
            };
            let name = format!("{} {}", loaded.model.name, loaded.model.version);
            match format {
                TestFormat::Text => {
                    print!("{}", test::render_results(&outcomes));
                    if let Some(c) = &cov {
                        print!("{}", test::render_coverage(c, min_coverage));
                    }
                }
                TestFormat::Json => print!("{}", test::render_json(&name, &outcomes, cov.as_ref())),
                TestFormat::Junit => print!("{}", test::render_junit(&name, &outcomes)),
            }
            let failed = outcomes.iter().filter(|o| !o.passed()).count();
            if failed > 0 {
                return Err(Failure {
                    code: 1,
                    message: format!("error: {failed} of {} scenarios failed", outcomes.len()),
                });
            }
            if let (Some(min), Some(c)) = (min_coverage, &cov) {
                if c.percent() < min {
                    let missing: Vec<&str> = c
                        .rules
                        .iter()
                        .filter(|r| !r.covered() && r.allowed.is_none())
                        .map(|r| r.name.as_str())
                        .collect();
                    return Err(Failure {
                        code: 1,
                        message: format!(
                            "error: coverage {:.1}% is below the minimum {min}%: never concluded or defeated: {}\n  = help: add a scenario that reaches each, or list it with its reason in {}",
                            c.percent(),
                            missing.join(", "),
                            dir.join(test::ALLOW_LIST).display()
                        ),
                    });
                }
            }
        }
        Command::Graph { package, format } => {
            let loaded = inputs.load(&package)?;
            let dot = lawgen::cli::graph::dot(&loaded.model);
            match format {
                GraphFormat::Dot => print!("{dot}"),
                GraphFormat::Svg => print!("{}", svg(&dot)?),
            }
        }
    }
    Ok(())
}

/// Every institutional literal that is concluded, pending or only supported, explained.
fn verdicts(loaded: &Loaded, ev: &driver::Evaluated, facts: &Path, lang: &str) -> String {
    let m = &loaded.model;
    let c = &ev.conclusions;
    let mut out = format!(
        "{} {} on {} (policy: {})\n",
        m.name,
        m.version,
        facts.display(),
        c.policy.as_str()
    );
    let mut seen = std::collections::BTreeSet::new();
    for sec in [Section::Defeasibly, Section::Pending, Section::Supported] {
        for (lit, rows) in &c.sections[&sec] {
            let Some(l) = loaded.catalog.lit_of(lit) else {
                continue;
            };
            if m.pred(l.pred).kind != RelationKind::Institutional {
                continue;
            }
            for row in rows {
                if !seen.insert((lit.clone(), row.clone())) {
                    continue;
                }
                let q = explain::Query {
                    lit: l,
                    args: row.clone(),
                };
                out.push('\n');
                let e = explain::explain(&ev.program, &ev.store, c.policy, &q, lang);
                out.push_str(&e.text());
            }
        }
    }
    if seen.is_empty() {
        out.push_str(
            "\nno institutional conclusion: the rules conclude nothing from these facts\n",
        );
    }
    if !c.requests.is_empty() {
        out.push_str("\njudgments requested:\n");
        for r in &c.requests {
            let args: Vec<String> = r
                .args
                .iter()
                .map(|v| match v {
                    lawgen::model::Value::Int(i) => i.to_string(),
                    lawgen::model::Value::Entity(e) => e.clone(),
                })
                .collect();
            out.push_str(&format!(
                "  {}({}) — to be decided by {} ({})\n",
                r.predicate,
                args.join(", "),
                r.authority,
                r.capability
            ));
        }
    }
    out
}

/// Renders DOT to SVG with Graphviz's `dot`, if installed.
fn svg(dot: &str) -> Result<String, Failure> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure {
            code: 2,
            message: format!(
                "error: cannot run Graphviz `dot` ({e})\n  = help: install Graphviz (Debian: `apt-get install graphviz`), or use `--format dot` and render it elsewhere"
            ),
        })?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(dot.as_bytes())
        .map_err(|e| Failure {
            code: 2,
            message: format!("error: writing to `dot`: {e}"),
        })?;
    let out = child.wait_with_output().map_err(|e| Failure {
        code: 2,
        message: format!("error: running `dot`: {e}"),
    })?;
    if !out.status.success() {
        return Err(Failure {
            code: 2,
            message: format!(
                "error: `dot` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
