//! `lawgen lower`: the Datalog program a package lowers to, printed.

use super::{internal, Failure, Inputs};
use std::path::PathBuf;

/// `lawgen lower PACKAGE`.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
}

/// Prints the lowered program (`Program`'s `Display`).
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let loaded = inputs.load(&args.package)?;
    let program = lawgen::driver::lower(&loaded).map_err(internal)?;
    print!("{program}");
    Ok(())
}
