//! The ground program as clauses, exact for stratified programs.
//!
//! Inputs are free variables (one per possible facts row or `entities`
//! entry; programs analysed together share them by predicate id and
//! values), constrained as the facts reader constrains a facts file: never
//! `p(t)` and `~p(t)` both. Every derived ground atom is defined from its
//! instances in dependency order of the ground atoms (the ground graph's
//! strongly connected components, sources first):
//!
//! * an atom on no positive cycle gets its Clark completion,
//!   `a ↔ ∨ᵢ (∧ posᵢ ∧ ∧ ¬negᵢ)`, over atoms already defined;
//! * the atoms of a positive cycle `C` (the program is stratified, so a
//!   cycle has no negative edge) are unrolled: `a⁰ = false` and
//!   `aᵏ⁺¹ = ∨ᵢ (∧ posᵢ ∧ ∧ ¬negᵢ)` with each in-cycle body atom read at
//!   layer `k`, up to layer `|C|` (the least fixpoint of `|C|` atoms is
//!   reached in at most `|C|` rounds) or until a layer repeats its
//!   predecessor, which hash-consing of the gates detects. So an unfounded
//!   loop can never make an atom true, and the atom is exactly the least
//!   fixpoint over its inputs.
//!
//! Every negated atom lies in an earlier component, complete when it is
//! read: for each input, the clauses have exactly one model on the derived
//! atoms, the program's. Interchangeable fresh entities are ordered: the
//! `i+1`-th entity of a type occurs in some input only if the `i`-th does,
//! which removes permutations of one witness and no witness up to renaming
//! (queries name only constants and named entities, never fresh ones).

use super::domain::{Domain, Vid};
use super::ground::{AtomId, Ground, Origin};
use super::sat::{Bv, Sat};
use super::Error;
use lawgen_runtime::program::{Program, Role};
use std::collections::{BTreeMap, HashMap};
use std::ops::Not;

/// An input of the analysis, shared by the programs analysed together.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputKey {
    /// A facts row: predicate full id, explicit negation, values.
    Fact {
        pred: String,
        negative: bool,
        args: Box<[Vid]>,
    },
    /// An `entities` entry: global type, entity.
    Entity { ty: usize, entity: Vid },
}

/// Can a facts file state exactly `keys`? (See [`Encoding`]'s input
/// constraints: no fact with its negation, no `entities` entry for an
/// entity a fact mentions.)
pub fn well_formed(keys: &[InputKey]) -> bool {
    let mut facts = std::collections::HashSet::new();
    let mut mentioned = std::collections::HashSet::new();
    for k in keys {
        if let InputKey::Fact {
            pred,
            negative,
            args,
        } = k
        {
            facts.insert((pred, *negative, args));
            mentioned.extend(args.iter().copied());
        }
    }
    keys.iter().all(|k| match k {
        InputKey::Fact {
            pred,
            negative,
            args,
        } => !facts.contains(&(pred, !*negative, args)),
        InputKey::Entity { entity, .. } => !mentioned.contains(entity),
    })
}

/// The clauses of one or more ground programs over shared inputs.
pub struct Encoding {
    pub sat: Sat,
    /// Per program, per ground atom.
    pub vals: Vec<Vec<Bv>>,
    /// Every input and its variable, in a fixed order.
    pub inputs: Vec<(InputKey, Bv)>,
    by_key: HashMap<InputKey, usize>,
    /// How many positive cycles of ground atoms were unrolled.
    pub cycles: usize,
    /// A sequential counter over the inputs for minimizing witnesses
    /// (`counter[j]` is "at least j+1 inputs hold"), built on first use.
    counter: Vec<Vec<Bv>>,
}

impl Encoding {
    pub fn new(
        progs: &[&Program],
        grounds: &[Ground],
        dom: &Domain,
        symmetry: bool,
    ) -> Result<Encoding, Error> {
        let mut e = Encoding {
            sat: Sat::default(),
            vals: Vec::new(),
            inputs: Vec::new(),
            by_key: HashMap::new(),
            cycles: 0,
            counter: Vec::new(),
        };
        for (p, g) in progs.iter().zip(grounds) {
            let vals = e.program(p, g, dom)?;
            e.vals.push(vals);
        }
        e.well_formed(progs, grounds);
        if symmetry {
            e.symmetry(dom);
        }
        Ok(e)
    }

    /// The key of input atom `a` of `prog`.
    pub fn key(prog: &Program, g: &Ground, dom: &Domain, a: AtomId) -> Option<InputKey> {
        let (rel, t) = &g.atoms[a as usize];
        match &prog.relation(*rel).role {
            Role::Facts(lit) => Some(InputKey::Fact {
                pred: prog.catalog.pred(lit.pred).id.clone(),
                negative: lit.negative,
                args: t.clone(),
            }),
            Role::Entities(ty) => Some(InputKey::Entity {
                ty: dom.type_of(&prog.catalog, *ty)?,
                entity: t[0],
            }),
            _ => None,
        }
    }

