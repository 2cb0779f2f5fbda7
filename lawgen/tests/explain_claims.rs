//! Every claim an explanation makes, checked against the evaluation it
//! explains, on random packages with judgments (both policies) and on the
//! chess scenarios:
//!
//! - a literal shown as concluded at a level in a world (a rule node, a
//!   fact) holds at that level in that world;
//! - a literal shown "definitely" in the certain model is in the
//!   `definitely` section (a pending literal's derivation never claims more
//!   than the possible model has);
//! - "the complement is definitely concluded" names the world it holds in:
//!   never the certain model when it holds only in the possible one;
//! - an attacker "discarded" does not apply at the policy's level (in the
//!   other world); "defeated" names a rule for the literal that applies
//!   and a priority the package declares over the attacker;
//! - an attacker that "prevails" applies at the policy's level (in the
//!   other world) and no rule a priority puts above it applies; it "blocks"
//!   exactly when it is a defeater, and the rules it "defeats" under a
//!   priority are exactly the rules for the literal that a declared priority
//!   puts below it (none for a defeater, which cannot beat);
//! - "not concluded for any value of `_`" lists every pending match;
//! - a body item said not to hold at a level in a world, and a judgment atom
//!   called "not concluded", are checked against the semantics, not only
//!   against the relations the explainer read: the same facts evaluated
//!   with undecided atoms over the whole domain (docs/reference.md#undecided-judgments,
//!   the definition; the default lowering materialises only the atoms some
//!   rule instance needs), where every undecided atom holds both ways in P.
//!
//! `LAWGEN_CLAIMS_PACKAGES` sets how many random packages (default 150).

use lawgen_test_support as support;

use lawgen::driver::{self, Evaluated, Loaded};
use lawgen_runtime::explain::{
    self, Atom, Condition, Explanation, Node, NodeKind, Outcome, Phrase, Reason, Title,
};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::program::{
    Catalog, Level, Lit, Meaning, Program, RelationKind, Strength, Value, World,
};
use lawgen_runtime::Policy;
use std::collections::BTreeSet;
use support::gen::{generate, package_seed, GenConfig};

const SEED: u64 = 0x0c1a_1a5e_ed00_0000;

struct Check<'a> {
    ev: &'a Evaluated,
    /// The same evaluation with undecided atoms over the whole domain.
    sem: &'a Semantics,
    cat: &'a Catalog,
    checked: usize,
    /// "no value of `_`" notes checked, and how many of them list pending matches.
    no_values: (usize, usize),
    /// Attackers checked: defeated, prevailing and beating rules, blocking.
    attackers: Attackers,
}

/// How many attacker claims of each kind were checked.
#[derive(Clone, Copy, Debug, Default)]
struct Attackers {
    defeated: usize,
    beating: usize,
    blocking: usize,
}

impl std::ops::AddAssign for Attackers {
    fn add_assign(&mut self, o: Attackers) {
        self.defeated += o.defeated;
        self.beating += o.beating;
        self.blocking += o.blocking;
    }
}

/// An evaluation of the whole-domain lowering: what the semantics says.
struct Semantics {
    program: lawgen_runtime::program::Program,
    store: lawgen_runtime::interp::Store,
}

impl Semantics {
    fn of(loaded: &Loaded, facts: &lawgen_runtime::interp::Facts, policy: Policy) -> Semantics {
        let opts = lawgen::internals::lower::Options {
            judgments: lawgen::internals::lower::Judgments::WholeDomain,
        };
        let program = lawgen::internals::lower::lower_with(loaded.model(), opts).unwrap();
        let store = lawgen_runtime::interp::evaluate(&program, facts, policy);
        Semantics { program, store }
    }

    fn holds(&self, l: Lit, args: &[Value], lv: Level, w: World) -> bool {
        let t: Option<Vec<i64>> = args.iter().map(|v| self.store.encode(v)).collect();
        let rel = self
            .program
            .view(l, lv, w)
            .or_else(|| self.program.view(l, lv, World::Certain));
        t.zip(rel).is_some_and(|(t, r)| self.store.contains(r, &t))
    }

