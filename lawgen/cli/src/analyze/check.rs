//! The reference evaluator's word on every witness, before it is shown.
//!
//! A witness is turned into facts, written as a facts file, read back by the
//! facts reader (so the file is one `lawgen eval --facts` accepts) and
//! evaluated by `interp`. Then, for each program: every ground atom of the
//! encoding must have in the solver's model the value the evaluator gives
//! it (the whole model, not only the query), and the query itself must hold
//! on what the evaluator concluded, read off the canonical output (or, for
//! a rule's applicability, by joining that rule against the evaluated
//! relations). Any disagreement is an internal error.

use super::domain::Vid;
use super::encode::InputKey;
use super::pattern::{Goal, PArg, Pattern};
use super::{Analysis, Error, Witness, SECTIONS};
use lawgen_runtime::explain::{self, Query};
use lawgen_runtime::formats::facts::{read_facts, write_facts};
use lawgen_runtime::interp::{self, Conclusions, Facts, Store};
use lawgen_runtime::program::{Catalog, Item, Lit, Program, Section, Term, TypeId, Value};
use std::collections::BTreeMap;

/// One program's evaluation of a witness.
pub struct Eval {
    pub facts: Facts,
    pub text: String,
    pub store: Store,
    pub conclusions: Conclusions,
}

/// A witness evaluated by every program of the analysis.
pub struct Checked {
    pub size: usize,
    pub per: Vec<Eval>,
}

/// The facts of `inputs` that `prog` declares.
pub fn facts_for(an: &Analysis, p: usize, inputs: &[InputKey]) -> Facts {
    let cat = &an.progs[p].catalog;
    let mut f = Facts {
        as_of: an.opts.as_of.get(p).copied().flatten(),
        ..Facts::default()
    };
    for k in inputs {
        match k {
            InputKey::Fact {
                pred,
                negative,
                args,
            } => {
                let Some(pid) = cat.pred_by_name(pred) else {
                    continue;
                };
                let row: Vec<Value> = args
                    .iter()
                    .map(|&v| an.dom.values.value(v).clone())
                    .collect();
                f.rows
                    .entry(Lit {
                        pred: pid,
                        negative: *negative,
                    })
                    .or_default()
                    .insert(row);
            }
            InputKey::Entity { ty, entity } => {
                let id = &an.dom.types[*ty].id;
                let Some(t) = cat.types.iter().position(|t| &t.id == id) else {
                    continue;
                };
                if let Value::Entity(e) = an.dom.values.value(*entity) {
                    f.entities
                        .entry(TypeId(t as u32))
                        .or_default()
                        .insert(e.clone());
                }
            }
        }
    }
    f
}

/// Writes `facts`, reads the file back and evaluates it.
pub fn evaluate(
    prog: &Program,
    facts: &Facts,
    policy: lawgen_runtime::Policy,
) -> Result<Eval, Error> {
    let text = write_facts(facts, &prog.catalog);
    let read = read_facts(text.as_bytes(), &prog.catalog).map_err(|d| {
        Error::internal(format!(
            "the witness facts file is refused by the facts reader:\n{}{text}",
            d.render()
        ))
    })?;
    if read.rows != facts.rows || read.entities != facts.entities {
        return Err(Error::internal(
            "the witness facts file reads back to other facts".into(),
        ));
    }
    let store = interp::evaluate(prog, &read, policy);
    let conclusions = interp::conclusions(prog, &store, policy);
    Ok(Eval {
        facts: read,
        text,
        store,
        conclusions,
    })
}

impl Checked {
    pub fn new(an: &Analysis, inputs: &[InputKey]) -> Result<Checked, Error> {
        let mut per = Vec::new();
        for (p, prog) in an.progs.iter().enumerate() {
            let f = facts_for(an, p, inputs);
            per.push(evaluate(prog, &f, an.opts.policy)?);
        }
        Ok(Checked {
            size: inputs.len(),
            per,
        })
    }

