//! Pass 10, run by the driver once the model is complete: would lowering this package
//! explode? Reported with the rule or literal responsible, before `lower`
//! spends the time and memory.
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
use crate::model::{Item, Model, Pred, RuleId};
use crate::program::{Lit, PredId};
use crate::program::{RelationKind, Strength};
use crate::syntax::ReadLimits;

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
    for (l, p) in concluded_institutional(model) {
        // cand[L], !D[~L], then one ok[L, s] per attacker.
        let attackers = model.rules_for(l.complement()).count();
        let len = attackers + 2;
        if attackers == 0 || len <= max_body {
            continue;
        }
        let shown: Vec<String> = model
            .rules_for(l.complement())
            .take(5)
            .map(|s| format!("`{}`", model.rule(s).local))
            .collect();
        let more = if attackers > shown.len() {
            format!(", … ({} more)", attackers - shown.len())
        } else {
            String::new()
        };
        diags.error(
            Code::Limit,
            Location::new(Some(&p.id), &p.ptr),
            format!(
                "`{}` is attacked by {attackers} rules for `{}` ({}{more}): its +∂ rule would have \
                 {len} body items, more than the limit of {max_body}",
                model.lit_name(l),
                model.lit_name(l.complement()),
                shown.join(", "),
            ),
            HOW,
        );
    }
}

/// Both literals of every institutional predicate that some strict or
/// defeasible rule concludes: the literals lowering gives an overlay.
fn concluded_institutional(model: &Model) -> impl Iterator<Item = (Lit, &Pred)> + '_ {
    model
        .preds
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == RelationKind::Institutional)
        .flat_map(|(i, p)| {
            [false, true].map(|negative| {
                let l = Lit {
                    pred: PredId(i as u32),
                    negative,
                };
                (l, p)
            })
        })
        .filter(|(l, _)| model.has_concluding_rule(*l))
}

/// What a part of the package costs in program body items (an upper bound).
struct Cost {
    part: Part,
    items: u64,
}

/// A part of the package, described only when it is among the largest.
enum Part {
    Rule {
        rule: RuleId,
        judgments: u64,
    },
    Conflict {
        lit: Lit,
        concluding: u64,
        attackers: u64,
    },
    Declarations,
}

impl Part {
    fn describe(&self, model: &Model) -> (String, Location) {
        match *self {
            Part::Rule { rule, judgments } => {
                let r = model.rule(rule);
                let b = r.body.len();
                let what = if judgments > 0 {
                    format!(
                        "rule `{}` ({b} body items, {judgments} of them judgments, each with its \
                         own pending-request rule)",
                        r.local
                    )
                } else {
                    format!("rule `{}` ({b} body items)", r.local)
                };
                (what, Location::new(Some(&r.id), &r.ptr))
            }
            Part::Conflict {
                lit,
                concluding,
                attackers,
            } => {
                let p = model.pred(lit.pred);
                let what = format!(
                    "the conflict between `{}` ({concluding} rules) and `{}` ({attackers} rules)",
                    model.lit_name(lit),
                    model.lit_name(lit.complement())
                );
                (what, Location::new(Some(&p.id), &p.ptr))
            }
            Part::Declarations => (
                format!(
                    "the declarations ({} predicates, {} closures)",
                    model.preds.len(),
                    model.closures.len()
                ),
                Location::default(),
            ),
        }
    }
}

/// An upper bound on the lowered program's size: the sum of its rule bodies'
/// lengths. `lower` never produces more (a property test holds it to that).
#[cfg_attr(not(any(feature = "internals", feature = "emit")), allow(dead_code))]
pub fn program_size_bound(model: &Model) -> u64 {
    costs(model).iter().map(|c| c.items).sum()
}

fn program_size(model: &Model, limits: &ReadLimits, diags: &mut Diagnostics) {
    let mut costs = costs(model);
    let total: u64 = costs.iter().map(|c| c.items).sum();
    if total <= limits.max_program_size as u64 {
        return;
    }
    let mut described: Vec<(u64, String, Location)> = {
        costs.sort_by_key(|c| std::cmp::Reverse(c.items));
        // Ties are broken by description below, so take every part as
        // large as the third.
        let third = costs.get(2).map_or(0, |c| c.items);
        costs
            .iter()
            .take_while(|c| c.items >= third)
            .map(|c| {
                let (what, at) = c.part.describe(model);
                (c.items, what, at)
            })
            .collect()
    };
    described.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let top: Vec<String> = described
        .iter()
        .take(3)
        .map(|(items, what, _)| format!("{what} ≈ {items} items"))
        .collect();
    diags.error(
        Code::Limit,
        described[0].2.clone(),
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
    for (ri, r) in model.rules.iter().enumerate() {
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
            part: Part::Rule {
                rule: RuleId(ri as u32),
                judgments,
            },
            items: overlay + judgments * (b + nots),
        });
    }
    for (l, _) in concluded_institutional(model) {
        let concluding = model
            .rules_for(l)
            .filter(|r| model.rule(*r).strength != Strength::Defeater)
            .count() as u64;
        let attackers = model.rules_for(l.complement()).count() as u64;
        // Each world: cand and the +Δ copies, per attacker its `ok`
        // rules (one more per priority over it), then the +∂ rule.
        let priorities = priorities_over.get(&l.complement()).copied().unwrap_or(0);
        let per_world = 6 + 2 * concluding + 6 * attackers + priorities + 3;
        costs.push(Cost {
            part: Part::Conflict {
                lit: l,
                concluding,
                attackers,
            },
            items: worlds * per_world,
        });
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
        part: Part::Declarations,
        items: declarations,
    });
    costs
}

/// The largest lowered program (in body items, [`program_size_bound`]) that
/// `lawgen build` and [`crate::Builder`] turn into Rust: about 2,400 rules of
/// the law shape docs/performance.md ("Large packages") measures (29 items
/// a rule). Above the straight-line limit (`EmitOptions::straight_line_rules`)
/// a module is its typed API with the rules evaluated from the embedded
/// program, and rustc's peak grows linearly with the API: 0.4 GiB at 500
/// rules, 0.9 GiB at 2,000, 2.5 GiB at 8,000, so modules from the program
/// could go further. The limit stays here because it also bounds the
/// modules of straight-line code (fewer lowered rules than the straight-line
/// limit, but long bodies), whose memory grows faster: 4.3 GiB at 2,000
/// law-shaped rules. The chess package is 2,103 items. The interpreter has
/// no such step, so a larger package is evaluated with it.
pub const MAX_NATIVE_PROGRAM_SIZE: u64 = 70_000;

/// Whether the package is small enough to compile to native code (see
/// [`MAX_NATIVE_PROGRAM_SIZE`]), checked on the model, before lowering or
/// emitting allocates anything in proportion to the program: the error
/// names the limit and points to the interpreter.
#[cfg_attr(not(feature = "emit"), allow(dead_code))]
pub fn native(model: &Model) -> Result<(), String> {
    let size = program_size_bound(model);
    if size <= MAX_NATIVE_PROGRAM_SIZE {
        return Ok(());
    }
    Err(format!(
        "the package is too large to compile to native code: its {} rules lower to a program of \
         up to {size} body items, more than the limit of {MAX_NATIVE_PROGRAM_SIZE} for generated \
         Rust (`check::size::MAX_NATIVE_PROGRAM_SIZE`); evaluate it with the interpreter, which \
         needs no build (`lawgen eval PACKAGE --facts FILE --backend interp`), or split the \
         package",
        model.rules.len()
    ))
}