    /// Does rule `rule` apply to `args` at `level` in `world`?
    fn applies(&self, rule: u32, args: &[Value], level: Level, world: World) -> bool {
        let t: Option<Vec<i64>> = args.iter().map(|v| self.store.encode(v)).collect();
        let rel = app(&self.program, rule, level, world);
        t.zip(rel).is_some_and(|(t, r)| self.store.contains(r, &t))
    }

    /// A judgment atom nobody decided, over the whole domain.
    fn undecided(&self, l: Lit, args: &[Value]) -> bool {
        let t: Option<Vec<i64>> = args.iter().map(|v| self.store.encode(v)).collect();
        let rel = self.program.rules.iter().find_map(|r| match r.meaning {
            Meaning::Undecided { pred, .. } if pred == l.pred => Some(r.head.rel),
            _ => None,
        });
        t.zip(rel).is_some_and(|(t, r)| self.store.contains(r, &t))
    }
}

impl Check<'_> {
    /// `item` (a ground literal) does not hold at `level` in `world`: in the
    /// relations read, and in the semantics.
    fn not_at(&mut self, item: &Condition, level: Level, world: World, where_: &str) {
        let Condition::Holds(item) = item else { return };
        let Some(q) = self.query(item) else { return };
        assert!(
            !self.sem.holds(q.lit, &q.args, level, world),
            "claimed not {level:?} in {world:?}, but the semantics has it: {item}\n{where_}"
        );
        self.checked += 1;
    }

    fn tuple(&self, args: &[Value]) -> Option<Vec<i64>> {
        args.iter().map(|v| self.ev.store.encode(v)).collect()
    }

    fn holds(&self, l: Lit, args: &[Value], lv: Level, w: World) -> bool {
        let Some(t) = self.tuple(args) else {
            return false;
        };
        self.ev
            .program
            .view(l, lv, w)
            .is_some_and(|r| self.ev.store.contains(r, &t))
    }

    fn in_section(&self, section: &str, q: &explain::Query) -> bool {
        let s = match section {
            "definitely" => lawgen_runtime::program::Section::Definitely,
            _ => lawgen_runtime::program::Section::Defeasibly,
        };
        self.ev.conclusions.sections[&s]
            .get(&self.cat.lit_name(q.lit))
            .is_some_and(|rows| rows.contains(&q.args))
    }

    /// The literal a node is about, when every argument is bound.
    fn query(&self, a: &Atom) -> Option<explain::Query> {
        Some(explain::Query {
            lit: a.lit,
            args: a.values()?,
        })
    }

    fn node(&mut self, e: &Explanation, n: &Node, about: Option<&Atom>, world: World) {
        let literal = n.literal.as_ref().or(about);
        let where_ = || format!("{}\n{}", e.literal, e.text());
        match &n.kind {
            NodeKind::Rule { level, world, .. } => {
                if let Some(q) = literal.and_then(|l| self.query(l)) {
                    assert!(
                        self.holds(q.lit, &q.args, *level, *world)
                            && self.sem.holds(q.lit, &q.args, *level, *world),
                        "claimed {level:?} in {world:?}: {}\n{}",
                        literal.map(ToString::to_string).unwrap_or_default(),
                        where_()
                    );
                    if *level == Level::Definite && *world == World::Certain {
                        assert!(
                            self.in_section("definitely", &q),
                            "claimed definitely: {}\n{}",
                            literal.map(ToString::to_string).unwrap_or_default(),
                            where_()
                        );
                    }
                    self.checked += 1;
                }
            }
            NodeKind::Fact => {
                if let Some(q) = literal.and_then(|l| self.query(l)) {
                    let facts = self
                        .ev
                        .program
                        .relations
                        .iter()
                        .enumerate()
                        .find(|(_, r)| r.role == lawgen_runtime::program::Role::Facts(q.lit));
                    let t = self.tuple(&q.args);
                    let is_fact = facts.zip(t).is_some_and(|((i, _), t)| {
                        self.ev
                            .store
                            .contains(lawgen_runtime::program::RelId(i as u32), &t)
                    });
                    assert!(
                        is_fact,
                        "claimed a fact: {}\n{}",
                        literal.map(ToString::to_string).unwrap_or_default(),
                        where_()
                    );
                    self.checked += 1;
                }
            }
            NodeKind::Group {
                title: Title::ComplementDefinite { lit, world },
            } => {
                if let Some(q) = self.query(lit) {
                    assert!(
                        self.holds(q.lit, &q.args, Level::Definite, *world),
                        "complement claimed definite in {world:?}: {lit}\n{}",
                        where_()
                    );
                    if *world == World::Possible {
                        assert!(
                            !self.holds(q.lit, &q.args, Level::Definite, World::Certain),
                            "complement said possible only, but it is certain: {lit}\n{}",
                            where_()
                        );
                    } else {
                        assert!(
                            self.in_section("definitely", &q),
                            "complement claimed definitely: {lit}\n{}",
                            where_()
                        );
                    }
                    self.checked += 1;
                }
            }
            NodeKind::Attacker { rule, outcome } => {
                let s = self.rule_index(&rule.id);
                if let Some(q) = literal.and_then(|l| self.query(l)) {
                    if let Outcome::Discarded {
                        item,
                        reason: Reason::NotAt { level, world },
                    } = outcome
                    {
                        self.not_at(item, *level, *world, &where_());
                    }
                    // The level the policy asks of an attacker (in the
                    // other world).
                    let attack_level = match e.policy {
                        Policy::Blocking => Level::Defeasible,
                        Policy::Propagating => Level::Supported,
                    };
                    match outcome {
                        Outcome::Discarded { .. } => {
                            assert!(
                                !self.applies(s, &q.args, attack_level, world.other()),
                                "discarded, yet it applies: {}\n{}",
                                rule.name,
                                where_()
                            );
                            self.checked += 1;
                        }
                        Outcome::Defeated { by, priority } => {
                            let b = self.rule_index(&by.id);
                            self.beats(b, s, &priority.id, &where_());
                            assert!(
                                self.applies(b, &q.args, Level::Defeasible, world),
                                "defeated by a rule that does not apply: {}\n{}",
                                by.name,
                                where_()
                            );
                            self.attackers.defeated += 1;
                            self.checked += 1;
                        }
                        Outcome::Prevails { defeats, blocks } => {
                            self.prevails(s, q.lit, &q.args, attack_level, world, &where_());
                            // A defeater blocks; any other rule that prevails
                            // is applicable and ambiguous, or beats rules.
                            let defeater = self.cat.rule(s).strength == Strength::Defeater;
                            assert_eq!(
                                *blocks,
                                defeater,
                                "`blocks` said of {} ({:?})\n{}",
                                rule.name,
                                self.cat.rule(s).strength,
                                where_()
                            );
                            // Each rule it is said to beat: a rule for the
                            // literal below it by that priority.
                            let mut listed = BTreeSet::new();
                            for (r, p) in defeats {
                                let lower = self.rule_for(q.lit, &r.name, &where_());
                                self.beats(s, lower, &p.id, &where_());
                                listed.insert(lower);
                            }
                            // And every such rule (a defeater beats none).
                            let expected: BTreeSet<u32> = self
                                .cat
                                .priorities
                                .iter()
                                .filter(|p| {
                                    !defeater
                                        && p.higher == s
                                        && self.cat.rule(p.lower).head.lit == q.lit
                                        && self.cat.rule(p.lower).strength != Strength::Defeater
                                })
                                .map(|p| p.lower)
                                .collect();
                            assert_eq!(
                                listed,
                                expected,
                                "the rules {} beats, by priority\n{}",
                                rule.name,
                                where_()
                            );
                            self.attackers.beating += usize::from(!defeats.is_empty());
                            self.attackers.blocking += usize::from(*blocks);
                            self.checked += 1;
                        }
                    }
                }
            }
            NodeKind::Unsatisfied {
                item,
                reason: Reason::NotAt { level, world },
                ..
            } => self.not_at(item, *level, *world, &where_()),
            NodeKind::Note {
                phrase: Phrase::NotConcluded,
            } => {
                // Not concluded: not even supported in C — and a judgment
                // atom so called is decided the other way, not undecided.
                if let Some(q) = literal.and_then(|l| self.query(l)) {
                    assert!(
                        !self
                            .sem
                            .holds(q.lit, &q.args, Level::Supported, World::Certain),
                        "called not concluded, but the semantics supports it: {}\n{}",
                        literal.map(ToString::to_string).unwrap_or_default(),
                        where_()
                    );
                    if self.cat.pred(q.lit.pred).kind == RelationKind::Judgment {
                        assert!(
                            !self.sem.undecided(q.lit, &q.args),
                            "an undecided judgment atom called not concluded: {}\n{}",
                            literal.map(ToString::to_string).unwrap_or_default(),
                            where_()
                        );
                    }
                    self.checked += 1;
                }
            }
            NodeKind::Note {
                phrase:
                    Phrase::NoValue {
                        institutional: true,
                        pending,
                    },
            } => {
                // Every pending tuple that matches the pattern is listed.
                if let Some(pattern) = literal {
                    self.no_value(pattern, pending, &where_());
                }
            }
            _ => {}
        }
        // Children are about their own literal; a rule node's attackers are
        // about the rule node's literal.
        let here = match &n.kind {
            NodeKind::Rule { world, .. } => *world,
            _ => world,
        };
        for c in &n.children {
            self.node(e, c, literal, here);
        }
    }

    fn app(&self, rule: u32, level: Level, world: World) -> Option<lawgen_runtime::program::RelId> {
        app(&self.ev.program, rule, level, world)
    }

    fn rule_index(&self, id: &str) -> u32 {
        self.cat
            .rules
            .iter()
            .position(|r| r.id == id)
            .expect("explanations name package rules") as u32
    }

    /// The rule for `lit` an explanation names `name`.
    fn rule_for(&self, lit: Lit, name: &str, where_: &str) -> u32 {
        let found = self
            .cat
            .rules
            .iter()
            .position(|r| r.local == name && r.head.lit == lit);
        found.unwrap_or_else(|| panic!("no rule {name} for the literal\n{where_}")) as u32
    }

    /// Does rule `rule` apply to `args` at `level` in `world`? In the
    /// relations the explainer read and in the semantics alike (the
    /// on-demand lowering must not change what a rule applies to).
    fn applies(&self, rule: u32, args: &[Value], level: Level, world: World) -> bool {
        let here = self.tuple(args).zip(self.app(rule, level, world));
        let here = here.is_some_and(|(t, r)| self.ev.store.contains(r, &t));
        let sem = self.sem.applies(rule, args, level, world);
        assert_eq!(here, sem, "rule {rule} at {level:?} in {world:?}");
        sem
    }

    /// `higher` beats `lower` under the priority with id `priority`: the
    /// package declares it so, the two conclude complementary literals,
    /// and `higher` is no defeater (a defeater cannot beat,
    /// docs/reference.md#priorities-in-a-conflict).
    fn beats(&mut self, higher: u32, lower: u32, priority: &str, where_: &str) {
        let declared = self
            .cat
            .priorities
            .iter()
            .any(|p| p.id == priority && p.higher == higher && p.lower == lower);
        let (h, l) = (self.cat.rule(higher), self.cat.rule(lower));
        assert!(
            declared,
            "{} said to beat {} under {priority}, which says otherwise\n{where_}",
            h.local, l.local
        );
        assert_eq!(h.head.lit, l.head.lit.complement(), "{where_}");
        assert!(
            h.strength != Strength::Defeater,
            "the defeater {} said to beat {}\n{where_}",
            h.local,
            l.local
        );
        self.checked += 1;
    }

    /// Attacker `s` of `lit(args)` prevails: it applies at the policy's
    /// level in the other world, and no rule for the literal that a
    /// priority puts above it applies at ∂ — in the semantics.
    fn prevails(
        &self,
        s: u32,
        lit: Lit,
        args: &[Value],
        attack_level: Level,
        world: World,
        where_: &str,
    ) {
        assert!(
            self.applies(s, args, attack_level, world.other()),
            "said to prevail, but {} does not apply\n{where_}",
            self.cat.rule(s).local
        );
        for p in self.cat.priorities.iter().filter(|p| p.lower == s) {
            let h = self.cat.rule(p.higher);
            if h.head.lit == lit && h.strength != Strength::Defeater {
                assert!(
                    !self.applies(p.higher, args, Level::Defeasible, world),
                    "said to prevail, but {} beats it under {}\n{where_}",
                    h.local,
                    p.local
                );
            }
        }
    }

    fn no_value(&mut self, pattern: &Atom, listed: &[Atom], where_: &str) {
        let l = pattern.lit;
        let Some(rel) = self.ev.program.view(l, Level::Defeasible, World::Possible) else {
            return;
        };
        let p = self.cat.pred(l.pred);
        if pattern.args.len() != p.params.len() {
            return;
        }
        let mut pending = BTreeSet::new();
        for t in self.ev.store.tuples(rel) {
            let vals: Vec<Value> = p
                .params
                .iter()
                .zip(t)
                .map(|(ty, v)| self.ev.store.decode(*ty, *v))
                .collect();
            if vals
                .iter()
                .zip(&pattern.args)
                .all(|(v, p)| p.as_ref().is_none_or(|p| p == v))
            {
                pending.insert((l, vals));
            }
        }
        let listed: BTreeSet<(Lit, Vec<Value>)> = listed
            .iter()
            .filter_map(|a| Some((a.lit, a.values()?)))
            .collect();
        self.no_values.0 += 1;
        if !listed.is_empty() {
            self.no_values.1 += 1;
        }
        assert_eq!(
            pending, listed,
            "`{pattern}`: pending matches not listed\n{where_}"
        );
        self.checked += 1;
    }
}

