//! Proof search over the evaluated relations.
//!
//! Everything an explanation claims is read off the store of the reference
//! evaluator: which program rule derived a tuple (and so, through its
//! [`Meaning`], which package rule applied, which attacker was discarded or
//! defeated, which world and level), and, for a tuple that is absent, where
//! the body of the rule that would derive it stops matching. Nothing here
//! decides a policy, a defeat, a world, which rules conclude a literal or
//! what an undecided judgment ranges over: lowering did, in the relations
//! and the meanings. What is left here is choosing which true derivation to
//! show.
//!
//! A derivation is chosen well-founded: every positive premise was derived in
//! an earlier round than its conclusion (the evaluator commits a round's
//! tuples only after the round, so the first derivation of every tuple is
//! such a one). Rounds strictly decrease along every path of the tree, so it
//! is finite without any cycle bookkeeping.

use super::tree::*;
use crate::interp::{Observer, Rel, Store};
use crate::program::{
    join_order_from, label_in, local_name, AnchorInfo, Attack, Catalog, Domain, Item, Level, Lit,
    Meaning, PredId, Program, Read, RelId, RelationKind, Role, RuleInfo, SourceAtom, SourceItem,
    Strength, Term, Ty, Value, World,
};
use crate::{Policy, Request, Verdict};
use std::collections::{BTreeSet, HashMap};

/// Derivations deeper than this are cut with "…".
pub const MAX_DEPTH: usize = 12;

/// Ground instances of one rule tried when choosing a derivation.
const INSTANCE_LIMIT: usize = 256;

type Tuple = Vec<i64>;
type Binding = Vec<Option<i64>>;

/// Where a body match stopped: the item (in body order) that failed, after
/// the longest run of satisfied items, with the variables bound by then.
struct Failure {
    depth: usize,
    item: usize,
    binding: Binding,
}

/// How an explanation words a body item that fails.
#[derive(Clone, Copy)]
enum Wording<'r> {
    /// At the level and world lowering read it at (a rule's `reads`).
    Read(&'r [Option<Read>]),
    /// As the rule is written (established: ∂, supported: Σ), in the
    /// certain model: why a literal is not concluded there.
    AsWritten,
}

/// What matching a rule body found: its satisfied instances (up to
/// `limit`), and the deepest item that failed.
struct Search {
    found: Vec<Binding>,
    fail: Option<Failure>,
    limit: usize,
}

impl Search {
    fn new(limit: usize) -> Search {
        Search {
            found: Vec::new(),
            fail: None,
            limit,
        }
    }
}

impl Observer for Search {
    fn matched(&mut self, _: &[Rel], b: &[Option<i64>]) -> bool {
        self.found.push(b.to_vec());
        self.found.len() < self.limit
    }

    /// The longest run of satisfied items wins; of equals, the first.
    fn failed(&mut self, depth: usize, item: usize, b: &[Option<i64>]) {
        if self.fail.as_ref().is_none_or(|f| depth > f.depth) {
            self.fail = Some(Failure {
                depth,
                item,
                binding: b.to_vec(),
            });
        }
    }
}

pub(super) struct Prover<'a> {
    prog: &'a Program,
    cat: &'a Catalog,
    store: &'a Store,
    pub(super) policy: Policy,
    lang: &'a str,
    heads: HashMap<RelId, Vec<usize>>,
    views: HashMap<(Lit, Level, World), RelId>,
    facts: HashMap<Lit, RelId>,
    /// Entities a query names that the evaluation never saw, by id (from
    /// the end of the store's ids on): nothing holds of them, but an
    /// explanation still says why, rule by rule.
    unknown: std::cell::RefCell<Vec<String>>,
    /// The values undecided judgment atoms range over, per judgment and argument.
    domain: std::sync::OnceLock<HashMap<PredId, Vec<std::collections::HashSet<i64>>>>,
    /// The possible-model relations of judgment literals, where an undecided
    /// atom holds only if some rule instance needs it.
    possible_judgments: std::collections::HashSet<RelId>,
    /// Per package rule that depends on the date, its in-force input.
    gates: HashMap<u32, RelId>,
    /// Per priority that depends on the date, its in-force input.
    priority_gates: HashMap<u32, RelId>,
}

