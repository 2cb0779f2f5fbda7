//! Synthetic cases for a checked package, drawn from its declarations and
//! rules: what `lawgen bench` evaluates, and what the fuzz harness feeds
//! the evaluators. [`Synth::new`] reads the package; [`Synth::case`] and
//! [`Synth::draft`] draw case `i`.
//!
//! Case `i` of a run seeded with `s` is a pure function of `(s, i)` and the
//! package: one self-contained [`Facts`] value — its own entities, facts only
//! for `empirical` and `judgment` predicates, every value of the declared
//! type, never `p` and `~p` for the same tuple. Cases are independent, so
//! they may be drawn in any order on any thread.
//!
//! Most rules should fire, so the facts are drawn *from the rules*: for each
//! rule (with probability `density`) the generator instantiates the rule —
//! binding its head and body variables once, so the rule's body atoms share
//! their entities and the joins succeed — and then makes every body item
//! hold: an input literal becomes a fact (or, for a literal closed by a
//! closure policy, sometimes a domain fact from which the closure derives the
//! explicit negative), an institutional literal is derived in turn by
//! instantiating one of its rules (up to a depth, never the same goal twice on
//! one path). Integers in comparisons are drawn around the constants they are
//! compared with (`n ≥ 75` gives 75, 76, 77 — or, one time in seven, a value
//! that fails the comparison). A judgment in a body is decided yes, decided
//! no or left undecided (so pending conclusions and requests occur); the
//! atom of a `not` item is usually left out (the rule fires) and sometimes
//! made to hold (the rule is blocked). On top come a few unrelated "noise" facts, some of them explicit
//! negations. Entity pools are small (`entities_per_type`, default 2 per
//! type, plus the package's constants), so instances of different rules meet
//! on the same entities: conflicts, defeats and priorities get exercised.
//!
//! Entity names are the same in every case (`game1`, `game2`, … per type):
//! each case is evaluated on its own (its own interner, its own case column
//! in a batch), so names need not differ between cases.
//!
//! The draws go into a compact [`Draft`] (entity values as indices into
//! [`Synth::names`]), which [`Synth::to_facts`] turns into the reference
//! evaluator's input and which a compiled package's bench mode pushes
//! straight into its generated `Facts`.

use crate::driver::Loaded;
use crate::model::{Item, Model, Term};

use lawgen_runtime::interp::Facts;
use lawgen_runtime::program::{CmpOp, RelationKind, Strength};
use lawgen_runtime::program::{Lit, PredId, Ty, TypeId, Value};
use std::collections::HashMap;

/// How cases are drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthOptions {
    /// Everything follows from the seed and the case index.
    pub seed: u64,
    /// Generated entities per entity type (the package's constants come on top).
    pub entities_per_type: usize,
    /// In `0.0..=1.0`: the mean chance that each rule is instantiated in a
    /// case (each case scales it by a factor drawn from 0.25..1.75), and
    /// twice the share of input predicates that get a noise fact.
    pub density: f64,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            seed: 0,
            entities_per_type: 2,
            density: 0.5,
        }
    }
}

/// A value of a drawn fact: an integer, or an entity as an index into
/// [`Synth::names`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    /// An integer.
    Int(i64),
    /// An entity: its index in [`Synth::names`].
    Ent(u32),
}

/// One drawn row: the literal (`p` or `~p`) and its values in [`Draft::vals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DraftRow {
    /// The literal the row is a fact of.
    pub lit: Lit,
    start: u32,
    len: u32,
}

/// One case in compact form: distinct fact rows and declared entities.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// The rows, each with its values in `vals`.
    pub rows: Vec<DraftRow>,
    /// The values of every row, one after the other.
    pub vals: Vec<Val>,
    /// Entities listed under `entities` (only a template has any): the type
    /// and the name's index in [`Synth::names`].
    pub declared: Vec<(TypeId, u32)>,
}

impl Draft {
    /// The values of `row`.
    pub fn values(&self, row: &DraftRow) -> &[Val] {
        &self.vals[row.start as usize..(row.start + row.len) as usize]
    }

