//! `lawgen lint`: the second opinion on a package that checks. Where `check`
//! refuses what has no meaning, `lint` warns about what has a meaning that is
//! probably not the law's: facts of one case deciding another, conclusions
//! that forget their case, rules that can never fire, declarations and
//! judgments nothing uses, priorities that cannot act, closures that close
//! nothing, derogations that set aside nothing that mattered. Each lint
//! states in its module the exact condition it fires on and why that
//! condition does not fire on correct packages; the reference with an
//! example per lint is `docs/lints.md`.
//!
//! Lints run on a checked package (a [`Loaded`]) and only read it.

mod case;
mod editions;
mod never;
mod unused;

use clap::ValueEnum;
use lawgen::diagnostics::{Code, Diagnostics, Location};
use lawgen::driver::Loaded;
use lawgen::internals::model::{Model, Rule};
use lawgen::internals::syntax::{self, NodeKind};
use std::collections::HashMap;
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
    let warnings = file.locate(lint(&loaded));
    match args.format {
        LintFormat::Json => print!("{}", syntax::canon::diagnostics_json(&warnings)),
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

/// Every warning for a checked package, sorted by location.
pub fn lint(loaded: &Loaded) -> Diagnostics {
    let cx = Cx::new(loaded);
    let mut out = Diagnostics::new();
    case::cross_case_leak(&cx, &mut out);
    case::head_drops_case(&cx, &mut out);
    never::never_fires(&cx, &mut out);
    never::derogation_without_effect(&cx, &mut out);
    unused::unused_declarations(&cx, &mut out);
    unused::judgments_never_read(&cx, &mut out);
    priority_over_strict(&cx, &mut out);
    closure_domain_empty(&cx, &mut out);
    editions::edition_never_in_force(&cx, &mut out);
    editions::rule_of_two_works(&cx, &mut out);
    editions::priority_never_together(&cx, &mut out);
    out.sort();
    out
}

/// What the lints share: the model, and where each node and body item is.
pub(crate) struct Cx<'a> {
    pub m: &'a Model,
    pub loaded: &'a Loaded,
    /// Node id → JSON pointer of the node.
    node_ptr: HashMap<&'a str, &'a str>,
    /// Rule id → pointers of its body items, in order.
    item_ptrs: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Cx<'a> {
    fn new(loaded: &'a Loaded) -> Self {
        let mut node_ptr = HashMap::new();
        let mut item_ptrs = HashMap::new();
        for n in &loaded.package().nodes {
            node_ptr.insert(n.id.as_str(), n.ptr.as_str());
            if let NodeKind::Rule(r) = &n.kind {
                item_ptrs.insert(
                    n.id.as_str(),
                    r.body.iter().map(syntax::Item::ptr).collect(),
                );
            }
        }
        Cx {
            m: loaded.model(),
            loaded,
            node_ptr,
            item_ptrs,
        }
    }

    pub fn node(&self, id: &str) -> Location {
        Location::new(Some(id), self.node_ptr.get(id).copied().unwrap_or(""))
    }

    /// The location of body item `k` of `rule` (the rule, if unknown).
    pub fn item(&self, rule: &Rule, k: usize) -> Location {
        match self.item_ptrs.get(rule.id.as_str()).and_then(|v| v.get(k)) {
            Some(p) => Location::new(Some(&rule.id), *p),
            None => self.node(&rule.id),
        }
    }
}

/// W005. A `priority_rule` whose lower rule is strict.
///
/// Condition: `lower` is a strict rule. Why it is a mistake: priorities only
/// decide between rules at the defeasible level (docs/reference.md#proof-tags, +∂ condition 3);
/// a strict rule concludes definitely whenever its body holds definitely, and
/// +Δ ignores priorities, so the "lower" rule still wins exactly when its
/// facts are given. Correct packages make a rule they mean to override
/// defeasible, so this never fires on them.
fn priority_over_strict(cx: &Cx, out: &mut Diagnostics) {
    for p in &cx.m.priorities {
        let lo = cx.m.rule(p.lower);
        if lo.strength != lawgen_runtime::program::Strength::Strict {
            continue;
        }
        let hi = cx.m.rule(p.higher);
        out.error(
            Code::PriorityOverStrict,
            cx.node(&p.id),
            format!(
                "`{}` ranks `{}` over the strict rule `{}`, which still concludes `{}` definitely whenever its body holds definitely: priorities do not affect definite conclusions",
                lawgen_runtime::program::local_name(&p.id),
                hi.local,
                lo.local,
                cx.m.lit_name(lo.head.lit()),
            ),
            format!(
                "make `{}` defeasible if `{}` is meant to override it, or drop the priority",
                lo.local, hi.local
            ),
        );
    }
}

/// W006. A closure whose domain nothing can establish definitely.
///
/// Condition: the domain predicate is institutional and has no strict rule
/// concluding it positively. Why: a closure derives `~p(t)` for every `t`
/// with `+Δ domain(t)` (docs/reference.md#closures); an empirical or judgment domain is filled
/// by facts, an institutional one only by strict rules (defeasible rules
/// never give +Δ), so without one the closure derives nothing, ever.
fn closure_domain_empty(cx: &Cx, out: &mut Diagnostics) {
    for c in &cx.m.closures {
        let d = cx.m.pred(c.domain);
        if d.kind != lawgen_runtime::program::RelationKind::Institutional {
            continue;
        }
        let lit = lawgen_runtime::program::Lit {
            pred: c.domain,
            negative: false,
        };
        let strict =
            cx.m.rules_for(lit)
                .any(|r| cx.m.rule(r).strength == lawgen_runtime::program::Strength::Strict);
        if strict {
            continue;
        }
        out.error(
            Code::ClosureDomainEmpty,
            cx.node(&c.id),
            format!(
                "the closure `{}` closes `{}` over `{}`, which no fact or strict rule can establish definitely, so it never derives `~{}`",
                lawgen_runtime::program::local_name(&c.id),
                cx.m.pred(c.pred).local,
                d.local,
                cx.m.pred(c.pred).local,
            ),
            format!(
                "close over an empirical predicate that lists the checked cases, or conclude `{}` by a strict rule",
                d.local
            ),
        );
    }
}
