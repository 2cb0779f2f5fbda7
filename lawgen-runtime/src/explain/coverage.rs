//! What happened to each rule, priority and judgment in one evaluation,
//! read off the evaluated relations as explanations are (nothing is
//! re-derived): `lawgen test --coverage` adds these up over a suite.
//!
//! For a package rule `r` concluding literal `L`, in the certain model:
//!
//! - *concluded* at Δ when its strict program rule has a satisfied
//!   instance; at ∂ when `app[r](t)` and `P[L](t)` hold for some `t`; at Σ
//!   when `appΣ[r](t)` holds (a literal whose tags coincide has only the
//!   strict rule, which then gives all three);
//! - *defeated* by `h` under priority `p` (`h > r`) when, for some `t`, `r`
//!   applies at Σ and the `ok[~L, r]` rule lowering made for `h` beating
//!   `r` holds (`h`, a rule for `~L`, applies at ∂ and `p` is in force);
//! - *discarded* when one of the `ok[~L, r]` rules lowering made for `r`
//!   being discarded holds: a rule for `~L` applies at ∂ for some `t` and
//!   `r`, read in the possible model, does not apply at the level the
//!   policy asks (Σ under propagating, ∂ under blocking);
//! - *blocked* by defeater `d` when `r` applies at ∂, `L` is not +∂ and
//!   `ok[L, d]` fails: `d` is neither discarded nor beaten by a rule for `L`;
//! - *pending* when it applies at ∂ in the possible model but not in the
//!   certain one; the judgments it waits on are the open requests of
//!   judgments in its past;
//! - *applicable* at all when `appΣ[r]` (or its strict rule) holds in
//!   either model; a rule that never is, anywhere in a suite, is "never
//!   applicable".
//!
//! A rule a derogation set aside is in no program rule but `aside[r]`:
//! whether its body would have held. A priority is *exercised* when its
//! lower rule applies at Σ and its higher one at ∂ for the same tuple (in
//! either model). A judgment is seen *undecided* when one of its atoms is
//! requested, decided *yes* or *no* when a fact of it or of its negation is
//! given.

use super::proof::Prover;
use super::tree::Atom;
use crate::interp::Store;
use crate::program::{
    Item, Level, Lit, Meaning, PredId, Program, RelId, RelationKind, Role, SourceItem, Strength,
    World,
};
use crate::Policy;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What happened to one rule of the program in one evaluation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleOutcome {
    /// The levels at which it concluded its head for some tuple.
    pub concluded: BTreeSet<Level>,
    /// `(rule that beat it, priority)`, indices into the catalog.
    pub defeated: BTreeSet<(u32, u32)>,
    /// As an attacker, it was discarded for some tuple a rule for the
    /// complement applied to.
    pub discarded: bool,
    /// Defeaters that kept its head from being established.
    pub blocked_by: BTreeSet<u32>,
    /// As a defeater: it kept some literal from being established.
    pub blocks: bool,
    /// It applies in the possible model only: the open requests it waits on,
    /// by judgment atom.
    pub pending_on: BTreeSet<Atom>,
    /// Its body holds (at Σ, in either model) for some tuple.
    pub applicable: bool,
}

/// What happened to one judgment predicate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JudgmentSeen {
    /// An atom of it was requested.
    pub undecided: bool,
    /// A fact decided an atom of it yes.
    pub yes: bool,
    /// A fact decided an atom of it no (`~j`).
    pub no: bool,
}

/// One evaluation, rule by rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseCoverage {
    /// By catalog rule index.
    pub rules: Vec<RuleOutcome>,
    /// By index into the catalog's rules set aside: would it have applied?
    pub set_aside: Vec<bool>,
    /// By catalog priority index.
    pub priorities: Vec<bool>,
    /// Judgment predicates of the package.
    pub judgments: BTreeMap<PredId, JudgmentSeen>,
}

