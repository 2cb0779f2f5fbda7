//! Grounding the lowered program over a [`Domain`].
//!
//! Every input relation (facts of a literal, `entities` of a type) may hold
//! any tuple of domain values; the policy flag is fixed by the analysis. The
//! *possible* tuples of each derived relation are then the least fixpoint of
//! its rules read positively (a `!` item can only remove tuples), computed
//! relation component by component in dependency order, and each rule's
//! ground instances are its joins over possible tuples, comparisons decided
//! on the spot. A negated atom that is not even possible is dropped from an
//! instance (it never holds, so its negation always does). What remains is
//! exactly the ground program whose models the encoding describes.

use super::domain::{Domain, Vid};
use super::Error;
use lawgen_runtime::program::{
    join_order, CmpOp, EdgeOrder, Item, Program, RelId, Role, Term, Value,
};
use lawgen_runtime::Policy;
use std::collections::HashMap;

/// Index of a ground atom of one program.
pub type AtomId = u32;

/// One ground rule instance: `head :- pos…, !neg…`.
#[derive(Debug, Clone)]
pub struct Inst {
    /// The program rule it instantiates.
    pub rule: u32,
    pub head: AtomId,
    pub pos: Vec<AtomId>,
    pub neg: Vec<AtomId>,
}

#[derive(Default, Debug, Clone)]
pub struct GRel {
    pub tuples: Vec<Box<[Vid]>>,
    pub ids: Vec<AtomId>,
    set: HashMap<Box<[Vid]>, u32>,
    indexes: HashMap<Vec<usize>, HashMap<Vec<Vid>, Vec<u32>>>,
}

impl GRel {
    fn insert(&mut self, t: Box<[Vid]>, id: AtomId) {
        let pos = self.tuples.len() as u32;
        for (cols, index) in self.indexes.iter_mut() {
            let key: Vec<Vid> = cols.iter().map(|&c| t[c]).collect();
            index.entry(key).or_default().push(pos);
        }
        self.set.insert(t.clone(), pos);
        self.tuples.push(t);
        self.ids.push(id);
    }

    pub fn get(&self, t: &[Vid]) -> Option<AtomId> {
        self.set.get(t).map(|&p| self.ids[p as usize])
    }

    fn lookup(&mut self, cols: &[usize], key: &[Vid]) -> Vec<u32> {
        if !self.indexes.contains_key(cols) {
            let mut index: HashMap<Vec<Vid>, Vec<u32>> = HashMap::new();
            for (i, t) in self.tuples.iter().enumerate() {
                index
                    .entry(cols.iter().map(|&c| t[c]).collect())
                    .or_default()
                    .push(i as u32);
            }
            self.indexes.insert(cols.to_vec(), index);
        }
        self.indexes[cols].get(key).cloned().unwrap_or_default()
    }
}

/// Where a ground atom's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A free input (a facts row or an `entities` entry).
    Input,
    /// The policy flag: fixed.
    Fixed(bool),
    /// Derived by the instances that have it as head.
    Derived,
}

/// The ground program of one lowered program.
#[derive(Debug, Clone)]
pub struct Ground {
    pub rels: Vec<GRel>,
    /// Each atom's relation and tuple.
    pub atoms: Vec<(RelId, Box<[Vid]>)>,
    pub origin: Vec<Origin>,
    pub insts: Vec<Inst>,
    /// Instances by head atom.
    pub by_head: Vec<Vec<u32>>,
    /// Instances by program rule.
    pub by_rule: Vec<Vec<u32>>,
}

/// Grounding stops with an error beyond this many atoms or instances: the
/// bound is then too large to analyse in memory (lower `--bound`).
pub const MAX_GROUND: usize = 2_000_000;

/// Most inputs (facts rows and `entities` entries over the domain), checked
/// before any is made.
pub const MAX_INPUTS: usize = 200_000;

impl Ground {
    /// The atom of `rel` with tuple `t`, if it is possible at all.
    pub fn atom(&self, rel: RelId, t: &[Vid]) -> Option<AtomId> {
        self.rels[rel.0 as usize].get(t)
    }

