//! The reference evaluator: semi-naive bottom-up evaluation of a [`Program`],
//! stratum by stratum, over interned values.
//!
//! It is written for clarity and predictable behaviour, not peak speed: hash
//! indexes are built on demand per (relation, bound columns) and kept up to
//! date as tuples arrive. Each tuple remembers the round it was derived in,
//! which the explainer uses to pick well-founded derivations.

mod body;
mod layout;

use crate::program::{
    join_order, Atom, EdgeOrder, Item, Lit, Program, RelId, Role, Rule, Section, Term,
};
use crate::program::{Ty, TypeId, Value};
use body::{Matcher, Range, Rows};
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub(crate) use body::Observer;

use crate::{Policy, Request};
pub use layout::{Entry, Layout};

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
    /// The case's date (`asOf`; `None`: the package's current date).
    pub as_of: Option<crate::law::Date>,
}

/// Entity names ↔ dense ids: the interner of generated modules, without
/// constants, so that the reference evaluator and the engines number a case's
/// entities alike (an id is widened to `i64` in a tuple, beside integers).
pub(crate) use crate::generated::interner::Interner;

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
    /// The evaluation's entity names: tuples hold their ids.
    pub interner: Interner,
    /// What was in force on the case's date (`None`: no edition of a work
    /// some rule is anchored to was, and nothing dated applied; [`in_force`]
    /// refuses such a case before it is evaluated).
    pub in_force: Option<crate::law::InForce>,
    /// Indexes built after evaluation, for lookups it did not make.
    late: LateIndexes,
}

/// Indexes of a finished store by the columns an explanation looks a
/// relation up by and evaluation did not (a rule body read from its given
/// head), each built on its first use: explaining many literals of one
/// evaluation (`lawgen verdicts`) then costs each a lookup, not a scan.
#[derive(Default)]
pub(crate) struct LateIndexes(std::sync::Mutex<HashMap<(RelId, Vec<usize>), LateIndex>>);

/// Key → tuple ids, in insertion order.
pub(crate) type LateIndex = std::sync::Arc<HashMap<Vec<i64>, Vec<u32>>>;

impl LateIndexes {
    /// The index of `rel` (relation `r`) by `cols`, built if needed.
    pub(crate) fn get(&self, r: RelId, rel: &Rel, cols: &[usize]) -> LateIndex {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.entry((r, cols.to_vec()))
            .or_insert_with(|| {
                let mut index: HashMap<Vec<i64>, Vec<u32>> = HashMap::new();
                for (i, t) in rel.tuples.iter().enumerate() {
                    index
                        .entry(cols.iter().map(|&c| t[c]).collect())
                        .or_default()
                        .push(i as u32);
                }
                std::sync::Arc::new(index)
            })
            .clone()
    }
}

impl Clone for LateIndexes {
    fn clone(&self) -> Self {
        LateIndexes::default()
    }
}

impl std::fmt::Debug for LateIndexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LateIndexes")
    }
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
    #[cfg_attr(not(feature = "explain"), allow(dead_code))]
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
            rows: Rows::Fixed(&self.rels, &self.late),
            interner: &self.interner,
            observer,
        }
        .run(binding);
    }

    /// How many indexes explanations have built on this finished store.
    #[cfg(test)]
    pub(crate) fn late_index_count(&self) -> usize {
        self.late.0.lock().map_or(0, |l| l.len())
    }

    /// Relation `r`'s tuples, in the order they were derived.
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

    /// A stored value back as a [`Value`] of column type `ty`.
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

/// What is in force on the date of `facts` (docs/reference.md#as-of-evaluation),
/// or why no case of that date can be judged. Call it before [`evaluate`]:
/// evaluated on such a date, every rule anchored to a dated edition is left
/// out.
pub fn in_force(prog: &Program, facts: &Facts) -> Result<crate::law::InForce, crate::law::NoLaw> {
    prog.catalog.law.on(facts.as_of)
}

