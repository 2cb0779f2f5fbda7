//! The reference evaluator: semi-naive bottom-up evaluation of a [`Program`],
//! stratum by stratum, over interned values.
//!
//! It is written for clarity and predictable behaviour, not peak speed: hash
//! indexes are built on demand per (relation, bound columns) and kept up to
//! date as tuples arrive. Each tuple remembers the round it was derived in,
//! which the explainer uses to pick well-founded derivations.

mod body;

use crate::program::{join_order, Atom, Item, Lit, Program, RelId, Role, Rule, Section, Term};
use crate::program::{Ty, TypeId, Value};
use body::{Matcher, Range, Rows};
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub(crate) use body::Observer;

pub use crate::{Policy, Request};

/// Input facts of one case, validated against a package (what a facts file
/// reads to, see [`crate::formats::facts`]).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Rows per literal (`p` or `~p`), as sets.
    pub rows: BTreeMap<Lit, BTreeSet<Vec<Value>>>,
    /// Entities declared under `entities`.
    pub entities: BTreeMap<TypeId, BTreeSet<String>>,
    /// Rows given more than once (accepted once).
    pub duplicates: usize,
}

/// Entity names ↔ dense ids: the interner of generated modules, without
/// constants, so that the reference evaluator and the engines number a case's
/// entities alike (an id is widened to `i64` in a tuple, beside integers).
pub use crate::generated::interner::Interner;

type Tuple = Box<[i64]>;

/// One relation's tuples, in the order they were derived, with the round
/// of each and the indexes rules have looked it up by.
#[derive(Default, Clone, Debug)]
pub(crate) struct Rel {
    tuples: Vec<Tuple>,
    /// Round in which each tuple was derived (0 = input).
    rounds: Vec<u32>,
    set: HashMap<Tuple, u32>,
    /// Bound-column lists → key → tuple indices.
    indexes: HashMap<Vec<usize>, HashMap<Vec<i64>, Vec<u32>>>,
}

impl Rel {
    fn insert(&mut self, t: Tuple, round: u32) -> bool {
        if self.set.contains_key(&t) {
            return false;
        }
        let idx = self.tuples.len() as u32;
        for (cols, index) in self.indexes.iter_mut() {
            let key: Vec<i64> = cols.iter().map(|&c| t[c]).collect();
            index.entry(key).or_default().push(idx);
        }
        self.set.insert(t.clone(), idx);
        self.tuples.push(t);
        self.rounds.push(round);
        true
    }

    fn index(&mut self, cols: &[usize]) -> &HashMap<Vec<i64>, Vec<u32>> {
        if !self.indexes.contains_key(cols) {
            let mut index: HashMap<Vec<i64>, Vec<u32>> = HashMap::new();
            for (i, t) in self.tuples.iter().enumerate() {
                index
                    .entry(cols.iter().map(|&c| t[c]).collect())
                    .or_default()
                    .push(i as u32);
            }
            self.indexes.insert(cols.to_vec(), index);
        }
        &self.indexes[cols]
    }
}

/// The evaluated program: every relation's tuples.
#[derive(Clone, Debug)]
pub struct Store {
    rels: Vec<Rel>,
    pub interner: Interner,
}

impl Store {
    /// Does relation `r` hold `row`?
    pub fn contains(&self, r: RelId, row: &[i64]) -> bool {
        self.rels[r.0 as usize].set.contains_key(row)
    }

    /// The round in which `row` was derived into `r`, if it holds.
    pub fn round(&self, r: RelId, row: &[i64]) -> Option<u32> {
        let rel = &self.rels[r.0 as usize];
        rel.set.get(row).map(|&i| rel.rounds[i as usize])
    }

    /// Matches `rule`'s body against the stored relations, its items in
    /// `order`, from `binding` (variables bound beforehand, e.g. by a given
    /// head, stay bound), reporting to `observer`: the matcher the evaluator
    /// derived with, so that an explanation reads a body as evaluation did.
    pub(crate) fn match_body<O: Observer>(
        &self,
        rule: &Rule,
        order: &[usize],
        binding: &mut [Option<i64>],
        observer: &mut O,
    ) {
        Matcher {
            rule,
            order,
            delta: None,
            rows: Rows::Fixed(&self.rels),
            interner: &self.interner,
            observer,
        }
        .run(binding);
    }

    pub fn tuples(&self, r: RelId) -> impl Iterator<Item = &[i64]> {
        self.rels[r.0 as usize].tuples.iter().map(|t| &t[..])
    }

    /// Converts a value to its interned form (`None` for an entity never seen).
    pub fn encode(&self, v: &Value) -> Option<i64> {
        match v {
            Value::Int(i) => Some(*i),
            Value::Entity(e) => self.interner.get(e).map(i64::from),
        }
    }

    /// The name of entity id `v`, if the evaluation interned it.
    pub fn name_of(&self, v: i64) -> Option<&str> {
        u32::try_from(v)
            .ok()
            .and_then(|id| self.interner.name_of(id))
    }

