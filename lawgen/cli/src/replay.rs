//! `lawgen replay`: every receipt of a decision log evaluated again on the
//! packages given (`lawgen_serve::replay`, docs/service.md#replay).

use super::{read_other_input, Failure, Inputs};
use std::path::PathBuf;

/// `lawgen replay LOG --package FILE… [--verify-key FILE]`.
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
}

/// Prints each receipt that does not reproduce, with the reason, and a
/// summary; exit 1 if any does not.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let mut config = lawgen_serve::Config::new(args.packages);
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