    /// Every row with its values.
    pub fn iter(&self) -> impl Iterator<Item = (Lit, &[Val])> + '_ {
        self.rows.iter().map(|r| (r.lit, self.values(r)))
    }

    fn find(&self, lit: Lit, vals: &[Val]) -> bool {
        self.rows
            .iter()
            .any(|r| r.lit == lit && self.values(r) == vals)
    }

    /// Adds `lit(vals)` unless it is there already or its complement is.
    fn add(&mut self, lit: Lit, vals: &[Val]) {
        // One pass for both: same predicate, same values.
        let clash = self
            .rows
            .iter()
            .any(|r| r.lit.pred == lit.pred && self.values(r) == vals);
        if clash {
            return;
        }
        let start = self.vals.len() as u32;
        self.vals.extend_from_slice(vals);
        self.rows.push(DraftRow {
            lit,
            start,
            len: vals.len() as u32,
        });
    }
}

/// Why synthetic cases cannot be drawn for a package: the options are out
/// of range (the message says which and how).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthError(pub String);

impl std::fmt::Display for SynthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SynthError {}

/// A case generator for one package.
#[derive(Debug)]
pub struct Synth<'m> {
    model: &'m Model,
    opts: SynthOptions,
    /// Entity names: generated pools, the package's constants, entity values
    /// written in rules, and a template's names.
    names: Vec<String>,
    /// The entity type of each name (the first one it was met with).
    name_ty: Vec<TypeId>,
    by_name: HashMap<String, u32>,
    /// Per entity type: generated entities, constants.
    pool: Vec<Vec<u32>>,
    consts: Vec<Vec<u32>>,
    /// The rules, with terms resolved to draft values.
    rules: Vec<SRule>,
    /// Strict and defeasible rules per head literal (by [`lit_slot`]).
    concluding: Vec<Vec<u32>>,
    /// Lists of integers worth drawing: around the constants a column's
    /// variables are compared with, and the integers written in rules.
    int_lists: Vec<Vec<i64>>,
    /// Per predicate and column: its list in `int_lists`.
    col_ints: Vec<Vec<Option<u32>>>,
    /// Input (empirical and judgment) predicates.
    inputs: Vec<PredId>,
    /// Per predicate: the domain of a closure deriving its negatives.
    closed: Vec<Option<PredId>>,
    /// Every case is this one (template mode).
    template: Option<Draft>,
}

/// How deep institutional goals are derived through their rules.
const MAX_DEPTH: usize = 6;

impl<'m> Synth<'m> {
    /// A generator of synthetic cases for a checked package: its
    /// declarations and rules, read off the checked package. Fails when
    /// `opts` is out of range.
    pub fn new(loaded: &'m Loaded, opts: SynthOptions) -> Result<Self, SynthError> {
        Synth::of_model(&loaded.model, opts)
    }

    /// A generator of synthetic cases for `model`.
    fn of_model(model: &'m Model, opts: SynthOptions) -> Result<Self, SynthError> {
        if !(0.0..=1.0).contains(&opts.density) {
            return Err(SynthError(format!(
                "density must be between 0 and 1, not {}",
                opts.density
            )));
        }
        if opts.entities_per_type == 0 {
            return Err(SynthError(
                "at least one entity per type is needed to draw facts".into(),
            ));
        }
        let mut s = Synth {
            model,
            opts,
            names: Vec::new(),
            name_ty: Vec::new(),
            by_name: HashMap::new(),
            pool: vec![Vec::new(); model.types.len()],
            consts: vec![Vec::new(); model.types.len()],
            rules: Vec::new(),
            concluding: vec![Vec::new(); 2 * model.preds.len()],
            int_lists: Vec::new(),
            col_ints: model
                .preds
                .iter()
                .map(|p| vec![None; p.params.len()])
                .collect(),
            inputs: Vec::new(),
            closed: vec![None; model.preds.len()],
            template: None,
        };
        for c in &model.constants {
            let i = s.name(&c.local, c.ty);
            if !s.consts[c.ty.0 as usize].contains(&i) {
                s.consts[c.ty.0 as usize].push(i);
            }
        }
        s.scan_rules();
        // Generated names avoid the constants' and the rules' names.
        for (t, ty) in model.types.iter().enumerate() {
            let stem = name_stem(&ty.name);
            for k in 1..=s.opts.entities_per_type {
                let mut n = format!("{stem}{k}");
                while s.by_name.contains_key(&n) {
                    n.push('_');
                }
                let i = s.name(&n, TypeId(t as u32));
                s.pool[t].push(i);
            }
        }
        for (i, p) in model.preds.iter().enumerate() {
            if p.kind != RelationKind::Institutional {
                s.inputs.push(PredId(i as u32));
            }
        }
        for c in &model.closures {
            if c.derive_negative {
                s.closed[c.pred.0 as usize] = Some(c.domain);
            }
        }
        Ok(s)
    }

