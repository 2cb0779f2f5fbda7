//! `lawgen convert`: a package between package JSON and the text form
//! ([`lawgen::format::convert`]).

use super::{read_input, Failure, Inputs};
use std::path::PathBuf;

/// `lawgen convert INPUT OUTPUT`.
#[derive(clap::Args)]
pub struct Args {
    /// The package to read (`.json` or `.law`).
    input: PathBuf,
    /// The file to write; its extension picks the form.
    output: PathBuf,
}

/// Writes `output` in the form its extension names.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let (input, output) = (&args.input, &args.output);
    let bytes = read_input(input, &inputs.limits)?;
    let r = lawgen::format::convert(input, &bytes, output)
        .map_err(|e| Failure::new(1, e.render(input)))?;
    eprint!("{}", super::fmt::describe_changes(&r.changes));
    std::fs::write(output, r.output.as_bytes())
        .map_err(|e| Failure::new(2, format!("error: cannot write {}: {e}", output.display())))?;
    eprintln!("lawgen: wrote {}", output.display());
    Ok(())
}