    /// Every ground atom of program `p`: the model's value is the evaluator's.
    pub fn check_model(&self, an: &Analysis, p: usize) -> Result<(), Error> {
        let prog = an.progs[p];
        let store = &self.per[p].store;
        let mut wrong = Vec::new();
        for (a, (rel, t)) in an.grounds[p].atoms.iter().enumerate() {
            let model = an.enc.sat.value(an.enc.vals[p][a]);
            let row: Option<Vec<i64>> = t
                .iter()
                .map(|&v| store.encode(an.dom.values.value(v)))
                .collect();
            let held = row.is_some_and(|r| store.contains(*rel, &r));
            if model != held {
                wrong.push(format!(
                    "{}({}) is {} in the encoding and {} in the evaluation",
                    prog.relation(*rel).name,
                    show_vids(an, t),
                    model,
                    held
                ));
            }
        }
        if wrong.is_empty() {
            return Ok(());
        }
        wrong.truncate(5);
        Err(Error::internal(format!(
            "the encoding disagrees with the reference evaluator on {}:\n  {}\nfacts:\n{}",
            prog.package,
            wrong.join("\n  "),
            self.per[p].text
        )))
    }

    /// The goal holds in program `p`'s output under `binding`; returns the
    /// ground literals of its positive items.
    pub fn check_goal(
        &self,
        an: &Analysis,
        p: usize,
        goal: &Goal,
        binding: &[(String, Value)],
    ) -> Result<Vec<Query>, Error> {
        let cat = &an.progs[p].catalog;
        let start: BTreeMap<String, Value> = binding.iter().cloned().collect();
        goal_holds(cat, &self.per[p].conclusions, goal, &start).ok_or_else(|| {
            Error::internal(format!(
                "the reference evaluator does not conclude `{}` on the witness:\n{}",
                goal.show(cat),
                self.per[p].text
            ))
        })
    }

    /// Program rule `pr` has a solution with head `head` in the evaluation;
    /// with `concluded`, the head literal of package rule `r` is concluded.
    pub fn check_applies(
        &self,
        an: &Analysis,
        pr: usize,
        head: &[Value],
        concluded: Option<u32>,
    ) -> Result<(), Error> {
        let prog = an.progs[0];
        let store = &self.per[0].store;
        let want: Option<Vec<i64>> = head.iter().map(|v| store.encode(v)).collect();
        let heads = store_heads(prog, pr, store);
        if !want.is_some_and(|w| heads.contains(&w)) {
            return Err(Error::internal(format!(
                "the reference evaluator does not apply `{}` on the witness:\n{}",
                prog.rules[pr].origin, self.per[0].text
            )));
        }
        if let Some(r) = concluded {
            let lit = prog.catalog.rule(r).head.lit;
            let name = prog.catalog.lit_name(lit);
            let sec = |s: Section| {
                self.per[0].conclusions.sections[&s]
                    .get(&name)
                    .is_some_and(|rows| rows.contains(head))
            };
            let defeasible =
                prog.catalog.rule(r).strength == lawgen_runtime::program::Strength::Defeasible;
            let held = sec(Section::Defeasibly) && !(defeasible && sec(Section::Definitely));
            if !held {
                return Err(Error::internal(format!(
                    "the reference evaluator does not conclude the head of `{}` on the witness:\n{}",
                    prog.catalog.rule(r).local,
                    self.per[0].text
                )));
            }
        }
        Ok(())
    }

    /// The two programs' outputs differ on `la(args)` / `lb(args)`; returns
    /// each one's verdict.
    pub fn check_differs(
        &self,
        an: &Analysis,
        la: Lit,
        lb: Lit,
        args: &[Value],
    ) -> Result<(String, String), Error> {
        let bits = |p: usize, l: Lit| -> Vec<bool> {
            let name = an.progs[p].catalog.lit_name(l);
            SECTIONS
                .iter()
                .map(|s| {
                    self.per[p].conclusions.sections[s]
                        .get(&name)
                        .is_some_and(|rows| rows.iter().any(|r| r == args))
                })
                .collect()
        };
        let (a, b) = (bits(0, la), bits(1, lb));
        if a == b {
            return Err(Error::internal(format!(
                "the reference evaluator gives both packages the same verdict on {} ({}):\n{}",
                show_ground(
                    &an.progs[0].catalog,
                    &Query {
                        lit: la,
                        args: args.to_vec()
                    }
                ),
                verdict(&a),
                self.per[0].text
            )));
        }
        Ok((verdict(&a), verdict(&b)))
    }

    /// The witness with its explanations.
    pub fn finish(
        self,
        an: &Analysis,
        binding: Vec<(String, Value)>,
        lits: Vec<(usize, Query)>,
        notes: Vec<String>,
        minimum: bool,
    ) -> Witness {
        let mut explanations = Vec::new();
        for (p, q) in lits.iter().filter(|_| an.opts.explain) {
            let e = explain::explain(
                an.progs[*p],
                &self.per[*p].store,
                an.opts.policy,
                q,
                &an.opts.lang,
            );
            let mut text = e.text();
            if an.progs.len() > 1 {
                let prog = an.progs[*p];
                text = format!("in {} {}:\n{text}", prog.package, prog.version);
            }
            explanations.push(text);
        }
        Witness {
            size: self.size,
            files: self.per.iter().map(|e| e.text.clone()).collect(),
            facts: self.per.into_iter().map(|e| e.facts).collect(),
            binding,
            explanations,
            notes,
            minimum,
        }
    }
}