    /// A generator for a checked package whose every case is `template`
    /// (`lawgen bench --template`), a facts value read for that package.
    /// The template's entities keep their names: cases are evaluated
    /// independently.
    pub fn with_template(
        loaded: &'m Loaded,
        opts: SynthOptions,
        template: &Facts,
    ) -> Result<Self, SynthError> {
        let model = &loaded.model;
        let mut s = Synth::of_model(model, opts)?;
        let mut d = Draft::default();
        for (lit, rows) in &template.rows {
            let params = &model.pred(lit.pred).params;
            for row in rows {
                let vals: Vec<Val> = row
                    .iter()
                    .zip(params)
                    .map(|(v, t)| match (v, t) {
                        (Value::Int(i), _) => Val::Int(*i),
                        (Value::Entity(e), Ty::Entity(t)) => Val::Ent(s.name(e, *t)),
                        // read_facts types every value; an entity in an
                        // integer column cannot occur.
                        (Value::Entity(e), Ty::Int) => Val::Ent(s.name(e, TypeId(0))),
                    })
                    .collect();
                d.add(*lit, &vals);
            }
        }
        for (t, names) in &template.entities {
            for n in names {
                let i = s.name(n, *t);
                d.declared.push((*t, i));
            }
        }
        s.template = Some(d);
        Ok(s)
    }

    /// Entity names by index (a [`Val::Ent`] indexes this).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The entity type of each name in [`Synth::names`].
    pub fn name_types(&self) -> &[TypeId] {
        &self.name_ty
    }

    /// The options the generator draws with.
    pub fn options(&self) -> &SynthOptions {
        &self.opts
    }

    /// Is every case the same template?
    pub fn is_template(&self) -> bool {
        self.template.is_some()
    }

    /// Case `i` as the reference evaluator's input.
    pub fn case(&self, i: u64) -> Facts {
        self.to_facts(&self.draft(i))
    }

    /// Case `i` in compact form.
    pub fn draft(&self, i: u64) -> Draft {
        if let Some(t) = &self.template {
            return t.clone();
        }
        let mut c = Case::new(
            self,
            Rng::new(self.opts.seed ^ i.wrapping_mul(0xD6E8_FEB8_6659_FD93)),
        );
        let m = self.model;
        // Each case has its own density, from a quarter to 1.75 times the
        // option: sparse cases let contested literals through, dense ones
        // stack conflicts.
        let density = (self.opts.density * (0.25 + 1.5 * c.rng.unit())).min(1.0);
        for r in 0..m.rules.len() {
            if c.rng.unit() < density {
                c.instantiate(r as u32, None, 0);
            }
        }
        let noise = (density * self.inputs.len() as f64 / 2.0).ceil() as usize;
        for _ in 0..noise {
            c.noise();
        }
        c.d
    }

    /// Turns a draft into the reference evaluator's input.
    pub fn to_facts(&self, d: &Draft) -> Facts {
        let mut f = Facts::default();
        for (lit, vals) in d.iter() {
            let row = vals.iter().map(|v| self.value(*v)).collect();
            f.rows.entry(lit).or_default().insert(row);
        }
        for &(t, n) in &d.declared {
            f.entities
                .entry(t)
                .or_default()
                .insert(self.names[n as usize].clone());
        }
        f
    }

    /// A draft value as a model value.
    pub fn value(&self, v: Val) -> Value {
        match v {
            Val::Int(i) => Value::Int(i),
            Val::Ent(n) => Value::Entity(self.names[n as usize].clone()),
        }
    }

    /// The index of entity name `n`, adding it with type `t` if new.
    fn name(&mut self, n: &str, t: TypeId) -> u32 {
        if let Some(&i) = self.by_name.get(n) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(n.to_owned());
        self.name_ty.push(t);
        self.by_name.insert(n.to_owned(), i);
        i
    }

