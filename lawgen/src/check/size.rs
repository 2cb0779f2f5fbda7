//! Pass 8, run once the model is complete: would lowering this package
//! explode? Reported with the rule or literal responsible, before `lower`
//! spends the time and memory (issue 6).
//!
//! Lowering is linear in the package except in two places, and both have a
//! limit in [`ReadLimits`]:
//!
//! * **Rule bodies.** Every program rule is at most as long as the source
//!   rule it copies, except a contested literal's +∂ rule, which needs one
//!   `ok` atom per attacking rule (`P[L] :- cand[L], !D[~L], ok[L,s1], …`).
//!   Ascent nests one loop per body atom and the reference interpreter
//!   recurses once per atom, so a body of thousands would overflow a stack or
//!   rustc. `max_rule_body` bounds both: the longest source body, and two
//!   more than the most rules attacking one literal.
//! * **Pending requests.** A rule gets one request rule per judgment atom,
//!   each as long as the rule: `j × b` items, quadratic in the rule's size.
//!   Together with the overlay's copies of every body (up to three proof
//!   tags in up to two worlds) this is what `max_program_size` bounds.
//!
//! The program size is an upper bound computed from the model (the overlay
//! is left out where a literal turns out not to need it), so a package under
//! the limit is never refused by lowering, and one over it is refused here
//! with the three largest contributors named.

use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{Item, Lit, Model, PredId};
use crate::syntax::{ReadLimits, RelationKind, Strength};