/// Reads what happened to every rule, priority and judgment off `store`,
/// an evaluation of `prog` under `policy`.
pub fn observe(prog: &Program, store: &Store, policy: Policy) -> CaseCoverage {
    let p = Prover::new(prog, store, policy, "en");
    let r = Reader::new(prog, store, &p);
    let cat = &prog.catalog;
    let n = cat.rules.len();
    let mut out = CaseCoverage {
        rules: vec![RuleOutcome::default(); n],
        set_aside: vec![false; cat.set_aside.len()],
        priorities: vec![false; cat.priorities.len()],
        judgments: BTreeMap::new(),
    };
    let requests = r.requests();
    let past = r.past();
    for ri in 0..n as u32 {
        let rule = cat.rule(ri);
        let l = rule.head.lit;
        let o = &mut out.rules[ri as usize];
        let sigma_c = r.app(ri, Level::Supported, World::Certain);
        let sigma_p = r.app(ri, Level::Supported, World::Possible);
        o.applicable = !sigma_c.is_empty() || !sigma_p.is_empty();
        if rule.strength != Strength::Defeater {
            if rule.strength == Strength::Strict && r.strict_fires(ri, World::Certain) {
                o.concluded.insert(Level::Definite);
                if r.collapsed(ri) {
                    o.concluded.insert(Level::Defeasible);
                    o.concluded.insert(Level::Supported);
                }
            }
            let est = r.app(ri, Level::Defeasible, World::Certain);
            if est
                .iter()
                .any(|t| r.holds(l, t, Level::Defeasible, World::Certain))
            {
                o.concluded.insert(Level::Defeasible);
            }
            if !sigma_c.is_empty() {
                o.concluded.insert(Level::Supported);
            }
            let est_p = r.app(ri, Level::Defeasible, World::Possible);
            if est_p.iter().any(|t| !est.contains(t)) {
                for (pred, atom) in &requests {
                    if past[ri as usize].contains(pred) {
                        o.pending_on.insert(atom.clone());
                    }
                }
            }
            // Blocked by a defeater for ~L: one of the attackers lowering
            // made `L`'s `+∂` rule read that blocks, whose `ok[L, d]` fails
            // where `r` applies at ∂ (so `cand[L]` holds): `d` is neither
            // discarded under the policy nor defeated by a rule for `L`.
            for a in r.attacks(l).iter().filter(|a| a.blocks) {
                let blocked = est.iter().any(|t| {
                    !r.holds(l, t, Level::Defeasible, World::Certain) && !r.store.contains(a.ok, t)
                });
                if blocked {
                    out.rules[ri as usize].blocked_by.insert(a.rule);
                    out.rules[a.rule as usize].blocks = true;
                }
            }
        }
        // As an attacker of ~L, through the `ok[~L, r]` rules lowering made:
        // defeated where one of its `Defeated` rules holds and `r` applies
        // at Σ; discarded where one of its `Discarded` rules (for the
        // evaluation's policy: the blocking one reads the policy input) holds.
        let o = &mut out.rules[ri as usize];
        for a in r.attacks(l.complement()).iter().filter(|a| a.rule == ri) {
            for &oi in p.rules_heading(a.ok) {
                match prog.rules[oi].meaning {
                    Meaning::Defeated { by, priority, .. } => {
                        let beaten = p.instance_heads(oi);
                        if beaten.iter().any(|t| sigma_c.contains(t)) {
                            o.defeated.insert((by, priority));
                        }
                    }
                    Meaning::Discarded { .. } if !o.discarded => {
                        o.discarded = p.has_instance(oi);
                    }
                    _ => {}
                }
            }
        }
    }
    // Whether a priority is exercised is a question about its two rules in
    // the package, in either model, not about the `ok` rules lowering made
    // of it (those name the first priority of a pair only): read off the
    // applicability relations.
    for (pi, pr) in cat.priorities.iter().enumerate() {
        out.priorities[pi] = [World::Certain, World::Possible].into_iter().any(|w| {
            let lo = r.app(pr.lower, Level::Supported, w);
            let hi = r.app(pr.higher, Level::Defeasible, w);
            lo.iter().any(|t| hi.contains(t))
        });
    }
    for (k, seen) in out.set_aside.iter_mut().enumerate() {
        *seen = r.aside.get(&(k as u32)).is_some_and(|&rel| r.nonempty(rel));
    }
    for (i, pred) in cat.preds.iter().enumerate() {
        if pred.kind != RelationKind::Judgment {
            continue;
        }
        let id = PredId(i as u32);
        let fact = |negative| {
            r.facts
                .get(&Lit { pred: id, negative })
                .is_some_and(|&rel| r.nonempty(rel))
        };
        out.judgments.insert(
            id,
            JudgmentSeen {
                undecided: requests.iter().any(|(p, _)| *p == id),
                yes: fact(false),
                no: fact(true),
            },
        );
    }
    out
}