    /// Compiles the rules for drawing: terms as draft values (adding the
    /// entity values written in rules to the names), integer lists per
    /// column from the comparisons, an integer list per variable, and the
    /// concluding rules per literal.
    fn scan_rules(&mut self) {
        let m = self.model;
        // Integers per (predicate, column), in first-seen order.
        let mut ints: HashMap<(PredId, usize), Vec<i64>> = HashMap::new();
        let mut order: Vec<(PredId, usize)> = Vec::new();
        let mut push_int = |col: (PredId, usize), i: i64| {
            let v = ints.entry(col).or_insert_with(|| {
                order.push(col);
                Vec::new()
            });
            if !v.contains(&i) {
                v.push(i);
            }
        };
        let mut var_cols: Vec<Vec<Option<(PredId, usize)>>> = Vec::new();
        for (ri, r) in m.rules.iter().enumerate() {
            if r.strength != Strength::Defeater {
                self.concluding[lit_slot(r.head.lit())].push(ri as u32);
            }
            // Every column each variable occurs in.
            let mut cols: Vec<Vec<(PredId, usize)>> = vec![Vec::new(); r.vars.len()];
            let atoms = r
                .body
                .iter()
                .filter_map(|it| match it {
                    Item::Status { atom, .. } | Item::Not { atom, .. } => Some(atom),
                    Item::Compare { .. } => None,
                })
                .chain(std::iter::once(&r.head));
            for atom in atoms {
                for (k, t) in atom.args.iter().enumerate() {
                    match t {
                        Term::Var(v) => cols[v.0 as usize].push((atom.pred, k)),
                        Term::Value(Value::Int(i)) => push_int((atom.pred, k), *i),
                        Term::Value(Value::Entity(_)) => {}
                    }
                }
            }
            for it in &r.body {
                let Item::Compare { left, right, .. } = it else {
                    continue;
                };
                if let (Term::Var(v), Term::Value(Value::Int(c)))
                | (Term::Value(Value::Int(c)), Term::Var(v)) = (left, right)
                {
                    for &col in &cols[v.0 as usize] {
                        for d in [-1, 0, 1] {
                            push_int(col, c.saturating_add(d));
                        }
                    }
                }
            }
            var_cols.push(cols.iter().map(|c| c.first().copied()).collect());
        }
        for col in order {
            self.col_ints[col.0 .0 as usize][col.1] = Some(self.int_lists.len() as u32);
            self.int_lists.push(ints.remove(&col).unwrap_or_default());
        }
        for (r, cols) in m.rules.iter().zip(var_cols) {
            let head_params = &m.pred(r.head.pred).params;
            let head = self.sterms(&r.head.args, head_params);
            let mut body = Vec::with_capacity(r.body.len());
            for it in &r.body {
                body.push(match it {
                    Item::Status { atom, .. } | Item::Not { atom, .. } => SItem::Atom {
                        lit: atom.lit(),
                        args: self.sterms(&atom.args, &m.pred(atom.pred).params),
                        not: matches!(it, Item::Not { .. }),
                    },
                    Item::Compare { left, op, right } => {
                        // An entity value takes the type of the other side.
                        let other = |t: &Term| match t {
                            Term::Var(v) => r.vars[v.0 as usize].1,
                            Term::Value(_) => Ty::Int,
                        };
                        SItem::Cmp {
                            left: self.sterm(left, other(right)),
                            op: *op,
                            right: self.sterm(right, other(left)),
                        }
                    }
                });
            }
            let vars = r
                .vars
                .iter()
                .zip(cols)
                .map(|((_, ty), col)| (*ty, col.and_then(|(p, k)| self.col_ints[p.0 as usize][k])))
                .collect();
            self.rules.push(SRule { head, body, vars });
        }
    }

    fn sterms(&mut self, args: &[Term], params: &[Ty]) -> Vec<STerm> {
        args.iter()
            .zip(params)
            .map(|(t, ty)| self.sterm(t, *ty))
            .collect()
    }

    /// A rule term as a draft term; an entity value of type `ty` (its
    /// column's, or the other side's in a comparison).
    fn sterm(&mut self, t: &Term, ty: Ty) -> STerm {
        match t {
            Term::Var(v) => STerm::Var(v.0),
            Term::Value(Value::Int(i)) => STerm::Val(Val::Int(*i)),
            Term::Value(Value::Entity(e)) => {
                let t = match ty {
                    Ty::Entity(t) => t,
                    Ty::Int => TypeId(0),
                };
                STerm::Val(Val::Ent(self.name(e, t)))
            }
        }
    }
}