/// The relation of rule `rule`'s applicability at `level` in `world`.
fn app(
    prog: &Program,
    rule: u32,
    level: Level,
    world: World,
) -> Option<lawgen_runtime::program::RelId> {
    let find = |w: World| {
        prog.rules.iter().find(|r| {
            matches!(r.meaning, Meaning::Applicable { rule: x, level: lv, world: y, .. }
                if x == rule && lv == level && y == w)
        })
    };
    // An attacker's head world collapses to C when no judgment reaches it.
    find(world)
        .or_else(|| find(World::Certain))
        .map(|r| r.head.rel)
}

/// Explains every institutional literal (both polarities) over the tuples
/// any relation of it holds, plus its complement's, and checks each tree.
fn check_all(
    loaded: &Loaded,
    ev: &Evaluated,
    sem: &Semantics,
    limit: usize,
) -> (usize, (usize, usize), Attackers) {
    let cat = &loaded.catalog;
    let mut c = Check {
        ev,
        sem,
        cat,
        checked: 0,
        no_values: (0, 0),
        attackers: Attackers::default(),
    };
    let mut queries = BTreeSet::new();
    for v in &ev.program.views {
        if cat.pred(v.lit.pred).kind != RelationKind::Institutional {
            continue;
        }
        let params = &cat.pred(v.lit.pred).params;
        for t in ev.store.tuples(v.rel) {
            let args: Vec<Value> = params
                .iter()
                .zip(t)
                .map(|(ty, x)| ev.store.decode(*ty, *x))
                .collect();
            queries.insert((v.lit, args.clone()));
            queries.insert((v.lit.complement(), args));
        }
    }
    for (lit, args) in queries.into_iter().take(limit) {
        let q = explain::Query { lit, args };
        let e = explain::explain(&ev.program, &ev.store, ev.conclusions.policy, &q, "en");
        let text = e.text();
        assert!(!text.contains("please report"), "{text}");
        // The verdict agrees with the canonical sections.
        let name = cat.lit_name(lit);
        let has = |s| {
            ev.conclusions.sections[&s]
                .get(&name)
                .is_some_and(|rows| rows.contains(&q.args))
        };
        use lawgen_runtime::program::Section::*;
        let expect = if has(Definitely) {
            "definitely"
        } else if has(Defeasibly) {
            "defeasibly"
        } else if has(Pending) {
            "pending"
        } else if has(Supported) {
            "supported"
        } else {
            "not_concluded"
        };
        assert_eq!(e.verdict(), expect, "{text}");
        for n in &e.tree {
            c.node(&e, n, Some(&e.literal), World::Certain);
        }
        if e.verdict() == "pending" {
            assert!(
                matches!(
                    e.tree[0].kind,
                    NodeKind::Rule {
                        world: World::Possible,
                        ..
                    }
                ),
                "a pending literal's derivation is in the possible model:\n{text}"
            );
        }
        // Reasons name the world they were checked in.
        for n in e.nodes() {
            if let NodeKind::Unsatisfied {
                reason: Reason::NotAt { world, .. },
                ..
            } = &n.kind
            {
                assert_eq!(*world, World::Certain, "{text}");
            }
        }
    }
    (c.checked, c.no_values, c.attackers)
}

