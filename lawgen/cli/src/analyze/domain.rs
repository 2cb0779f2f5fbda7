//! The finite domain a bounded analysis grounds over: for each entity type,
//! the package's constants of that type (and the entities that its rules or
//! the queries name) and `K` fresh, interchangeable entities; for integers,
//! every integer the rules or the queries name, with its neighbours.
//!
//! Why this domain is enough for the constants: every value a derived tuple
//! carries comes from an input fact or from a rule's own terms, and the
//! rules' terms are all in the domain, so grounding over it loses no
//! derivation of any input drawn from it. Which *inputs* count is the bound
//! itself: "none within K" speaks of inputs whose entities of each type are
//! the constants plus at most `K` others, and whose integers are those of
//! [`Domain::ints`] (docs/analyze.md#the-bound).

use lawgen_runtime::program::{Catalog, Item, Program, Term, Ty, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Index of a value in [`Values`].
pub type Vid = u32;

/// Every value the analysis mentions, interned.
#[derive(Default, Debug, Clone)]
pub struct Values {
    vals: Vec<Value>,
    ids: HashMap<Value, Vid>,
}

impl Values {
    pub fn intern(&mut self, v: &Value) -> Vid {
        if let Some(&i) = self.ids.get(v) {
            return i;
        }
        let i = self.vals.len() as Vid;
        self.vals.push(v.clone());
        self.ids.insert(v.clone(), i);
        i
    }

    pub fn get(&self, v: &Value) -> Option<Vid> {
        self.ids.get(v).copied()
    }

    pub fn value(&self, i: Vid) -> &Value {
        &self.vals[i as usize]
    }

    pub fn int(&self, i: Vid) -> Option<i64> {
        match self.vals[i as usize] {
            Value::Int(x) => Some(x),
            Value::Entity(_) => None,
        }
    }
}

/// The members of one entity type (global across the programs analysed
/// together: types are identified by their full id).
#[derive(Debug, Clone)]
pub struct TypeDomain {
    pub id: String,
    pub name: String,
    /// Constants and named entities first, then the fresh ones.
    pub members: Vec<Vid>,
    /// The fresh entities, in order (`game1`, `game2`, …): interchangeable.
    pub fresh: Vec<Vid>,
}

/// The bound's shape: entities per type and the integers' neighbourhood.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// Fresh entities of each entity type (`--bound K`).
    pub entities: usize,
    /// Each integer constant `c` brings `c - spread ..= c + spread` (`--spread`).
    pub spread: u32,
}

impl Default for Bound {
    fn default() -> Self {
        Bound {
            entities: 2,
            spread: 1,
        }
    }
}

/// The domain of one analysis.
#[derive(Debug, Clone)]
pub struct Domain {
    pub values: Values,
    pub types: Vec<TypeDomain>,
    /// Global type index by full type id.
    by_id: HashMap<String, usize>,
    /// The integers inputs draw from, ascending.
    pub ints: Vec<Vid>,
    pub bound: Bound,
}

/// Values a query names, to be added to the domain before grounding.
#[derive(Default, Debug, Clone)]
pub struct Named {
    /// (full type id, entity name).
    pub entities: BTreeSet<(String, String)>,
    pub ints: BTreeSet<i64>,
}