    fn input(&mut self, key: InputKey) -> Bv {
        if let Some(&i) = self.by_key.get(&key) {
            return self.inputs[i].1;
        }
        let v = Bv::Lit(self.sat.var(true));
        self.by_key.insert(key.clone(), self.inputs.len());
        self.inputs.push((key, v));
        v
    }

    /// The value of an input, if the analysis has it.
    pub fn input_value(&self, key: &InputKey) -> Option<Bv> {
        self.by_key.get(key).map(|&i| self.inputs[i].1)
    }

    fn program(&mut self, prog: &Program, g: &Ground, dom: &Domain) -> Result<Vec<Bv>, Error> {
        let n = g.atoms.len();
        let mut vals: Vec<Option<Bv>> = vec![None; n];
        for (a, val) in vals.iter_mut().enumerate() {
            match g.origin[a] {
                Origin::Input => {
                    let key = Self::key(prog, g, dom, a as AtomId).ok_or_else(|| {
                        Error::internal("an input atom of a type outside the domain".into())
                    })?;
                    *val = Some(self.input(key));
                }
                Origin::Fixed(b) => *val = Some(Bv::Const(b)),
                Origin::Derived => {}
            }
        }
        // The ground dependency graph among derived atoms. Its nodes are
        // ground atoms, not relations, so it is not
        // `Program::rule_components`: two atoms of one recursive relation
        // may well not depend on each other, and each acyclic atom is
        // defined outright.
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for inst in &g.insts {
            for &b in inst.pos.iter().chain(&inst.neg) {
                if g.origin[b as usize] == Origin::Derived {
                    succ[b as usize].push(inst.head as usize);
                }
            }
        }
        let comp = lawgen_runtime::scc::components(&succ);
        let count = comp.iter().copied().max().map_or(0, |m| m + 1);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
        for a in 0..n {
            if g.origin[a] == Origin::Derived {
                members[count - 1 - comp[a]].push(a);
            }
        }
        for atoms in members.iter().filter(|m| !m.is_empty()) {
            let cyclic = atoms.len() > 1 || succ[atoms[0]].contains(&atoms[0]);
            if !cyclic {
                let a = atoms[0];
                let v = self.define(g, a, &vals, &HashMap::new())?;
                vals[a] = Some(v);
                continue;
            }
            self.cycles += 1;
            let local: HashMap<usize, usize> =
                atoms.iter().enumerate().map(|(i, &a)| (a, i)).collect();
            for &a in atoms {
                for &k in &g.by_head[a] {
                    if g.insts[k as usize]
                        .neg
                        .iter()
                        .any(|b| local.contains_key(&(*b as usize)))
                    {
                        return Err(Error::internal(format!(
                            "a negative cycle through `{}` in the ground program",
                            prog.relation(g.atoms[a].0).name
                        )));
                    }
                }
            }
            let mut layer: Vec<Bv> = vec![Bv::FALSE; atoms.len()];
            for _ in 0..atoms.len() {
                let mut next = Vec::with_capacity(atoms.len());
                let cur: HashMap<usize, Bv> =
                    atoms.iter().map(|&a| (a, layer[local[&a]])).collect();
                for &a in atoms {
                    next.push(self.define(g, a, &vals, &cur)?);
                }
                if next == layer {
                    break;
                }
                layer = next;
            }
            for (i, &a) in atoms.iter().enumerate() {
                vals[a] = Some(layer[i]);
            }
        }
        vals.into_iter()
            .enumerate()
            .map(|(a, v)| {
                v.ok_or_else(|| {
                    Error::internal(format!(
                        "ground atom {a} of `{}` was never defined",
                        prog.relation(g.atoms[a].0).name
                    ))
                })
            })
            .collect()
    }

    /// `a ↔ ∨ (bodies)`, reading in-cycle atoms from `cur`.
    fn define(
        &mut self,
        g: &Ground,
        a: usize,
        vals: &[Option<Bv>],
        cur: &HashMap<usize, Bv>,
    ) -> Result<Bv, Error> {
        let read = |b: u32| -> Result<Bv, Error> {
            let b = b as usize;
            if let Some(v) = cur.get(&b) {
                return Ok(*v);
            }
            vals[b].ok_or_else(|| {
                Error::internal(format!("ground atom {b} read before it is defined"))
            })
        };
        let mut disj = Vec::with_capacity(g.by_head[a].len());
        for &k in &g.by_head[a] {
            let inst = &g.insts[k as usize];
            let mut conj = Vec::with_capacity(inst.pos.len() + inst.neg.len());
            for &b in &inst.pos {
                conj.push(read(b)?);
            }
            for &b in &inst.neg {
                conj.push(read(b)?.not());
            }
            let c = self.sat.and(&conj);
            if c == Bv::TRUE {
                return Ok(Bv::TRUE);
            }
            disj.push(c);
        }
        Ok(self.sat.or(&disj))
    }

