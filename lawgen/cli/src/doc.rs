//! `lawgen doc`: the review document of a package (the library's
//! [`lawgen::doc::Builder`], from the command line).

use super::{Failure, Inputs, PolicyArg};
use std::path::PathBuf;

/// `lawgen doc PACKAGE [--lang L] [--format F] [--scenarios DIR] [--out FILE]`.
#[derive(clap::Args)]
pub struct Args {
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
}

/// Prints the document, or writes it to `--out`.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let usage = |message: String| Failure::new(2, format!("error: {message}"));
    let mut b = lawgen::doc::Builder::new()
        .package(&args.package)
        .lang(args.lang.parse().map_err(usage)?)
        .format(args.format.parse().map_err(usage)?)
        .policy(args.policy.into())
        .limits(inputs.limits);
    for d in &inputs.import_path {
        b = b.import_path(d);
    }
    if let Some(dir) = &args.scenarios {
        b = b.scenarios(dir);
    }
    match &args.out {
        Some(file) => b.write(file)?,
        None => print!("{}", b.render()?),
    }
    Ok(())
}
