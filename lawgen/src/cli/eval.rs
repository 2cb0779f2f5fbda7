//! `lawgen eval`: a package evaluated on a facts file, the canonical output
//! printed, by the reference evaluator or by the package's compiled crate
//! ([`super::compiled`]).

use super::compiled::{self, CompiledError};
use super::{internal, read_facts_file_with, Backend, EngineArg, Failure, Inputs, PolicyArg};
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::Policy;
use std::path::PathBuf;

/// `lawgen eval PACKAGE --facts FILE [--policy P] [--backend B] [--engine E]`.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
    /// The facts file (JSON: `{"facts": {"predicate": [[value, ...]]}}`).
    #[arg(long)]
    facts: PathBuf,
    #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
    policy: PolicyArg,
    /// `interp`: the reference evaluator. `compiled`: generate a crate,
    /// build it once with cargo (cached by package), run it through ascent.
    #[arg(long, value_enum, default_value_t = Backend::Interp)]
    backend: Backend,
    /// The compiled backend's engine (the generated API is the same).
    #[arg(long, value_enum, default_value_t = EngineArg::Ascent)]
    engine: EngineArg,
    /// Where compiled packages are cached (default: $LAWGEN_CACHE_DIR or ~/.cache/lawgen).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Refuse facts of inputs the package deprecates, instead of warning
    /// (docs/reference.md#deprecated-inputs).
    #[arg(long)]
    deny_deprecated: bool,
}

/// Prints the canonical output of the package on the facts.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let loaded = inputs.load(&args.package)?;
    match args.backend {
        Backend::Interp => {
            let facts =
                read_facts_file_with(&args.facts, &loaded, &inputs.limits, args.deny_deprecated)?;
            let ev =
                crate::driver::evaluate(&loaded, &facts, args.policy.into()).map_err(internal)?;
            print!("{}", canonical_json(&ev.conclusions));
        }
        Backend::Compiled => {
            // Read the facts here too, so errors look the same on both backends.
            read_facts_file_with(&args.facts, &loaded, &inputs.limits, args.deny_deprecated)?;
            let cache = args.cache_dir.unwrap_or_else(compiled::default_cache_dir);
            let fail = |e: CompiledError| Failure::new(3, format!("error: {e}"));
            let built = compiled::ensure_built_with(
                &loaded,
                args.engine.into(),
                &cache,
                &mut |m| eprintln!("lawgen: {m}"),
                false,
            )
            .map_err(fail)?;
            let out = compiled::run(&built, &args.facts, Policy::from(args.policy).as_str())
                .map_err(fail)?;
            if out.code != 0 {
                return Err(Failure::new(out.code.clamp(1, 3) as u8, out.stderr));
            }
            print!("{}", out.stdout);
        }
    }
    Ok(())
}