#[test]
fn every_claim_of_explanations_on_random_packages_with_judgments_holds() {
    let n: u64 = std::env::var("LAWGEN_CLAIMS_PACKAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let (mut packages, mut claims, mut with_pending) = (0, 0, 0);
    let mut no_values = (0, 0);
    let mut attackers = Attackers::default();
    for i in 0..n {
        let mut cfg = GenConfig::new(package_seed(SEED, i));
        cfg.predicates = [(2, 4), (1, 2), (3, 5)];
        cfg.facts_files = 2;
        let g = generate(&cfg);
        let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) else {
            continue; // the generator may write an unstratifiable package
        };
        packages += 1;
        for facts in &g.facts {
            let facts = read_facts(facts, &loaded.catalog).expect("generated facts are valid");
            for policy in [Policy::Blocking, Policy::Propagating] {
                let ev = driver::evaluate(&loaded, &facts, policy).unwrap();
                if !ev.conclusions.sections[&lawgen_runtime::program::Section::Pending].is_empty() {
                    with_pending += 1;
                }
                let sem = Semantics::of(&loaded, &facts, policy);
                let (k, nv, a) = check_all(&loaded, &ev, &sem, 80);
                claims += k;
                attackers += a;
                no_values = (no_values.0 + nv.0, no_values.1 + nv.1);
            }
        }
    }
    println!(
        "{packages} packages, {claims} claims checked, {with_pending} evaluations with pending \
         literals, {} `_` notes ({} listing pending matches), attackers: {attackers:?}",
        no_values.0, no_values.1
    );
    assert!(
        packages >= n as usize / 2,
        "too few valid packages: {packages}"
    );
    assert!(with_pending > 0, "no evaluation had a pending literal");
    assert!(claims > 1000, "too few claims checked: {claims}");
    assert!(
        attackers.defeated > 0 && attackers.beating > 0 && attackers.blocking > 0,
        "an attacker claim was never checked: {attackers:?}"
    );
}

