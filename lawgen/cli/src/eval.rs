//! `lawgen eval`: a package evaluated on a facts file, the canonical output
//! printed, by the reference evaluator or by the package's compiled crate
//! ([`super::compiled`]).

use super::compiled::{self, CompiledError};
use super::{
    date_facts, internal, read_facts_file_with, Backend, EngineArg, Failure, Inputs, PolicyArg,
};
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
    /// The case's date, `YYYY-MM-DD`: the law in force on it applies
    /// (overrides the facts file's `asOf`; default: the package's current
    /// date, the latest date an edition of it entered into force).
    #[arg(long, value_name = "DATE")]
    as_of: Option<String>,
}

/// Prints the canonical output of the package on the facts.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let loaded = inputs.load(&args.package)?;
    match args.backend {
        Backend::Interp => {
            let mut facts =
                read_facts_file_with(&args.facts, &loaded, &inputs.limits, args.deny_deprecated)?;
            date_facts(&mut facts, args.as_of.as_deref(), &loaded)?;
            let ev =
                lawgen::driver::evaluate(&loaded, &facts, args.policy.into()).map_err(internal)?;
            print!("{}", canonical_json(&ev.conclusions));
        }
        Backend::Compiled => {
            // Read the facts here too, so errors look the same on both backends.
            let mut facts =
                read_facts_file_with(&args.facts, &loaded, &inputs.limits, args.deny_deprecated)?;
            date_facts(&mut facts, args.as_of.as_deref(), &loaded)?;
            // Checked by `date_facts`; the compiled binary takes it as an
            // argument, which overrides the file's `asOf` as the flag does.
            let as_of = args
                .as_of
                .as_deref()
                .filter(|_| loaded.catalog.law.is_dated());
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
            let out = compiled::run(
                &built,
                &args.facts,
                Policy::from(args.policy).as_str(),
                as_of,
            )
            .map_err(fail)?;
            if out.code != 0 {
                return Err(Failure::new(out.code.clamp(1, 3) as u8, out.stderr));
            }
            print!("{}", out.stdout);
        }
    }
    Ok(())
}