impl Domain {
    /// The domain of `programs` (one, or two for `--compare`) under `bound`,
    /// with the values `named` by the queries.
    pub fn new(programs: &[&Program], bound: Bound, named: &Named) -> Domain {
        let mut values = Values::default();
        // Entity names per full type id, and integer constants.
        let mut consts: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut ints: BTreeSet<i64> = named.ints.clone();
        let mut type_names: BTreeMap<String, String> = BTreeMap::new();
        for p in programs {
            let cat = &p.catalog;
            for t in &cat.types {
                type_names
                    .entry(t.id.clone())
                    .or_insert_with(|| t.name.clone());
                consts.entry(t.id.clone()).or_default();
            }
            for c in &cat.constants {
                // An ambiguous local name cannot be written in a facts file.
                if cat.ambiguous_constant(&c.local).is_some() {
                    continue;
                }
                let ty = &cat.types[c.ty.0 as usize].id;
                consts
                    .entry(ty.clone())
                    .or_default()
                    .insert(c.local.clone());
            }
            for (ty, v) in rule_values(p) {
                // Every term value is interned, so grounding finds it.
                values.intern(&v);
                match (ty, v) {
                    (_, Value::Int(i)) => {
                        ints.insert(i);
                    }
                    (Some(Ty::Entity(t)), Value::Entity(e)) => {
                        if cat.ambiguous_constant(&e).is_none() {
                            let id = &cat.types[t.0 as usize].id;
                            consts.entry(id.clone()).or_default().insert(e);
                        }
                    }
                    (_, Value::Entity(_)) => {}
                }
            }
        }
        for (ty, e) in &named.entities {
            consts.entry(ty.clone()).or_default().insert(e.clone());
        }
        let taken: BTreeSet<String> = consts.values().flatten().cloned().collect();
        let mut types = Vec::new();
        let mut by_id = HashMap::new();
        for (id, names) in &consts {
            let name = type_names
                .get(id)
                .cloned()
                .unwrap_or_else(|| lawgen_runtime::program::local_name(id).to_owned());
            let mut members: Vec<Vid> = names
                .iter()
                .map(|n| values.intern(&Value::Entity(n.clone())))
                .collect();
            let base: String = name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_ascii_lowercase();
            let base = if base.is_empty() { "e".into() } else { base };
            let mut fresh = Vec::new();
            let mut n = 1usize;
            while fresh.len() < bound.entities {
                let cand = format!("{base}{n}");
                n += 1;
                if taken.contains(&cand) || values.get(&Value::Entity(cand.clone())).is_some() {
                    continue;
                }
                fresh.push(values.intern(&Value::Entity(cand)));
            }
            members.extend(&fresh);
            by_id.insert(id.clone(), types.len());
            types.push(TypeDomain {
                id: id.clone(),
                name,
                members,
                fresh,
            });
        }
        let mut spread: BTreeSet<i64> = BTreeSet::new();
        for &c in &ints {
            for d in -(bound.spread as i64)..=bound.spread as i64 {
                if let Some(x) = c.checked_add(d) {
                    spread.insert(x);
                }
            }
        }
        if spread.is_empty() {
            spread.insert(0);
        }
        let ints = spread
            .into_iter()
            .map(|i| values.intern(&Value::Int(i)))
            .collect();
        Domain {
            values,
            types,
            by_id,
            ints,
            bound,
        }
    }

    /// The global type of a program's column type (`None`: integers).
    pub fn type_of(&self, cat: &Catalog, t: Ty) -> Option<usize> {
        match t {
            Ty::Int => None,
            Ty::Entity(id) => self.by_id.get(&cat.types[id.0 as usize].id).copied(),
        }
    }

    /// The values a column of type `t` of `cat`'s program takes in inputs.
    pub fn members(&self, cat: &Catalog, t: Ty) -> &[Vid] {
        match self.type_of(cat, t) {
            None if t == Ty::Int => &self.ints,
            None => &[],
            Some(g) => &self.types[g].members,
        }
    }

    /// The integers, as numbers (for messages and docs).
    pub fn int_values(&self) -> Vec<i64> {
        self.ints
            .iter()
            .filter_map(|&v| self.values.int(v))
            .collect()
    }

    /// One line saying what the bound covers, for "none within K" answers.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for t in &self.types {
            let named: Vec<String> = t
                .members
                .iter()
                .filter(|m| !t.fresh.contains(m))
                .map(|&m| self.values.value(m).to_string())
                .collect();
            if named.is_empty() {
                parts.push(format!("{}: {} fresh", t.name, t.fresh.len()));
            } else {
                parts.push(format!(
                    "{}: {} fresh + {}",
                    t.name,
                    t.fresh.len(),
                    named.join(", ")
                ));
            }
        }
        let ints: Vec<String> = self.int_values().iter().map(i64::to_string).collect();
        format!(
            "at most {} entities of each type besides the constants ({}), integers in {{{}}}",
            self.bound.entities,
            parts.join("; "),
            ints.join(", ")
        )
    }
}

/// Every value term of the program's rules with the type of the column or
/// variable it meets (`None` where no atom gives one).
fn rule_values(p: &Program) -> Vec<(Option<Ty>, Value)> {
    let mut out = Vec::new();
    for r in &p.rules {
        let mut var_ty: HashMap<u32, Ty> = HashMap::new();
        let atoms = std::iter::once(&r.head).chain(r.body.iter().filter_map(|i| match i {
            Item::Pos(a) | Item::Neg(a) => Some(a),
            Item::Cmp(..) => None,
        }));
        for a in atoms {
            let cols = &p.relation(a.rel).columns;
            for (t, ty) in a.args.iter().zip(cols) {
                match t {
                    Term::Var(v) => {
                        var_ty.insert(*v, *ty);
                    }
                    Term::Value(v) => out.push((Some(*ty), v.clone())),
                }
            }
        }
        for i in &r.body {
            if let Item::Cmp(a, _, b) = i {
                for (x, y) in [(a, b), (b, a)] {
                    if let Term::Value(v) = x {
                        let ty = match y {
                            Term::Var(w) => var_ty.get(w).copied(),
                            Term::Value(Value::Int(_)) => Some(Ty::Int),
                            Term::Value(Value::Entity(_)) => None,
                        };
                        out.push((ty, v.clone()));
                    }
                }
            }
        }
    }
    out
}
