//! `lawgen analyze`: questions about a package for every input at once,
//! answered with a witness (a facts file `lawgen eval` reproduces) or with
//! "none within the bound", which is a proof: the finite ground program is
//! encoded exactly as clauses, and the solver found them unsatisfiable.
//!
//! The stages, each in its file:
//!
//! - [`domain`]: the bound — `K` fresh entities of each type besides the
//!   constants, integers drawn from the rules' constants and their
//!   neighbours;
//! - [`ground`]: the lowered program (`lower`, the one place that gives a
//!   package its meaning) grounded over that domain;
//! - [`encode`]: the ground program as clauses (completion, cycles unrolled,
//!   inputs as the facts reader allows them), solved with [`sat`];
//! - [`pattern`]: the query language (`game_lost_by(G, _)`);
//! - [`check`]: every witness is written as a facts file, read back,
//!   evaluated by the reference evaluator and checked — the whole model
//!   atom by atom, then the query on the canonical output — before it is
//!   shown; a failing check is an internal error, never an answer;
//! - [`properties`]: named properties in a file;
//! - [`render`]: text and JSON reports.
//!
//! docs/analyze.md describes the queries, the bound and why the encoding
//! is exact.

pub mod check;
pub mod dates;
pub mod domain;
pub mod encode;
pub mod ground;
pub mod pattern;
pub mod properties;
pub mod render;
pub mod run;
pub mod sat;

pub use run::{command, Args};

use domain::{Bound, Domain, Named, Vid};
use encode::{Encoding, InputKey};
use ground::Ground;
use lawgen_runtime::interp::Facts;
use lawgen_runtime::program::{Lit, Meaning, Program, Section, Strength, Value};
use lawgen_runtime::Policy;
use pattern::{Goal, PArg, Pattern};
use sat::Bv;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Not;

/// Why an analysis could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// 1: a bad query or properties file; 3: an internal error.
    pub code: u8,
    pub message: String,
}

impl Error {
    pub fn usage(message: String) -> Error {
        Error { code: 1, message }
    }

    pub fn internal(message: String) -> Error {
        Error {
            code: 3,
            message: format!("internal error in lawgen analyze (please report it): {message}"),
        }
    }

    /// Past `--max-seconds`: what was asked is not answered.
    pub fn time_limit(secs: f64) -> Error {
        Error::usage(format!(
            "the analysis ran past its time limit of {secs} s (`--max-seconds`), so its questions are not answered\n  = help: ask fewer questions at once (`--reachable RULE` for the rules in doubt rather than `--unreachable`), lower `--bound`, or raise `--max-seconds`"
        ))
    }

    fn too_large(what: &str, count: usize) -> Error {
        Error::usage(format!(
            "the bound is too large: `{what}` has {count} ground tuples (at most {} inputs and {} ground atoms or instances in all)\n  = help: lower `--bound` or `--spread`",
            ground::MAX_INPUTS,
            ground::MAX_GROUND
        ))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)
    }
}

impl std::error::Error for Error {}

/// A binding of a goal's variables and the condition under which the goal
/// holds with it.
type GoalBinding = (BTreeMap<String, Vid>, Bv);

/// How an analysis runs.
#[derive(Clone, Debug)]
pub struct Options {
    pub bound: Bound,
    pub policy: Policy,
    /// Minimize every witness to the fewest facts (then dropping any one
    /// fact loses the property).
    pub minimize: bool,
    /// Order interchangeable fresh entities (loses no witness).
    pub symmetry: bool,
    /// Language of explanations.
    pub lang: String,
    /// How long minimizing one witness may take; past it, the smallest
    /// witness found so far is shown, not claimed to be the fewest.
    pub minimize_seconds: f64,
    /// Render the explanations of witnesses (off where only whether a
    /// witness exists is reported).
    pub explain: bool,
    /// How long the whole analysis may take (`--max-seconds`); past it,
    /// an error, never an answer.
    pub max_seconds: Option<f64>,
    /// The date of the cases of each program analysed (by its index, as
    /// `progs`): what is in force is fixed to that date. Missing or `None`:
    /// the package's current date (`--as-of`, `--compare-dates`; docs/analyze.md).
    pub as_of: Vec<Option<lawgen_runtime::law::Date>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bound: Bound::default(),
            policy: Policy::Blocking,
            minimize: true,
            symmetry: true,
            lang: "en".into(),
            minimize_seconds: 20.0,
            explain: true,
            max_seconds: None,
            as_of: Vec::new(),
        }
    }
}

