//! The `lawgen` command line: the arguments, parsed by clap, and for each
//! command one function of `lawgen_cli` that runs it (docs: `lawgen --help`,
//! README.md).

use clap::{Parser, Subcommand};
use lawgen_cli::{self as cli, Failure, Inputs, LimitArgs};
use std::path::PathBuf;
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

#[derive(Subcommand)]
enum Command {
    /// Validate a package and print a summary (exit 1 with diagnostics if invalid).
    Check(cli::check::Args),
    /// Print the lowered Datalog program (the defeasible overlay made explicit).
    Lower(cli::lower::Args),
    /// Evaluate a package on facts and print the canonical conclusions.
    Eval(cli::eval::Args),
    /// Generate a standalone Rust crate (Cargo.toml + src) for a package.
    Build(cli::build::Args),
    /// Explain one literal: the derivation, the rules that lost and why, or why it does not hold.
    Explain(cli::explain::Args),
    /// Every institutional conclusion (concluded, pending, or only supported), each explained.
    Verdicts(cli::verdicts::Args),
    /// Measure throughput on synthetic cases drawn from the package (or a template),
    /// with a per-literal count of conclusions that every backend must agree on.
    Bench(cli::bench::Args),
    /// Convert a package between package JSON and the text form (by
    /// extension: `.law` is the text form, anything else JSON).
    Convert(cli::convert::Args),
    /// Rewrite a package file in canonical form: JSON compact with sorted
    /// keys and every hash recomputed, the text form in its canonical layout.
    Fmt(cli::fmt::Args),
    /// Warnings about a package that checks: cross-case leaks, dropped
    /// cases, rules that never fire, unused declarations and judgments,
    /// priorities over strict rules, closures that close nothing (docs/lints.md).
    Lint(cli::lint::Args),
    /// Questions about every input at once, within a bound: a witness facts
    /// file, or a proof that none exists with at most K entities of each
    /// type (docs/analyze.md).
    Analyze(cli::analyze::Args),
    /// Run a suite of scenarios (NAME.facts.json beside NAME.expected.json):
    /// exit 1 on any difference; `--coverage` reports what happened to every
    /// rule, priority and judgment of the closure across the suite.
    Test(cli::test::Args),
    /// Print the predicate dependency graph (DOT, or SVG through Graphviz).
    Graph(cli::graph::Args),
    /// Write the review document: every node of the package and its imports
    /// in controlled Russian or English (docs/review-document.md).
    Doc(cli::doc::Args),
    /// Pin the packages a package imports: write PACKAGE.lock with the
    /// SHA-256 of each, which every later load verifies.
    Lock(cli::lock::Args),
    /// Answer evaluations and explanations over HTTP, each decision with a
    /// receipt (docs/service.md).
    Serve(cli::serve::Args),
    /// Evaluate every receipt of a decision log again and check that it
    /// reproduces: the packages' hashes, the facts' hash, the output byte
    /// for byte (docs/service.md#replay); with `--against`, list the
    /// verdicts a candidate version would change, and what decides each.
    Replay(cli::replay::Args),
    /// Write an Ed25519 key pair for signed receipts: NAME.key and NAME.pub.
    Keygen(cli::serve::KeygenArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let inputs = Inputs {
        limits: cli.limits.limits(),
        import_path: cli.import_path,
    };
    let i = &inputs;
    let result = match cli.command {
        Command::Check(a) => cli::check::command(a, i),
        Command::Lower(a) => cli::lower::command(a, i),
        Command::Eval(a) => cli::eval::command(a, i),
        Command::Build(a) => cli::build::command(a, i),
        Command::Explain(a) => cli::explain::command(a, i),
        Command::Verdicts(a) => cli::verdicts::command(a, i),
        Command::Bench(a) => cli::bench::command(a, i),
        Command::Convert(a) => cli::convert::command(a, i),
        Command::Fmt(a) => cli::fmt::command(a, i),
        Command::Lint(a) => cli::lint::command(a, i),
        Command::Analyze(a) => cli::analyze::command(a, i),
        Command::Test(a) => cli::test::command(a, i),
        Command::Graph(a) => cli::graph::command(a, i),
        Command::Doc(a) => cli::doc::command(a, i),
        Command::Lock(a) => cli::lock::command(a, i),
        Command::Serve(a) => cli::serve::command(a, i),
        Command::Replay(a) => cli::replay::command(a, i),
        Command::Keygen(a) => cli::serve::keygen(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { message, code }) => {
            // Line by line through the one escaping of package text: an
            // error quoting a package string keeps it visible, never raw.
            for line in message.split('\n') {
                eprintln!("{}", lawgen_runtime::text::Shown(line));
            }
            ExitCode::from(code)
        }
    }
}
