//! `lawgen graph`: the predicate dependency graph of a package as Graphviz
//! DOT ([`lawgen::graph::dot`], whose documentation says what is drawn), or
//! as SVG through Graphviz.

use clap::ValueEnum;
use std::path::PathBuf;

/// `lawgen graph PACKAGE [--format dot|svg]`.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    format: GraphFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphFormat {
    Dot,
    Svg,
}

/// Prints the graph as DOT, or as SVG through Graphviz.
pub fn command(args: Args, inputs: &super::Inputs) -> Result<(), super::Failure> {
    let loaded = inputs.load(&args.package)?;
    let dot = lawgen::graph::dot(&loaded);
    match args.format {
        GraphFormat::Dot => print!("{dot}"),
        GraphFormat::Svg => print!("{}", svg(&dot)?),
    }
    Ok(())
}

/// Renders DOT to SVG with Graphviz's `dot`, if installed.
fn svg(dot: &str) -> Result<String, super::Failure> {
    use super::Failure;
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::new(
            2,
            format!(
                "error: cannot run Graphviz `dot` ({e})\n  = help: install Graphviz (Debian: `apt-get install graphviz`), or use `--format dot` and render it elsewhere"
            ),
        ))?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(dot.as_bytes())
        .map_err(|e| Failure::new(2, format!("error: writing to `dot`: {e}")))?;
    let out = child
        .wait_with_output()
        .map_err(|e| Failure::new(2, format!("error: running `dot`: {e}")))?;
    if !out.status.success() {
        return Err(Failure::new(
            2,
            format!(
                "error: `dot` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
