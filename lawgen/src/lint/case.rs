//! W001 and W002: rules and the case they decide.
//!
//! A package's *case type* is the entity type that the most predicates take
//! as their first parameter (chess: `Game`, first in 35 of 54 predicates;
//! `Player` is first in 10): the unit its facts are keyed by, and that a facts
//! file may hold several of, as a tournament holds several games. Ties make
//! every tied type a case type; a type first in fewer than two predicates is
//! never one. The first parameter, rather than any, because membership
//! relations name both sides (`player_of(game, who)`) and would make the
//! member type as frequent as the case type.

use super::Cx;
use crate::diagnostics::{Code, Diagnostics};
use crate::model::{Atom, Item, Model, Rule, Term, Var};
use crate::program::{Ty, TypeId, Value};
use std::collections::BTreeSet;

pub(super) fn case_types(m: &Model) -> Vec<TypeId> {
    let mut counts = vec![0usize; m.types.len()];
    for p in &m.preds {
        if let Some(Ty::Entity(id)) = p.params.first() {
            counts[id.0 as usize] += 1;
        }
    }
    let max = counts.iter().copied().max().unwrap_or(0);
    if max < 2 {
        return Vec::new();
    }
    (0..counts.len())
        .filter(|&i| counts[i] == max)
        .map(|i| TypeId(i as u32))
        .collect()
}

fn has_param_of(m: &Model, a: &Atom, t: TypeId) -> bool {
    m.pred(a.pred).params.contains(&Ty::Entity(t))
}

fn vars_of(a: &Atom) -> BTreeSet<Var> {
    a.args.iter().filter_map(Term::var).collect()
}

fn atom_text(m: &Model, r: &Rule, a: &Atom) -> String {
    let args: Vec<String> = a
        .args
        .iter()
        .map(|t| match t {
            Term::Var(v) => r.vars[v.0 as usize].0.clone(),
            Term::Value(Value::Int(i)) => i.to_string(),
            Term::Value(Value::Entity(e)) => e.clone(),
        })
        .collect();
    format!("{}({})", m.lit_name(a.lit()), args.join(", "))
}

fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [init @ .., last] => format!(
            "{} and `{last}`",
            init.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The atom of a status or `not` item.
fn atom(i: &Item) -> Option<&Atom> {
    match i {
        Item::Status { atom, .. } | Item::Not { atom, .. } => Some(atom),
        Item::Compare { .. } => None,
    }
}

/// W001, the cross-case leak.
///
/// Condition, for a rule, a case type T and a head variable `g` of type T:
/// a body literal (in a status or `not` item) whose predicate has no
/// parameter of type T, and one of whose variables occurs together with `g`
/// in another positive status item (it is bound *through* `g`, as `who` is
/// by `player_of(g, who)`). Why: the rule concludes something about one
/// case `g`, and reads a fact about a member of that case that does not say
/// which case it belongs to; when a member belongs to several cases (a
/// player to several games), a fact from one case decides the others. A
/// predicate that has a T parameter is never flagged (if the rule leaves it
/// unbound, that is a join the author wrote out), nor is a literal that
/// shares no variable with `g`'s items (a fact about something else).
pub(super) fn cross_case_leak(cx: &Cx, out: &mut Diagnostics) {
    let m = cx.m;
    let cases = case_types(m);
    for r in &m.rules {
        for &t in &cases {
            let mut leaks: BTreeSet<usize> = BTreeSet::new();
            let mut gs: Vec<Var> = Vec::new();
            for g in r.head.args.iter().filter_map(Term::var) {
                if r.vars[g.0 as usize].1 != Ty::Entity(t) || gs.contains(&g) {
                    continue;
                }
                gs.push(g);
                // Variables bound through `g`.
                let mut through: BTreeSet<Var> = BTreeSet::new();
                for i in &r.body {
                    if let Item::Status { atom, .. } = i {
                        let vs = vars_of(atom);
                        if vs.contains(&g) {
                            through.extend(vs);
                        }
                    }
                }
                through.remove(&g);
                for (k, i) in r.body.iter().enumerate() {
                    let Some(a) = atom(i) else { continue };
                    let vs = vars_of(a);
                    if vs.contains(&g) || has_param_of(m, a, t) {
                        continue;
                    }
                    if vs.iter().any(|v| through.contains(v)) {
                        leaks.insert(k);
                    }
                }
            }
            let Some(&first) = leaks.iter().next() else {
                continue;
            };
            let ty = &m.types[t.0 as usize].name;
            let g = &r.vars[gs[0].0 as usize].0;
            let read: Vec<String> = leaks
                .iter()
                .filter_map(|&k| atom(&r.body[k]).map(|a| atom_text(m, r, a)))
                .collect();
            let preds: Vec<String> = leaks
                .iter()
                .filter_map(|&k| atom(&r.body[k]).map(|a| m.pred(a.pred).local.clone()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            out.error(
                Code::CrossCaseLeak,
                cx.item(r, first),
                format!(
                    "`{}` concludes `{}` for one {ty} (`{g}`), but {} {} not say which {ty}: a fact meant for one {ty} holds in every {ty} that shares its arguments",
                    r.local,
                    atom_text(m, r, &r.head),
                    list(&read),
                    if read.len() == 1 { "does" } else { "do" },
                ),
                format!(
                    "give {} a parameter of type {ty} and pass `{g}`, so that each fact belongs to one {ty}",
                    list(&preds)
                ),
            );
        }
    }
}

/// W002, a head that drops the case.
///
/// Condition, for a rule and a case type T: the head predicate has no
/// parameter of type T, the head has at least one variable, the body has at
/// least two positive status items, and some
/// variable `g` of type T occurs in a positive status item such that every
/// positive status item of the body is connected to `g` through shared
/// variables. Why: every condition of the rule hangs off one case `g`, yet
/// the conclusion (about members of that case) does not say which case, so
/// once it holds in one case it holds in all of them. A head without
/// variables is not flagged (it states that some case exists), nor is a
/// body of one literal (`played(p) :- player_of(g, p)` is a projection, the
/// way a package says "in some game"), nor a body with a part unrelated to
/// `g` (the rule joins independent facts).
pub(super) fn head_drops_case(cx: &Cx, out: &mut Diagnostics) {
    let m = cx.m;
    for r in &m.rules {
        if !r.head.args.iter().any(|a| a.var().is_some()) {
            continue;
        }
        for &t in &case_types(m) {
            if has_param_of(m, &r.head, t) {
                continue;
            }
            let positive: Vec<(usize, BTreeSet<Var>)> = r
                .body
                .iter()
                .enumerate()
                .filter_map(|(k, i)| match i {
                    Item::Status { atom, .. } => Some((k, vars_of(atom))),
                    _ => None,
                })
                .collect();
            if positive.len() < 2 {
                continue;
            }
            let candidates: BTreeSet<Var> = positive
                .iter()
                .flat_map(|(_, vs)| vs.iter().copied())
                .filter(|v| r.vars[v.0 as usize].1 == Ty::Entity(t))
                .collect();
            for g in candidates {
                // Items reachable from `g` over shared variables.
                let mut reached: BTreeSet<Var> = [g].into_iter().collect();
                let mut done = vec![false; positive.len()];
                loop {
                    let mut grew = false;
                    for (j, (_, vs)) in positive.iter().enumerate() {
                        if !done[j] && vs.iter().any(|v| reached.contains(v)) {
                            done[j] = true;
                            reached.extend(vs.iter().copied());
                            grew = true;
                        }
                    }
                    if !grew {
                        break;
                    }
                }
                if !done.iter().all(|d| *d) {
                    continue;
                }
                let ty = &m.types[t.0 as usize].name;
                let name = &r.vars[g.0 as usize].0;
                let at = positive
                    .iter()
                    .find(|(_, vs)| vs.contains(&g))
                    .map_or(0, |(k, _)| *k);
                out.error(
                    Code::HeadDropsCase,
                    cx.item(r, at),
                    format!(
                        "`{}` concludes `{}` from the facts of one {ty} (`{name}`), but its head does not say which {ty}: once it holds in one {ty} it holds in all of them",
                        r.local,
                        atom_text(m, r, &r.head),
                    ),
                    format!(
                        "give `{}` a parameter of type {ty} and pass `{name}`",
                        m.pred(r.head.pred).local
                    ),
                );
                break;
            }
        }
    }
}