impl<'a> Prover<'a> {
    pub(super) fn new(prog: &'a Program, store: &'a Store, policy: Policy, lang: &'a str) -> Self {
        let mut heads: HashMap<RelId, Vec<usize>> = HashMap::new();
        for (i, r) in prog.rules.iter().enumerate() {
            heads.entry(r.head.rel).or_default().push(i);
        }
        let views = prog
            .views
            .iter()
            .map(|v| ((v.lit, v.level, v.world), v.rel))
            .collect();
        let facts = prog
            .relations
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r.role {
                Role::Facts(l) => Some((l, RelId(i as u32))),
                _ => None,
            })
            .collect();
        let mut gates = HashMap::new();
        let mut priority_gates = HashMap::new();
        for r in &prog.rules {
            if let Meaning::Defeated { priority, .. } = r.meaning {
                for it in &r.body {
                    if let Item::Pos(a) = it {
                        if matches!(prog.relation(a.rel).role, Role::InForce(_)) {
                            priority_gates.insert(priority, a.rel);
                        }
                    }
                }
            }
            let (Meaning::Applicable { rule, .. } | Meaning::Strict { rule, .. }) = r.meaning
            else {
                continue;
            };
            for it in &r.body {
                if let Item::Pos(a) = it {
                    if matches!(prog.relation(a.rel).role, Role::InForce(_)) {
                        gates.insert(rule, a.rel);
                    }
                }
            }
        }
        Prover {
            gates,
            priority_gates,
            prog,
            cat: &prog.catalog,
            store,
            policy,
            lang,
            heads,
            views,
            facts,
            unknown: Default::default(),
            domain: Default::default(),
            possible_judgments: prog
                .views
                .iter()
                .filter(|v| {
                    v.world == World::Possible
                        && prog.catalog.pred(v.lit.pred).kind == RelationKind::Judgment
                })
                .map(|v| v.rel)
                .collect(),
        }
    }

    // -- reading the store ----------------------------------------------------

    /// A query's row as ids; entities the store never saw get ids of
    /// their own, which match no stored tuple.
    pub(super) fn encode(&self, row: &[Value]) -> Tuple {
        row.iter()
            .map(|v| match v {
                Value::Int(i) => *i,
                Value::Entity(e) => self.store.interner.get(e).map_or_else(
                    || {
                        let mut unknown = self.unknown.borrow_mut();
                        let i = match unknown.iter().position(|u| u == e) {
                            Some(i) => i,
                            None => {
                                unknown.push(e.clone());
                                unknown.len() - 1
                            }
                        };
                        (self.store.interner.len() + i) as i64
                    },
                    i64::from,
                ),
            })
            .collect()
    }

    fn contains(&self, rel: RelId, t: &[i64]) -> bool {
        self.store.contains(rel, t)
    }

    /// The verdict on `l(t)`, decided over the output sections as for the
    /// typed API (its requests are left for the caller to name).
    pub(super) fn verdict(&self, l: Lit, t: &[i64]) -> Verdict {
        self.prog.verdict(l, |r| self.contains(r, t), Vec::new)
    }

    fn view(&self, l: Lit, lv: Level, w: World) -> Option<RelId> {
        self.views.get(&(l, lv, w)).copied()
    }

    pub(super) fn holds(&self, l: Lit, t: &[i64], lv: Level, w: World) -> bool {
        self.view(l, lv, w).is_some_and(|r| self.contains(r, t))
    }

    fn is_fact(&self, l: Lit, t: &[i64]) -> bool {
        self.facts.get(&l).is_some_and(|r| self.contains(*r, t))
    }

    /// Is judgment atom `p(t)` decided neither way, over the domain the
    /// evaluation ranges undecided atoms over (docs/reference.md#undecided-judgments)?
    /// Whether or not a rule reads it: an atom no rule instance needs is not
    /// materialised, but it is undecided all the same.
    pub(super) fn is_undecided_atom(&self, p: PredId, t: &[i64]) -> bool {
        let params = &self.cat.pred(p).params;
        let in_domain = self.domain().get(&p).is_some_and(|d| {
            d.len() == t.len()
                && d.iter()
                    .zip(params)
                    .zip(t)
                    .all(|((d, ty), v)| d.contains(v) || self.constant_of_type(*ty, *v))
        });
        let lit = |negative| Lit { pred: p, negative };
        in_domain && !self.is_fact(lit(false), t) && !self.is_fact(lit(true), t)
    }

    /// Per judgment, per argument, the values its undecided atoms range
    /// over, as lowering recorded them in the judgment's `undecided` rule
    /// ([`Domain`]) and the evaluation filled them, read once.
    fn domain(&self) -> &HashMap<PredId, Vec<std::collections::HashSet<i64>>> {
        self.domain.get_or_init(|| {
            let mut d = HashMap::new();
            for r in &self.prog.rules {
                let Meaning::Undecided { pred, domain } = &r.meaning else {
                    continue;
                };
                let params = &self.cat.pred(*pred).params;
                let sets = domain
                    .iter()
                    .zip(params)
                    .map(|(dom, ty)| self.domain_values(dom, *ty))
                    .collect();
                d.insert(*pred, sets);
            }
            d
        })
    }

    /// The values [`Domain`] `dom` of an argument of type `ty` holds here.
    fn domain_values(&self, dom: &Domain, ty: Ty) -> std::collections::HashSet<i64> {
        match dom {
            Domain::Relation(rel) => self.store.tuples(*rel).map(|t| t[0]).collect(),
            Domain::Inputs(columns) => {
                let mut values: std::collections::HashSet<i64> = columns
                    .iter()
                    .flat_map(|&(rel, c)| self.store.tuples(rel).map(move |t| t[c as usize]))
                    .collect();
                if let Ty::Entity(tid) = ty {
                    values.extend(
                        self.cat
                            .constants
                            .iter()
                            .filter(|c| c.ty == tid)
                            .filter_map(|c| self.store.interner.get(&c.local))
                            .map(i64::from),
                    );
                }
                values
            }
        }
    }

    /// A query may name a constant the evaluation never interned: it is in
    /// the domain of its type all the same.
    fn constant_of_type(&self, ty: Ty, v: i64) -> bool {
        let Ty::Entity(tid) = ty else { return false };
        let k = (v as usize).wrapping_sub(self.store.interner.len());
        let unknown = self.unknown.borrow();
        unknown.get(k).is_some_and(|name| {
            self.cat
                .constants
                .iter()
                .any(|c| c.ty == tid && c.local == *name)
        })
    }

    /// Is `p(t)` among the requests of the evaluation?
    fn is_requested(&self, p: PredId, t: &[i64]) -> bool {
        self.prog
            .requests
            .iter()
            .any(|rv| rv.lit.pred == p && self.contains(rv.rel, t))
    }

    fn value(&self, ty: Ty, v: i64) -> Value {
        match ty {
            Ty::Int => Value::Int(v),
            Ty::Entity(_) => Value::Entity(match self.store.name_of(v) {
                Some(n) => n.to_owned(),
                None => {
                    let k = (v as usize).saturating_sub(self.store.interner.len());
                    self.unknown.borrow().get(k).cloned().unwrap_or_default()
                }
            }),
        }
    }

    /// Ground literal `l(t)`, decoded.
    pub(super) fn ground_atom(&self, l: Lit, t: &[i64]) -> Atom {
        let p = self.cat.pred(l.pred);
        Atom {
            lit: l,
            name: self.cat.lit_name(l),
            args: p
                .params
                .iter()
                .zip(t)
                .map(|(ty, v)| Some(self.value(*ty, *v)))
                .collect(),
        }
    }

    fn term(&self, t: &Term, b: &Binding) -> Option<i64> {
        match t {
            Term::Var(v) => b.get(*v as usize).copied().flatten(),
            Term::Value(v) => self.store.encode(v),
        }
    }

    /// The value of `t` under `b` (`None`: a variable not bound).
    fn term_value(&self, t: &Term, ty: Ty, b: &Binding) -> Option<Value> {
        match t {
            Term::Value(v) => Some(v.clone()),
            Term::Var(_) => self.term(t, b).map(|v| self.value(ty, v)),
        }
    }

    /// Body atom `a` on the values `b` binds.
    fn pattern(&self, a: &SourceAtom, b: &Binding) -> Atom {
        let p = self.cat.pred(a.lit.pred);
        Atom {
            lit: a.lit,
            name: self.cat.lit_name(a.lit),
            args: a
                .args
                .iter()
                .zip(&p.params)
                .map(|(t, ty)| self.term_value(t, *ty, b))
                .collect(),
        }
    }

    fn ground(&self, a: &SourceAtom, b: &Binding) -> Option<Tuple> {
        a.args.iter().map(|t| self.term(t, b)).collect()
    }

    // -- matching rule bodies against the store ---------------------------------

    /// Ground instances of program rule `ri` whose head is `head`, up to
    /// `limit`, or where the match stops.
    fn instances(&self, ri: usize, head: &[i64], limit: usize) -> Search {
        let rule = &self.prog.rules[ri];
        let mut b: Binding = vec![None; rule.binding_len()];
        let mut search = Search::new(limit);
        let mut bound = Vec::new();
        for (t, v) in rule.head.args.iter().zip(head) {
            match t {
                Term::Var(x) => match b[*x as usize] {
                    Some(old) if old != *v => return search,
                    _ => {
                        b[*x as usize] = Some(*v);
                        bound.push(*x);
                    }
                },
                Term::Value(_) => {
                    if self.term(t, &b) != Some(*v) {
                        return search;
                    }
                }
            }
        }
        self.match_body(ri, &bound, &mut b, &mut search);
        search
    }

    /// Ground instances of program rule `ri` with no head given, up to `limit`.
    fn all_instances(&self, ri: usize, limit: usize) -> Vec<Binding> {
        let mut b: Binding = vec![None; self.prog.rules[ri].binding_len()];
        let mut search = Search::new(limit);
        self.match_body(ri, &[], &mut b, &mut search);
        search.found
    }

    /// Does program rule `ri` have a satisfied instance?
    pub(super) fn has_instance(&self, ri: usize) -> bool {
        !self.all_instances(ri, 1).is_empty()
    }

    /// The heads of every satisfied instance of program rule `ri`.
    pub(super) fn instance_heads(&self, ri: usize) -> Vec<Tuple> {
        let head = &self.prog.rules[ri].head;
        self.all_instances(ri, usize::MAX)
            .iter()
            .filter_map(|b| head.args.iter().map(|t| self.term(t, b)).collect())
            .collect()
    }

    /// Matches the body of program rule `ri` with the evaluator's matcher,
    /// variables `bound` beforehand. The order is the evaluator's, from the
    /// bound head, except that a judgment atom read in the possible model
    /// goes last: there every undecided atom holds, but only those some rule
    /// instance needs are materialised, and an instance whose other items
    /// all hold needs it (lowering's `demand`). Matched last, a failure lands
    /// on the item that really fails.
    fn match_body(&self, ri: usize, bound: &[u32], b: &mut Binding, search: &mut Search) {
        let rule = &self.prog.rules[ri];
        let deferred = |i: usize| match &rule.body[i] {
            Item::Pos(a) => self.possible_judgments.contains(&a.rel),
            _ => false,
        };
        let order = join_order_from(&rule.body, None, bound, deferred);
        self.store.match_body(rule, &order, b, search);
    }

    fn unify(&self, args: &[Term], t: &[i64], b: &mut Binding) -> bool {
        for (a, v) in args.iter().zip(t) {
            match a {
                Term::Var(x) => match b[*x as usize] {
                    Some(old) if old != *v => return false,
                    Some(_) => {}
                    None => b[*x as usize] = Some(*v),
                },
                Term::Value(_) => {
                    if self.term(a, b) != Some(*v) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The program rule instance that derived `t` into `rel`, well-founded
    /// by round (see the module docs).
    fn derivation(&self, rel: RelId, t: &[i64]) -> Option<(usize, Binding)> {
        let round = self.store.round(rel, t)?;
        let mut fallback = None;
        for &ri in self.heads.get(&rel).map_or(&[][..], Vec::as_slice) {
            for b in self.instances(ri, t, INSTANCE_LIMIT).found {
                let earlier = self.prog.rules[ri].body.iter().all(|it| match it {
                    Item::Pos(a) => {
                        let at: Option<Tuple> = a.args.iter().map(|x| self.term(x, &b)).collect();
                        at.and_then(|at| self.store.round(a.rel, &at))
                            .is_some_and(|r| r < round)
                    }
                    _ => true,
                });
                if earlier {
                    return Some((ri, b));
                }
                if fallback.is_none() {
                    fallback = Some((ri, b));
                }
            }
        }
        fallback
    }

    /// The tuple of body atom `k` of program rule `ri` under `b`.
    fn body_tuple(&self, ri: usize, k: usize, b: &Binding) -> Option<(RelId, Tuple)> {
        match &self.prog.rules[ri].body.get(k)? {
            Item::Pos(a) | Item::Neg(a) => {
                let t = a
                    .args
                    .iter()
                    .map(|x| self.term(x, b))
                    .collect::<Option<_>>()?;
                Some((a.rel, t))
            }
            Item::Cmp(..) => None,
        }
    }

    /// The program rules whose head is `rel`.
    pub(super) fn rules_heading(&self, rel: RelId) -> &[usize] {
        self.heads.get(&rel).map_or(&[], Vec::as_slice)
    }

    fn meaning(&self, ri: usize) -> &Meaning {
        &self.prog.rules[ri].meaning
    }

    /// The program rule that computes package rule `rule`'s body at `lv` in
    /// `w`: its applicability rule, or — for literals whose tags coincide —
    /// the strict rule itself.
    fn rule_at(&self, rule: u32, lv: Level, w: World) -> Option<usize> {
        let mut strict = None;
        for (i, r) in self.prog.rules.iter().enumerate() {
            match r.meaning {
                Meaning::Applicable {
                    rule: x,
                    level,
                    world,
                    ..
                } if x == rule && level == lv && world == w => return Some(i),
                Meaning::Strict { rule: x, world, .. } if x == rule && world == w => {
                    strict.get_or_insert(i);
                }
                _ => {}
            }
        }
        strict
    }

    // -- references -------------------------------------------------------------

    pub(super) fn rule_ref(&self, r: u32) -> RuleRef {
        self.rule_info_ref(self.cat.rule(r))
    }

    /// [`Prover::rule_ref`] of a rule as written (of the program or set aside).
    fn rule_info_ref(&self, rule: &RuleInfo) -> RuleRef {
        let label = label_in(&rule.labels, self.lang).map(str::to_owned);
        let anchors = self.anchors(&rule.anchors, label.as_deref());
        RuleRef {
            id: rule.id.clone(),
            name: rule.local.clone(),
            strength: rule.strength,
            label,
            anchors,
            package: self.cat.layer(rule.package).map(str::to_owned),
        }
    }

    /// Anchors as an explanation cites them: the paragraph `label` cites, if found.
    fn anchors(&self, anchors: &[AnchorInfo], label: Option<&str>) -> Vec<Anchor> {
        anchors
            .iter()
            .map(|a| Anchor {
                fragment: a.fragment.clone(),
                locator: a.locator.clone(),
                quote: label_in(&a.texts, self.lang)
                    .and_then(|t| super::quote::cited_paragraph(t, label?)),
                package: self.cat.layer(a.package).map(str::to_owned),
                edition: match a.dated {
                    Some(e) => Some(self.edition_name(e)),
                    None => a.edition.clone(),
                },
            })
            .collect()
    }

    /// A dated edition's name in the explanation's language.
    fn edition_name(&self, e: u32) -> String {
        let ed = &self.cat.law.editions[e as usize];
        label_in(&ed.labels, self.lang).map_or_else(|| ed.local.clone(), str::to_owned)
    }

    /// Is package rule `r` in force on the case's date? (A rule with no
    /// in-force input is.)
    fn rule_in_force(&self, r: u32) -> bool {
        self.gates
            .get(&r)
            .is_none_or(|&g| self.store.contains(g, &[]))
    }

    /// Why rule `r` is not in force: the dated editions it is anchored to,
    /// each with the period in force nearest the case's date, when none of
    /// them is in force; and the dated derogations in force that set it
    /// aside (docs/reference.md#as-of-evaluation).
    fn not_in_force(&self, r: u32) -> Node {
        let rule = self.cat.rule(r);
        let f = self.store.in_force.as_ref();
        let date = f.and_then(|f| f.date);
        let on = |e: u32| f.is_some_and(|f| f.edition(e));
        let dated = |anchors: &[crate::program::AnchorInfo]| -> Vec<u32> {
            let mut eds: Vec<u32> = anchors.iter().filter_map(|a| a.dated).collect();
            eds.sort();
            eds.dedup();
            eds
        };
        let own = dated(&rule.anchors);
        let editions = if own.iter().any(|&e| on(e)) {
            Vec::new()
        } else {
            own.into_iter()
                .map(|e| self.edition_span(e, date))
                .collect()
        };
        let by = self
            .cat
            .derogations
            .iter()
            .enumerate()
            .filter(|(_, d)| d.gated.contains(&r))
            .filter_map(|(i, d)| {
                let eds: Vec<u32> = dated(&d.anchors).into_iter().filter(|&e| on(e)).collect();
                (!eds.is_empty()).then(|| {
                    (
                        self.derogation_ref(i as u32),
                        eds.into_iter()
                            .map(|e| self.edition_span(e, date))
                            .collect(),
                    )
                })
            })
            .collect();
        Node::leaf(
            None,
            NodeKind::NotInForce {
                rule: self.rule_ref(r),
                date,
                editions,
                by,
            },
        )
    }

    /// Dated edition `e` with its period in force nearest `date`.
    fn edition_span(&self, e: u32, date: Option<crate::law::Date>) -> super::tree::EditionSpan {
        let p = self.cat.law.period_of(e, date);
        super::tree::EditionSpan {
            name: self.edition_name(e),
            from: p.as_ref().map(|p| p.from),
            to: p.and_then(|p| p.until).and_then(crate::law::Date::pred),
        }
    }

    /// Derogation `d` as an explanation names it.
    fn derogation_ref(&self, d: u32) -> DerogationRef {
        let d = &self.cat.derogations[d as usize];
        let label = label_in(&d.labels, self.lang).map(str::to_owned);
        DerogationRef {
            id: d.id.clone(),
            name: d.local.clone(),
            anchors: self.anchors(&d.anchors, label.as_deref()),
            label,
            package: self.cat.layer(d.package).map(str::to_owned),
        }
    }

    /// The rules set aside by a derogation that would conclude `l(t)` (their
    /// head matches it), and whether each one's body holds here at Σ in the
    /// certain model (`aside[r]`, which lowering evaluates for this).
    fn set_aside_for(&self, l: Lit, t: &[i64]) -> Vec<Node> {
        let mut out = Vec::new();
        for (k, sa) in self.cat.set_aside.iter().enumerate() {
            let r = &sa.rule;
            // Unlike the rules of the program (`concluding_rules`), nothing
            // that concludes is lowered from a rule set aside: the rule as
            // written is the only record, and a defeater concludes nothing.
            if r.head.lit != l || r.strength == Strength::Defeater {
                continue;
            }
            let mut b = vec![None; r.vars.len()];
            if !self.unify(&r.head.args, t, &mut b) {
                continue;
            }
            let applies = self
                .prog
                .rules
                .iter()
                .find(|pr| matches!(pr.meaning, Meaning::SetAside { rule, .. } if rule == k as u32))
                .is_some_and(|pr| self.contains(pr.head.rel, t));
            out.push(Node::leaf(
                None,
                NodeKind::SetAside {
                    rule: self.rule_info_ref(r),
                    by: sa.by.iter().map(|&d| self.derogation_ref(d)).collect(),
                    applies,
                },
            ));
        }
        out
    }

    /// Priority `p` (index into the catalog) as an explanation names it.
    fn priority_ref(&self, p: u32) -> PriorityRef {
        let p = &self.cat.priorities[p as usize];
        PriorityRef {
            id: p.id.clone(),
            name: p.local.clone(),
            reason: p.reason.as_deref().map(|r| local_name(r).to_owned()),
            label: label_in(&p.labels, self.lang).map(str::to_owned),
            package: self.cat.layer(p.package).map(str::to_owned),
        }
    }

    // -- derivations ------------------------------------------------------------

    /// Why `l(t)` holds at `need` (or stronger) in `w`. The caller knows it does.
    pub(super) fn derive(&self, l: Lit, t: &[i64], need: Level, w: World, depth: usize) -> Node {
        let literal = (depth > 0).then(|| self.ground_atom(l, t));
        if depth > MAX_DEPTH {
            return Node::leaf(literal, NodeKind::Elided);
        }
        // The certain world when it suffices, the strongest level that holds.
        // Which of the views that hold to show is the explanation's choice,
        // not a meaning: every node claims only what its own view holds,
        // and that it implies the item as read is lowering's (+Δ ⇒ +∂, +Σ
        // are its `FromDefinite` rules; a positive item read in P holds
        // there when it holds in C).
        let w = if w == World::Possible && self.holds(l, t, need, World::Certain) {
            World::Certain
        } else {
            w
        };
        let lv = [Level::Definite, Level::Defeasible, Level::Supported]
            .into_iter()
            .find(|&lv| lv <= need && self.holds(l, t, lv, w))
            .unwrap_or(need);
        let Some(rel) = self.view(l, lv, w).filter(|r| self.contains(*r, t)) else {
            return Node::note(literal, Phrase::NotConcluded);
        };
        if matches!(self.prog.relation(rel).role, Role::Facts(_)) {
            return Node::leaf(literal, NodeKind::Fact);
        }
        let Some((ri, b)) = self.derivation(rel, t) else {
            return Node::note(literal, Phrase::NoDerivation);
        };
        let mut node = match self.meaning(ri).clone() {
            Meaning::Facts => Node::leaf(None, NodeKind::Fact),
            Meaning::Closure { closure } => self.closure_node(closure, l, t, w, depth),
            Meaning::UndecidedHolds => self.judgment_node(l.pred, t),
            Meaning::FromDefinite => return self.derive(l, t, Level::Definite, w, depth),
            Meaning::Strict { rule, .. } => self.rule_node(ri, &b, rule, Level::Definite, w, depth),
            Meaning::Supports { rule } => match self.through(ri, &b, 0) {
                Some((ai, ab)) => self.rule_node(ai, &ab, rule, Level::Supported, w, depth),
                None => Node::note(None, Phrase::NoDerivation),
            },
            Meaning::Established { .. } => self.established(ri, &b, l, w, depth),
            _ => Node::note(None, Phrase::NoDerivation),
        };
        node.literal = literal;
        node
    }

    /// The derivation of body atom `k` of instance (`ri`, `b`).
    fn through(&self, ri: usize, b: &Binding, k: usize) -> Option<(usize, Binding)> {
        let (rel, t) = self.body_tuple(ri, k, b)?;
        self.derivation(rel, &t)
    }

    /// +∂ by `P[L] :- cand[L], !D[~L], ok[L, s]…`: the applicable rule behind
    /// `cand`, then how each attacker lost (its `ok` atom's derivation).
    fn established(&self, ri: usize, b: &Binding, l: Lit, w: World, depth: usize) -> Node {
        let Some((ci, cb)) = self.through(ri, b, 0) else {
            return Node::note(None, Phrase::NoDerivation);
        };
        let Meaning::Candidate { rule } = *self.meaning(ci) else {
            return Node::note(None, Phrase::NoDerivation);
        };
        let Some((ai, ab)) = self.through(ci, &cb, 0) else {
            return Node::note(None, Phrase::NoDerivation);
        };
        let mut node = self.rule_node(ai, &ab, rule, Level::Defeasible, w, depth);
        let mut attackers = Vec::new();
        for k in 1..self.prog.rules[ri].body.len() {
            if !matches!(self.prog.rules[ri].body[k], Item::Pos(_)) {
                continue; // `!D[~L]`: the complement is not definite
            }
            let Some((oi, ob)) = self.ok_reason(ri, b, k) else {
                continue;
            };
            let (attacker, outcome) = match *self.meaning(oi) {
                // Not in force on the case's date: not part of the law
                // applied, as if deleted.
                Meaning::Discarded { attacker, .. } if !self.rule_in_force(attacker) => continue,
                Meaning::Discarded { attacker, .. } => {
                    // No failing item: the attacker's head cannot be this
                    // tuple, so it does not attack it.
                    let Some((item, reason)) = self
                        .body_tuple(oi, 1, &ob)
                        .and_then(|(app, at)| self.first_failure(app, &at))
                    else {
                        continue;
                    };
                    (attacker, Outcome::Discarded { item, reason })
                }
                Meaning::Defeated {
                    attacker,
                    by,
                    priority,
                } => (
                    attacker,
                    Outcome::Defeated {
                        by: self.rule_ref(by),
                        priority: self.priority_ref(priority),
                    },
                ),
                _ => continue,
            };
            attackers.push(Node::leaf(
                None,
                NodeKind::Attacker {
                    rule: self.rule_ref(attacker),
                    outcome,
                },
            ));
        }
        if !attackers.is_empty() {
            node.children.push(Node {
                literal: None,
                kind: NodeKind::Group {
                    title: Title::Attackers {
                        complement: self.cat.lit_name(l.complement()),
                    },
                },
                children: attackers,
            });
        }
        node
    }

    /// Why attacker atom `k` (an `ok[L, s]`) of the `+∂` instance holds. Of
    /// the rules that derive it, the one a reader expects: discarded by the
    /// rule lowering made for the evaluation's policy alone (blocking: not
    /// established), then discarded under either (not supported), then
    /// defeated. The ranking is the explanation's choice of which true
    /// reason to show first; which rules hold under which policy is
    /// lowering's, read off [`Meaning::Discarded`].
    fn ok_reason(&self, ri: usize, b: &Binding, k: usize) -> Option<(usize, Binding)> {
        let (rel, t) = self.body_tuple(ri, k, b)?;
        let rank = |m: &Meaning| match m {
            Meaning::Discarded { under: Some(p), .. } if *p == self.policy => 0,
            Meaning::Discarded { .. } => 1,
            _ => 2,
        };
        let mut best: Option<(usize, Binding)> = None;
        for &oi in self.heads.get(&rel).map_or(&[][..], Vec::as_slice) {
            if best
                .as_ref()
                .is_some_and(|(bi, _)| rank(self.meaning(*bi)) <= rank(self.meaning(oi)))
            {
                continue;
            }
            if let Some(found) = self.instances(oi, &t, 1).found.into_iter().next() {
                best = Some((oi, found));
            }
        }
        best
    }

    /// Where package rule `rule`'s body, as computed by the applicability
    /// relation `app`, stops matching for head `t`: the failing item worded
    /// at the level and world lowering read it at.
    fn first_failure(&self, app: RelId, t: &[i64]) -> Option<(Condition, Reason)> {
        let ai = *self.heads.get(&app)?.first()?;
        let rule = match self.meaning(ai) {
            Meaning::Applicable { rule, .. } | Meaning::Strict { rule, .. } => *rule,
            _ => return None,
        };
        let s = self.instances(ai, t, 1);
        if !s.found.is_empty() {
            return None;
        }
        // No failure recorded: the head cannot be `t`.
        let wording = Wording::Read(self.meaning(ai).reads());
        s.fail.as_ref().map(|f| self.failure_text(rule, f, wording))
    }

    fn failure_text(&self, rule: u32, f: &Failure, wording: Wording<'_>) -> (Condition, Reason) {
        // Past the items as written: the rule's in-force input (explained
        // as a rule not in force wherever it can fail; this is a fallback).
        let Some(item) = self.cat.rule(rule).body.get(f.item) else {
            return (Condition::InForce, Reason::False);
        };
        match item {
            SourceItem::Status { status, atom } => {
                let read = match wording {
                    Wording::Read(reads) => reads.get(f.item).copied().flatten(),
                    Wording::AsWritten => None,
                }
                .unwrap_or(Read {
                    level: status.level(),
                    world: World::Certain,
                });
                (
                    Condition::Holds(self.pattern(atom, &f.binding)),
                    Reason::NotAt {
                        level: read.level,
                        world: read.world,
                    },
                )
            }
            SourceItem::Compare { left, op, right } => (
                Condition::Compare(self.comparison(rule, left, *op, right, &f.binding)),
                Reason::False,
            ),
            SourceItem::Not { status, atom } => (
                Condition::Not {
                    status: *status,
                    atom: self.pattern(atom, &f.binding),
                },
                Reason::InnerHolds { status: *status },
            ),
        }
    }

    fn comparison(
        &self,
        rule: u32,
        left: &Term,
        op: crate::program::CmpOp,
        right: &Term,
        b: &Binding,
    ) -> Comparison {
        // An entity-typed comparison: the type of the other side, or of the
        // rule variable (both sides are typed alike by the checker).
        let ty = |t: &Term| match t {
            Term::Value(Value::Int(_)) => Ty::Int,
            _ => self
                .var_type(rule, left)
                .or(self.var_type(rule, right))
                .unwrap_or(Ty::Int),
        };
        Comparison {
            left: self.term_value(left, ty(left), b),
            op,
            right: self.term_value(right, ty(right), b),
        }
    }

    /// The type of a variable, from where it occurs in the rule's atoms.
    fn var_type(&self, rule: u32, t: &Term) -> Option<Ty> {
        let Term::Var(v) = t else { return None };
        let r = self.cat.rule(rule);
        let atoms = std::iter::once(&r.head).chain(r.body.iter().filter_map(|i| match i {
            SourceItem::Status { atom, .. } | SourceItem::Not { atom, .. } => Some(atom),
            SourceItem::Compare { .. } => None,
        }));
        for a in atoms {
            let p = self.cat.pred(a.lit.pred);
            for (x, ty) in a.args.iter().zip(&p.params) {
                if matches!(x, Term::Var(y) if y == v) {
                    return Some(*ty);
                }
            }
        }
        None
    }

    /// Package rule `rule` applied at `lv` in `w` through program instance
    /// (`ri`, `b`): a node per body item, in the package's order.
    fn rule_node(
        &self,
        ri: usize,
        b: &Binding,
        rule: u32,
        lv: Level,
        w: World,
        depth: usize,
    ) -> Node {
        let src = self.cat.rule(rule);
        let reads = self.meaning(ri).reads();
        let mut children = Vec::new();
        for (k, item) in src.body.iter().enumerate() {
            match item {
                SourceItem::Status { status, atom } => {
                    // Where lowering read this item.
                    let read = reads.get(k).copied().flatten().unwrap_or(Read {
                        level: status.level(),
                        world: w,
                    });
                    match self.ground(atom, b) {
                        Some(t) => children.push(self.derive(
                            atom.lit,
                            &t,
                            read.level,
                            read.world,
                            depth + 1,
                        )),
                        None => children.push(Node::note(
                            Some(self.pattern(atom, b)),
                            Phrase::NotConcluded,
                        )),
                    }
                }
                SourceItem::Compare { left, op, right } => children.push(Node::leaf(
                    None,
                    NodeKind::Compare {
                        comparison: self.comparison(rule, left, *op, right, b),
                        holds: true,
                    },
                )),
                SourceItem::Not { status, atom } => children.push(Node::leaf(
                    None,
                    NodeKind::Absent {
                        atom: self.pattern(atom, b),
                        status: *status,
                    },
                )),
            }
        }
        Node {
            literal: None,
            kind: NodeKind::Rule {
                rule: self.rule_ref(rule),
                level: lv,
                world: w,
            },
            children,
        }
    }

    fn closure_node(&self, c: u32, l: Lit, t: &[i64], w: World, depth: usize) -> Node {
        let cl = &self.cat.closures[c as usize];
        let dom = Lit {
            pred: cl.domain,
            negative: false,
        };
        Node {
            literal: None,
            kind: NodeKind::Closure {
                id: cl.id.clone(),
                name: cl.local.clone(),
                package: self.cat.layer(cl.package).map(str::to_owned),
                label: label_in(&cl.labels, self.lang).map(str::to_owned),
                snapshot: cl.snapshot.clone(),
                complete_as_of: cl.complete_as_of.clone(),
                absent: self.ground_atom(l.complement(), t),
            },
            children: vec![self.derive(dom, t, Level::Definite, w, depth + 1)],
        }
    }

    pub(super) fn judgment_node(&self, p: PredId, t: &[i64]) -> Node {
        let (authority, capability) = match &self.cat.pred(p).external {
            Some(e) => (e.authority.clone(), e.capability.clone()),
            None => (String::new(), String::new()),
        };
        Node::leaf(
            None,
            NodeKind::Judgment {
                authority,
                capability,
                requested: self.is_requested(p, t),
            },
        )
    }

    // -- why not --------------------------------------------------------------

    /// The `+∂` rule of `l` in C, if `l` has the full overlay.
    fn established_rule(&self, l: Lit) -> Option<usize> {
        let rel = self.view(l, Level::Defeasible, World::Certain)?;
        self.heads
            .get(&rel)?
            .iter()
            .copied()
            .find(|&ri| matches!(self.prog.rules[ri].meaning, Meaning::Established { .. }))
    }

    /// For a literal that is supported but not established in C: which
    /// condition of its `+∂` rule fails, read off the relations.
    pub(super) fn why_not_established(&self, l: Lit, t: &[i64]) -> Node {
        let mut children = Vec::new();
        let group = |title, children| Node {
            literal: None,
            kind: NodeKind::Group { title },
            children,
        };
        let Some(pi) = self.established_rule(l) else {
            // Strict rules only (the tags coincide): each rule's first item
            // that fails in the certain model.
            for r in self.concluding_rules(l) {
                let Some(ri) = self.rule_at(r, Level::Defeasible, World::Certain) else {
                    continue;
                };
                let s = self.instances(ri, t, 1);
                if let (true, Some(f)) = (s.found.is_empty(), &s.fail) {
                    let (item, reason) = self.failure_text(r, f, Wording::AsWritten);
                    children.push(Node::leaf(
                        None,
                        NodeKind::Unsatisfied {
                            rule: self.rule_ref(r),
                            item,
                            reason,
                        },
                    ));
                }
            }
            if children.is_empty() {
                children.push(Node::note(None, Phrase::NoDerivation));
            }
            return group(Title::WhyNotEstablished, children);
        };
        let body = &self.prog.rules[pi].body;
        let head_b = self.head_binding(pi, t);
        let atom = |k: usize| self.body_tuple(pi, k, &head_b);
        match atom(0) {
            // No rule for `l` applies at ∂: each one's first failing item.
            Some((cand, _)) if !self.contains(cand, t) => {
                for &ci in self.heads.get(&cand).map_or(&[][..], Vec::as_slice) {
                    let Meaning::Candidate { rule } = *self.meaning(ci) else {
                        continue;
                    };
                    let Some((app, _)) = self.body_tuple(ci, 0, &self.head_binding(ci, t)) else {
                        continue;
                    };
                    if let Some((item, reason)) = self.first_failure(app, t) {
                        children.push(Node::leaf(
                            None,
                            NodeKind::Unsatisfied {
                                rule: self.rule_ref(rule),
                                item,
                                reason,
                            },
                        ));
                    }
                }
            }
            _ => {
                for (k, item) in body.iter().enumerate().skip(1) {
                    let Some((rel, at)) = atom(k) else { continue };
                    match item {
                        // `!D[~L]`, read in the other world: the complement is definite.
                        Item::Neg(_) if self.contains(rel, &at) => {
                            let comp = l.complement();
                            let world = if self.holds(comp, t, Level::Definite, World::Certain) {
                                World::Certain
                            } else {
                                World::Possible
                            };
                            let n = self.derive(comp, t, Level::Definite, world, 1);
                            return group(
                                Title::ComplementDefinite {
                                    lit: self.ground_atom(comp, t),
                                    world,
                                },
                                vec![n],
                            );
                        }
                        // `ok[L, s]` fails: attacker `s` applies and is not beaten.
                        Item::Pos(_) if !self.contains(rel, &at) => {
                            let attack = match &self.prog.rules[pi].meaning {
                                Meaning::Established { attackers } => {
                                    attackers.iter().find(|a| a.item as usize == k)
                                }
                                _ => None,
                            };
                            if let Some(n) = attack.and_then(|a| self.prevailing(a, rel, t)) {
                                children.push(n);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        if children.is_empty() {
            children.push(Node::note(None, Phrase::NoDerivation));
        }
        group(Title::WhyNotEstablished, children)
    }

    /// The package rules that can conclude `l` (strict or defeasible), in
    /// package order: those lowering made support `l` in the certain model
    /// (`S[L] :- appΣ[r]`, or the strict rule itself where the tags
    /// coincide). A defeater concludes nothing, so lowering made none.
    fn concluding_rules(&self, l: Lit) -> Vec<u32> {
        let Some(s) = self.view(l, Level::Supported, World::Certain) else {
            return Vec::new();
        };
        let mut rules: Vec<u32> = self
            .heads
            .get(&s)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|&ri| match *self.meaning(ri) {
                Meaning::Supports { rule }
                | Meaning::Strict {
                    rule,
                    world: World::Certain,
                    ..
                } => Some(rule),
                _ => None,
            })
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    /// A binding of program rule `ri` with only its head bound to `t`.
    fn head_binding(&self, ri: usize, t: &[i64]) -> Binding {
        let rule = &self.prog.rules[ri];
        let mut b = vec![None; rule.binding_len()];
        for (a, v) in rule.head.args.iter().zip(t) {
            if let Term::Var(x) = a {
                b[*x as usize] = Some(*v);
            }
        }
        b
    }

    /// `ok[L, s](t)` does not hold: attacker `s` (as lowering recorded it in
    /// `attack`) applies (in the other world, at the level the policy asks)
    /// and no rule for `L` beats it.
    fn prevailing(&self, attack: &Attack, ok: RelId, t: &[i64]) -> Option<Node> {
        let s = attack.rule;
        let mut apps = Vec::new();
        for &oi in self.heads.get(&ok)? {
            if let Meaning::Discarded { level, .. } = *self.meaning(oi) {
                if let Some((app, _)) = self.body_tuple(oi, 1, &self.head_binding(oi, t)) {
                    apps.push((level, app));
                }
            }
        }
        // Show the strongest applicability the store has for it.
        apps.sort_by_key(|(lv, _)| *lv);
        let shown = apps
            .iter()
            .find(|(_, app)| self.contains(*app, t))
            .and_then(|(lv, app)| {
                let (ai, ab) = self.derivation(*app, t)?;
                let w = match *self.meaning(ai) {
                    Meaning::Applicable { world, .. } | Meaning::Strict { world, .. } => world,
                    _ => World::Certain,
                };
                Some(self.rule_node(ai, &ab, s, *lv, w, 1).children)
            })
            .unwrap_or_default();
        let defeats = attack
            .beats
            .iter()
            // A priority not in force on the case's date is left out, and
            // so is one over a rule not in force.
            .filter(|b| {
                self.rule_in_force(b.rule)
                    && self
                        .priority_gates
                        .get(&b.priority)
                        .is_none_or(|&g| self.store.contains(g, &[]))
            })
            .map(|b| (self.rule_ref(b.rule), self.priority_ref(b.priority)))
            .collect();
        Some(Node {
            literal: None,
            kind: NodeKind::Attacker {
                rule: self.rule_ref(s),
                outcome: Outcome::Prevails {
                    defeats,
                    blocks: attack.blocks,
                },
            },
            children: shown,
        })
    }

    /// Why `l(t)` is not concluded: per rule, the first body item that fails
    /// (at Σ in C: nothing supports it), and (`budget` more levels) why.
    pub(super) fn why_not(&self, l: Lit, t: &[i64], budget: usize) -> Vec<Node> {
        let pred = self.cat.pred(l.pred);
        match pred.kind {
            RelationKind::Empirical => return self.why_not_fact(l, t),
            RelationKind::Judgment => {
                return vec![if self.is_fact(l.complement(), t) {
                    Node::note(
                        None,
                        Phrase::DecidedOtherWay {
                            lit: self.ground_atom(l.complement(), t),
                        },
                    )
                } else {
                    Node::note(None, Phrase::NotDecided)
                }];
            }
            RelationKind::Institutional => {}
        }
        let rules = self.concluding_rules(l);
        // Where a reader looks for a rule the imported law has, but a
        // derogation set aside (docs/reference.md#derogations).
        let aside = self.set_aside_for(l, t);
        if rules.is_empty() {
            let mut out = vec![Node::note(None, Phrase::NoRule)];
            out.extend(aside);
            return out;
        }
        let mut out = Vec::new();
        for r in rules {
            if !self.rule_in_force(r) {
                // Its head must be able to be this tuple.
                let rule = self.cat.rule(r);
                let mut b = vec![None; rule.vars.len()];
                if self.unify(&rule.head.args, t, &mut b) {
                    out.push(self.not_in_force(r));
                }
                continue;
            }
            let Some(pi) = self.rule_at(r, Level::Supported, World::Certain) else {
                continue;
            };
            let s = self.instances(pi, t, 1);
            if !s.found.is_empty() {
                continue;
            }
            let (item, reason, sub) = match &s.fail {
                Some(f) => {
                    // Checked at Σ (nothing supports it), worded as the rule reads.
                    let (item, reason) = self.failure_text(r, f, Wording::AsWritten);
                    let sub = if budget > 0 {
                        self.why_item_fails(r, f, budget - 1)
                    } else {
                        Vec::new()
                    };
                    (item, reason, sub)
                }
                // Its head cannot be this tuple (a constant differs): not a
                // rule for it.
                None => continue,
            };
            out.push(Node {
                literal: None,
                kind: NodeKind::Unsatisfied {
                    rule: self.rule_ref(r),
                    item,
                    reason,
                },
                children: sub,
            });
        }
        out.extend(aside);
        out
    }

    fn why_not_fact(&self, l: Lit, t: &[i64]) -> Vec<Node> {
        if l.negative && self.is_fact(l.complement(), t) {
            return vec![Node::note(
                None,
                Phrase::ComplementIsFact {
                    lit: self.ground_atom(l.complement(), t),
                },
            )];
        }
        let mut out = vec![Node::note(None, Phrase::NotGiven)];
        if l.negative {
            let closures: Vec<_> = self
                .cat
                .closures
                .iter()
                .filter(|c| c.pred == l.pred && c.derive_negative)
                .collect();
            if closures.is_empty() {
                out.push(Node::note(
                    None,
                    Phrase::NoClosure {
                        pred: self.cat.pred(l.pred).local.clone(),
                    },
                ));
            }
            for c in closures {
                let dom = Lit {
                    pred: c.domain,
                    negative: false,
                };
                out.push(Node::note(
                    None,
                    Phrase::ClosureCoversOnly {
                        closure: c.local.clone(),
                        domain: self.ground_atom(dom, t),
                    },
                ));
            }
        }
        out
    }

    fn why_item_fails(&self, r: u32, f: &Failure, budget: usize) -> Vec<Node> {
        let SourceItem::Status { atom, .. } = &self.cat.rule(r).body[f.item] else {
            return Vec::new();
        };
        let l = atom.lit;
        match self.ground(atom, &f.binding) {
            Some(t) => {
                let judgment = self.cat.pred(l.pred).kind == RelationKind::Judgment;
                // An undecided atom is undecided whether or not a rule needs
                // it here (and so whether or not it is materialised).
                // Otherwise the literal's verdict, over the output sections
                // lowering defined. The item failed where lowering read it,
                // at Σ (or at the one level of a literal whose tags
                // coincide), and +Δ and +∂ imply +Σ: of the verdicts that
                // hold a tuple, only "supported only" can occur here.
                let phrase = if judgment && self.is_undecided_atom(l.pred, &t) {
                    Phrase::UndecidedJudgment
                } else {
                    match self.verdict(l, &t) {
                        Verdict::Pending(_) => Phrase::Pending,
                        Verdict::Definitely | Verdict::Defeasibly | Verdict::SupportedOnly => {
                            Phrase::OnlySupported
                        }
                        Verdict::NotConcluded => Phrase::NotConcluded,
                    }
                };
                let mut n = Node::note(Some(self.ground_atom(l, &t)), phrase);
                n.children = self.why_not(l, &t, budget);
                vec![n]
            }
            None => {
                // Some argument is `_`: which values would have matched, if
                // only a pending judgment were decided for them?
                let pending: Vec<Atom> = self
                    .view(l, Level::Defeasible, World::Possible)
                    .map(|rel| {
                        let mut b = f.binding.clone();
                        self.store
                            .tuples(rel)
                            .filter(|t| {
                                let saved = b.clone();
                                let ok = self.unify(&atom.args, t, &mut b);
                                b = saved;
                                ok
                            })
                            .map(|t| self.ground_atom(l, t))
                            .collect::<BTreeSet<_>>()
                            .into_iter()
                            .collect()
                    })
                    .unwrap_or_default();
                vec![Node::note(
                    Some(self.pattern(atom, &f.binding)),
                    Phrase::NoValue {
                        institutional: self.cat.pred(l.pred).kind == RelationKind::Institutional,
                        pending,
                    },
                )]
            }
        }
    }

    // -- requests ---------------------------------------------------------------

    /// Every open request (decoded), sorted, each with the judgment atom
    /// it asks to decide.
    pub(super) fn requests(&self) -> Vec<(Request, Atom)> {
        let mut out = Vec::new();
        for rv in &self.prog.requests {
            let p = self.cat.pred(rv.lit.pred);
            for t in self.store.tuples(rv.rel) {
                let request = Request {
                    predicate: p.local.clone(),
                    args: p
                        .params
                        .iter()
                        .zip(t)
                        .map(|(ty, v)| self.value(*ty, *v))
                        .collect(),
                    authority: rv.authority.clone(),
                    capability: rv.capability.clone(),
                };
                out.push((request, self.ground_atom(rv.lit, t)));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// A value as explanations print it: bare when it reads as a name, quoted otherwise.
pub fn fmt_value(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Entity(e) => {
            if !e.is_empty()
                && e.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
            {
                e.clone()
            } else {
                let mut s = String::new();
                crate::formats::write_string(&mut s, e);
                s
            }
        }
    }
}