/// A facts file that shows a property, checked by the reference evaluator.
#[derive(Clone, Debug)]
pub struct Witness {
    /// Facts rows and `entities` entries.
    pub size: usize,
    /// The facts file for each program analysed (the same file when the
    /// programs declare the same input predicates).
    pub files: Vec<String>,
    /// The facts, per program.
    pub facts: Vec<Facts>,
    /// Values of the query's variables.
    pub binding: Vec<(String, Value)>,
    /// Explanations of the literals the answer is about, rendered.
    pub explanations: Vec<String>,
    /// Lines that say what the witness shows, beyond the binding.
    pub notes: Vec<String>,
    /// Proved the fewest facts any witness within the bound has.
    pub minimum: bool,
}

/// An answer: a witness, or a proof that none exists within the bound.
#[derive(Clone, Debug)]
pub enum Outcome {
    Witness(Box<Witness>),
    None,
}

impl Outcome {
    pub fn witness(&self) -> Option<&Witness> {
        match self {
            Outcome::Witness(w) => Some(w),
            Outcome::None => None,
        }
    }
}

/// What `--reachable` finds for one rule.
#[derive(Clone, Debug)]
pub struct Reach {
    pub rule: u32,
    /// An input under which the rule applies (its body holds at ∂ in the
    /// certain model: it takes part in the conflict over its head).
    pub applies: Outcome,
    /// For a strict or defeasible rule that can apply: an input under which
    /// it applies and its head is concluded (`None` for defeaters, which
    /// conclude nothing, and rules that never apply).
    pub concludes: Option<Outcome>,
    /// Set when nothing in the lowered program reads the rule's body: a
    /// defeater against a literal no rule concludes.
    pub no_effect: bool,
}

/// One institutional literal compared between two packages.
#[derive(Clone, Debug)]
pub struct CompareRow {
    pub lit: String,
    pub outcome: Outcome,
    /// The ground literal that differs and its verdict in each package.
    pub differs: Option<(String, String, String)>,
}

/// The programs, the domain, the ground programs and their encoding: one
/// analysis answers many queries (each solve is under assumptions).
pub struct Analysis<'p> {
    pub progs: Vec<&'p Program>,
    pub opts: Options,
    pub dom: Domain,
    pub grounds: Vec<Ground>,
    pub enc: Encoding,
}