/// `p` and `~p` as an index (`2 * pred + negative`).
fn lit_slot(l: Lit) -> usize {
    2 * l.pred.0 as usize + usize::from(l.negative)
}

/// A rule term resolved for drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum STerm {
    Var(u32),
    Val(Val),
}

#[derive(Clone, Debug)]
enum SItem {
    /// A status item (`not` = inside a `not` item).
    Atom {
        lit: Lit,
        args: Vec<STerm>,
        not: bool,
    },
    Cmp {
        left: STerm,
        op: CmpOp,
        right: STerm,
    },
}

/// A rule, compiled for drawing.
#[derive(Clone, Debug)]
struct SRule {
    head: Vec<STerm>,
    body: Vec<SItem>,
    /// Per variable: its type and the integers worth drawing for it.
    vars: Vec<(Ty, Option<u32>)>,
}

/// `Game` → `game`, `Thing-Kind` → `thing_kind`: a readable stem for
/// generated entity names.
fn name_stem(type_name: &str) -> String {
    let s: String = type_name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "e".to_owned()
    } else {
        s
    }
}

/// The drawing of one case.
struct Case<'a, 'm> {
    s: &'a Synth<'m>,
    rng: Rng,
    d: Draft,
    /// Institutional goals being derived (no goal twice on one path): the
    /// literal and its values in `stack_vals`.
    stack: Vec<(Lit, u32, u32)>,
    /// Institutional goals derived already (drawn once per case), the same way.
    derived: Vec<(Lit, u32, u32)>,
    stack_vals: Vec<Val>,
    /// Spare buffers (bindings, ground rows), to draw without allocating.
    binds: Vec<Vec<Option<Val>>>,
    rows: Vec<Vec<Val>>,
}