    pub fn decode(&self, ty: Ty, v: i64) -> Value {
        match ty {
            Ty::Int => Value::Int(v),
            Ty::Entity(_) => Value::Entity(
                self.name_of(v)
                    .expect("an entity column holds interned ids")
                    .to_owned(),
            ),
        }
    }
}

/// Evaluates `prog` on `facts` under `policy`.
pub fn evaluate(prog: &Program, facts: &Facts, policy: Policy) -> Store {
    let mut interner = Interner::default();
    let mut rels: Vec<Rel> = vec![Rel::default(); prog.relations.len()];
    // Constants of rules first so their ids are stable across inputs.
    for (i, rel) in prog.relations.iter().enumerate() {
        match &rel.role {
            Role::Facts(lit) => {
                if let Some(rows) = facts.rows.get(lit) {
                    for row in rows {
                        let t: Tuple = row.iter().map(|v| encode(&mut interner, v)).collect();
                        rels[i].insert(t, 0);
                    }
                }
            }
            Role::Entities(Ty::Entity(t)) => {
                if let Some(names) = facts.entities.get(t) {
                    for n in names {
                        let t: Tuple = Box::new([i64::from(interner.intern(n))]);
                        rels[i].insert(t, 0);
                    }
                }
            }
            Role::Entities(Ty::Int) | Role::Derived => {}
            Role::PolicyPropagating => {
                if policy == Policy::Propagating {
                    rels[i].insert(Box::new([]), 0);
                }
            }
        }
    }
    let mut ev = Evaluator {
        prog,
        rels,
        interner,
        round: 0,
    };
    for stratum in &prog.strata {
        for group in recursive_groups(prog, stratum) {
            ev.stratum(&group);
        }
    }
    Store {
        rels: ev.rels,
        interner: ev.interner,
    }
}

/// A stratum's rules split by the recursive component of their heads, in
/// dependency order. A stratum groups rules by negation depth only, so it may
/// hold a long chain of rules that do not depend on each other cyclically;
/// evaluated together, each round would revisit every rule of the chain
/// (quadratic). Group by group, a rule outside a cycle fires in one round.
fn recursive_groups(prog: &Program, stratum: &[usize]) -> Vec<Vec<usize>> {
    let mut local: HashMap<RelId, usize> = HashMap::new();
    for &ri in stratum {
        let n = local.len();
        local.entry(prog.rules[ri].head.rel).or_insert(n);
    }
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); local.len()];
    for &ri in stratum {
        let rule = &prog.rules[ri];
        let h = local[&rule.head.rel];
        for it in &rule.body {
            if let Item::Pos(a) = it {
                if let Some(&b) = local.get(&a.rel) {
                    succ[b].push(h);
                }
            }
        }
    }
    let comp = crate::scc::components(&succ);
    let n = comp.iter().copied().max().map_or(0, |m| m + 1);
    // Components come in reverse topological order: the last one first.
    let mut groups = vec![Vec::new(); n];
    for &ri in stratum {
        groups[n - 1 - comp[local[&prog.rules[ri].head.rel]]].push(ri);
    }
    groups
}

fn encode(interner: &mut Interner, v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Entity(e) => i64::from(interner.intern(e)),
    }
}

struct Evaluator<'p> {
    prog: &'p Program,
    rels: Vec<Rel>,
    interner: Interner,
    round: u32,
}