#[test]
fn every_claim_of_explanations_on_the_chess_scenarios_holds() {
    let bytes = support::read(support::CHESS);
    let loaded = driver::load_bytes(&bytes, &Default::default()).unwrap();
    let mut claims = 0;
    let mut names: Vec<_> = std::fs::read_dir(support::path(support::CHESS_SCENARIOS))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    names.sort();
    for path in names {
        let facts = read_facts(&std::fs::read(&path).unwrap(), &loaded.catalog).unwrap();
        for policy in [Policy::Blocking, Policy::Propagating] {
            let ev = driver::evaluate(&loaded, &facts, policy).unwrap();
            let sem = Semantics::of(&loaded, &facts, policy);
            claims += check_all(&loaded, &ev, &sem, 400).0;
        }
    }
    assert!(claims > 1000, "{claims}");
}

/// A literal that is not concluded because an item with an unbound
/// argument holds for no value in the certain model — while it is pending
/// for one: the explanation must say so, not just "for no value of `_`".
#[test]
fn no_value_of_an_argument_names_the_pending_matches() {
    let text = std::fs::read_to_string("../tests/ui/valid/minimal.json").unwrap();
    let mut pkg: serde_json::Value = serde_json::from_str(&text).unwrap();
    let label = |t: &str| serde_json::json!([{"language": "en", "status": "official", "text": t}]);
    let lit = |p: &str, args: &[&str]| {
        let args: Vec<_> = args
            .iter()
            .map(|a| serde_json::json!({"kind": "var", "var": a}))
            .collect();
        serde_json::json!({"kind": "literal", "predicate": p, "polarity": "positive", "args": args})
    };
    let est = |f: serde_json::Value| serde_json::json!({"kind": "status", "status": "established", "formula": f});
    let nodes = pkg["nodes"].as_array_mut().unwrap();
    nodes.push(
        serde_json::json!({"id": "urn:t#banned", "kind": "symbol_decl", "package": "urn:t",
        "labels": label("banned"), "name": "banned", "symbolKind": "relation",
        "relationKind": "empirical",
        "parameters": [{"name": "player", "type": {"name": "urn:t#Player"}}]}),
    );
    nodes.push(
        serde_json::json!({"id": "urn:t#alarm", "kind": "symbol_decl", "package": "urn:t",
        "labels": label("alarm"), "name": "alarm", "symbolKind": "relation",
        "relationKind": "institutional",
        "parameters": [{"name": "game", "type": {"name": "urn:t#Game"}}]}),
    );
    nodes.push(
        serde_json::json!({"id": "urn:t#Alarm", "kind": "rule", "package": "urn:t",
        "labels": label("Alarm"),
        "head": lit("urn:t#alarm", &["g"]),
        "body": {"kind": "and", "items": [
            est(lit("urn:t#move_count", &["g", "n"])),
            est(lit("urn:t#must_move", &["p"])),
            est(lit("urn:t#banned", &["p"]))]},
        "variables": [{"id": "g", "type": {"name": "urn:t#Game"}},
                      {"id": "n", "type": {"name": "urn:law:std#Integer"}},
                      {"id": "p", "type": {"name": "urn:t#Player"}}],
        "strength": "strict", "anchors": [], "scope": {"kind": "boolean", "value": true}}),
    );
    for n in nodes.iter_mut() {
        let hash = lawgen::internals::syntax::hash::node_hash(n.as_object().unwrap());
        n["contentHash"] = serde_json::Value::from(hash);
    }
    let loaded = driver::load_bytes(&serde_json::to_vec(&pkg).unwrap(), &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let facts = br#"{"entities": {"Player": ["white"]}, "facts": {"move_count": [["g1", 3]]}}"#;
    let facts = read_facts(facts, &loaded.catalog).unwrap();
    let ev = driver::evaluate(&loaded, &facts, Policy::Blocking).unwrap();
    let sem = Semantics::of(&loaded, &facts, Policy::Blocking);
    let q = explain::parse_query(&loaded.catalog, "alarm(g1)").unwrap();
    let e = explain::explain(&ev.program, &ev.store, Policy::Blocking, &q, "en");
    let text = e.text();
    assert_eq!(e.verdict(), "not_concluded", "{text}");
    assert!(
        text.contains(
            "must_move(_): not concluded for any value of `_`; pending for must_move(White), must_move(white)"
        ),
        "{text}"
    );
    let mut c = Check {
        ev: &ev,
        sem: &sem,
        cat: &loaded.catalog,
        checked: 0,
        no_values: (0, 0),
        attackers: Attackers::default(),
    };
    for n in &e.tree {
        c.node(&e, n, Some(&e.literal), World::Certain);
    }
    assert_eq!(c.no_values, (1, 1), "{text}");
}
