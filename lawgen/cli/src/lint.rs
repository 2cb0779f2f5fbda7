//! `lawgen lint`: the second opinion on a package that checks, printed.
//! The lints themselves are the library's ([`lawgen::lint`], where each
//! states the exact condition it fires on; `docs/lints.md`); this command
//! reads the package, prints the warnings (with a `.law` file's lines) and
//! fails on any when they are denied.

use clap::ValueEnum;
use std::path::PathBuf;

/// `lawgen lint PACKAGE [--deny warnings] [--format text|json]`.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
    /// `--deny warnings`: exit 1 when there is any warning.
    #[arg(long, value_enum)]
    deny: Option<Deny>,
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    format: LintFormat,
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

/// Prints the warnings (with a `.law` file's lines); fails on any when
/// they are denied.
pub fn command(args: Args, inputs: &super::Inputs) -> Result<(), super::Failure> {
    let package = &args.package;
    let bytes = super::read_input(package, &inputs.limits)?;
    let file = lawgen::driver::package_json(package, bytes, &inputs.limits)?;
    let loaded =
        lawgen::driver::load_package_json(package, &file, &inputs.limits, &inputs.import_path)?;
    let warnings = file.locate(lawgen::lint::warnings(&loaded));
    match args.format {
        LintFormat::Json => print!("{}", lawgen::lint::to_json(&warnings)),
        LintFormat::Text if warnings.is_empty() => {
            println!("{}: no warnings", package.display())
        }
        LintFormat::Text => print!("{}", warnings.render()),
    }
    if args.deny.is_some() && !warnings.is_empty() {
        return Err(super::Failure::new(
            1,
            format!(
                "error: {} has {} warning(s) and warnings are denied",
                package.display(),
                warnings.len()
            ),
        ));
    }
    Ok(())
}