    /// Grounds `prog` over `dom` under `policy`.
    pub fn new(
        prog: &Program,
        dom: &Domain,
        policy: Policy,
        as_of: Option<lawgen_runtime::law::Date>,
    ) -> Result<Ground, Error> {
        let mut g = Ground {
            rels: vec![GRel::default(); prog.relations.len()],
            atoms: Vec::new(),
            origin: Vec::new(),
            insts: Vec::new(),
            by_head: Vec::new(),
            by_rule: vec![Vec::new(); prog.rules.len()],
        };
        let cat = &prog.catalog;
        // Every input tuple is counted before any is made.
        let mut inputs: usize = 0;
        for rel in &prog.relations {
            if let Role::Facts(_) | Role::Entities(lawgen_runtime::program::Ty::Entity(_)) =
                &rel.role
            {
                let count = rel
                    .columns
                    .iter()
                    .fold(1usize, |n, &t| n.saturating_mul(dom.members(cat, t).len()));
                inputs = inputs.saturating_add(count);
                if inputs > MAX_INPUTS {
                    return Err(Error::too_large(&rel.name, count));
                }
            }
        }
        for (i, rel) in prog.relations.iter().enumerate() {
            match &rel.role {
                Role::Facts(_) | Role::Entities(lawgen_runtime::program::Ty::Entity(_)) => {
                    let cols: Vec<&[Vid]> =
                        rel.columns.iter().map(|&t| dom.members(cat, t)).collect();
                    for t in product(&cols) {
                        g.add(RelId(i as u32), t, Origin::Input);
                    }
                }
                // The reference evaluator ignores `entities` of Integer.
                Role::Entities(lawgen_runtime::program::Ty::Int) => {}
                // The date's own input row is not part of the grounding.
                Role::AsOf => {}
                // Queries run as of the given date, else the package's current one.
                Role::InForce(k) => {
                    let on = cat.law.on(as_of).ok();
                    g.add(
                        RelId(i as u32),
                        Box::new([]),
                        Origin::Fixed(on.is_some_and(|f| f.gates.get(*k as usize) == Some(&true))),
                    );
                }
                Role::PolicyPropagating => {
                    g.add(
                        RelId(i as u32),
                        Box::new([]),
                        Origin::Fixed(policy == Policy::Propagating),
                    );
                }
                Role::Derived => {}
            }
        }
        let mut gr = Grounder {
            prog,
            dom,
            g: &mut g,
        };
        // Relation components in dependency order: every relation a
        // component reads is complete before it, except its own.
        for comp in prog.rule_components(EdgeOrder::Rule).components() {
            if !comp.rules.is_empty() {
                gr.component(&comp.rules)?;
            }
        }
        g.by_head = vec![Vec::new(); g.atoms.len()];
        for (k, inst) in g.insts.iter().enumerate() {
            g.by_head[inst.head as usize].push(k as u32);
            g.by_rule[inst.rule as usize].push(k as u32);
        }
        Ok(g)
    }

    fn add(&mut self, rel: RelId, t: Box<[Vid]>, origin: Origin) -> AtomId {
        let id = self.atoms.len() as AtomId;
        self.rels[rel.0 as usize].insert(t.clone(), id);
        self.atoms.push((rel, t));
        self.origin.push(origin);
        id
    }
}

/// Every tuple of the cartesian product of `cols`.
fn product(cols: &[&[Vid]]) -> Vec<Box<[Vid]>> {
    let mut out: Vec<Vec<Vid>> = vec![Vec::new()];
    for c in cols {
        let mut next = Vec::with_capacity(out.len() * c.len());
        for t in &out {
            for &v in c.iter() {
                let mut u = t.clone();
                u.push(v);
                next.push(u);
            }
        }
        out = next;
    }
    out.into_iter().map(Vec::into_boxed_slice).collect()
}

struct Grounder<'a> {
    prog: &'a Program,
    dom: &'a Domain,
    g: &'a mut Ground,
}

/// A solution of a rule body: the head tuple and the atoms it used.
struct Found {
    rule: u32,
    head: Box<[Vid]>,
    pos: Vec<AtomId>,
    neg: Vec<AtomId>,
}

