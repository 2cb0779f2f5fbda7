//! Checked package → [`Program`]: the whole defeasible overlay lives here and
//! only here (docs/reference.md#what-a-package-means).
//!
//! For each literal `L` (`p` or `~p`) and each *world* (the certain model C
//! and, for literals with a judgment in their past, the possible model P of
//! docs/reference.md#undecided-judgments) there are up to three relations, one per proof tag: `D` (+Δ), `P`
//! (+∂) and `S` (+Σ). What a package does not use costs nothing:
//!
//! * **collapsed** literals — facts, and institutional literals with only
//!   strict rules, no rule of any strength for the complement, and collapsed
//!   bodies — have `D = P = S`, so one relation serves all three tags;
//! * **untainted** predicates — no judgment anywhere in their past — have
//!   `C = P`, so one set of relations serves both worlds.
//!
//! For a literal that needs the full overlay, with `r` ranging over its strict
//! and defeasible rules and `s` over every rule (defeaters included) for the
//! complement:
//!
//! ```text
//! D[L](h)    :- body_r at Δ                         (r strict)
//! app[r](h)  :- body_r at ∂        appΣ[r](h) :- body_r at Σ
//! S[L](h)    :- D[L](h).           S[L](h)    :- appΣ[r](h)
//! cand[L](h) :- app[r](h)
//! ok[L,s](h) :- cand[L](h), !appΣ[s](h)                          s discarded (both policies)
//! ok[L,s](h) :- cand[L](h), !app[s](h), !policy_propagating()    s discarded (blocking)
//! ok[L,s](h) :- app[t](h)                                        s defeated: t > s
//! P[L](h)    :- D[L](h).
//! P[L](h)    :- cand[L](h), !D[~L](h), ok[L,s1](h), …, ok[L,sn](h)
//! ```
//!
//! Negative conditions (`!`) read the *other* world (docs/reference.md#undecided-judgments: checked in C
//! against P and in P against C); positive ones read the same world. The
//! `ok` relations turn "every attacker is discarded or defeated" into a
//! conjunction of positive atoms, so a literal attacked only by defeaters may
//! still be recursive. Checking (docs/reference.md#stratification) guarantees every negated relation is
//! complete in a lower stratum; [`stratify`] recomputes that order for the
//! program and reports an internal error if it ever does not hold.
//!
//! An undecided judgment atom matters only where a rule reads it, so it is
//! materialised on demand (docs/reference.md#undecided-judgments ranges it over the whole domain, which for a
//! facts file of many games is quadratic or worse):
//!
//! ```text
//! demand[j](a)    :- (the other items of r at Σ, those with no judgment in their past), dom[T](x)…
//! undecided[j](x) :- demand[j](x), !facts[j](x), !facts[~j](x)
//! ```
//!
//! with one `demand` rule per occurrence `j(a)` in the body of a rule `r` (of
//! any strength, either polarity, `not` items included), and `dom` for every
//! argument of `a` no input column among the kept items binds; a closure
//! whose domain is `j` demands all of `j`'s domain. Every body at every level
//! in either world implies the same body at Σ in P, and dropping items only
//! widens it, so `demand` holds of every atom any rule instance joins with
//! (positively, or under a `not`): the relations the rest of the program reads
//! are the same as with the whole domain. Kept items have no judgment in
//! their past, so `demand` sits below every judgment's relations and adds no
//! cycle. [`Options::judgments`] keeps the whole-domain form, which the tests
//! compare against.

mod catalog;
mod stratify;

pub use catalog::catalog;

use crate::model::{self, Item as MItem, Model, RuleId};

use crate::program::{
    AnchorInfo, Atom, Attack, Beat, Catalog, ClosureInfo, ConstInfo, DeprecationInfo,
    DerogationInfo, Domain, External, Item, Meaning, Output, PredInfo, PriorityInfo, Program, Read,
    RelId, Relation, RequestView, Role, Rule, RuleInfo, Section, SetAsideInfo, SourceAtom,
    SourceItem, Term, TypeInfo, View,
};
use crate::program::{Lit, PredId, Ty, Value};
use crate::program::{RelationKind, Status, Strength};
use lawgen_runtime::law::Gate;
use lawgen_runtime::Policy;
use std::collections::{BTreeMap, HashMap};

pub use crate::program::{Level, World};

/// A lowering bug: the checked model promised something the program does not
/// satisfy. Never caused by user input; reported instead of panicking.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct InternalError(pub String);

impl std::fmt::Display for InternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "internal error in lawgen's lowering (please report it): {}",
            self.0
        )
    }
}

/// How undecided judgment atoms are materialised (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Judgments {
    /// Only the atoms some rule instance could read (the default).
    #[default]
    OnDemand,
    /// Every atom over the domain of docs/reference.md#undecided-judgments: the reference the on-demand form
    /// is tested against.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    WholeDomain,
}

/// Choices of the lowering that do not change what a program concludes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub judgments: Judgments,
}

/// Lowers a checked package.
pub fn lower(model: &Model) -> Result<Program, InternalError> {
    lower_with(model, Options::default())
}

/// [`lower`] with explicit [`Options`].
pub fn lower_with(model: &Model, opts: Options) -> Result<Program, InternalError> {
    let mut l = Lowerer::new(model, opts);
    l.define_all();
    l.record_domains();
    l.record_views();
    // Last, so that a dated package's other relations are numbered as
    // they would be without it.
    if l.law.law.is_dated() {
        l.new_relation("as_of".into(), vec![Ty::Int], Role::AsOf);
    }
    let Lowerer { mut prog, law, .. } = l;
    prog.catalog = catalog(model);
    prog.catalog.law = law.law;
    prog.strata = stratify::stratify(&prog)?;
    Ok(prog)
}

struct Lowerer<'m> {
    m: &'m Model,
    opts: Options,
    prog: Program,
    tainted: Vec<bool>,
    /// The judgment predicates in each predicate's past (a judgment is in
    /// its own): a predicate is tainted when this is not empty.
    judgments_before: Vec<std::collections::BTreeSet<PredId>>,
    collapsed: HashMap<Lit, bool>,
    views: HashMap<(Lit, Level, World), RelId>,
    facts: HashMap<Lit, RelId>,
    /// Applicability of a rule body at a level in a world.
    app: HashMap<(RuleId, Level, World), RelId>,
    policy: Option<RelId>,
    domains: HashMap<Ty, RelId>,
    entities: HashMap<Ty, RelId>,
    undecided: HashMap<PredId, RelId>,
    aux_count: usize,
    /// For each rule, the rules declared to beat it, with the priority's
    /// index (priority pairs by their lower side): a scan of every priority,
    /// or of every pair of rules, per attacker would make lowering cubic or
    /// quadratic.
    higher_than: HashMap<RuleId, Vec<(RuleId, u32)>>,
    /// The same pairs by their higher side.
    lower_than: HashMap<RuleId, Vec<(RuleId, u32)>>,
    /// The dated law, and the in-force inputs made so far.
    law: Dated,
}