impl<'a, 'm> Case<'a, 'm> {
    fn new(s: &'a Synth<'m>, rng: Rng) -> Self {
        Case {
            s,
            rng,
            // Room for a typical case, so the vectors rarely grow.
            d: Draft {
                rows: Vec::with_capacity(2 * s.rules.len() + 8),
                vals: Vec::with_capacity(5 * s.rules.len() + 16),
                declared: Vec::new(),
            },
            stack: Vec::new(),
            derived: Vec::new(),
            stack_vals: Vec::new(),
            binds: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Instantiates rule `rid` (its head bound to `head` if given) and makes
    /// its body hold. Returns false if the head does not unify.
    fn instantiate(&mut self, rid: u32, head: Option<&[Val]>, depth: usize) -> bool {
        let s = self.s;
        let r = &s.rules[rid as usize];
        let mut bind = self.binds.pop().unwrap_or_default();
        bind.clear();
        bind.resize(r.vars.len(), None);
        if let Some(h) = head {
            let unifies = r.head.iter().zip(h).all(|(t, v)| match *t {
                STerm::Var(x) => match bind[x as usize] {
                    Some(b) => b == *v,
                    None => {
                        bind[x as usize] = Some(*v);
                        true
                    }
                },
                STerm::Val(c) => c == *v,
            });
            if !unifies {
                self.binds.push(bind);
                return false;
            }
        }
        // Comparisons first: they decide integers (and entity (in)equalities).
        for it in &r.body {
            let SItem::Cmp { left, op, right } = *it else {
                continue;
            };
            let want = !self.rng.chance(15);
            match (left, right) {
                (STerm::Var(a), STerm::Val(c)) => self.bind_cmp(&mut bind, r, a, op, c, want),
                (STerm::Val(c), STerm::Var(a)) => {
                    self.bind_cmp(&mut bind, r, a, flip(op), c, want);
                }
                (STerm::Var(a), STerm::Var(b)) => match (bind[a as usize], bind[b as usize]) {
                    (Some(va), None) => self.bind_cmp(&mut bind, r, b, flip(op), va, want),
                    (None, Some(vb)) => self.bind_cmp(&mut bind, r, a, op, vb, want),
                    (None, None) => {
                        let va = self.draw(r.vars[a as usize]);
                        bind[a as usize] = Some(va);
                        self.bind_cmp(&mut bind, r, b, flip(op), va, want);
                    }
                    (Some(_), Some(_)) => {}
                },
                (STerm::Val(_), STerm::Val(_)) => {}
            }
        }
        for (v, b) in bind.iter_mut().enumerate() {
            if b.is_none() {
                *b = Some(self.draw(r.vars[v]));
            }
        }
        for it in &r.body {
            let SItem::Atom { lit, args, not } = it else {
                continue;
            };
            // A `not` item's atom is usually left out, so the rule fires;
            // sometimes made to hold, so the rule is blocked.
            if *not && !self.rng.chance(15) {
                continue;
            }
            let mut row = self.rows.pop().unwrap_or_default();
            row.clear();
            row.extend(args.iter().map(|t| match *t {
                STerm::Var(x) => bind[x as usize].expect("every variable is bound"),
                STerm::Val(c) => c,
            }));
            self.establish(*lit, &row, depth);
            self.rows.push(row);
        }
        self.binds.push(bind);
        true
    }

    /// Makes `lit(vals)` hold (as far as the draw goes).
    fn establish(&mut self, lit: Lit, vals: &[Val], depth: usize) {
        let s = self.s;
        match s.model.pred(lit.pred).kind {
            RelationKind::Empirical => {
                if lit.negative {
                    if let Some(dom) = s.closed[lit.pred.0 as usize] {
                        // The closure derives ~p(t) from d(t) when p(t) is
                        // not a fact; take that road half of the time.
                        if self.rng.chance(50) && !self.d.find(lit.complement(), vals) {
                            let dom_lit = Lit {
                                pred: dom,
                                negative: false,
                            };
                            self.establish(dom_lit, vals, depth);
                            return;
                        }
                    }
                }
                self.d.add(lit, vals);
            }
            RelationKind::Judgment => {
                // Decided yes, decided no, or undecided (pending, requested).
                let roll = self.rng.below(100);
                if roll < 45 {
                    self.d.add(lit, vals);
                } else if roll < 65 {
                    self.d.add(lit.complement(), vals);
                }
            }
            RelationKind::Institutional => {
                let rules = &s.concluding[lit_slot(lit)];
                if rules.is_empty()
                    || depth >= MAX_DEPTH
                    || self.listed(&self.stack, lit, vals)
                    || self.listed(&self.derived, lit, vals)
                {
                    return;
                }
                let entry = (lit, self.stack_vals.len() as u32, vals.len() as u32);
                self.stack_vals.extend_from_slice(vals);
                self.stack.push(entry);
                let first = self.rng.below(rules.len());
                for k in 0..rules.len() {
                    let rid = rules[(first + k) % rules.len()];
                    if self.instantiate(rid, Some(vals), depth + 1) {
                        break;
                    }
                }
                self.stack.pop();
                // Its values stay in `stack_vals` for `derived`.
                self.derived.push(entry);
            }
        }
    }

    fn listed(&self, list: &[(Lit, u32, u32)], lit: Lit, vals: &[Val]) -> bool {
        list.iter().any(|&(l, start, len)| {
            l == lit && &self.stack_vals[start as usize..(start + len) as usize] == vals
        })
    }

    /// An unrelated fact of a random input predicate, positive four times
    /// out of five.
    fn noise(&mut self) {
        let s = self.s;
        if s.inputs.is_empty() {
            return;
        }
        let pred = *self.rng.pick(&s.inputs);
        let mut row = self.rows.pop().unwrap_or_default();
        row.clear();
        for (k, t) in s.model.pred(pred).params.iter().enumerate() {
            let v = self.draw((*t, s.col_ints[pred.0 as usize][k]));
            row.push(v);
        }
        let lit = Lit {
            pred,
            negative: self.rng.chance(20),
        };
        self.d.add(lit, &row);
        self.rows.push(row);
    }

    /// Binds variable `v` (if unbound) so that `v op c` is `want`.
    fn bind_cmp(
        &mut self,
        bind: &mut [Option<Val>],
        r: &SRule,
        v: u32,
        op: CmpOp,
        c: Val,
        want: bool,
    ) {
        let v = v as usize;
        if bind[v].is_some() {
            return;
        }
        let op = if want { op } else { negate(op) };
        let x = match c {
            Val::Int(c) => {
                let d = self.rng.below(3) as i64;
                Val::Int(match op {
                    CmpOp::Eq => c,
                    CmpOp::Ne => {
                        if self.rng.chance(50) {
                            c.saturating_add(1 + d)
                        } else {
                            c.saturating_sub(1 + d)
                        }
                    }
                    CmpOp::Lt => c.saturating_sub(1 + d),
                    CmpOp::Le => c.saturating_sub(d),
                    CmpOp::Gt => c.saturating_add(1 + d),
                    CmpOp::Ge => c.saturating_add(d),
                })
            }
            Val::Ent(_) => match op {
                CmpOp::Eq => c,
                _ => {
                    let mut x = self.draw(r.vars[v]);
                    for _ in 0..4 {
                        if x != c {
                            break;
                        }
                        x = self.draw(r.vars[v]);
                    }
                    x
                }
            },
        };
        bind[v] = Some(x);
    }

    /// A value of a type; for integers, one of the list worth drawing.
    fn draw(&mut self, (t, ints): (Ty, Option<u32>)) -> Val {
        let s = self.s;
        match t {
            Ty::Int => match ints {
                Some(l) if !self.rng.chance(10) => {
                    Val::Int(*self.rng.pick(&s.int_lists[l as usize]))
                }
                _ => Val::Int(self.rng.below(10) as i64),
            },
            Ty::Entity(t) => {
                let (pool, consts) = (&s.pool[t.0 as usize], &s.consts[t.0 as usize]);
                if !consts.is_empty() && (pool.is_empty() || self.rng.chance(30)) {
                    Val::Ent(*self.rng.pick(consts))
                } else {
                    Val::Ent(*self.rng.pick(pool))
                }
            }
        }
    }
}

/// `a op b` ⇔ `b flip(op) a`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}

/// `!(a op b)` ⇔ `a negate(op) b`.
fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
    }
}