/// Evaluates `prog` on `facts` under `policy`, as of `facts.as_of`.
pub fn evaluate(prog: &Program, facts: &Facts, policy: Policy) -> Store {
    let in_force = in_force(prog, facts).ok();
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
            Role::AsOf => {
                if let Some(d) = facts.as_of {
                    rels[i].insert(Box::new([i64::from(d.0)]), 0);
                }
            }
            Role::InForce(k) => {
                if in_force
                    .as_ref()
                    .is_some_and(|f| f.gates.get(*k as usize) == Some(&true))
                {
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
    // A stratum groups rules by negation depth only, so it may hold a long
    // chain of rules that do not depend on each other cyclically; evaluated
    // together, each round would revisit every rule of the chain
    // (quadratic). Component by component, in dependency order, a rule
    // outside a cycle fires in one round.
    for stratum in &prog.strata {
        for group in prog
            .rule_components_within(stratum, EdgeOrder::Rule)
            .components()
        {
            ev.stratum(&group.rules);
        }
    }
    Store {
        rels: ev.rels,
        interner: ev.interner,
        late: LateIndexes::default(),
        in_force,
    }
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
    /// The root package's name.
    pub package: String,
    /// The root package's version.
    pub version: String,
    /// The conflict policy the evaluation ran under.
    pub policy: Policy,
    /// Per section, per literal (`p` or `~p`), its rows, sorted.
    pub sections: BTreeMap<Section, BTreeMap<String, BTreeSet<Row>>>,
    /// The open requests, sorted and without duplicates.
    pub requests: Vec<Request>,
    /// The date of the case (`None` when the closure has no dated edition).
    pub as_of: Option<crate::law::Date>,
    /// For each work a rule is anchored to through a dated edition, the
    /// edition in force on the date, sorted by work.
    pub editions: Vec<crate::law::EditionInForce>,
}

/// Reads the canonical conclusions off an evaluated store.
pub fn conclusions(prog: &Program, store: &Store, policy: Policy) -> Conclusions {
    conclusions_from(prog, policy, store.in_force.as_ref(), &mut |r| {
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
/// definition of docs/reference.md#the-canonical-output. `in_force` is
/// what was in force on the case's date.
pub fn conclusions_from(
    prog: &Program,
    policy: Policy,
    in_force: Option<&crate::law::InForce>,
    rows: &mut dyn FnMut(RelId) -> BTreeSet<Row>,
) -> Conclusions {
    let layout = Layout::new(prog);
    let mut sections: BTreeMap<Section, BTreeMap<String, BTreeSet<Row>>> = BTreeMap::new();
    for s in [
        Section::Definitely,
        Section::Defeasibly,
        Section::Supported,
        Section::Pending,
    ] {
        sections.insert(s, BTreeMap::new());
    }
    let mut rows = |r: RelId| rows(r).into_iter().collect::<Vec<Row>>();
    for e in layout.entries() {
        let got = layout.rows(prog, e, &mut rows, &Ord::cmp);
        if got.is_empty() {
            continue;
        }
        sections
            .get_mut(&e.section)
            .expect("all sections present")
            .insert(e.literal.clone(), got.into_iter().collect());
    }
    let requests = layout
        .requests(prog, &mut rows, &|_, a, b| a.cmp(b))
        .into_iter()
        .map(|(i, args)| {
            let r = &prog.requests[i];
            Request {
                predicate: prog.catalog.pred(r.lit.pred).local.clone(),
                args,
                authority: r.authority.clone(),
                capability: r.capability.clone(),
            }
        })
        .collect();
    Conclusions {
        package: prog.package.clone(),
        version: prog.version.clone(),
        policy,
        sections,
        requests,
        as_of: in_force.and_then(|f| f.date),
        editions: in_force.map_or_else(Vec::new, |f| prog.catalog.law.rows(f)),
    }
}

fn decode_row(store: &Store, cols: &[Ty], t: &[i64]) -> Row {
    cols.iter()
        .zip(t)
        .map(|(c, v)| store.decode(*c, *v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Meaning, Output};
    use crate::test_support::{dump, facts, program};

    const GRAPH: &str = "
        type Node
        pred edge(Node, Node) empirical
        pred weight(Node, int) empirical
        input e(Node, Node) = edge
        input w(Node, int) = weight
        entities nodes(Node)
        flag propagating
        rel path(Node, Node)
        rel out(Node)
        rel sink(Node)
        rel heavy(Node)
        rel loop(Node)
        rel to_c(Node)
        rel not_b(Node)
        rel tagged(Node, Node)
        rel listed(Node)
        rel blocking()
    ";

    /// Evaluates `rules` over the graph declarations on `facts` and
    /// compares every derived relation with `expect`.
    fn check(rules: &[&str], facts_text: &str, policy: Policy, expect: &str) {
        let rules: Vec<(&str, Meaning)> = rules.iter().map(|r| (*r, Meaning::Domain)).collect();
        let prog = program(GRAPH, &rules);
        let store = evaluate(&prog, &facts(&prog, facts_text), policy);
        let got = dump(&prog, &store);
        let want: String = expect
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(got, want, "\n{got}");
    }

    #[test]
    fn recursion_reaches_the_fixpoint_through_a_cycle() {
        check(
            &[
                "path(X, Y) :- e(X, Y).",
                "path(X, Z) :- path(X, Y), e(Y, Z).",
            ],
            "edge(a, b). edge(b, c). edge(c, d). edge(d, b).",
            Policy::Blocking,
            "path: (a, b) (a, c) (a, d) (b, b) (b, c) (b, d) (c, b) (c, c) (c, d) (d, b) (d, c) (d, d)",
        );
    }

    #[test]
    fn negation_reads_a_lower_stratum_and_comparisons_filter() {
        check(
            &[
                "out(X) :- e(X, Y).",
                "sink(X) :- w(X, N), !out(X).",
                "heavy(X) :- w(X, N), N >= 10.",
                "not_b(X) :- w(X, N), X != b.",
            ],
            "edge(a, b). weight(a, 3). weight(b, 10). weight(c, 11).",
            Policy::Blocking,
            "out: (a)
             sink: (b) (c)
             heavy: (b) (c)
             not_b: (a) (c)",
        );
    }

    /// A variable twice in an atom takes one value; a constant in a body
    /// matches only itself, and a head constant no fact names is interned.
    #[test]
    fn repeated_variables_and_constants() {
        check(
            &[
                "loop(X) :- e(X, X).",
                "to_c(X) :- e(X, c).",
                "tagged(X, zed) :- e(X, Y).",
            ],
            "edge(a, a). edge(a, c). edge(b, c). edge(c, a).",
            Policy::Blocking,
            "loop: (a)
             to_c: (a) (b)
             tagged: (a, zed) (b, zed) (c, zed)",
        );
    }

    #[test]
    fn the_policy_flag_and_listed_entities_are_inputs() {
        let rules = ["blocking() :- !propagating().", "listed(X) :- nodes(X)."];
        check(
            &rules,
            "@Node(p). @Node(q).",
            Policy::Blocking,
            "listed: (p) (q)\nblocking: ()",
        );
        check(&rules, "@Node(p).", Policy::Propagating, "listed: (p)");
    }

    /// Each tuple remembers the round it was derived in, and a derivation's
    /// premises are from earlier rounds (what explanations rely on).
    #[test]
    fn rounds_order_derivations() {
        let prog = program(
            GRAPH,
            &[
                ("path(X, Y) :- e(X, Y).", Meaning::Domain),
                ("path(X, Z) :- path(X, Y), e(Y, Z).", Meaning::Domain),
            ],
        );
        let store = evaluate(
            &prog,
            &facts(&prog, "edge(a, b). edge(b, c). edge(c, d)."),
            Policy::Blocking,
        );
        let path = RelId(
            prog.relations
                .iter()
                .position(|r| r.name == "path")
                .unwrap() as u32,
        );
        let e = RelId(0);
        let id = |n: &str| store.encode(&Value::Entity(n.into())).unwrap();
        let round = |r: RelId, a: &str, b: &str| store.round(r, &[id(a), id(b)]);
        assert_eq!(round(e, "a", "b"), Some(0), "facts are round 0");
        let (ab, ac, ad) = (
            round(path, "a", "b").unwrap(),
            round(path, "a", "c").unwrap(),
            round(path, "a", "d").unwrap(),
        );
        assert!(0 < ab && ab < ac && ac < ad, "{ab} {ac} {ad}");
        assert_eq!(round(path, "d", "a"), None);
        assert!(!store.contains(path, &[id("d"), id("a")]));
    }

    /// Ids follow the order entities were first met (facts before rule
    /// constants), like generated modules' interner without constants.
    #[test]
    fn entities_are_numbered_in_order_of_appearance() {
        let prog = program(GRAPH, &[("tagged(X, zed) :- e(X, Y).", Meaning::Domain)]);
        let store = evaluate(&prog, &facts(&prog, "edge(b, a)."), Policy::Blocking);
        let id = |n: &str| store.encode(&Value::Entity(n.into()));
        assert_eq!((id("b"), id("a"), id("zed")), (Some(0), Some(1), Some(2)));
        assert_eq!(id("nobody"), None);
        assert_eq!(store.name_of(2), Some("zed"));
        assert_eq!(store.name_of(-1), None);
        assert_eq!(store.decode(Ty::Int, -4), Value::Int(-4));
    }

    /// The canonical sections are read through `Output`: a relation, less
    /// another; requests are decoded and sorted.
    #[test]
    fn conclusions_read_each_section_as_a_relation_less_another() {
        let mut prog = program(
            "type Node
             pred edge(Node, Node) empirical
             pred q(Node) institutional
             input e(Node, Node) = edge
             rel has_out(Node)
             rel has_in(Node)",
            &[
                ("has_out(X) :- e(X, Y).", Meaning::Domain),
                ("has_in(Y) :- e(X, Y).", Meaning::Domain),
            ],
        );
        let q = Lit {
            pred: crate::program::PredId(1),
            negative: false,
        };
        prog.outputs = vec![
            Output {
                section: Section::Supported,
                lit: q,
                rel: RelId(1),
                minus: None,
                on: Vec::new(),
            },
            Output {
                section: Section::Pending,
                lit: q,
                rel: RelId(1),
                minus: Some(RelId(2)),
                on: Vec::new(),
            },
        ];
        let store = evaluate(
            &prog,
            &facts(&prog, "edge(a, b). edge(b, c)."),
            Policy::Blocking,
        );
        let c = conclusions(&prog, &store, Policy::Blocking);
        let rows = |s: Section| -> Vec<String> {
            c.sections[&s]
                .get("q")
                .map(|rows| rows.iter().map(|r| format!("{r:?}")).collect())
                .unwrap_or_default()
        };
        assert_eq!(
            rows(Section::Supported),
            [r#"[Entity("a")]"#, r#"[Entity("b")]"#]
        );
        assert_eq!(rows(Section::Pending), [r#"[Entity("a")]"#]);
        assert!(c.sections[&Section::Definitely].is_empty());
        assert_eq!((c.package.as_str(), c.version.as_str()), ("t", "1"));
    }
}