/// The closure's dated editions and the in-force inputs of the program
/// (docs/reference.md#as-of-evaluation): one nullary input per distinct
/// condition, made on first use.
struct Dated {
    law: lawgen_runtime::law::Law,
    /// Per edition of the model, its index in `law.editions` if dated.
    index: Vec<Option<u32>>,
    gates: HashMap<Gate, RelId>,
    /// Per rule a dated derogation lists, the dated editions of each such
    /// derogation's anchors (sorted, the list sorted): the rule is left out
    /// on a date one of those sets has an edition in force.
    derogated: HashMap<RuleId, Vec<Vec<u32>>>,
}

impl Dated {
    fn new(m: &Model) -> Dated {
        use lawgen_runtime::law::{EditionInfo, Law, WorkInfo};
        let index = dated_index(m);
        let mut works: Vec<usize> = m
            .editions
            .iter()
            .filter(|e| e.is_dated())
            .filter_map(|e| e.work)
            .collect();
        works.sort_by(|&a, &b| {
            (&m.works[a].local, &m.works[a].id).cmp(&(&m.works[b].local, &m.works[b].id))
        });
        works.dedup();
        let work_index: HashMap<usize, u32> = works
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, i as u32))
            .collect();
        let mut law = Law {
            works: works
                .iter()
                .map(|&w| WorkInfo {
                    id: m.works[w].id.clone(),
                    local: m.works[w].local.clone(),
                    required: false,
                })
                .collect(),
            editions: Vec::new(),
            gates: Vec::new(),
        };
        for (e, ed) in m.editions.iter().enumerate() {
            if index[e].is_none() {
                continue;
            }
            law.editions.push(EditionInfo {
                id: ed.id.clone(),
                local: ed.local.clone(),
                work: work_index[&ed.work.expect("a dated edition has a work")],
                in_force: ed.in_force.clone(),
                repealed: ed.repealed.clone(),
                labels: ed.labels.clone(),
            });
        }
        // A work is required when a rule of the closure (one set aside
        // included) is anchored to one of its dated editions.
        let rules = m.rules.iter().chain(m.set_aside.iter().map(|a| &a.rule));
        for r in rules {
            for e in anchor_editions(m, &index, &r.anchors) {
                let w = law.editions[e as usize].work as usize;
                law.works[w].required = true;
            }
        }
        let mut derogated: HashMap<RuleId, Vec<Vec<u32>>> = HashMap::new();
        for d in m.derogations.iter().filter(|d| d.dated) {
            let eds = anchor_editions(m, &index, &d.anchors);
            for &r in &d.gated {
                derogated.entry(r).or_default().push(eds.clone());
            }
        }
        for sets in derogated.values_mut() {
            sets.sort();
            sets.dedup();
        }
        Dated {
            law,
            index,
            gates: HashMap::new(),
            derogated,
        }
    }

    /// The condition of a node anchored to `anchors` and set aside on the
    /// dates some edition of a set of `none` is in force (the dated
    /// derogations that list it), or `None` when it holds on every date a
    /// case can have: the node is timeless and no dated derogation lists
    /// it, or every edition of a required work is among its anchors' (a
    /// case's date always has one of them in force, else it is refused).
    fn gate(&self, m: &Model, anchors: &[model::FragId], none: Vec<Vec<u32>>) -> Option<Gate> {
        let mut any = anchor_editions(m, &self.index, anchors);
        if !any.is_empty() && self.always(&any) {
            any.clear();
        }
        (!any.is_empty() || !none.is_empty()).then_some(Gate { any, none })
    }

    /// Is some edition of `any` in force on every date a case can have?
    fn always(&self, any: &[u32]) -> bool {
        self.law.works.iter().enumerate().any(|(w, work)| {
            work.required
                && self
                    .law
                    .editions
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.work == w as u32)
                    .all(|(i, _)| any.contains(&(i as u32)))
        })
    }
}

/// The dated law of a checked closure (its works and dated editions, no
/// in-force inputs): what is in force on a date.
pub fn law(m: &Model) -> lawgen_runtime::law::Law {
    Dated::new(m).law
}

