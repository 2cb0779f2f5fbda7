//! `lawgen check`: validate a package; for a valid one, print the
//! one-screen summary of [`lawgen::summary::render`], whose documentation
//! says what it holds.

/// `lawgen check PACKAGE [--lang en|ru]`.
#[derive(clap::Args)]
pub struct Args {
    /// The package JSON (law.core.ir/0.2).
    package: std::path::PathBuf,
    /// Language of the summary (`en`, `ru`).
    #[arg(long, default_value = "en")]
    lang: String,
}

/// Prints the summary, or fails with every diagnostic.
pub fn command(args: Args, inputs: &super::Inputs) -> Result<(), super::Failure> {
    let loaded = inputs.load(&args.package)?;
    print!("{}", lawgen::summary::render(&loaded, &args.lang));
    Ok(())
}