/// A verdict from section membership (definitely, defeasibly, supported, pending).
pub fn verdict(bits: &[bool]) -> String {
    let (d, p, s, pend) = (bits[0], bits[1], bits[2], bits[3]);
    let v = if d {
        "definitely"
    } else if p {
        "defeasibly"
    } else if pend && s {
        "pending (supported)"
    } else if pend {
        "pending"
    } else if s {
        "supported only"
    } else {
        "not concluded"
    };
    v.to_owned()
}

/// Checks that dropping any one fact of the witness loses the goal.
pub fn drop_one(an: &Analysis, goal: &Goal, w: &Witness) -> Result<(), Error> {
    let prog = an.progs[0];
    let cat = &prog.catalog;
    let full = &w.facts[0];
    let mut variants: Vec<Facts> = Vec::new();
    for (lit, rows) in &full.rows {
        for row in rows {
            let mut f = full.clone();
            if let Some(rs) = f.rows.get_mut(lit) {
                rs.remove(row);
            }
            f.rows.retain(|_, rs| !rs.is_empty());
            variants.push(f);
        }
    }
    for (t, names) in &full.entities {
        for n in names {
            let mut f = full.clone();
            if let Some(ns) = f.entities.get_mut(t) {
                ns.remove(n);
            }
            f.entities.retain(|_, ns| !ns.is_empty());
            variants.push(f);
        }
    }
    for f in variants {
        let e = evaluate(prog, &f, an.opts.policy)?;
        if goal_holds(cat, &e.conclusions, goal, &BTreeMap::new()).is_some() {
            return Err(Error::internal(format!(
                "a smaller input than the minimal witness still gives `{}`:\n{}",
                goal.show(cat),
                e.text
            )));
        }
    }
    Ok(())
}

/// The goal on a canonical output, extending `binding`: the ground literals
/// of its positive items, or `None`.
pub fn goal_holds(
    cat: &Catalog,
    c: &Conclusions,
    goal: &Goal,
    binding: &BTreeMap<String, Value>,
) -> Option<Vec<Query>> {
    let pos: Vec<&Pattern> = goal
        .items
        .iter()
        .filter(|(n, _)| !n)
        .map(|(_, p)| p)
        .collect();
    let neg: Vec<&Pattern> = goal
        .items
        .iter()
        .filter(|(n, _)| *n)
        .map(|(_, p)| p)
        .collect();
    fn rows<'c>(cat: &Catalog, c: &'c Conclusions, s: Section, l: Lit) -> Vec<&'c Vec<Value>> {
        c.sections[&s]
            .get(&cat.lit_name(l))
            .map(|r| r.iter().collect())
            .unwrap_or_default()
    }
    fn matches(
        p: &Pattern,
        row: &[Value],
        b: &BTreeMap<String, Value>,
    ) -> Option<BTreeMap<String, Value>> {
        let mut b = b.clone();
        for (a, v) in p.args.iter().zip(row) {
            match a {
                PArg::Any => {}
                PArg::Value(x) if x != v => return None,
                PArg::Value(_) => {}
                PArg::Var(n) => match b.get(n) {
                    Some(w) if w != v => return None,
                    Some(_) => {}
                    None => {
                        b.insert(n.clone(), v.clone());
                    }
                },
            }
        }
        Some(b)
    }
    #[allow(clippy::too_many_arguments)]
    fn go(
        cat: &Catalog,
        c: &Conclusions,
        goal: &Goal,
        s: Section,
        pos: &[&Pattern],
        neg: &[&Pattern],
        k: usize,
        b: &BTreeMap<String, Value>,
        found: &mut Vec<Query>,
    ) -> bool {
        if k == pos.len() {
            let val = |x: &PArg| match x {
                PArg::Var(v) => b.get(v).cloned(),
                PArg::Value(v) => Some(v.clone()),
                PArg::Any => None,
            };
            let cmps_hold = goal
                .cmps
                .iter()
                .all(|(x, op, y, _)| match (val(x), val(y)) {
                    (Some(x), Some(y)) => cmp_values(&x, *op, &y),
                    _ => false,
                });
            return cmps_hold
                && neg.iter().all(|p| {
                    rows(cat, c, s, p.lit)
                        .iter()
                        .all(|r| matches(p, r, b).is_none())
                });
        }
        for r in rows(cat, c, s, pos[k].lit) {
            if let Some(nb) = matches(pos[k], r, b) {
                found.push(Query {
                    lit: pos[k].lit,
                    args: r.clone(),
                });
                if go(cat, c, goal, s, pos, neg, k + 1, &nb, found) {
                    return true;
                }
                found.pop();
            }
        }
        false
    }
    let mut found = Vec::new();
    go(
        cat,
        c,
        goal,
        goal.section,
        &pos,
        &neg,
        0,
        binding,
        &mut found,
    )
    .then_some(found)
}