/// The dated editions (indices into the law's) of a node's anchors, sorted.
fn anchor_editions(m: &Model, index: &[Option<u32>], anchors: &[model::FragId]) -> Vec<u32> {
    let mut out: Vec<u32> = anchors
        .iter()
        .filter_map(|f| m.fragments.get(f.0 as usize)?.edition)
        .filter_map(|e| index[e])
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Per edition of the model, its index among the dated ones.
fn dated_index(m: &Model) -> Vec<Option<u32>> {
    let mut k = 0;
    m.editions
        .iter()
        .map(|e| {
            (e.is_dated() && e.work.is_some()).then(|| {
                k += 1;
                k - 1
            })
        })
        .collect()
}

impl<'m> Lowerer<'m> {
    fn new(m: &'m Model, opts: Options) -> Self {
        let mut l = Lowerer {
            m,
            opts,
            prog: Program {
                package: m.name.clone(),
                version: m.version.clone(),
                catalog: Catalog::default(),
                views: Vec::new(),
                relations: Vec::new(),
                rules: Vec::new(),
                strata: Vec::new(),
                outputs: Vec::new(),
                requests: Vec::new(),
            },
            tainted: vec![false; m.preds.len()],
            judgments_before: vec![Default::default(); m.preds.len()],
            collapsed: HashMap::new(),
            views: HashMap::new(),
            facts: HashMap::new(),
            app: HashMap::new(),
            policy: None,
            domains: HashMap::new(),
            entities: HashMap::new(),
            undecided: HashMap::new(),
            aux_count: 0,
            higher_than: HashMap::new(),
            lower_than: HashMap::new(),
            law: Dated::new(m),
        };
        for (i, p) in m.priorities.iter().enumerate() {
            let i = i as u32;
            l.higher_than
                .entry(p.lower)
                .or_default()
                .push((p.higher, i));
            l.lower_than.entry(p.higher).or_default().push((p.lower, i));
        }
        l.compute_taint();
        l.compute_collapse();
        l
    }

    fn has_judgments(&self) -> bool {
        self.m
            .preds
            .iter()
            .any(|p| p.kind == RelationKind::Judgment)
    }

    /// A predicate is tainted when a judgment lies in its past. A worklist
    /// over "body predicate → head" edges: linear, however long the chains.
    fn compute_taint(&mut self) {
        let mut next: Vec<Vec<PredId>> = vec![Vec::new(); self.m.preds.len()];
        for r in &self.m.rules {
            for p in body_preds(r) {
                next[p.0 as usize].push(r.head.pred);
            }
        }
        for c in &self.m.closures {
            next[c.domain.0 as usize].push(c.pred);
        }
        // Judgment sets flow forward along the edges; a predicate goes back
        // on the worklist whenever its set grows, so a long chain costs its
        // length times the judgments, not its square.
        let mut work: Vec<PredId> = Vec::new();
        for (i, p) in self.m.preds.iter().enumerate() {
            if p.kind == RelationKind::Judgment {
                self.judgments_before[i].insert(PredId(i as u32));
                work.push(PredId(i as u32));
            }
        }
        while let Some(p) = work.pop() {
            let from = self.judgments_before[p.0 as usize].clone();
            for &q in &next[p.0 as usize] {
                let into = &mut self.judgments_before[q.0 as usize];
                let before = into.len();
                into.extend(from.iter().copied());
                if into.len() > before {
                    work.push(q);
                }
            }
        }
        for (t, j) in self.tainted.iter_mut().zip(&self.judgments_before) {
            *t = !j.is_empty();
        }
    }

    /// Greatest fixpoint of "D = P = S is guaranteed": start from what each
    /// literal's own rules allow, then withdraw it from every rule head whose
    /// body reads a literal that lost it (a worklist, linear).
    fn compute_collapse(&mut self) {
        let mut work: Vec<Lit> = Vec::new();
        for (i, p) in self.m.preds.iter().enumerate() {
            for negative in [false, true] {
                let lit = Lit {
                    pred: PredId(i as u32),
                    negative,
                };
                let ok = match p.kind {
                    RelationKind::Empirical | RelationKind::Judgment => true,
                    RelationKind::Institutional => {
                        self.m.rules_for(lit.complement()).next().is_none()
                            && self
                                .m
                                .rules_for(lit)
                                .all(|r| self.m.rule(r).strength == Strength::Strict)
                    }
                };
                self.collapsed.insert(lit, ok);
                if !ok {
                    work.push(lit);
                }
            }
        }
        let mut readers: HashMap<Lit, Vec<Lit>> = HashMap::new();
        for r in &self.m.rules {
            for i in &r.body {
                if let MItem::Status { atom, .. } = i {
                    readers.entry(atom.lit()).or_default().push(r.head.lit());
                }
            }
        }
        while let Some(l) = work.pop() {
            for &h in readers.get(&l).map_or(&[][..], Vec::as_slice) {
                if self.collapsed[&h] {
                    self.collapsed.insert(h, false);
                    work.push(h);
                }
            }
        }
    }

    fn worlds(&self, p: PredId) -> &'static [World] {
        if self.tainted[p.0 as usize] {
            &[World::Certain, World::Possible]
        } else {
            &[World::Certain]
        }
    }

    fn new_relation(&mut self, name: String, columns: Vec<Ty>, role: Role) -> RelId {
        self.prog.relations.push(Relation {
            name,
            columns,
            role,
        });
        RelId(self.prog.relations.len() as u32 - 1)
    }

    /// The in-force input of a node anchored to `anchors`, as a body item
    /// (`None`: the node is in force on every date a case can have).
    fn in_force(&mut self, anchors: &[model::FragId]) -> Option<Item> {
        let g = self.law.gate(self.m, anchors, Vec::new())?;
        Some(self.gate_item(g))
    }

    /// The in-force input of rule `rid`: its anchors, and no dated
    /// derogation that lists it in force (docs/reference.md#as-of-evaluation).
    fn rule_in_force(&mut self, rid: RuleId) -> Option<Item> {
        let none = self.law.derogated.get(&rid).cloned().unwrap_or_default();
        let g = self.law.gate(self.m, &self.m.rule(rid).anchors, none)?;
        Some(self.gate_item(g))
    }

    /// The nullary input relation of `g`, made on first use.
    fn gate_item(&mut self, g: Gate) -> Item {
        let rel = match self.law.gates.get(&g) {
            Some(&r) => r,
            None => {
                let k = self.law.law.gates.len() as u32;
                let names = |set: &[u32]| -> String {
                    set.iter()
                        .map(|&e| self.law.law.editions[e as usize].local.as_str())
                        .collect::<Vec<_>>()
                        .join("|")
                };
                let mut parts: Vec<String> = Vec::new();
                if !g.any.is_empty() {
                    parts.push(names(&g.any));
                }
                parts.extend(g.none.iter().map(|set| format!("!{}", names(set))));
                let r = self.new_relation(
                    format!("in_force[{}]", parts.join(";")),
                    Vec::new(),
                    Role::InForce(k),
                );
                self.law.law.gates.push(g.clone());
                self.law.gates.insert(g, r);
                r
            }
        };
        Item::Pos(Atom {
            rel,
            args: Vec::new(),
        })
    }

    fn lit_name(&self, l: Lit) -> String {
        self.m.lit_name(l)
    }

    fn facts_rel(&mut self, l: Lit) -> RelId {
        if let Some(r) = self.facts.get(&l) {
            return *r;
        }
        let cols = self.m.pred(l.pred).params.clone();
        let r = self.new_relation(format!("facts[{}]", self.lit_name(l)), cols, Role::Facts(l));
        self.facts.insert(l, r);
        r
    }

    /// The relation holding literal `l` at `level` in world `w`.
    fn view(&mut self, l: Lit, level: Level, w: World) -> RelId {
        let w = if self.tainted[l.pred.0 as usize] {
            w
        } else {
            World::Certain
        };
        let level = if self.collapsed[&l] {
            Level::Definite
        } else {
            level
        };
        if let Some(r) = self.views.get(&(l, level, w)) {
            return *r;
        }
        let pred = self.m.pred(l.pred);
        // Facts without closures or undecided judgments are their own view.
        let plain_facts = match pred.kind {
            RelationKind::Empirical => !l.negative || !self.closes(l.pred),
            RelationKind::Judgment => w == World::Certain,
            RelationKind::Institutional => false,
        };
        let r = if plain_facts {
            self.facts_rel(l)
        } else {
            let tag = match level {
                Level::Definite => "D",
                Level::Defeasible => "P",
                Level::Supported => "S",
            };
            let prime = if w == World::Possible { "'" } else { "" };
            let name = format!("{tag}{prime}[{}]", self.lit_name(l));
            self.new_relation(name, pred.params.clone(), Role::Derived)
        };
        self.views.insert((l, level, w), r);
        r
    }

    fn closes(&self, p: PredId) -> bool {
        self.m
            .closures
            .iter()
            .any(|c| c.pred == p && c.derive_negative)
    }

    fn policy_rel(&mut self) -> RelId {
        if let Some(r) = self.policy {
            return r;
        }
        let r = self.new_relation("policy_propagating".into(), vec![], Role::PolicyPropagating);
        self.policy = Some(r);
        r
    }

    fn push(
        &mut self,
        head: Atom,
        body: Vec<Item>,
        vars: Vec<String>,
        origin: String,
        meaning: Meaning,
    ) {
        self.prog.rules.push(Rule {
            head,
            body,
            vars,
            origin,
            meaning,
        });
    }

    /// Every (literal, level, world) that has a relation, after collapsing
    /// (see [`Lowerer::view`]), for the explainer to read relations by.
    fn record_views(&mut self) {
        let mut out = Vec::new();
        for i in 0..self.m.preds.len() {
            for negative in [false, true] {
                let l = Lit {
                    pred: PredId(i as u32),
                    negative,
                };
                for world in [World::Certain, World::Possible] {
                    for level in [Level::Definite, Level::Defeasible, Level::Supported] {
                        let w = if self.tainted[i] {
                            world
                        } else {
                            World::Certain
                        };
                        let lv = if self.collapsed[&l] {
                            Level::Definite
                        } else {
                            level
                        };
                        if let Some(&rel) = self.views.get(&(l, lv, w)) {
                            out.push(View {
                                lit: l,
                                level,
                                world,
                                rel,
                            });
                        }
                    }
                }
            }
        }
        self.prog.views = out;
    }

    /// `head(x0..xn) :- src(x0..xn), extra…` over fresh variables.
    fn copy_rule(
        &mut self,
        head: RelId,
        arity: usize,
        body: Vec<(bool, RelId)>,
        origin: String,
        meaning: Meaning,
    ) {
        let args: Vec<Term> = (0..arity as u32).map(Term::Var).collect();
        let body = body
            .into_iter()
            .map(|(pos, rel)| {
                let a = Atom {
                    rel,
                    args: if self.prog.relation(rel).columns.is_empty() {
                        vec![]
                    } else {
                        args.clone()
                    },
                };
                if pos {
                    Item::Pos(a)
                } else {
                    Item::Neg(a)
                }
            })
            .collect();
        let vars = (0..arity).map(|i| format!("x{i}")).collect();
        self.push(Atom { rel: head, args }, body, vars, origin, meaning);
    }

    fn define_all(&mut self) {
        for i in 0..self.m.preds.len() {
            let p = PredId(i as u32);
            for negative in [false, true] {
                let l = Lit { pred: p, negative };
                match self.m.pred(p).kind {
                    RelationKind::Empirical => self.define_empirical(l),
                    RelationKind::Judgment => self.define_judgment(l),
                    RelationKind::Institutional => self.define_institutional(l),
                }
            }
        }
        self.define_requests();
        self.define_set_aside();
    }

    /// `aside[r](head) :- body_r at Σ in C` for every rule a derogation set
    /// aside: whether it would have supported its head here, for the
    /// explanation of a literal it would have concluded. Nothing reads these
    /// relations, so they change no other relation (the derogation stays
    /// "as if deleted").
    fn define_set_aside(&mut self) {
        for k in 0..self.m.set_aside.len() {
            let r = &self.m.set_aside[k].rule;
            let rel = self.new_relation(
                format!("aside[{}]", r.local),
                self.m.pred(r.head.pred).params.clone(),
                Role::Derived,
            );
            let (body, reads) =
                self.body_of(Src::SetAside(k), Level::Supported, World::Certain, None);
            let vars = r.vars.iter().map(|(n, _)| n.clone()).collect();
            self.push(
                Atom {
                    rel,
                    args: terms(&r.head.args),
                },
                body,
                vars,
                format!("{} (set aside) would apply", r.local),
                Meaning::SetAside {
                    rule: k as u32,
                    reads,
                },
            );
        }
    }

    fn output(&mut self, l: Lit, pending: bool) {
        for (section, level) in [
            (Section::Definitely, Level::Definite),
            (Section::Defeasibly, Level::Defeasible),
            (Section::Supported, Level::Supported),
        ] {
            let rel = self.view(l, level, World::Certain);
            self.prog.outputs.push(Output {
                section,
                lit: l,
                rel,
                minus: None,
                on: Vec::new(),
            });
        }
        if pending && self.tainted[l.pred.0 as usize] {
            let rel = self.view(l, Level::Defeasible, World::Possible);
            let minus = self.view(l, Level::Defeasible, World::Certain);
            self.prog.outputs.push(Output {
                section: Section::Pending,
                lit: l,
                rel,
                minus: Some(minus),
                on: self.judgments_before[l.pred.0 as usize]
                    .iter()
                    .copied()
                    .collect(),
            });
        }
    }

    fn define_empirical(&mut self, l: Lit) {
        let arity = self.m.pred(l.pred).params.len();
        if l.negative && self.closes(l.pred) {
            let closures: Vec<(u32, model::Closure)> = self
                .m
                .closures
                .iter()
                .enumerate()
                .filter(|(_, c)| c.pred == l.pred && c.derive_negative)
                .map(|(i, c)| (i as u32, c.clone()))
                .collect();
            for &w in self.worlds(l.pred) {
                let head = self.view(l, Level::Definite, w);
                let facts = self.facts_rel(l);
                self.copy_rule(
                    head,
                    arity,
                    vec![(true, facts)],
                    format!("facts of {}", self.lit_name(l)),
                    Meaning::Facts,
                );
                let pos = self.facts_rel(l.complement());
                for (ci, c) in &closures {
                    let dom = self.view(
                        Lit {
                            pred: c.domain,
                            negative: false,
                        },
                        Level::Definite,
                        w,
                    );
                    self.copy_rule(
                        head,
                        arity,
                        vec![(true, dom), (false, pos)],
                        format!("closure {}", crate::program::local_name(&c.id)),
                        Meaning::Closure { closure: *ci },
                    );
                }
            }
        } else {
            self.facts_rel(l);
        }
        self.output(l, true);
    }

    fn define_judgment(&mut self, l: Lit) {
        let arity = self.m.pred(l.pred).params.len();
        self.facts_rel(l);
        let undecided = self.undecided_rel(l.pred);
        let head = self.view(l, Level::Definite, World::Possible);
        let facts = self.facts_rel(l);
        let name = self.lit_name(l);
        self.copy_rule(
            head,
            arity,
            vec![(true, facts)],
            format!("decided {name}"),
            Meaning::Facts,
        );
        self.copy_rule(
            head,
            arity,
            vec![(true, undecided)],
            format!("undecided {name} holds both ways in P"),
            Meaning::UndecidedHolds,
        );
        // Judgment atoms are never pending themselves (docs/reference.md#the-canonical-output): no pending output.
        self.output(l, false);
    }

    /// `undecided[j](x…) :- demand[j](x…), !facts[j](x…), !facts[~j](x…)`
    /// (with [`Judgments::WholeDomain`], `dom[T1](x1), …` instead of `demand`).
    fn undecided_rel(&mut self, p: PredId) -> RelId {
        if let Some(r) = self.undecided.get(&p) {
            return *r;
        }
        let params = self.m.pred(p).params.clone();
        let name = format!("undecided[{}]", self.m.pred(p).local);
        let rel = self.new_relation(name, params.clone(), Role::Derived);
        self.undecided.insert(p, rel);
        let args: Vec<Term> = (0..params.len() as u32).map(Term::Var).collect();
        let mut body = Vec::new();
        match self.opts.judgments {
            Judgments::OnDemand => body.push(Item::Pos(Atom {
                rel: self.demand_rel(p),
                args: args.clone(),
            })),
            Judgments::WholeDomain => {
                for (i, t) in params.iter().enumerate() {
                    let dom = self.domain_rel(*t);
                    body.push(Item::Pos(Atom {
                        rel: dom,
                        args: vec![Term::Var(i as u32)],
                    }));
                }
            }
        }
        for negative in [false, true] {
            let f = self.facts_rel(Lit { pred: p, negative });
            body.push(Item::Neg(Atom {
                rel: f,
                args: args.clone(),
            }));
        }
        let vars = (0..params.len()).map(|i| format!("x{i}")).collect();
        self.push(
            Atom { rel, args },
            body,
            vars,
            format!("{} is undecided", self.m.pred(p).local),
            Meaning::Undecided {
                pred: p,
                // Filled in by `record_domains`, once every `dom[T]` is made.
                domain: Vec::new(),
            },
        );
        rel
    }

    /// `demand[j]`: the atoms of judgment `p` that some rule instance could
    /// read, one rule per occurrence of `p` in a rule body (module docs).
    fn demand_rel(&mut self, p: PredId) -> RelId {
        let m = self.m;
        let pred = m.pred(p);
        let rel = self.new_relation(
            format!("demand[{}]", pred.local),
            pred.params.clone(),
            Role::Derived,
        );
        for (ri, r) in m.rules.iter().enumerate() {
            for (i, item) in r.body.iter().enumerate() {
                let atom = match item {
                    MItem::Status { atom, .. } | MItem::Not { atom, .. } => atom,
                    MItem::Compare { .. } => continue,
                };
                if atom.pred == p {
                    self.demand_rule(rel, RuleId(ri as u32), i);
                }
            }
        }
        // A closure over the judgment reads every atom of its domain.
        for (ci, c) in m.closures.iter().enumerate() {
            if c.domain != p || !c.derive_negative {
                continue;
            }
            let body = pred
                .params
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    Item::Pos(Atom {
                        rel: self.domain_rel(*t),
                        args: vec![Term::Var(i as u32)],
                    })
                })
                .collect();
            let arity = pred.params.len();
            self.push(
                Atom {
                    rel,
                    args: (0..arity as u32).map(Term::Var).collect(),
                },
                body,
                (0..arity).map(|i| format!("x{i}")).collect(),
                format!(
                    "closure {} reads every atom",
                    crate::program::local_name(&c.id)
                ),
                Meaning::DemandOfClosure { closure: ci as u32 },
            );
        }
        rel
    }

    /// The `demand` rule of item `at` (an atom of a judgment) of rule `rid`.
    fn demand_rule(&mut self, rel: RelId, rid: RuleId, at: usize) {
        let m = self.m;
        let r = m.rule(rid);
        let (MItem::Status { atom, .. } | MItem::Not { atom, .. }) = &r.body[at] else {
            return;
        };
        let mut body = Vec::new();
        let mut bound: Vec<model::Var> = Vec::new();
        // Variables bound by an input column, whose values are in the
        // domain by definition (docs/reference.md#undecided-judgments: mentioned in the input).
        let mut mentioned: Vec<model::Var> = Vec::new();
        // Positive items with no judgment in their past, at Σ (which every
        // level implies; such items are the same in both worlds). `not`
        // items are dropped: dropping only widens the demand.
        for (k, item) in r.body.iter().enumerate() {
            let MItem::Status { atom: a, .. } = item else {
                continue;
            };
            if k == at || self.tainted[a.pred.0 as usize] {
                continue;
            }
            let view = self.view(a.lit(), Level::Supported, World::Possible);
            body.push(Item::Pos(Atom {
                rel: view,
                args: terms(&a.args),
            }));
            bound.extend(a.args.iter().filter_map(model::Term::var));
            if matches!(self.prog.relation(view).role, Role::Facts(_)) {
                mentioned.extend(a.args.iter().filter_map(model::Term::var));
            }
        }
        // The judgment's variables nothing kept binds range over its domain.
        // Every other argument is checked against the domain too, unless an
        // input column binds it: a constant of a rule, or a value a derived
        // item carries (maybe from a rule's head), need not be in it.
        let params = &m.pred(atom.pred).params;
        for (a, ty) in atom.args.iter().zip(params) {
            let free = a.var().filter(|v| !bound.contains(v));
            if a.var().is_none_or(|v| !mentioned.contains(&v)) {
                let dom = self.domain_rel(*ty);
                body.push(Item::Pos(Atom {
                    rel: dom,
                    args: vec![term(a)],
                }));
                bound.extend(free);
            }
        }
        // Comparisons whose values are all bound by now.
        for item in &r.body {
            if let MItem::Compare { left, op, right } = item {
                if item.vars().iter().all(|v| bound.contains(v)) {
                    body.push(Item::Cmp(term(left), *op, term(right)));
                }
            }
        }
        body.extend(self.rule_in_force(rid));
        let vars = self.rule_vars(rid);
        let origin = format!(
            "{}: the judgment atom {} could be read",
            r.local,
            m.pred(atom.pred).local
        );
        self.push(
            Atom {
                rel,
                args: terms(&atom.args),
            },
            body,
            vars,
            origin,
            Meaning::Demand {
                rule: rid.0,
                item: at as u32,
            },
        );
    }

    /// Records in each `undecided[j]` rule the values every argument of `j`
    /// ranges over: `dom[T]` where some judgment needed it made, otherwise
    /// the input columns of type `T` (what `dom[T]` would read, the
    /// constants aside), so that an explanation can say an atom no rule
    /// instance reads is undecided.
    fn record_domains(&mut self) {
        let mut columns: HashMap<Ty, Vec<(RelId, u32)>> = HashMap::new();
        for (i, r) in self.prog.relations.iter().enumerate() {
            if let Role::Facts(_) = r.role {
                for (c, ty) in r.columns.iter().enumerate() {
                    columns
                        .entry(*ty)
                        .or_default()
                        .push((RelId(i as u32), c as u32));
                }
            }
        }
        for r in &mut self.prog.rules {
            if let Meaning::Undecided { pred, domain } = &mut r.meaning {
                *domain = self
                    .m
                    .pred(*pred)
                    .params
                    .iter()
                    .map(|t| match self.domains.get(t) {
                        Some(rel) => Domain::Relation(*rel),
                        None => Domain::Inputs(columns.get(t).cloned().unwrap_or_default()),
                    })
                    .collect();
            }
        }
    }

    /// Values of type `t` the input mentions, plus the package's constants of that type.
    fn domain_rel(&mut self, t: Ty) -> RelId {
        if let Some(r) = self.domains.get(&t) {
            return *r;
        }
        let rel = self.new_relation(
            format!("dom[{}]", self.m.type_name(t)),
            vec![t],
            Role::Derived,
        );
        self.domains.insert(t, rel);
        for (i, p) in self.m.preds.iter().enumerate() {
            if p.kind == RelationKind::Institutional {
                continue;
            }
            for (col, ct) in p.params.iter().enumerate() {
                if *ct != t {
                    continue;
                }
                for negative in [false, true] {
                    let l = Lit {
                        pred: PredId(i as u32),
                        negative,
                    };
                    let f = self.facts_rel(l);
                    let arity = p.params.len();
                    let args = (0..arity as u32).map(Term::Var).collect();
                    let vars = (0..arity).map(|i| format!("x{i}")).collect();
                    self.push(
                        Atom {
                            rel,
                            args: vec![Term::Var(col as u32)],
                        },
                        vec![Item::Pos(Atom { rel: f, args })],
                        vars,
                        format!("mentioned in {} column {}", self.lit_name(l), col + 1),
                        Meaning::Domain,
                    );
                }
            }
        }
        if let Ty::Entity(tid) = t {
            for c in self.m.constants.iter().filter(|c| c.ty == tid) {
                self.prog.rules.push(Rule {
                    head: Atom {
                        rel,
                        args: vec![Term::Value(Value::Entity(c.local.clone()))],
                    },
                    body: vec![],
                    vars: vec![],
                    origin: format!("constant {}", c.local),
                    meaning: Meaning::Domain,
                });
            }
        }
        let ent = self.new_relation(
            format!("entities[{}]", self.m.type_name(t)),
            vec![t],
            Role::Entities(t),
        );
        self.entities.insert(t, ent);
        self.copy_rule(
            rel,
            1,
            vec![(true, ent)],
            "listed under entities".into(),
            Meaning::Domain,
        );
        rel
    }

    /// A source rule's body as program items, at `level` in world `w`,
    /// leaving out item `skip`, with where each item reads its literal.
    fn body(
        &mut self,
        rid: RuleId,
        level: Level,
        w: World,
        skip: Option<usize>,
    ) -> (Vec<Item>, Vec<Option<Read>>) {
        self.body_of(Src::Rule(rid), level, w, skip)
    }

    /// [`Lowerer::body`] of a rule of the model or of a rule set aside. The
    /// one place that decides the level and world a body item is read at
    /// (an established item at the body's level, a supported one at Σ; a
    /// `not` item in the other world, at the level its word names); the
    /// reads are recorded in the rule's [`Meaning`] for explanations.
    fn body_of(
        &mut self,
        src: Src,
        level: Level,
        w: World,
        skip: Option<usize>,
    ) -> (Vec<Item>, Vec<Option<Read>>) {
        let r = self.src_rule(src);
        let mut out = Vec::with_capacity(r.body.len());
        let mut reads = Vec::with_capacity(r.body.len());
        for (i, item) in r.body.iter().enumerate() {
            if Some(i) == skip {
                continue;
            }
            match item {
                MItem::Status { status, atom } => {
                    let read = Read {
                        level: match status {
                            Status::Established => level,
                            Status::Supported => Level::Supported,
                        },
                        world: w,
                    };
                    let rel = self.view(atom.lit(), read.level, read.world);
                    out.push(Item::Pos(Atom {
                        rel,
                        args: terms(&atom.args),
                    }));
                    reads.push(Some(read));
                }
                MItem::Compare { left, op, right } => {
                    out.push(Item::Cmp(term(left), *op, term(right)));
                    reads.push(None);
                }
                MItem::Not { status, atom } => {
                    let read = Read {
                        level: status.level(),
                        world: w.other(),
                    };
                    let inner = self.view(atom.lit(), read.level, read.world);
                    out.push(Item::Neg(self.negated_atom(src, i, inner, &atom.args)));
                    reads.push(Some(read));
                }
            }
        }
        // Last, after the items `reads` numbers: whether the rule is in
        // force on the case's date.
        if let Src::Rule(rid) = src {
            out.extend(self.rule_in_force(rid));
        }
        (out, reads)
    }

    /// For `not a(X, Y)` where `Y` occurs nowhere else in the rule, negate the
    /// projection `∃Y a(X, Y)` so every negated variable is bound.
    fn negated_atom(&mut self, src: Src, idx: usize, rel: RelId, args: &[model::Term]) -> Atom {
        let r = self.src_rule(src);
        let elsewhere: std::collections::HashSet<model::Var> = r
            .body
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != idx)
            .flat_map(|(_, it)| it.vars())
            .chain(r.head.args.iter().filter_map(model::Term::var))
            .collect();
        let local: Vec<model::Var> = args
            .iter()
            .filter_map(model::Term::var)
            .filter(|v| !elsewhere.contains(v))
            .collect();
        if local.is_empty() {
            return Atom {
                rel,
                args: terms(args),
            };
        }
        let mut kept: Vec<model::Var> = Vec::new();
        for v in args.iter().filter_map(model::Term::var) {
            if elsewhere.contains(&v) && !kept.contains(&v) {
                kept.push(v);
            }
        }
        let cols = kept.iter().map(|v| r.vars[v.0 as usize].1).collect();
        self.aux_count += 1;
        let name = format!("exists{}[{}]", self.aux_count, self.prog.relation(rel).name);
        let aux = self.new_relation(name, cols, Role::Derived);
        let head_args: Vec<Term> = kept.iter().map(|v| Term::Var(v.0)).collect();
        let vars = r.vars.iter().map(|(n, _)| n.clone()).collect();
        self.push(
            Atom {
                rel: aux,
                args: head_args.clone(),
            },
            vec![Item::Pos(Atom {
                rel,
                args: terms(args),
            })],
            vars,
            format!("{}: projection for a `not` item", r.local),
            match src {
                Src::Rule(rid) => Meaning::Projection {
                    rule: rid.0,
                    item: idx as u32,
                },
                Src::SetAside(k) => Meaning::SetAsideProjection {
                    rule: k as u32,
                    item: idx as u32,
                },
            },
        );
        Atom {
            rel: aux,
            args: head_args,
        }
    }

    /// The rule of the model, or the rule set aside, `src` names.
    fn src_rule(&self, src: Src) -> &'m model::Rule {
        match src {
            Src::Rule(rid) => self.m.rule(rid),
            Src::SetAside(k) => &self.m.set_aside[k].rule,
        }
    }

    fn rule_vars(&self, rid: RuleId) -> Vec<String> {
        self.m
            .rule(rid)
            .vars
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// `app[r](head) :- body_r at level` in world `w`.
    fn app(&mut self, rid: RuleId, level: Level, w: World) -> RelId {
        let r = self.m.rule(rid);
        let w = if self.tainted[r.head.pred.0 as usize] {
            w
        } else {
            World::Certain
        };
        if let Some(x) = self.app.get(&(rid, level, w)) {
            return *x;
        }
        let tag = match level {
            Level::Definite => "appΔ",
            Level::Defeasible => "app",
            Level::Supported => "appΣ",
        };
        let prime = if w == World::Possible { "'" } else { "" };
        let rel = self.new_relation(
            format!("{tag}{prime}[{}]", r.local),
            self.m.pred(r.head.pred).params.clone(),
            Role::Derived,
        );
        self.app.insert((rid, level, w), rel);
        let (body, reads) = self.body(rid, level, w, None);
        let vars = self.rule_vars(rid);
        let head = Atom {
            rel,
            args: terms(&r.head.args),
        };
        self.push(
            head,
            body,
            vars,
            format!(
                "{} ({}) applicable at {}",
                r.local,
                r.strength.as_str(),
                level_name(level)
            ),
            Meaning::Applicable {
                rule: rid.0,
                level,
                world: w,
                reads,
            },
        );
        rel
    }

    fn define_institutional(&mut self, l: Lit) {
        let concluding: Vec<RuleId> = self
            .m
            .rules_for(l)
            .filter(|r| self.m.rule(*r).strength != Strength::Defeater)
            .collect();
        if concluding.is_empty() {
            return; // never concluded; referenced views stay empty
        }
        let arity = self.m.pred(l.pred).params.len();
        let name = self.lit_name(l);
        let attackers: Vec<RuleId> = self.m.rules_for(l.complement()).collect();
        let complement_definite = self
            .m
            .rules_for(l.complement())
            .any(|r| self.m.rule(r).strength == Strength::Strict);
        for &w in self.worlds(l.pred) {
            if self.collapsed[&l] {
                let head = self.view(l, Level::Definite, w);
                for &rid in &concluding {
                    let r = self.m.rule(rid);
                    let (body, reads) = self.body(rid, Level::Definite, w, None);
                    let vars = self.rule_vars(rid);
                    let origin = format!("{} (strict)", r.local);
                    self.push(
                        Atom {
                            rel: head,
                            args: terms(&r.head.args),
                        },
                        body,
                        vars,
                        origin,
                        Meaning::Strict {
                            rule: rid.0,
                            world: w,
                            reads,
                        },
                    );
                }
                continue;
            }
            let d = self.view(l, Level::Definite, w);
            let p = self.view(l, Level::Defeasible, w);
            let s = self.view(l, Level::Supported, w);
            for &rid in &concluding {
                let r = self.m.rule(rid);
                if r.strength == Strength::Strict {
                    let (body, reads) = self.body(rid, Level::Definite, w, None);
                    let vars = self.rule_vars(rid);
                    let origin = format!("{} (strict) at Δ", r.local);
                    self.push(
                        Atom {
                            rel: d,
                            args: terms(&r.head.args),
                        },
                        body,
                        vars,
                        origin,
                        Meaning::Strict {
                            rule: rid.0,
                            world: w,
                            reads,
                        },
                    );
                }
            }
            self.copy_rule(
                s,
                arity,
                vec![(true, d)],
                format!("+Δ {name} ⇒ +Σ"),
                Meaning::FromDefinite,
            );
            self.copy_rule(
                p,
                arity,
                vec![(true, d)],
                format!("+Δ {name} ⇒ +∂"),
                Meaning::FromDefinite,
            );
            for &rid in &concluding {
                let sup = self.app(rid, Level::Supported, w);
                self.copy_rule(
                    s,
                    arity,
                    vec![(true, sup)],
                    format!("{} supports {name}", self.m.rule(rid).local),
                    Meaning::Supports { rule: rid.0 },
                );
            }
            // cand[L]: some rule for L applicable at ∂.
            let wname = if w == World::Possible { "'" } else { "" };
            let cand = self.new_relation(
                format!("cand{wname}[{name}]"),
                self.m.pred(l.pred).params.clone(),
                Role::Derived,
            );
            for &rid in &concluding {
                let a = self.app(rid, Level::Defeasible, w);
                self.copy_rule(
                    cand,
                    arity,
                    vec![(true, a)],
                    format!("{} applicable for {name}", self.m.rule(rid).local),
                    Meaning::Candidate { rule: rid.0 },
                );
            }
            let mut conds = vec![(true, cand)];
            let mut attacks = Vec::with_capacity(attackers.len());
            if complement_definite {
                let dc = self.view(l.complement(), Level::Definite, w.other());
                conds.push((false, dc));
            }
            for &sid in &attackers {
                let slocal = self.m.rule(sid).local.clone();
                let ok = self.new_relation(
                    format!("ok{wname}[{name} vs {slocal}]"),
                    self.m.pred(l.pred).params.clone(),
                    Role::Derived,
                );
                let sup = self.app(sid, Level::Supported, w.other());
                self.copy_rule(
                    ok,
                    arity,
                    vec![(true, cand), (false, sup)],
                    format!("{slocal} discarded: not supported"),
                    Meaning::Discarded {
                        attacker: sid.0,
                        level: Level::Supported,
                        under: None,
                    },
                );
                let est = self.app(sid, Level::Defeasible, w.other());
                self.copy_rule_with_flag(
                    ok,
                    arity,
                    cand,
                    est,
                    format!("{slocal} discarded under blocking: not established"),
                    Meaning::Discarded {
                        attacker: sid.0,
                        level: Level::Defeasible,
                        under: Some(Policy::Blocking),
                    },
                );
                // The rules for L that beat s, in package order (as a scan of
                // `concluding` would find them, without its k × k pairs).
                for (tid, priority) in self.beaten_by(sid, l) {
                    let t = self.app(tid, Level::Defeasible, w);
                    let mut conds = vec![(true, t)];
                    let anchors = &self.m.priorities[priority as usize].anchors;
                    if let Some(Item::Pos(g)) = self.in_force(anchors) {
                        conds.push((true, g.rel));
                    }
                    self.copy_rule(
                        ok,
                        arity,
                        conds,
                        format!("{slocal} defeated by {}", self.m.rule(tid).local),
                        Meaning::Defeated {
                            attacker: sid.0,
                            by: tid.0,
                            priority,
                        },
                    );
                }
                // What an explanation of s prevailing names: whether it is
                // a defeater, and the rules for L it beats (those that, in
                // the overlay of ~L, it defeats).
                let blocks = self.m.rule(sid).strength == Strength::Defeater;
                let beats = if blocks {
                    Vec::new()
                } else {
                    self.beaten_by_rule(sid, l)
                };
                attacks.push(Attack {
                    rule: sid.0,
                    item: conds.len() as u32,
                    blocks,
                    beats,
                });
                conds.push((true, ok));
            }
            self.copy_rule(
                p,
                arity,
                conds,
                format!("+∂ {name}: applicable, not refuted, every attacker discarded or defeated"),
                Meaning::Established { attackers: attacks },
            );
        }
        self.output(l, true);
    }

    /// The rules for `l` that beat rule `s` (strict or defeasible ones with
    /// a priority over `s`), each once with its first priority, in package
    /// order.
    fn beaten_by(&self, s: RuleId, l: Lit) -> Vec<(RuleId, u32)> {
        self.pairs(self.higher_than.get(&s), l)
    }

    /// The rules for `l` that rule `s` beats, as [`Beat`]s.
    fn beaten_by_rule(&self, s: RuleId, l: Lit) -> Vec<Beat> {
        self.pairs(self.lower_than.get(&s), l)
            .into_iter()
            .map(|(r, priority)| Beat {
                rule: r.0,
                priority,
            })
            .collect()
    }

    /// Of priority pairs `(rule, priority)`, the strict or defeasible rules
    /// for `l`, each once with its first priority, in package order.
    fn pairs(&self, pairs: Option<&Vec<(RuleId, u32)>>, l: Lit) -> Vec<(RuleId, u32)> {
        let mut out: Vec<(RuleId, u32)> = pairs
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|(t, _)| {
                let r = self.m.rule(*t);
                r.head.lit() == l && r.strength != Strength::Defeater
            })
            .collect();
        out.sort_unstable();
        out.dedup_by_key(|(t, _)| *t);
        out
    }

    /// `ok(x) :- cand(x), !est(x), !policy_propagating()`.
    fn copy_rule_with_flag(
        &mut self,
        ok: RelId,
        arity: usize,
        cand: RelId,
        est: RelId,
        origin: String,
        meaning: Meaning,
    ) {
        let flag = self.policy_rel();
        let args: Vec<Term> = (0..arity as u32).map(Term::Var).collect();
        let body = vec![
            Item::Pos(Atom {
                rel: cand,
                args: args.clone(),
            }),
            Item::Neg(Atom {
                rel: est,
                args: args.clone(),
            }),
            Item::Neg(Atom {
                rel: flag,
                args: vec![],
            }),
        ];
        let vars = (0..arity).map(|i| format!("x{i}")).collect();
        self.push(Atom { rel: ok, args }, body, vars, origin, meaning);
    }

    /// `request[j](args) :- (other items of r at Σ in P), undecided[j](args)`
    /// for every judgment atom in every rule.
    fn define_requests(&mut self) {
        if !self.has_judgments() {
            return;
        }
        let mut per_pred: BTreeMap<PredId, RelId> = BTreeMap::new();
        for ri in 0..self.m.rules.len() {
            let rid = RuleId(ri as u32);
            let r = self.m.rule(rid);
            for (i, item) in r.body.iter().enumerate() {
                let atom = match item {
                    MItem::Status { atom, .. } | MItem::Not { atom, .. } => atom,
                    MItem::Compare { .. } => continue,
                };
                let pred = self.m.pred(atom.pred);
                if pred.kind != RelationKind::Judgment {
                    continue;
                }
                let req = match per_pred.get(&atom.pred) {
                    Some(r) => *r,
                    None => {
                        let rel = self.new_relation(
                            format!("request[{}]", pred.local),
                            pred.params.clone(),
                            Role::Derived,
                        );
                        per_pred.insert(atom.pred, rel);
                        let ext = pred.external.clone();
                        self.prog.requests.push(RequestView {
                            lit: Lit {
                                pred: atom.pred,
                                negative: false,
                            },
                            rel,
                            authority: ext
                                .as_ref()
                                .map(|e| e.authority.clone())
                                .unwrap_or_default(),
                            capability: ext.map(|e| e.capability).unwrap_or_default(),
                        });
                        rel
                    }
                };
                let args = terms(&atom.args);
                let und = self.undecided_rel(atom.pred);
                let (mut body, mut reads) =
                    self.body(rid, Level::Supported, World::Possible, Some(i));
                body.push(Item::Pos(Atom {
                    rel: und,
                    args: args.clone(),
                }));
                reads.push(None);
                let vars = self.rule_vars(rid);
                let origin = format!("{}: its judgment atom {} is undecided", r.local, pred.local);
                self.push(
                    Atom { rel: req, args },
                    body,
                    vars,
                    origin,
                    Meaning::Request {
                        rule: rid.0,
                        item: i as u32,
                        reads,
                    },
                );
            }
        }
    }
}

/// Which rule a body is lowered from.
#[derive(Clone, Copy)]
enum Src {
    /// A rule of the program.
    Rule(RuleId),
    /// A rule a derogation set aside (index into `Model::set_aside`).
    SetAside(usize),
}

fn level_name(l: Level) -> &'static str {
    match l {
        Level::Definite => "Δ",
        Level::Defeasible => "∂",
        Level::Supported => "Σ",
    }
}

fn term(t: &model::Term) -> Term {
    match t {
        model::Term::Var(v) => Term::Var(v.0),
        model::Term::Value(v) => Term::Value(v.clone()),
    }
}

fn terms(ts: &[model::Term]) -> Vec<Term> {
    ts.iter().map(term).collect()
}

fn body_preds(r: &model::Rule) -> impl Iterator<Item = PredId> + '_ {
    r.body.iter().filter_map(|i| match i {
        MItem::Status { atom, .. } | MItem::Not { atom, .. } => Some(atom.pred),
        MItem::Compare { .. } => None,
    })
}
