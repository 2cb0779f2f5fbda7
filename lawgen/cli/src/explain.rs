//! `lawgen explain`: one literal explained — the derivation, the rules that
//! lost and why, or why it does not hold (`lawgen_runtime::explain`).

use super::{date_facts, internal, read_facts_file, Failure, Inputs, PolicyArg};
use clap::ValueEnum;
use lawgen_runtime::explain;
use std::path::PathBuf;

/// `lawgen explain PACKAGE --facts FILE LITERAL [--format F] [--lang L]`.
#[derive(clap::Args)]
pub struct Args {
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
    /// The case's date, `YYYY-MM-DD` (overrides the facts file's `asOf`;
    /// default: the package's current date).
    #[arg(long, value_name = "DATE")]
    as_of: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExplainFormat {
    Text,
    Json,
}

/// Prints the explanation as text or JSON.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let loaded = inputs.load(&args.package)?;
    let mut facts = read_facts_file(&args.facts, &loaded, &inputs.limits)?;
    date_facts(&mut facts, args.as_of.as_deref(), &loaded)?;
    let ev = lawgen::driver::evaluate(&loaded, &facts, args.policy.into()).map_err(internal)?;
    let q = explain::parse_query(&loaded.catalog, &args.literal)
        .map_err(|m| Failure::new(1, format!("error: {m}")))?;
    let e = explain::explain(
        &ev.program,
        &ev.store,
        ev.conclusions.policy,
        &q,
        &args.lang,
    );
    match args.format {
        ExplainFormat::Text => print!("{}", e.text()),
        ExplainFormat::Json => print!("{}", e.to_json()),
    }
    Ok(())
}
