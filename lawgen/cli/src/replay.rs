//! `lawgen replay`: every receipt of a decision log evaluated again on the
//! packages given (`lawgen_serve::replay`, docs/service.md#replay), and
//! with `--against`, compared with a candidate version of its package
//! (`lawgen_serve::replay::against`, docs/service.md#replay-against-a-candidate).

use super::{read_other_input, Failure, Inputs};
use std::path::PathBuf;

/// `lawgen replay LOG --package FILE… [--verify-key FILE] [--against FILE…
/// [--against-import-path DIR…] [--format text|json]]`.
#[derive(clap::Args)]
pub struct Args {
    /// The decision log: receipts, one JSON line each (`lawgen serve
    /// --decision-log`).
    log: PathBuf,
    /// A package the receipts name, with its import closure (repeatable).
    #[arg(long = "package", value_name = "FILE", required = true)]
    packages: Vec<PathBuf>,
    /// A public key file of `lawgen keygen`: every receipt must carry a
    /// signature by it that verifies.
    #[arg(long, value_name = "FILE")]
    verify_key: Option<PathBuf>,
    /// A candidate version of a package the receipts name (repeatable):
    /// list every institutional verdict it would change, and what decides
    /// it before and after.
    #[arg(long = "against", value_name = "FILE")]
    against: Vec<PathBuf>,
    /// Where the candidates' imports are searched for (repeatable; default:
    /// `--import-path`).
    #[arg(long = "against-import-path", value_name = "DIR", requires = "against")]
    against_import_path: Vec<PathBuf>,
    /// The report of `--against`: text, or one JSON document
    /// (`lawgen.impact/0.1`).
    #[arg(long, value_enum, default_value_t = Format::Text, requires = "against")]
    format: Format,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Prints each receipt that does not reproduce, with the reason, and a
/// summary; exit 1 if any does not.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let mut config = lawgen_serve::Config::new(args.packages.clone());
    config.import_path = inputs.import_path.clone();
    config.limits = inputs.limits;
    let app = lawgen_serve::App::load(&config).map_err(|e| Failure::new(1, e.0))?;
    // A log holds a facts file per line: bounded by the facts limit of
    // every line at once is no bound, so by the package limit's order.
    let limit = inputs.limits.max_facts_bytes.saturating_mul(64);
    let bytes = read_other_input(
        &args.log,
        limit,
        "replay the log in parts, or raise `--max-facts-bytes` (a log may hold 64 times it)",
    )?;
    let log = String::from_utf8(bytes).map_err(|e| {
        Failure::new(
            1,
            format!("error: {} is not UTF-8: {e}", args.log.display()),
        )
    })?;
    let key = match &args.verify_key {
        Some(p) => {
            Some(lawgen_serve::signing::read_verifying_key(p).map_err(|e| Failure::new(1, e))?)
        }
        None => None,
    };
    if !args.against.is_empty() {
        return against(&args, inputs, &app, &log, key.as_ref());
    }
    let results = lawgen_serve::replay::replay(&app, &log, key.as_ref());
    let mut failed = 0;
    for r in &results {
        if let Some(p) = &r.problem {
            failed += 1;
            println!("{}:{}: does not reproduce: {p}", args.log.display(), r.line);
        }
    }
    println!(
        "replayed {} receipt(s): {} reproduce, {failed} do not",
        results.len(),
        results.len() - failed
    );
    if failed > 0 {
        return Err(Failure::new(
            1,
            format!(
                "error: {failed} receipt(s) of {} do not reproduce",
                args.log.display()
            ),
        ));
    }
    Ok(())
}

/// `--against`: prints the report; exit 1 if a line could not be compared
/// (each such line is in the report with the reason).
fn against(
    args: &Args,
    inputs: &Inputs,
    app: &lawgen_serve::App,
    log: &str,
    key: Option<&lawgen_serve::VerifyingKey>,
) -> Result<(), Failure> {
    let mut config = lawgen_serve::Config::new(args.against.clone());
    config.import_path = if args.against_import_path.is_empty() {
        inputs.import_path.clone()
    } else {
        args.against_import_path.clone()
    };
    config.limits = inputs.limits;
    let candidate = lawgen_serve::App::load(&config).map_err(|e| {
        Failure::new(
            1,
            format!(
                "{}\nerror: a candidate package (`--against`) cannot be loaded; nothing was compared",
                e.0.trim_end()
            ),
        )
    })?;
    let name = args.log.display().to_string();
    let cases = lawgen_serve::replay::against::impact(app, &candidate, log, key, "en");
    match args.format {
        Format::Text => print!("{}", lawgen_serve::replay::against::text(&name, &cases)),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&lawgen_serve::replay::against::to_json(&name, &cases))
                .map_err(|e| Failure::new(3, format!("error: {e}")))?
        ),
    }
    let failed = cases.iter().filter(|c| c.result.is_err()).count();
    if failed > 0 {
        return Err(Failure::new(
            1,
            format!(
                "error: {failed} receipt(s) of {name} could not be compared with the candidate"
            ),
        ));
    }
    Ok(())
}
