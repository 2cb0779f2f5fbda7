//! Lints: the second opinion on a package that checks (`lawgen lint`). Where `check`
//! refuses what has no meaning, `lint` warns about what has a meaning that is
//! probably not the law's: facts of one case deciding another, conclusions
//! that forget their case, rules that can never fire, declarations and
//! judgments nothing uses, priorities that cannot act, closures that close
//! nothing, derogations that set aside nothing that mattered. Each lint
//! states in its module the exact condition it fires on and why that
//! condition does not fire on correct packages; the reference with an
//! example per lint is `docs/lints.md`.
//!
//! Lints run on a checked package (a [`Loaded`]) and only read it:
//! [`warnings`] gives every warning, which the `lawgen lint` command prints
//! as text or as [`to_json`]. The codes are the diagnostic catalogue's
//! (`W0xx`, [`crate::diagnostics::Code`]).

mod case;
mod editions;
mod never;
mod unused;

use crate::diagnostics::{Code, Diagnostics, Location};
use crate::driver::Loaded;
use crate::model::{Model, Rule};
use crate::syntax::{self, NodeKind};
use std::collections::HashMap;

/// Every warning for a checked package, sorted by location: what `lawgen
/// lint` prints. A `.law` file's lines are added by
/// [`crate::driver::PackageJson::locate`].
pub fn warnings(loaded: &Loaded) -> Diagnostics {
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
    pub(crate) m: &'a Model,
    pub(crate) loaded: &'a Loaded,
    /// Node id → JSON pointer of the node.
    node_ptr: HashMap<&'a str, &'a str>,
    /// Rule id → pointers of its body items, in order.
    item_ptrs: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Cx<'a> {
    fn new(loaded: &'a Loaded) -> Self {
        let mut node_ptr = HashMap::new();
        let mut item_ptrs = HashMap::new();
        for n in &loaded.package.nodes {
            node_ptr.insert(n.id.as_str(), n.ptr.as_str());
            if let NodeKind::Rule(r) = &n.kind {
                item_ptrs.insert(
                    n.id.as_str(),
                    r.body.iter().map(syntax::Item::ptr).collect(),
                );
            }
        }
        Cx {
            m: &loaded.model,
            loaded,
            node_ptr,
            item_ptrs,
        }
    }

    pub(crate) fn node(&self, id: &str) -> Location {
        Location::new(Some(id), self.node_ptr.get(id).copied().unwrap_or(""))
    }

    /// The location of body item `k` of `rule` (the rule, if unknown).
    pub(crate) fn item(&self, rule: &Rule, k: usize) -> Location {
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
        if lo.strength != crate::program::Strength::Strict {
            continue;
        }
        let hi = cx.m.rule(p.higher);
        out.error(
            Code::PriorityOverStrict,
            cx.node(&p.id),
            format!(
                "`{}` ranks `{}` over the strict rule `{}`, which still concludes `{}` definitely whenever its body holds definitely: priorities do not affect definite conclusions",
                crate::program::local_name(&p.id),
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
        if d.kind != crate::program::RelationKind::Institutional {
            continue;
        }
        let lit = crate::program::Lit {
            pred: c.domain,
            negative: false,
        };
        let strict =
            cx.m.rules_for(lit)
                .any(|r| cx.m.rule(r).strength == crate::program::Strength::Strict);
        if strict {
            continue;
        }
        out.error(
            Code::ClosureDomainEmpty,
            cx.node(&c.id),
            format!(
                "the closure `{}` closes `{}` over `{}`, which no fact or strict rule can establish definitely, so it never derives `~{}`",
                crate::program::local_name(&c.id),
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

/// Diagnostics as a JSON array (`lawgen lint --format json`): one object per
/// diagnostic with `code`, `severity`, `message`, `node`, `pointer`, `line`,
/// `column` (null when not read from a `.law` file) and `help`, keys sorted.
pub fn to_json(d: &Diagnostics) -> String {
    crate::syntax::canon::diagnostics_json(d)
}