/// The relations coverage reads, found by what their rules mean.
struct Reader<'a> {
    prog: &'a Program,
    store: &'a Store,
    prover: &'a Prover<'a>,
    app: HashMap<(u32, Level, World), RelId>,
    strict: HashMap<(u32, World), Vec<usize>>,
    aside: HashMap<u32, RelId>,
    facts: HashMap<Lit, RelId>,
    attacks: HashMap<Lit, Vec<Attacked>>,
}

/// An attacker of a literal's `+∂` rule in the certain model, as lowering
/// recorded it ([`crate::program::Attack`]).
struct Attacked {
    /// The attacking rule (for the complement).
    rule: u32,
    /// It is a defeater.
    blocks: bool,
    /// Its `ok[L, s]` relation: it is discarded or defeated.
    ok: RelId,
}

impl<'a> Reader<'a> {
    fn new(prog: &'a Program, store: &'a Store, prover: &'a Prover<'a>) -> Self {
        let mut app = HashMap::new();
        let mut strict: HashMap<(u32, World), Vec<usize>> = HashMap::new();
        let mut aside = HashMap::new();
        for (i, r) in prog.rules.iter().enumerate() {
            match r.meaning {
                Meaning::Applicable {
                    rule, level, world, ..
                } => {
                    app.insert((rule, level, world), r.head.rel);
                }
                Meaning::Strict { rule, world, .. } => {
                    strict.entry((rule, world)).or_default().push(i)
                }
                Meaning::SetAside { rule, .. } => {
                    aside.insert(rule, r.head.rel);
                }
                _ => {}
            }
        }
        let facts = prog
            .relations
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r.role {
                Role::Facts(l) => Some((l, RelId(i as u32))),
                _ => None,
            })
            .collect();
        let established: HashMap<RelId, Lit> = prog
            .views
            .iter()
            .filter(|v| v.level == Level::Defeasible && v.world == World::Certain)
            .map(|v| (v.rel, v.lit))
            .collect();
        let mut attacks: HashMap<Lit, Vec<Attacked>> = HashMap::new();
        for r in &prog.rules {
            let (Meaning::Established { attackers }, Some(&l)) =
                (&r.meaning, established.get(&r.head.rel))
            else {
                continue;
            };
            for a in attackers {
                if let Some(Item::Pos(ok)) = r.body.get(a.item as usize) {
                    attacks.entry(l).or_default().push(Attacked {
                        rule: a.rule,
                        blocks: a.blocks,
                        ok: ok.rel,
                    });
                }
            }
        }
        Reader {
            prog,
            store,
            prover,
            app,
            strict,
            aside,
            facts,
            attacks,
        }
    }

    fn nonempty(&self, rel: RelId) -> bool {
        self.store.tuples(rel).next().is_some()
    }

    /// The attackers of `l`'s `+∂` rule in the certain model (none when
    /// nothing attacks it, or nothing concludes it).
    fn attacks(&self, l: Lit) -> &[Attacked] {
        self.attacks.get(&l).map_or(&[], Vec::as_slice)
    }

    /// Has the head of rule `r` its own `app` relations, or only its strict
    /// rule (a literal whose three tags coincide)?
    fn collapsed(&self, r: u32) -> bool {
        !self.app.keys().any(|(x, _, _)| *x == r)
    }

    /// The tuples for which rule `r`'s body holds at `lv` in `w`. Without a
    /// relation of its own in `w` (a literal no judgment reaches has one
    /// world; one whose tags coincide has only its strict rule), the
    /// certain world's, or the strict rule's heads.
    fn app(&self, r: u32, lv: Level, w: World) -> BTreeSet<Vec<i64>> {
        let rel = self
            .app
            .get(&(r, lv, w))
            .or_else(|| self.app.get(&(r, lv, World::Certain)));
        match rel {
            Some(&rel) => self.store.tuples(rel).map(<[i64]>::to_vec).collect(),
            None if self.collapsed(r) => self.strict_heads(r, w),
            None => BTreeSet::new(),
        }
    }

    fn strict_rules(&self, r: u32, w: World) -> &[usize] {
        self.strict
            .get(&(r, w))
            .or_else(|| self.strict.get(&(r, World::Certain)))
            .map_or(&[], Vec::as_slice)
    }

    fn strict_fires(&self, r: u32, w: World) -> bool {
        self.strict_rules(r, w)
            .iter()
            .any(|&ri| self.prover.has_instance(ri))
    }

    fn strict_heads(&self, r: u32, w: World) -> BTreeSet<Vec<i64>> {
        self.strict_rules(r, w)
            .iter()
            .flat_map(|&ri| self.prover.instance_heads(ri))
            .collect()
    }

    fn holds(&self, l: Lit, t: &[i64], lv: Level, w: World) -> bool {
        self.prog
            .view(l, lv, w)
            .or_else(|| self.prog.view(l, lv, World::Certain))
            .is_some_and(|rel| self.store.contains(rel, t))
    }

    /// Every open request, as `(judgment, atom)`.
    fn requests(&self) -> Vec<(PredId, Atom)> {
        let mut out = Vec::new();
        for rv in &self.prog.requests {
            for t in self.store.tuples(rv.rel) {
                out.push((rv.lit.pred, self.prover.ground_atom(rv.lit, t)));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// For each catalog rule, the predicates in its past (its body's
    /// predicates and, transitively, theirs; closure domains too).
    fn past(&self) -> Vec<BTreeSet<PredId>> {
        let cat = &self.prog.catalog;
        let mut feeds: HashMap<PredId, BTreeSet<PredId>> = HashMap::new();
        for r in &cat.rules {
            let e = feeds.entry(r.head.lit.pred).or_default();
            for i in &r.body {
                if let SourceItem::Status { atom, .. } | SourceItem::Not { atom, .. } = i {
                    e.insert(atom.lit.pred);
                }
            }
        }
        for c in &cat.closures {
            feeds.entry(c.pred).or_default().insert(c.domain);
        }
        let closure_of = |start: &BTreeSet<PredId>| {
            let mut seen = start.clone();
            let mut work: Vec<PredId> = start.iter().copied().collect();
            while let Some(p) = work.pop() {
                for &q in feeds.get(&p).into_iter().flatten() {
                    if seen.insert(q) {
                        work.push(q);
                    }
                }
            }
            seen
        };
        cat.rules
            .iter()
            .map(|r| {
                let body: BTreeSet<PredId> = r
                    .body
                    .iter()
                    .filter_map(|i| match i {
                        SourceItem::Status { atom, .. } | SourceItem::Not { atom, .. } => {
                            Some(atom.lit.pred)
                        }
                        SourceItem::Compare { .. } => None,
                    })
                    .collect();
                closure_of(&body)
            })
            .collect()
    }
}