impl Grounder<'_> {
    /// Joins the component's rules until no new tuple appears; the
    /// instances of that last round, over complete relations, are kept.
    fn component(&mut self, rules: &[usize]) -> Result<(), Error> {
        let orders: Vec<Vec<usize>> = rules
            .iter()
            .map(|&r| join_order(&self.prog.rules[r].body, None))
            .collect();
        loop {
            let mut found: Vec<Found> = Vec::new();
            for (k, &ri) in rules.iter().enumerate() {
                let rule = &self.prog.rules[ri];
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
                    .unwrap_or(0)
                    .max(rule.vars.len());
                let mut binding = vec![None; nvars];
                let mut pos = Vec::new();
                let mut neg = Vec::new();
                self.join(
                    ri,
                    &orders[k],
                    0,
                    &mut binding,
                    &mut pos,
                    &mut neg,
                    &mut found,
                )?;
                if found.len() + self.g.insts.len() > MAX_GROUND {
                    return Err(Error::too_large(
                        &self.prog.relation(rule.head.rel).name,
                        found.len(),
                    ));
                }
            }
            let mut new = false;
            for f in &found {
                let rel = self.prog.rules[f.rule as usize].head.rel;
                if self.g.atom(rel, &f.head).is_none() {
                    self.g.add(rel, f.head.clone(), Origin::Derived);
                    new = true;
                }
            }
            if self.g.atoms.len() > MAX_GROUND {
                return Err(Error::too_large("the ground program", self.g.atoms.len()));
            }
            if !new {
                for f in found {
                    let rel = self.prog.rules[f.rule as usize].head.rel;
                    let head = self.g.atom(rel, &f.head).expect("added above");
                    self.g.insts.push(Inst {
                        rule: f.rule,
                        head,
                        pos: f.pos,
                        neg: f.neg,
                    });
                }
                return Ok(());
            }
        }
    }

    fn value(&self, t: &Term, binding: &[Option<Vid>]) -> Result<Option<Vid>, Error> {
        Ok(match t {
            Term::Var(v) => binding[*v as usize],
            Term::Value(v) => Some(self.dom.values.get(v).ok_or_else(|| {
                Error::internal(format!("the value {v} of a rule was not interned"))
            })?),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        ri: usize,
        order: &[usize],
        k: usize,
        binding: &mut Vec<Option<Vid>>,
        pos: &mut Vec<AtomId>,
        neg: &mut Vec<AtomId>,
        out: &mut Vec<Found>,
    ) -> Result<(), Error> {
        let rule = &self.prog.rules[ri];
        if k == order.len() {
            let mut head = Vec::with_capacity(rule.head.args.len());
            for a in &rule.head.args {
                match self.value(a, binding)? {
                    Some(v) => head.push(v),
                    None => {
                        return Err(Error::internal(format!(
                            "rule `{}` has an unbound head variable",
                            rule.origin
                        )))
                    }
                }
            }
            if out.len() + self.g.insts.len() > MAX_GROUND {
                return Err(Error::too_large(
                    &self.prog.relation(rule.head.rel).name,
                    out.len(),
                ));
            }
            out.push(Found {
                rule: ri as u32,
                head: head.into_boxed_slice(),
                pos: pos.clone(),
                neg: neg.clone(),
            });
            return Ok(());
        }
        match &rule.body[order[k]] {
            Item::Cmp(a, op, b) => {
                let (Some(x), Some(y)) = (self.value(a, binding)?, self.value(b, binding)?) else {
                    return Err(Error::internal(format!(
                        "rule `{}` compares an unbound variable",
                        rule.origin
                    )));
                };
                if self.compare(x, *op, y) {
                    self.join(ri, order, k + 1, binding, pos, neg, out)?;
                }
            }
            Item::Neg(a) => {
                let mut t = Vec::with_capacity(a.args.len());
                for x in &a.args {
                    match self.value(x, binding)? {
                        Some(v) => t.push(v),
                        None => {
                            return Err(Error::internal(format!(
                                "rule `{}` negates an unbound variable",
                                rule.origin
                            )))
                        }
                    }
                }
                match self.g.atom(a.rel, &t) {
                    // Never possible: the negation always holds.
                    None => self.join(ri, order, k + 1, binding, pos, neg, out)?,
                    Some(id) => {
                        neg.push(id);
                        self.join(ri, order, k + 1, binding, pos, neg, out)?;
                        neg.pop();
                    }
                }
            }
            Item::Pos(a) => {
                let mut cols = Vec::new();
                let mut key = Vec::new();
                for (c, x) in a.args.iter().enumerate() {
                    if let Some(v) = self.value(x, binding)? {
                        cols.push(c);
                        key.push(v);
                    }
                }
                let rel = a.rel.0 as usize;
                let matches: Vec<u32> = if cols.is_empty() {
                    (0..self.g.rels[rel].tuples.len() as u32).collect()
                } else {
                    self.g.rels[rel].lookup(&cols, &key)
                };
                for m in matches {
                    let tuple = self.g.rels[rel].tuples[m as usize].clone();
                    let id = self.g.rels[rel].ids[m as usize];
                    let saved = binding.clone();
                    let mut ok = true;
                    for (x, &v) in a.args.iter().zip(tuple.iter()) {
                        if let Term::Var(w) = x {
                            match binding[*w as usize] {
                                Some(b) if b != v => {
                                    ok = false;
                                    break;
                                }
                                Some(_) => {}
                                None => binding[*w as usize] = Some(v),
                            }
                        }
                    }
                    if ok {
                        pos.push(id);
                        self.join(ri, order, k + 1, binding, pos, neg, out)?;
                        pos.pop();
                    }
                    *binding = saved;
                }
            }
        }
        Ok(())
    }

    fn compare(&self, x: Vid, op: CmpOp, y: Vid) -> bool {
        match op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            _ => match (self.dom.values.value(x), self.dom.values.value(y)) {
                (Value::Int(a), Value::Int(b)) => op.holds_int(*a, *b),
                // The checker allows order comparisons on integers only.
                _ => false,
            },
        }
    }
}
