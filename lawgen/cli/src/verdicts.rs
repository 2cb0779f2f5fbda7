//! `lawgen verdicts`: every institutional conclusion of a package on a facts
//! file — concluded, pending, or only supported — each explained.

use super::{internal, read_facts_file, Failure, Inputs, PolicyArg};
use lawgen::driver::{Evaluated, Loaded};
use lawgen_runtime::explain;
use lawgen_runtime::program::{RelationKind, Section, Value};
use lawgen_runtime::text::Shown;
use std::path::{Path, PathBuf};

/// `lawgen verdicts PACKAGE --facts FILE [--policy P] [--lang L]`.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
    #[arg(long)]
    facts: PathBuf,
    #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
    policy: PolicyArg,
    /// Language of the explanations (`en`, `ru`).
    #[arg(long, default_value = "en")]
    lang: String,
}

/// Prints every verdict with its explanation, then the judgments requested.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let loaded = inputs.load(&args.package)?;
    let facts = read_facts_file(&args.facts, &loaded, &inputs.limits)?;
    let ev = lawgen::driver::evaluate(&loaded, &facts, args.policy.into()).map_err(internal)?;
    print!("{}", verdicts(&loaded, &ev, &args.facts, &args.lang));
    Ok(())
}

/// Every institutional literal that is concluded, pending or only supported, explained.
fn verdicts(loaded: &Loaded, ev: &Evaluated, facts: &Path, lang: &str) -> String {
    let c = &ev.conclusions;
    // Package strings are shown through `text` (explanations are already).
    let mut out = format!(
        "{} {} on {} (policy: {})\n",
        Shown(loaded.name()),
        Shown(loaded.version()),
        Shown(&facts.display().to_string()),
        c.policy.as_str()
    );
    let mut seen = std::collections::BTreeSet::new();
    for sec in [Section::Defeasibly, Section::Pending, Section::Supported] {
        for (lit, rows) in &c.sections[&sec] {
            let Some(l) = loaded.catalog.lit_of(lit) else {
                continue;
            };
            if loaded.catalog.pred(l.pred).kind != RelationKind::Institutional {
                continue;
            }
            for row in rows {
                if !seen.insert((lit.clone(), row.clone())) {
                    continue;
                }
                let q = explain::Query {
                    lit: l,
                    args: row.clone(),
                };
                out.push('\n');
                let e = explain::explain(&ev.program, &ev.store, c.policy, &q, lang);
                out.push_str(&e.text());
            }
        }
    }
    if seen.is_empty() {
        out.push_str(
            "\nno institutional conclusion: the rules conclude nothing from these facts\n",
        );
    }
    if !c.requests.is_empty() {
        out.push_str("\njudgments requested:\n");
        for r in &c.requests {
            let args: Vec<String> = r
                .args
                .iter()
                .map(|v| match v {
                    Value::Int(i) => i.to_string(),
                    Value::Entity(e) => e.clone(),
                })
                .collect();
            let line = format!(
                "{}({}) — to be decided by {} ({})",
                r.predicate,
                args.join(", "),
                r.authority,
                r.capability
            );
            out.push_str(&format!("  {}\n", Shown(&line)));
        }
    }
    out
}