/// Checks the model against the lowering limits.
pub fn check(model: &Model, limits: &ReadLimits) -> Result<(), Diagnostics> {
    let mut diags = Diagnostics::new();
    rule_bodies(model, limits, &mut diags);
    if diags.is_empty() {
        program_size(model, limits, &mut diags);
    }
    diags.sort();
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

const HOW: &str = "split the rule (or the exceptions) into intermediate predicates, or raise the \
                   limit (`--max-rule-body`, `ReadLimits::max_rule_body`)";

/// The most `max_rule_body` may be raised to: the interpreter recurses once
/// per body item (about 400 bytes of stack each), and must stay well inside
/// the 2 MiB stack of a spawned thread.
pub const MAX_RULE_BODY_CEILING: usize = 2000;

fn rule_bodies(model: &Model, limits: &ReadLimits, diags: &mut Diagnostics) {
    let max_body = limits.max_rule_body.min(MAX_RULE_BODY_CEILING);
    for r in &model.rules {
        if r.body.len() > max_body {
            diags.error(
                Code::Limit,
                Location::new(Some(&r.id), &r.ptr),
                format!(
                    "rule `{}` has {} body items, more than the limit of {}",
                    r.local,
                    r.body.len(),
                    max_body
                ),
                HOW,
            );
        }
    }
    for (i, p) in model.preds.iter().enumerate() {
        if p.kind != RelationKind::Institutional {
            continue;
        }
        for negative in [false, true] {
            let l = Lit {
                pred: PredId(i as u32),
                negative,
            };
            if !model.has_concluding_rule(l) {
                continue;
            }
            let attackers: Vec<&str> = model
                .rules_for(l.complement())
                .map(|s| model.rule(s).local.as_str())
                .collect();
            // cand[L], !D[~L], then one ok[L, s] per attacker.
            let len = attackers.len() + 2;
            if attackers.is_empty() || len <= max_body {
                continue;
            }
            let shown: Vec<String> = attackers.iter().take(5).map(|a| format!("`{a}`")).collect();
            let more = if attackers.len() > shown.len() {
                format!(", … ({} more)", attackers.len() - shown.len())
            } else {
                String::new()
            };
            diags.error(
                Code::Limit,
                Location::new(Some(&p.id), &p.ptr),
                format!(
                    "`{}` is attacked by {} rules for `{}` ({}{more}): its +∂ rule would have {len} \
                     body items, more than the limit of {}",
                    model.lit_name(l),
                    attackers.len(),
                    model.lit_name(l.complement()),
                    shown.join(", "),
                    max_body
                ),
                HOW,
            );
        }
    }
}

/// What a part of the package costs in program body items (an upper bound).
struct Cost {
    what: String,
    at: Location,
    items: u64,
}

/// An upper bound on the lowered program's size: the sum of its rule bodies'
/// lengths. `lower` never produces more (a property test holds it to that).
pub fn program_size_bound(model: &Model) -> u64 {
    costs(model).iter().map(|c| c.items).sum()
}

fn program_size(model: &Model, limits: &ReadLimits, diags: &mut Diagnostics) {
    let mut costs = costs(model);
    let total: u64 = costs.iter().map(|c| c.items).sum();
    if total <= limits.max_program_size as u64 {
        return;
    }
    costs.sort_by(|a, b| b.items.cmp(&a.items).then_with(|| a.what.cmp(&b.what)));
    let top: Vec<String> = costs
        .iter()
        .take(3)
        .map(|c| format!("{} ≈ {} items", c.what, c.items))
        .collect();
    diags.error(
        Code::Limit,
        costs[0].at.clone(),
        format!(
            "lowering would produce a program of up to {total} body items, more than the limit of \
             {}; the largest parts: {}",
            limits.max_program_size,
            top.join("; ")
        ),
        "split the largest rules into intermediate predicates, or raise the limit \
         (`--max-program-size`, `ReadLimits::max_program_size`)",
    );
}

/// Each rule's and each conflict's share of the lowered program.
fn costs(model: &Model) -> Vec<Cost> {
    // Literals with a judgment in their past are lowered in two worlds.
    let worlds: u64 = if model.preds.iter().any(|p| p.kind == RelationKind::Judgment) {
        2
    } else {
        1
    };
    let mut priorities_over: std::collections::HashMap<Lit, u64> = Default::default();
    for pr in &model.priorities {
        *priorities_over
            .entry(model.rule(pr.lower).head.lit())
            .or_default() += 1;
    }
    let mut costs: Vec<Cost> = Vec::new();
    for r in &model.rules {
        let b = r.body.len() as u64;
        // Each world: the body at up to three proof tags, a one-atom
        // projection per `not` item, and the rule's copy rules.
        let nots = r
            .body
            .iter()
            .filter(|i| matches!(i, Item::Not { .. }))
            .count() as u64;
        let overlay = worlds * (3 * b + 3 * nots + 4);
        let judgments = r
            .body
            .iter()
            .filter(|i| match i {
                Item::Status { atom, .. } | Item::Not { atom, .. } => {
                    model.pred(atom.pred).kind == RelationKind::Judgment
                }
                Item::Compare { .. } => false,
            })
            .count() as u64;
        costs.push(Cost {
            what: if judgments > 0 {
                format!(
                    "rule `{}` ({b} body items, {judgments} of them judgments, each with its own \
                     pending-request rule)",
                    r.local
                )
            } else {
                format!("rule `{}` ({b} body items)", r.local)
            },
            at: Location::new(Some(&r.id), &r.ptr),
            items: overlay + judgments * (b + nots),
        });
    }
    for (i, p) in model.preds.iter().enumerate() {
        if p.kind != RelationKind::Institutional {
            continue;
        }
        for negative in [false, true] {
            let l = Lit {
                pred: PredId(i as u32),
                negative,
            };
            let concluding = model
                .rules_for(l)
                .filter(|r| model.rule(*r).strength != Strength::Defeater)
                .count() as u64;
            let attackers = model.rules_for(l.complement()).count() as u64;
            if concluding == 0 {
                continue;
            }
            // Each world: cand and the +Δ copies, per attacker its `ok`
            // rules (one more per priority over it), then the +∂ rule.
            let priorities = priorities_over.get(&l.complement()).copied().unwrap_or(0);
            let per_world = 6 + 2 * concluding + 6 * attackers + priorities + 3;
            costs.push(Cost {
                what: format!(
                    "the conflict between `{}` ({concluding} rules) and `{}` ({attackers} rules)",
                    model.lit_name(l),
                    model.lit_name(l.complement())
                ),
                at: Location::new(Some(&p.id), &p.ptr),
                items: worlds * per_world,
            });
        }
    }
    // Declarations: the domain rules of judgments and closures (one per
    // column and polarity), `undecided`, closure rules, entity lists.
    let mut closures_of: std::collections::HashMap<PredId, u64> = Default::default();
    for c in &model.closures {
        *closures_of.entry(c.pred).or_default() += 1;
    }
    let mut declarations = model.types.len() as u64 + 1;
    for (i, p) in model.preds.iter().enumerate() {
        let arity = p.params.len() as u64;
        declarations += 2 * arity + 2;
        if p.kind == RelationKind::Judgment {
            declarations += arity + 4;
        }
        let closures = closures_of.get(&PredId(i as u32)).copied().unwrap_or(0);
        declarations += worlds * (1 + 2 * closures);
    }
    costs.push(Cost {
        what: format!(
            "the declarations ({} predicates, {} closures)",
            model.preds.len(),
            model.closures.len()
        ),
        at: Location::default(),
        items: declarations,
    });
    costs
}