impl Evaluator<'_> {
    /// Semi-naive evaluation of one stratum. New tuples are committed only
    /// between rounds, so during a round every relation's full range is simply
    /// its current length; only the stratum's own heads need a remembered
    /// frontier (where the last round's delta starts). Nothing here is sized
    /// by the whole program: a package with 10⁴ strata stays linear.
    fn stratum(&mut self, rule_ids: &[usize]) {
        let mut heads: Vec<RelId> = rule_ids
            .iter()
            .map(|&r| self.prog.rules[r].head.rel)
            .collect();
        heads.sort_unstable_by_key(|r| r.0);
        heads.dedup();
        let len = |rels: &[Rel], r: RelId| rels[r.0 as usize].tuples.len() as u32;
        // Round 1: every rule over everything known.
        self.round += 1;
        let mut delta_lo: HashMap<RelId, u32> =
            heads.iter().map(|&h| (h, len(&self.rels, h))).collect();
        let mut new = Vec::new();
        for &ri in rule_ids {
            self.fire(ri, None, &mut new);
        }
        self.commit(new);
        // Later rounds: only combinations that use a tuple new in the last round.
        loop {
            let hi: HashMap<RelId, u32> = heads.iter().map(|&h| (h, len(&self.rels, h))).collect();
            if heads.iter().all(|h| hi[h] == delta_lo[h]) {
                break;
            }
            self.round += 1;
            let mut new = Vec::new();
            for &ri in rule_ids {
                let rule = &self.prog.rules[ri];
                for (pos, item) in rule.body.iter().enumerate() {
                    let Item::Pos(a) = item else { continue };
                    let (Some(&lo), Some(&hi)) = (delta_lo.get(&a.rel), hi.get(&a.rel)) else {
                        continue; // not written in this stratum: no delta
                    };
                    if lo == hi {
                        continue;
                    }
                    self.fire(ri, Some((pos, Range { lo, hi })), &mut new);
                }
            }
            delta_lo = hi;
            self.commit(new);
        }
    }

    fn commit(&mut self, new: Vec<(RelId, Tuple)>) {
        for (r, t) in new {
            self.rels[r.0 as usize].insert(t, self.round);
        }
    }

    /// Evaluates one rule; `delta` restricts one positive item to new tuples.
    fn fire(&mut self, ri: usize, delta: Option<(usize, Range)>, out: &mut Vec<(RelId, Tuple)>) {
        let rule = &self.prog.rules[ri];
        let order = join_order(&rule.body, delta.map(|d| d.0));
        // Constants in the rule are interned up front.
        for it in &rule.body {
            for t in it.terms() {
                if let Term::Value(Value::Entity(e)) = t {
                    self.interner.intern(e);
                }
            }
        }
        for t in &rule.head.args {
            if let Term::Value(Value::Entity(e)) = t {
                self.interner.intern(e);
            }
        }
        let mut binding = vec![None; rule.binding_len()];
        let mut derive = Derive {
            head: &rule.head,
            interner: &self.interner,
            out,
        };
        Matcher {
            rule,
            order: &order,
            delta,
            rows: Rows::Growing(&mut self.rels),
            interner: &self.interner,
            observer: &mut derive,
        }
        .run(&mut binding);
    }
}

/// Collects the head tuple of every instance of a rule, unless its relation
/// already holds it.
struct Derive<'a> {
    head: &'a Atom,
    interner: &'a Interner,
    out: &'a mut Vec<(RelId, Tuple)>,
}

impl Observer for Derive<'_> {
    fn matched(&mut self, rels: &[Rel], binding: &[Option<i64>]) -> bool {
        let t: Tuple = self
            .head
            .args
            .iter()
            .map(|a| body::value(self.interner, a, binding).expect("safety: head bound"))
            .collect();
        if !rels[self.head.rel.0 as usize].set.contains_key(&t) {
            self.out.push((self.head.rel, t));
        }
        true
    }
}

/// One row of output, ordered as the canonical output wants (integers
/// numerically, strings by code point).
pub type Row = Vec<Value>;

/// The canonical conclusions: what the canonical output prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conclusions {
    pub package: String,
    pub version: String,
    pub policy: Policy,
    pub sections: BTreeMap<Section, BTreeMap<String, BTreeSet<Row>>>,
    pub requests: Vec<Request>,
}

/// Reads the canonical conclusions off an evaluated store.
pub fn conclusions(prog: &Program, store: &Store, policy: Policy) -> Conclusions {
    conclusions_from(prog, policy, &mut |r| {
        let cols = &prog.relation(r).columns;
        store
            .tuples(r)
            .map(|t| decode_row(store, cols, t))
            .collect()
    })
}

/// Reads the canonical conclusions off any backend: `rows(r)` gives the
/// decoded tuples of relation `r` (only output and request relations are
/// asked for). The compiled backend uses this, so both backends share one
/// definition of docs/reference.md#the-canonical-output.
pub fn conclusions_from(
    prog: &Program,
    policy: Policy,
    rows: &mut dyn FnMut(RelId) -> BTreeSet<Row>,
) -> Conclusions {
    let mut sections: BTreeMap<Section, BTreeMap<String, BTreeSet<Row>>> = BTreeMap::new();
    for s in [
        Section::Definitely,
        Section::Defeasibly,
        Section::Supported,
        Section::Pending,
    ] {
        sections.insert(s, BTreeMap::new());
    }
    for o in &prog.outputs {
        let mut got = rows(o.rel);
        let minus = o.minus.map(&mut *rows).unwrap_or_default();
        got.retain(|t| o.holds(|r| r == o.rel || minus.contains(t)));
        if got.is_empty() {
            continue;
        }
        sections
            .get_mut(&o.section)
            .expect("all sections present")
            .entry(prog.catalog.lit_name(o.lit))
            .or_default()
            .extend(got);
    }
    let mut requests = Vec::new();
    for r in &prog.requests {
        for args in rows(r.rel) {
            requests.push(Request {
                predicate: prog.catalog.pred(r.lit.pred).local.clone(),
                args,
                authority: r.authority.clone(),
                capability: r.capability.clone(),
            });
        }
    }
    requests.sort();
    requests.dedup();
    Conclusions {
        package: prog.package.clone(),
        version: prog.version.clone(),
        policy,
        sections,
        requests,
    }
}

fn decode_row(store: &Store, cols: &[Ty], t: &[i64]) -> Row {
    cols.iter()
        .zip(t)
        .map(|(c, v)| store.decode(*c, *v))
        .collect()
}
