//! The `lawgen` command line: a thin layer of argument parsing over the library.

use clap::{Parser, Subcommand, ValueEnum};
use lawgen::driver::{self, Loaded};
use lawgen::syntax::ReadLimits;
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
}

#[derive(Subcommand)]
enum Command {
    /// Validate a package and print a summary (exit 1 with diagnostics if invalid).
    Check {
        /// The package JSON (law.core.ir/0.2).
        package: PathBuf,
    },
    /// Print the predicate dependency graph (DOT, or SVG through Graphviz).
    Graph {
        package: PathBuf,
        #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
        format: GraphFormat,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphFormat {
    Dot,
    Svg,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
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

fn load(path: &Path) -> Result<Loaded, Failure> {
    Ok(driver::load_file(path, &ReadLimits::default())?)
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Check { package } => {
            let loaded = load(&package)?;
            print!("{}", lawgen::summary::render(&loaded));
        }
        Command::Graph { package, format } => {
            let loaded = load(&package)?;
            let dot = lawgen::graph::dot(&loaded.model);
            match format {
                GraphFormat::Dot => print!("{dot}"),
                GraphFormat::Svg => print!("{}", svg(&dot)?),
            }
        }
    }
    Ok(())
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