    /// What a facts file cannot say: `p(t)` and `~p(t)` together (the
    /// reader refuses it), and an `entities` entry for an entity that occurs
    /// in a fact (`entities` declares entities that appear in no fact; such
    /// an entry would add nothing the fact does not, so no witness is lost).
    fn well_formed(&mut self, progs: &[&Program], grounds: &[Ground]) {
        let mut in_facts: HashMap<Vid, Vec<Bv>> = HashMap::new();
        for (key, v) in &self.inputs {
            if let InputKey::Fact { args, .. } = key {
                let mut seen: Vec<Vid> = args.to_vec();
                seen.sort_unstable();
                seen.dedup();
                for a in seen {
                    in_facts.entry(a).or_default().push(*v);
                }
            }
        }
        let entities: Vec<(Vid, Bv)> = self
            .inputs
            .iter()
            .filter_map(|(k, v)| match k {
                InputKey::Entity { entity, .. } => Some((*entity, *v)),
                InputKey::Fact { .. } => None,
            })
            .collect();
        for (e, v) in entities {
            for &f in in_facts.get(&e).map_or(&[][..], Vec::as_slice) {
                self.sat.clause(&[v.not(), f.not()]);
            }
        }
        let mut done = std::collections::HashSet::new();
        for (p, g) in progs.iter().zip(grounds) {
            for (a, (rel, t)) in g.atoms.iter().enumerate() {
                let Role::Facts(lit) = &p.relation(*rel).role else {
                    continue;
                };
                if lit.negative || g.origin[a] != Origin::Input {
                    continue;
                }
                let pred = p.catalog.pred(lit.pred).id.clone();
                let pos = InputKey::Fact {
                    pred: pred.clone(),
                    negative: false,
                    args: t.clone(),
                };
                let neg = InputKey::Fact {
                    pred,
                    negative: true,
                    args: t.clone(),
                };
                if !done.insert(pos.clone()) {
                    continue;
                }
                if let (Some(x), Some(y)) = (self.input_value(&pos), self.input_value(&neg)) {
                    self.sat.clause(&[x.not(), y.not()]);
                }
            }
        }
    }

    /// Fresh entity `i+1` of a type is used only if entity `i` is.
    fn symmetry(&mut self, dom: &Domain) {
        let mut uses: BTreeMap<Vid, Vec<Bv>> = BTreeMap::new();
        for (key, v) in &self.inputs {
            match key {
                InputKey::Fact { args, .. } => {
                    let mut seen: Vec<Vid> = args.to_vec();
                    seen.sort_unstable();
                    seen.dedup();
                    for a in seen {
                        uses.entry(a).or_default().push(*v);
                    }
                }
                InputKey::Entity { entity, .. } => uses.entry(*entity).or_default().push(*v),
            }
        }
        for t in &dom.types {
            let used: Vec<Bv> = t
                .fresh
                .iter()
                .map(|e| {
                    let xs = uses.get(e).cloned().unwrap_or_default();
                    self.sat.or(&xs)
                })
                .collect();
            for w in used.windows(2) {
                self.sat.clause(&[w[1].not(), w[0]]);
            }
        }
    }

    /// "At most `m` inputs hold", as an assumption (the counter grows on demand).
    pub fn at_most(&mut self, m: usize) -> Bv {
        let n = self.inputs.len();
        if m >= n {
            return Bv::TRUE;
        }
        // Column j: s[i][j] ⇐ at least j+1 of inputs 0..=i hold.
        while self.counter.len() <= m {
            let j = self.counter.len();
            let mut col = Vec::with_capacity(n);
            for i in 0..n {
                let x = self.inputs[i].1;
                let s = Bv::Lit(self.sat.var(false));
                if i > 0 {
                    let below: Bv = col[i - 1];
                    self.sat.clause(&[below.not(), s]);
                }
                if j == 0 {
                    self.sat.clause(&[x.not(), s]);
                } else if i > 0 {
                    let prev = self.counter[j - 1][i - 1];
                    self.sat.clause(&[x.not(), prev.not(), s]);
                }
                col.push(s);
            }
            self.counter.push(col);
        }
        self.counter[m][n - 1].not()
    }
}