impl<'p> Analysis<'p> {
    /// Grounds and encodes `progs` (the analysed program first; a second
    /// one for `--compare`) with the values `named` by the queries.
    pub fn new(progs: &[&'p Program], opts: Options, named: &Named) -> Result<Self, Error> {
        if opts.bound.entities > MAX_BOUND || opts.bound.spread > MAX_SPREAD {
            return Err(Error::usage(format!(
                "the bound is too large: at most {MAX_BOUND} entities of each type (`--bound`) and a spread of at most {MAX_SPREAD} (`--spread`)\n  = help: a property that needs more entities than a few is rare; try 2, then 3"
            )));
        }
        let dom = Domain::new(progs, opts.bound, named);
        let grounds = progs
            .iter()
            .enumerate()
            .map(|(i, p)| Ground::new(p, &dom, opts.policy, opts.as_of.get(i).copied().flatten()))
            .collect::<Result<Vec<_>, _>>()?;
        let enc = Encoding::new(progs, &grounds, &dom, opts.symmetry)?;
        Ok(Analysis {
            progs: progs.to_vec(),
            opts,
            dom,
            grounds,
            enc,
        })
    }

    /// Size of the encoding: (ground atoms, ground instances, variables, clauses).
    pub fn size(&self) -> (usize, usize, usize, usize) {
        (
            self.grounds.iter().map(|g| g.atoms.len()).sum(),
            self.grounds.iter().map(|g| g.insts.len()).sum(),
            self.enc.sat.num_vars(),
            self.enc.sat.num_clauses(),
        )
    }

    fn vid(&self, v: &Value) -> Option<Vid> {
        self.dom.values.get(v)
    }

    /// `lit(t)` is in `section` of program `p`'s canonical output.
    fn member(&mut self, p: usize, section: Section, lit: Lit, t: &[Vid]) -> Bv {
        let prog = self.progs[p];
        let Some(o) = prog
            .outputs
            .iter()
            .find(|o| o.section == section && o.lit == lit)
        else {
            return Bv::FALSE;
        };
        let g = &self.grounds[p];
        let yes = g
            .atom(o.rel, t)
            .map_or(Bv::FALSE, |a| self.enc.vals[p][a as usize]);
        let no = o
            .minus
            .and_then(|m| g.atom(m, t))
            .map_or(Bv::FALSE, |a| self.enc.vals[p][a as usize]);
        self.enc.sat.and(&[yes, no.not()])
    }

    /// Tuples `lit` may have in `section` of program `p`.
    fn candidates(&self, p: usize, section: Section, lit: Lit) -> Vec<Box<[Vid]>> {
        let prog = self.progs[p];
        match prog
            .outputs
            .iter()
            .find(|o| o.section == section && o.lit == lit)
        {
            Some(o) => self.grounds[p].rels[o.rel.0 as usize].tuples.clone(),
            None => Vec::new(),
        }
    }

    /// Does tuple `t` match `pat` under `binding`? Returns the extended binding.
    fn unify(
        &self,
        pat: &Pattern,
        t: &[Vid],
        binding: &BTreeMap<String, Vid>,
    ) -> Option<BTreeMap<String, Vid>> {
        let mut b = binding.clone();
        for (a, &v) in pat.args.iter().zip(t) {
            match a {
                PArg::Any => {}
                PArg::Value(x) => {
                    if self.vid(x) != Some(v) {
                        return None;
                    }
                }
                PArg::Var(name) => match b.get(name) {
                    Some(&w) if w != v => return None,
                    Some(_) => {}
                    None => {
                        b.insert(name.clone(), v);
                    }
                },
            }
        }
        Some(b)
    }

    /// Every binding of the goal's positive items with its condition.
    fn goal_bindings(&mut self, p: usize, goal: &Goal) -> Result<Vec<GoalBinding>, Error> {
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
        let mut partial: Vec<(BTreeMap<String, Vid>, Vec<Bv>)> = vec![(BTreeMap::new(), vec![])];
        for pat in &pos {
            let cands = self.candidates(p, goal.section, pat.lit);
            let mut next = Vec::new();
            for (b, conds) in &partial {
                for t in &cands {
                    if let Some(nb) = self.unify(pat, t, b) {
                        let m = self.member(p, goal.section, pat.lit, t);
                        if m == Bv::FALSE {
                            continue;
                        }
                        let mut c = conds.clone();
                        c.push(m);
                        next.push((nb, c));
                        // Each binding is a condition of the encoding:
                        // refused before memory runs out.
                        if next.len() > MAX_GOAL_BINDINGS {
                            return Err(Error::usage(format!(
                                "the goal `{}` has more than {MAX_GOAL_BINDINGS} bindings of its variables within the bound ({} variables)\n  = help: share variables between its literals, give some of them values, or lower `--bound` or `--spread`",
                                goal.show(&self.progs[p].catalog),
                                goal.bound_vars().len()
                            )));
                        }
                    }
                }
            }
            partial = next;
        }
        let mut out = Vec::with_capacity(partial.len());
        for (b, mut conds) in partial {
            if !goal.cmps.iter().all(|c| self.cmp_holds(c, &b)) {
                continue;
            }
            for pat in &neg {
                for t in self.candidates(p, goal.section, pat.lit) {
                    if self.unify(pat, &t, &b).is_some() {
                        let m = self.member(p, goal.section, pat.lit, &t);
                        conds.push(m.not());
                    }
                }
            }
            let c = self.enc.sat.and(&conds);
            out.push((b, c));
        }
        Ok(out)
    }

    fn cmp_holds(
        &self,
        (a, op, b, _): &(
            PArg,
            lawgen_runtime::program::CmpOp,
            PArg,
            lawgen_runtime::program::Ty,
        ),
        binding: &BTreeMap<String, Vid>,
    ) -> bool {
        let val = |x: &PArg| -> Option<Value> {
            match x {
                PArg::Var(v) => binding.get(v).map(|&i| self.dom.values.value(i).clone()),
                PArg::Value(v) => Some(v.clone()),
                PArg::Any => None,
            }
        };
        match (val(a), val(b)) {
            (Some(x), Some(y)) => check::cmp_values(&x, *op, &y),
            _ => false,
        }
    }

    /// Solves for `target`; on success, minimizes (if asked) and returns the
    /// true inputs and whether their number is proved the fewest.
    fn solve(&mut self, target: Bv) -> Result<Option<(Vec<InputKey>, bool)>, Error> {
        match self.enc.sat.solve(&[target]) {
            None => return Err(self.gave_up()),
            Some(false) => return Ok(None),
            Some(true) => {}
        }
        let mut best = self.true_inputs();
        let mut minimum = false;
        if self.opts.minimize {
            // More seconds than the clock holds (`1e30`) mean no deadline;
            // NaN or negative seconds (set through the library) none left.
            let secs = self.opts.minimize_seconds;
            let now = std::time::Instant::now();
            let deadline = if secs.is_nan() || secs <= 0.0 {
                Some(now)
            } else {
                std::time::Duration::try_from_secs_f64(secs)
                    .ok()
                    .and_then(|d| now.checked_add(d))
            };
            loop {
                if best.is_empty() {
                    minimum = true;
                    break;
                }
                let bound = self.enc.at_most(best.len() - 1);
                match self.enc.sat.solve_until(&[target, bound], deadline) {
                    // Out of time: the smallest witness so far, not proved fewest.
                    None => break,
                    Some(false) => {
                        minimum = true;
                        break;
                    }
                    Some(true) => best = self.true_inputs(),
                }
            }
            // Leave the solver holding the best model, for the checks.
            let bound = self.enc.at_most(best.len());
            if self.enc.sat.past_deadline() {
                return Err(self.gave_up());
            }
            if self.enc.sat.solve(&[target, bound]) != Some(true) {
                return Err(Error::internal(
                    "the minimal witness could not be found again".into(),
                ));
            }
            best = self.true_inputs();
        }
        Ok(Some((best, minimum)))
    }

    /// Why a solve gave up: past `--max-seconds`, or a solver failure.
    pub fn gave_up(&self) -> Error {
        match (self.enc.sat.past_deadline(), self.opts.max_seconds) {
            (true, Some(secs)) => Error::time_limit(secs),
            _ => Error::internal("the SAT solver gave up".into()),
        }
    }

    fn true_inputs(&self) -> Vec<InputKey> {
        self.enc
            .inputs
            .iter()
            .filter(|(_, v)| self.enc.sat.value(*v))
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn binding_values(&self, b: &BTreeMap<String, Vid>, goal: &Goal) -> Vec<(String, Value)> {
        goal.bound_vars()
            .into_iter()
            .filter_map(|v| {
                b.get(&v)
                    .map(|&x| (v.clone(), self.dom.values.value(x).clone()))
            })
            .collect()
    }

    /// Fixes every input (`chosen` true, the others false), solves, and
    /// checks the whole model against the reference evaluator on the same
    /// facts: how the tests validate the encoding on arbitrary inputs.
    pub fn check_inputs(&mut self, chosen: &[InputKey]) -> Result<(), Error> {
        let set: std::collections::HashSet<&InputKey> = chosen.iter().collect();
        let fixed: Vec<Bv> = self
            .enc
            .inputs
            .iter()
            .map(|(k, v)| if set.contains(k) { *v } else { v.not() })
            .collect();
        match self.enc.sat.solve(&fixed) {
            Some(true) => {}
            Some(false) => {
                return Err(Error::internal(
                    "the encoding has no model for a well-formed input".into(),
                ))
            }
            None => return Err(self.gave_up()),
        }
        let w = check::Checked::new(self, chosen)?;
        for p in 0..self.progs.len() {
            w.check_model(self, p)?;
        }
        // And it is the only model for this input: no assignment of the
        // derived atoms other than the evaluator's satisfies the clauses
        // (an unfounded loop would be a second one).
        let mut other = Vec::new();
        for (p, g) in self.grounds.iter().enumerate() {
            for a in 0..g.atoms.len() {
                if g.origin[a] == ground::Origin::Derived {
                    let v = self.enc.vals[p][a];
                    other.push(if self.enc.sat.value(v) { v.not() } else { v });
                }
            }
        }
        let differs = self.enc.sat.or(&other);
        let mut assume = fixed;
        assume.push(differs);
        match self.enc.sat.solve(&assume) {
            Some(false) => Ok(()),
            Some(true) => Err(Error::internal(
                "the encoding has a second model for one input".into(),
            )),
            None => Err(self.gave_up()),
        }
    }

    /// `--goal` and `--exclusive`: an input under which the goal holds.
    pub fn goal(&mut self, goal: &Goal) -> Result<Outcome, Error> {
        let bindings = self.goal_bindings(0, goal)?;
        let conds: Vec<Bv> = bindings.iter().map(|(_, c)| *c).collect();
        let target = self.enc.sat.or(&conds);
        let Some((inputs, minimum)) = self.solve(target)? else {
            return Ok(Outcome::None);
        };
        let Some((b, _)) = bindings.iter().find(|(_, c)| self.enc.sat.value(*c)) else {
            return Err(Error::internal(
                "the model satisfies the goal under no binding".into(),
            ));
        };
        let binding = self.binding_values(b, goal);
        let w = check::Checked::new(self, &inputs)?;
        w.check_model(self, 0)?;
        let lits = w
            .check_goal(self, 0, goal, &binding)?
            .into_iter()
            .map(|q| (0, q))
            .collect();
        Ok(Outcome::Witness(Box::new(w.finish(
            self,
            binding,
            lits,
            Vec::new(),
            minimum,
        ))))
    }

    /// `--requires`: the fewest facts under which the goal holds; checked
    /// to lose it when any one of them is dropped.
    pub fn requires(&mut self, goal: &Goal) -> Result<Outcome, Error> {
        let saved = self.opts.minimize;
        self.opts.minimize = true;
        let out = self.goal(goal);
        self.opts.minimize = saved;
        let out = out?;
        // Only a witness proved the fewest must lose the goal without any
        // one fact; one cut short by `--minimize-seconds` is the smallest
        // found so far, and says so.
        if let Outcome::Witness(w) = &out {
            if w.minimum {
                check::drop_one(self, goal, w)?;
            }
        }
        Ok(out)
    }

    /// The program rules standing for "package rule `r` applies".
    pub fn applies_rules(&self, r: u32) -> Vec<usize> {
        let prog = self.progs[0];
        let app: Vec<usize> = prog
            .rules
            .iter()
            .enumerate()
            .filter(|(_, pr)| {
                matches!(pr.meaning, Meaning::Applicable { rule, level: lawgen_runtime::program::Level::Defeasible, world: lawgen_runtime::program::World::Certain, .. } if rule == r)
            })
            .map(|(i, _)| i)
            .collect();
        if !app.is_empty() {
            return app;
        }
        prog.rules
            .iter()
            .enumerate()
            .filter(|(_, pr)| {
                matches!(pr.meaning, Meaning::Strict { rule, world: lawgen_runtime::program::World::Certain, .. } if rule == r)
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// `--reachable RULE`.
    pub fn reachable(&mut self, r: u32) -> Result<Reach, Error> {
        let prog = self.progs[0];
        let info = prog.catalog.rule(r).clone();
        let rules = self.applies_rules(r);
        if rules.is_empty() {
            return Ok(Reach {
                rule: r,
                applies: Outcome::None,
                concludes: None,
                no_effect: true,
            });
        }
        // Each instance: (program rule, head tuple, body condition).
        let mut insts: Vec<(usize, Box<[Vid]>, Bv)> = Vec::new();
        for &pr in &rules {
            let ids = self.grounds[0].by_rule[pr].clone();
            for k in ids {
                let inst = self.grounds[0].insts[k as usize].clone();
                let mut conj = Vec::new();
                for &b in &inst.pos {
                    conj.push(self.enc.vals[0][b as usize]);
                }
                for &b in &inst.neg {
                    conj.push(self.enc.vals[0][b as usize].not());
                }
                let c = self.enc.sat.and(&conj);
                let head = self.grounds[0].atoms[inst.head as usize].1.clone();
                insts.push((pr, head, c));
            }
        }
        let applies = self.rule_witness(r, &insts, false)?;
        let concludes = if info.strength == Strength::Defeater || applies.witness().is_none() {
            None
        } else {
            // A defeasible rule concludes when its head is concluded
            // defeasibly and not definitely: then the conclusion rests on
            // the rules for it that apply, this one among them, and not on
            // a strict rule alone.
            let lit = info.head.lit;
            let mut with_head = Vec::new();
            for (pr, t, c) in &insts {
                let m = self.member(0, Section::Defeasibly, lit, t);
                let d = if info.strength == Strength::Defeasible {
                    self.member(0, Section::Definitely, lit, t).not()
                } else {
                    Bv::TRUE
                };
                let all = self.enc.sat.and(&[*c, m, d]);
                with_head.push((*pr, t.clone(), all));
            }
            Some(self.rule_witness(r, &with_head, true)?)
        };
        Ok(Reach {
            rule: r,
            applies,
            concludes,
            no_effect: false,
        })
    }

    fn rule_witness(
        &mut self,
        r: u32,
        insts: &[(usize, Box<[Vid]>, Bv)],
        concluded: bool,
    ) -> Result<Outcome, Error> {
        let conds: Vec<Bv> = insts.iter().map(|(_, _, c)| *c).collect();
        let target = self.enc.sat.or(&conds);
        let Some((inputs, minimum)) = self.solve(target)? else {
            return Ok(Outcome::None);
        };
        let Some((pr, head, _)) = insts.iter().find(|(_, _, c)| self.enc.sat.value(*c)) else {
            return Err(Error::internal(
                "the model applies no instance of the rule".into(),
            ));
        };
        let head: Vec<Value> = head
            .iter()
            .map(|&v| self.dom.values.value(v).clone())
            .collect();
        let w = check::Checked::new(self, &inputs)?;
        w.check_model(self, 0)?;
        w.check_applies(self, *pr, &head, concluded.then_some(r))?;
        let lit = self.progs[0].catalog.rule(r).head.lit;
        let q = lawgen_runtime::explain::Query {
            lit,
            args: head.clone(),
        };
        let local = &self.progs[0].catalog.rule(r).local;
        let note = format!(
            "{local} {} for {}",
            if concluded {
                "applies and its head is concluded"
            } else {
                "applies"
            },
            check::show_ground(&self.progs[0].catalog, &q)
        );
        Ok(Outcome::Witness(Box::new(w.finish(
            self,
            Vec::new(),
            vec![(0, q)],
            vec![note],
            minimum,
        ))))
    }

    /// `--compare`: for each institutional literal both programs have, an
    /// input on which their verdicts on one ground literal differ.
    pub fn compare(&mut self) -> Result<Vec<CompareRow>, Error> {
        let (a, b) = (self.progs[0], self.progs[1]);
        let mut rows = Vec::new();
        for (ai, pa) in a.catalog.preds.iter().enumerate() {
            if pa.kind != lawgen_runtime::program::RelationKind::Institutional {
                continue;
            }
            let Some(bp) = b.catalog.pred_by_name(&pa.id) else {
                continue;
            };
            for negative in [false, true] {
                let la = Lit {
                    pred: lawgen_runtime::program::PredId(ai as u32),
                    negative,
                };
                let lb = Lit { pred: bp, negative };
                let name = a.catalog.lit_name(la);
                let concluded = |p: &Program, l: Lit| p.outputs.iter().any(|o| o.lit == l);
                if !concluded(a, la) && !concluded(b, lb) {
                    continue;
                }
                let (per_tuple, target) = self.differences(la, lb);
                let Some((inputs, minimum)) = self.solve(target)? else {
                    rows.push(CompareRow {
                        lit: name,
                        outcome: Outcome::None,
                        differs: None,
                    });
                    continue;
                };
                let Some((t, _)) = per_tuple.iter().find(|(_, d)| self.enc.sat.value(*d)) else {
                    return Err(Error::internal("the model differs on no tuple".into()));
                };
                let args: Vec<Value> = t
                    .iter()
                    .map(|&v| self.dom.values.value(v).clone())
                    .collect();
                let w = check::Checked::new(self, &inputs)?;
                w.check_model(self, 0)?;
                w.check_model(self, 1)?;
                let (va, vb) = w.check_differs(self, la, lb, &args)?;
                let qa = lawgen_runtime::explain::Query {
                    lit: la,
                    args: args.clone(),
                };
                let qb = lawgen_runtime::explain::Query { lit: lb, args };
                let ground = check::show_ground(&a.catalog, &qa);
                let note = format!(
                    "{ground}: {va} in {} {}, {vb} in {} {}",
                    a.package, a.version, b.package, b.version
                );
                let wit = w.finish(
                    self,
                    Vec::new(),
                    vec![(0, qa), (1, qb)],
                    vec![note],
                    minimum,
                );
                rows.push(CompareRow {
                    lit: name,
                    outcome: Outcome::Witness(Box::new(wit)),
                    differs: Some((ground, va, vb)),
                });
            }
        }
        Ok(rows)
    }
}

/// The largest `--bound`: more fresh entities of each type than any
/// grounding within [`ground::MAX_GROUND`] could use.
pub const MAX_BOUND: usize = 64;

/// Most bindings of a goal's variables (each one a condition of the
/// encoding): a goal of many unrelated variables has exponentially many.
pub const MAX_GOAL_BINDINGS: usize = 50_000;

/// The largest `--spread`.
pub const MAX_SPREAD: u32 = 1000;

/// The sections of the canonical output, in order.
pub const SECTIONS: [Section; 4] = [
    Section::Definitely,
    Section::Defeasibly,
    Section::Supported,
    Section::Pending,
];

/// Each candidate tuple with the variable true when its sections differ
/// between the two programs.
pub(crate) type TupleDiffs = Vec<(Box<[Vid]>, Bv)>;

impl Analysis<'_> {
    /// For each tuple either program (0, 1) could put in a section of `la`
    /// (program 0) or `lb` (program 1), a variable true when its sections
    /// differ; and one true when any does: what `--compare` and
    /// `--compare-dates` ask the solver for.
    pub(crate) fn differences(&mut self, la: Lit, lb: Lit) -> (TupleDiffs, Bv) {
        let mut tuples: Vec<Box<[Vid]>> = Vec::new();
        for s in SECTIONS {
            tuples.extend(self.candidates(0, s, la));
            tuples.extend(self.candidates(1, s, lb));
        }
        tuples.sort();
        tuples.dedup();
        let mut per_tuple = Vec::new();
        for t in &tuples {
            let mut diffs = Vec::new();
            for s in SECTIONS {
                let x = self.member(0, s, la, t);
                let y = self.member(1, s, lb, t);
                diffs.push(self.enc.sat.xor(x, y));
            }
            let d = self.enc.sat.or(&diffs);
            per_tuple.push((t.clone(), d));
        }
        let conds: Vec<Bv> = per_tuple.iter().map(|(_, d)| *d).collect();
        let target = self.enc.sat.or(&conds);
        (per_tuple, target)
    }
}