/// xorshift64*, seeded through splitmix64 (nearby seeds give unrelated
/// streams). No dependency, same numbers on every platform.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(z | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::ReadLimits;
    use crate::driver::{load_file, Loaded};
    use std::path::Path;

    fn load(rel: &str) -> Loaded {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        load_file(&p, &ReadLimits::default()).expect("package loads")
    }

    fn chess() -> Loaded {
        load("../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json")
    }

    /// Writes facts as a facts file (docs/reference.md#facts-files).
    fn to_json(m: &Model, f: &Facts) -> Vec<u8> {
        use serde_json::{json, Map, Value as J};
        let mut facts = Map::new();
        for (lit, rows) in &f.rows {
            let rows: Vec<J> = rows
                .iter()
                .map(|r| {
                    J::Array(
                        r.iter()
                            .map(|v| match v {
                                Value::Int(i) => json!(i),
                                Value::Entity(e) => json!(e),
                            })
                            .collect(),
                    )
                })
                .collect();
            facts.insert(m.lit_name(*lit), J::Array(rows));
        }
        let mut ents = Map::new();
        for (t, names) in &f.entities {
            ents.insert(m.types[t.0 as usize].name.clone(), json!(names));
        }
        serde_json::to_vec(&json!({"facts": facts, "entities": ents})).unwrap()
    }

    /// Facts only for input predicates, values of the declared types,
    /// entity values of the right type, no `p` and `~p` for one tuple.
    fn assert_valid(s: &Synth, l: &Loaded, f: &Facts) {
        let m = &l.model;
        for (lit, rows) in &f.rows {
            let p = m.pred(lit.pred);
            assert_ne!(p.kind, RelationKind::Institutional, "{}", p.local);
            for row in rows {
                assert_eq!(row.len(), p.params.len(), "{}", p.local);
                for (v, t) in row.iter().zip(&p.params) {
                    match (v, t) {
                        (Value::Int(_), Ty::Int) => {}
                        (Value::Entity(e), Ty::Entity(t)) => {
                            let i = s.by_name[e.as_str()];
                            assert_eq!(s.name_ty[i as usize], *t, "{e} in {}", p.local);
                        }
                        _ => panic!("{v:?} is not a {t:?} in {}", p.local),
                    }
                }
                if let Some(neg) = f.rows.get(&lit.complement()) {
                    assert!(!neg.contains(row), "{} and its negation", p.local);
                }
            }
        }
        // And the facts reader agrees.
        let back = lawgen_runtime::formats::facts::read_facts(&to_json(m, f), &l.catalog)
            .unwrap_or_else(|d| panic!("{}", d.render()));
        assert_eq!(back.rows, f.rows);
    }

    #[test]
    fn cases_are_deterministic_and_differ() {
        let l = chess();
        let s = Synth::new(&l, SynthOptions::default()).unwrap();
        let again = Synth::new(&l, SynthOptions::default()).unwrap();
        for i in 0..50 {
            assert_eq!(s.draft(i), again.draft(i));
            assert_eq!(s.case(i).rows, again.case(i).rows);
        }
        assert_ne!(s.draft(0), s.draft(1));
        let other = Synth::new(
            &l,
            SynthOptions {
                seed: 7,
                ..SynthOptions::default()
            },
        )
        .unwrap();
        assert_ne!(s.draft(0), other.draft(0));
    }

    #[test]
    fn chess_cases_are_valid_and_varied() {
        let l = chess();
        let m = &l.model;
        let s = Synth::new(&l, SynthOptions::default()).unwrap();
        let (mut neg, mut judged, mut facts) = (0, 0, 0);
        for i in 0..300 {
            let f = s.case(i);
            assert_valid(&s, &l, &f);
            for (lit, rows) in &f.rows {
                facts += rows.len();
                if lit.negative {
                    neg += rows.len();
                }
                if m.pred(lit.pred).kind == RelationKind::Judgment {
                    judged += rows.len();
                }
            }
        }
        assert!(neg > 0 && judged > 0, "{neg} negations, {judged} judgments");
        assert!(facts > 300 * 5, "{facts} facts in 300 cases");
    }

    #[test]
    fn most_chess_rules_fire() {
        let l = chess();
        let m = &l.model;
        let s = Synth::new(&l, SynthOptions::default()).unwrap();
        let prog = crate::driver::lower(&l).unwrap();
        let pol = lawgen_runtime::Policy::Blocking;
        let mut concluded = std::collections::BTreeSet::new();
        let mut pending = 0;
        for i in 0..200 {
            let st = lawgen_runtime::interp::evaluate(&prog, &s.case(i), pol);
            let c = lawgen_runtime::interp::conclusions(&prog, &st, pol);
            concluded.extend(
                c.sections[&lawgen_runtime::program::Section::Defeasibly]
                    .keys()
                    .cloned(),
            );
            pending += c.sections[&lawgen_runtime::program::Section::Pending].len();
        }
        let wanted: Vec<String> = m
            .preds
            .iter()
            .enumerate()
            .filter(|(_, p)| p.kind == RelationKind::Institutional)
            .flat_map(|(i, _)| {
                [false, true].map(|negative| Lit {
                    pred: PredId(i as u32),
                    negative,
                })
            })
            .filter(|l| m.has_concluding_rule(*l))
            .map(|l| m.lit_name(l))
            .collect();
        let missing: Vec<&String> = wanted.iter().filter(|w| !concluded.contains(*w)).collect();
        assert!(missing.is_empty(), "never concluded: {missing:?}");
        assert!(pending > 0, "no pending conclusion in 200 cases");
    }

    #[test]
    fn minimal_package_cases_are_valid() {
        let l = load("../tests/ui/valid/minimal.json");
        let s = Synth::new(
            &l,
            SynthOptions {
                seed: 3,
                entities_per_type: 1,
                density: 1.0,
            },
        )
        .unwrap();
        for i in 0..200 {
            assert_valid(&s, &l, &s.case(i));
        }
    }

    #[test]
    fn template_cases_are_the_template() {
        let l = chess();
        let json = br#"{"entities": {"Situation": ["s1"]},
            "facts": {"player_of": [["g1", "white"]], "~piece_has_moved": [["rook"]],
                      "moves_by_each_without_pawn_or_capture": [["g1", 80]]}}"#;
        let t = lawgen_runtime::formats::facts::read_facts(json, &l.catalog).unwrap();
        let s = Synth::with_template(&l, SynthOptions::default(), &t).unwrap();
        for i in [0, 5, 999] {
            let f = s.case(i);
            assert_eq!(f.rows, t.rows);
            assert_eq!(f.entities, t.entities);
        }
    }

    #[test]
    fn bad_options_are_refused() {
        let l = chess();
        for opts in [
            SynthOptions {
                density: 1.5,
                ..SynthOptions::default()
            },
            SynthOptions {
                entities_per_type: 0,
                ..SynthOptions::default()
            },
        ] {
            assert!(Synth::new(&l, opts).is_err());
        }
    }
}