/// Every head tuple of program rule `pr` whose body holds in `store`: a
/// join of its own, independent of the grounding.
pub fn store_heads(prog: &Program, pr: usize, store: &Store) -> Vec<Vec<i64>> {
    let rule = &prog.rules[pr];
    let order = lawgen_runtime::program::join_order(&rule.body, None);
    let nvars = rule
        .body
        .iter()
        .flat_map(Item::terms)
        .chain(rule.head.args.iter())
        .filter_map(|t| match t {
            Term::Var(v) => Some(*v as usize + 1),
            Term::Value(_) => None,
        })
        .max()
        .unwrap_or(0);
    let mut out = Vec::new();
    let mut b: Vec<Option<i64>> = vec![None; nvars];
    fn val(store: &Store, t: &Term, b: &[Option<i64>]) -> Option<i64> {
        match t {
            Term::Var(v) => b[*v as usize],
            Term::Value(v) => store.encode(v),
        }
    }
    fn go(
        store: &Store,
        rule: &lawgen_runtime::program::Rule,
        order: &[usize],
        k: usize,
        b: &mut Vec<Option<i64>>,
        out: &mut Vec<Vec<i64>>,
    ) {
        if k == order.len() {
            if let Some(h) = rule.head.args.iter().map(|t| val(store, t, b)).collect() {
                out.push(h);
            }
            return;
        }
        match &rule.body[order[k]] {
            Item::Cmp(x, op, y) => {
                if let (Some(x), Some(y)) = (val(store, x, b), val(store, y, b)) {
                    if op.holds_int(x, y) {
                        go(store, rule, order, k + 1, b, out);
                    }
                }
            }
            Item::Neg(a) => {
                let t: Option<Vec<i64>> = a.args.iter().map(|x| val(store, x, b)).collect();
                // An entity the evaluation never saw is in no relation.
                if !t.is_some_and(|t| store.contains(a.rel, &t)) {
                    go(store, rule, order, k + 1, b, out);
                }
            }
            Item::Pos(a) => {
                let rows: Vec<Vec<i64>> = store.tuples(a.rel).map(<[i64]>::to_vec).collect();
                for row in rows {
                    let saved = b.clone();
                    let mut ok = true;
                    for (x, &v) in a.args.iter().zip(&row) {
                        match x {
                            Term::Var(w) => match b[*w as usize] {
                                Some(u) if u != v => ok = false,
                                Some(_) => {}
                                None => b[*w as usize] = Some(v),
                            },
                            Term::Value(c) => {
                                if store.encode(c) != Some(v) {
                                    ok = false;
                                }
                            }
                        }
                        if !ok {
                            break;
                        }
                    }
                    if ok {
                        go(store, rule, order, k + 1, b, out);
                    }
                    *b = saved;
                }
            }
        }
    }
    go(store, rule, &order, 0, &mut b, &mut out);
    out
}

/// A comparison of two values (order comparisons on integers only).
pub fn cmp_values(x: &Value, op: lawgen_runtime::program::CmpOp, y: &Value) -> bool {
    use lawgen_runtime::program::CmpOp;
    match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        _ => match (x, y) {
            (Value::Int(a), Value::Int(b)) => op.holds_int(*a, *b),
            _ => false,
        },
    }
}

/// `p(a, b)` of a ground query.
pub fn show_ground(cat: &Catalog, q: &Query) -> String {
    format!(
        "{}({})",
        cat.lit_name(q.lit),
        q.args
            .iter()
            .map(explain::fmt_value)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn show_vids(an: &Analysis, t: &[Vid]) -> String {
    t.iter()
        .map(|&v| an.dom.values.value(v).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
