//! The checked package: every name resolved to an index, every term typed,
//! the stratification computed.
//!
//! Architecture invariant: a [`Model`] only exists for a package that passed
//! every check pass, so what reads it after `check` (lowering, the review
//! document, the Python docstring) never re-validates and never meets a
//! dangling id; the evaluator and explanations read the lowered program,
//! not the model. Its fields are public for reading; only
//! `check` builds one.

use crate::program::{CmpOp, Label, RelationKind, Status, Strength};

// Types shared with the lowered program (and so with run time), named by
// their one path, `crate::program::…`.
use crate::program::{Lit, PredId, Ty, TypeId, Value};
/// Index into [`Model::rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(pub u32);
/// Index into [`Model::fragments`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FragId(pub u32);

#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub namespace: String,
    pub version: String,
    pub semantic_hash: Option<String>,
    pub types: Vec<EntityType>,
    pub preds: Vec<Pred>,
    pub constants: Vec<Constant>,
    pub rules: Vec<Rule>,
    pub priorities: Vec<Priority>,
    pub closures: Vec<Closure>,
    pub fragments: Vec<Fragment>,
    /// The derogations of the closure (docs/reference.md#derogations).
    pub derogations: Vec<Derogation>,
    /// The imported rules the derogations set aside, each once: not part of
    /// the program (not in [`Model::rules`], nor in any priority), kept for
    /// explanations, the summary and lint.
    pub set_aside: Vec<SetAside>,
    /// The input deprecations of the closure
    /// (docs/reference.md#deprecated-inputs), in package order.
    pub deprecations: Vec<InputDeprecation>,
    /// Predicate strata, lowest first (docs/reference.md#stratification). Every predicate is in exactly one.
    pub strata: Vec<Vec<PredId>>,
    /// The source works of the closure (docs/reference.md#as-of-evaluation).
    pub works: Vec<Work>,
    /// The source editions of the closure, with their dates read.
    pub editions: Vec<Edition>,
    /// The packages of the import closure (docs/reference.md#imports), the root (this
    /// package) first; a package without imports has only itself.
    pub packages: Vec<PackageInfo>,
    /// Which package each node comes from, by node id (absent: the root).
    pub(crate) origin: std::collections::HashMap<String, u32>,
    /// Local names that two or more predicates of the closure share, with
    /// their full ids: facts and output name those by full id (docs/reference.md#imports).
    pub(crate) ambiguous_preds: std::collections::BTreeMap<String, Vec<String>>,
    /// Likewise for constants.
    pub(crate) ambiguous_consts: std::collections::BTreeMap<String, Vec<String>>,
    /// Lookups by head and by name, so that lowering, checking and facts
    /// reading stay linear in the package size (a scan per predicate is
    /// quadratic, and packages may have 10⁵ nodes). Built by `check`.
    pub(crate) index: Index,
}

/// [`Model`]'s lookup tables. Each remembers how many rules or predicates it
/// covers; a lookup on a model that grew since falls back to a scan, so a
/// stale index can be slow but never wrong.
#[derive(Clone, Debug, Default)]
pub(crate) struct Index {
    rules: usize,
    by_head: std::collections::HashMap<Lit, Vec<RuleId>>,
    preds: usize,
    by_name: std::collections::HashMap<String, PredId>,
}

/// One package of an import closure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageInfo {
    pub name: String,
    pub namespace: String,
    pub version: String,
    pub semantic_hash: Option<String>,
    /// The file it was read from, as found on the search path (for a
    /// package read from bytes, empty).
    pub file: String,
    /// Indices into [`Model::packages`] of the packages it imports directly.
    pub imports: Vec<usize>,
}

impl PackageInfo {
    /// `` `name` version (file) ``, as diagnostics and explanations name a package.
    pub fn describe(&self) -> String {
        if self.file.is_empty() {
            format!("`{}` {}", self.name, self.version)
        } else {
            format!("`{}` {} ({})", self.name, self.version, self.file)
        }
    }
}

#[derive(Clone, Debug)]
pub struct EntityType {
    pub id: String,
    pub name: String,
    pub label: Option<String>,
    /// Every label, in every language.
    pub labels: Vec<Label>,
}

#[derive(Clone, Debug)]
pub struct Pred {
    pub id: String,
    /// The id after its first `#` (what facts files and the output use).
    pub local: String,
    pub kind: RelationKind,
    pub params: Vec<Ty>,
    pub param_names: Vec<Option<String>>,
    pub label: Option<String>,
    /// Every label, in every language.
    pub labels: Vec<Label>,
    /// For judgment predicates: who decides.
    pub external: Option<External>,
    /// Index into [`Model::strata`].
    pub stratum: usize,
    pub ptr: String,
}

#[derive(Clone, Debug)]
pub struct External {
    pub id: String,
    /// Local name of the authority (e.g. `FIDEArbiter`).
    pub authority: String,
    pub capability: String,
}

#[derive(Clone, Debug)]
pub struct Constant {
    pub id: String,
    pub local: String,
    pub ty: TypeId,
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub id: String,
    pub local: String,
    pub strength: Strength,
    pub head: Atom,
    pub body: Vec<Item>,
    /// Declared variables: name and type, indexed by [`Var`].
    pub vars: Vec<(String, Ty)>,
    pub anchors: Vec<FragId>,
    pub label: Option<String>,
    /// Every label, in every language.
    pub labels: Vec<Label>,
    pub ptr: String,
}

/// Index into [`Rule::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Var(Var),
    Value(Value),
}

/// A literal: `p(args)` or, with `negative`, the explicit negation `~p(args)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    pub pred: PredId,
    pub negative: bool,
    pub args: Vec<Term>,
}

#[derive(Clone, Debug)]
pub enum Item {
    /// `established a` / `supported a`.
    Status { status: Status, atom: Atom },
    /// Comparison on bound values. Order comparisons only on integers.
    Compare { left: Term, op: CmpOp, right: Term },
    /// Negation as failure over a status item (lawgen extension).
    Not { status: Status, atom: Atom },
}

#[derive(Clone, Debug)]
pub struct Priority {
    pub id: String,
    pub higher: RuleId,
    pub lower: RuleId,
    /// Fragments it is anchored to.
    pub anchors: Vec<FragId>,
    pub reason: Option<String>,
    pub label: Option<String>,
    /// Every label, in every language.
    pub labels: Vec<Label>,
}

/// A derogation node: imported rules set aside for this closure's meaning.
#[derive(Clone, Debug)]
pub struct Derogation {
    pub id: String,
    pub local: String,
    /// The articles that displace the rules (at least one).
    pub anchors: Vec<FragId>,
    pub label: Option<String>,
    /// Every label, in every language.
    pub labels: Vec<Label>,
    /// Indices into [`Model::set_aside`] of the rules it lists, in its order
    /// (a timeless derogation; a dated one sets nothing aside on every date).
    pub rules: Vec<usize>,
    /// Ids of the priority rules that went with them (they name a rule it
    /// sets aside), in package order.
    pub priorities: Vec<String>,
    /// Anchored to a fragment of a dated edition: it is in force on some
    /// dates only (docs/reference.md#as-of-evaluation).
    pub dated: bool,
    /// A dated derogation's rules: they stay in [`Model::rules`], and
    /// lowering leaves each out on the dates the derogation is in force. A
    /// rule a timeless derogation also lists is in [`Model::set_aside`]
    /// instead, and not here.
    pub gated: Vec<RuleId>,
}

/// An `input_deprecation` node: facts of an input predicate the package
/// no longer reads as the text means, and what to state instead.
#[derive(Clone, Debug)]
pub struct InputDeprecation {
    pub id: String,
    pub local: String,
    /// The input predicate.
    pub pred: PredId,
    /// `None`: deprecated outright; `Some(t)`: valid while a facts file
    /// holds at most one entity of type `t`.
    pub one_per: Option<TypeId>,
    /// The predicates to state instead.
    pub replaced_by: Vec<PredId>,
    pub anchors: Vec<FragId>,
    /// Every label, in every language.
    pub labels: Vec<Label>,
}

/// A rule a derogation set aside, typed as in its own package.
#[derive(Clone, Debug)]
pub struct SetAside {
    pub rule: Rule,
    /// Indices into [`Model::derogations`] of every timeless derogation
    /// that lists it (a dated one is in force on some dates only).
    pub by: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Closure {
    pub id: String,
    pub pred: PredId,
    pub domain: PredId,
    pub derive_negative: bool,
    pub snapshot: Option<String>,
    pub complete_as_of: Option<String>,
    pub label: Option<String>,
    /// Every label, in every language.
    pub labels: Vec<Label>,
}

/// A `source_work`.
#[derive(Clone, Debug)]
pub struct Work {
    pub id: String,
    pub local: String,
}

/// A `source_edition`, its lifecycle read (checked by `check::editions`).
#[derive(Clone, Debug)]
pub struct Edition {
    pub id: String,
    pub local: String,
    /// Its work (index into [`Model::works`]; `None`: it did not resolve).
    pub work: Option<usize>,
    /// `in_force` extents, sorted.
    pub in_force: Vec<lawgen_runtime::law::Date>,
    /// `repealed` extents, sorted.
    pub repealed: Vec<lawgen_runtime::law::Date>,
    pub labels: Vec<Label>,
}

impl Edition {
    /// Has an `in_force` date: the nodes anchored to it are in force only
    /// while it is.
    pub fn is_dated(&self) -> bool {
        !self.in_force.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct Fragment {
    pub id: String,
    /// Its edition (index into [`Model::editions`]), if it names one that resolves.
    pub edition: Option<usize>,
    pub locator: String,
    /// English text if present, else the first.
    pub text: Option<String>,
    /// The text in every language.
    pub texts: Vec<Label>,
}

impl Term {
    /// The variable, if this term is one.
    pub fn var(&self) -> Option<Var> {
        match self {
            Term::Var(v) => Some(*v),
            Term::Value(_) => None,
        }
    }
}

impl Item {
    /// Every variable occurrence in the item, in order.
    pub fn vars(&self) -> Vec<Var> {
        match self {
            Item::Status { atom, .. } | Item::Not { atom, .. } => {
                atom.args.iter().filter_map(Term::var).collect()
            }
            Item::Compare { left, right, .. } => {
                [left, right].into_iter().filter_map(Term::var).collect()
            }
        }
    }
}

impl Atom {
    pub fn lit(&self) -> Lit {
        Lit {
            pred: self.pred,
            negative: self.negative,
        }
    }
}

impl Model {
    /// The fragments named by `ids`, in order; ids that name no fragment
    /// (reported by the name check) are left out.
    pub fn fragment_ids<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> Vec<FragId> {
        ids.into_iter()
            .filter_map(|id| self.fragments.iter().position(|f| f.id == id))
            .map(|i| FragId(i as u32))
            .collect()
    }

    pub fn pred(&self, p: PredId) -> &Pred {
        &self.preds[p.0 as usize]
    }

    pub fn rule(&self, r: RuleId) -> &Rule {
        &self.rules[r.0 as usize]
    }

    /// `p` or `~p`, by local name.
    pub fn lit_name(&self, l: Lit) -> String {
        let p = &self.pred(l.pred).local;
        if l.negative {
            format!("~{p}")
        } else {
            p.clone()
        }
    }

    pub fn type_name(&self, t: Ty) -> &str {
        match t {
            Ty::Int => "Integer",
            Ty::Entity(id) => &self.types[id.0 as usize].name,
        }
    }

    /// (Re)builds the lookup tables; `check` calls it once the rules and
    /// predicates are all in.
    pub(crate) fn build_index(&mut self) {
        let mut by_head: std::collections::HashMap<Lit, Vec<RuleId>> = Default::default();
        for (i, r) in self.rules.iter().enumerate() {
            by_head
                .entry(r.head.lit())
                .or_default()
                .push(RuleId(i as u32));
        }
        let mut by_name: std::collections::HashMap<String, PredId> = Default::default();
        for (i, p) in self.preds.iter().enumerate() {
            // The first predicate matching either spelling wins, as in a scan.
            by_name.entry(p.local.clone()).or_insert(PredId(i as u32));
            by_name.entry(p.id.clone()).or_insert(PredId(i as u32));
        }
        self.index = Index {
            rules: self.rules.len(),
            by_head,
            preds: self.preds.len(),
            by_name,
        };
    }

    /// Rules whose head is the literal `l`, in package order.
    pub fn rules_for(&self, l: Lit) -> impl Iterator<Item = RuleId> + '_ {
        // From the index when it covers every rule, else by a scan.
        let (indexed, scanned) = if self.index.rules == self.rules.len() {
            let hits = self.index.by_head.get(&l).map_or(&[][..], Vec::as_slice);
            (hits, &self.rules[..0])
        } else {
            (&[][..], &self.rules[..])
        };
        indexed.iter().copied().chain(
            scanned
                .iter()
                .enumerate()
                .filter(move |(_, r)| r.head.lit() == l)
                .map(|(i, _)| RuleId(i as u32)),
        )
    }

    /// Does `l` have a strict or defeasible rule (something that can conclude it)?
    pub fn has_concluding_rule(&self, l: Lit) -> bool {
        self.rules_for(l)
            .any(|r| self.rule(r).strength != Strength::Defeater)
    }

    /// `higher > lower` as a direct priority pair.
    pub fn beats(&self, higher: RuleId, lower: RuleId) -> bool {
        self.priorities
            .iter()
            .any(|p| p.higher == higher && p.lower == lower)
    }

    /// The package the node `id` comes from.
    pub fn package_of(&self, id: &str) -> &PackageInfo {
        let i = self.origin.get(id).copied().unwrap_or(0) as usize;
        &self.packages[i.min(self.packages.len() - 1)]
    }

    /// Index into [`Model::packages`] of the package the node `id` comes from.
    pub fn package_index_of(&self, id: &str) -> usize {
        self.origin.get(id).copied().unwrap_or(0) as usize
    }

    pub fn package_of_rule(&self, r: RuleId) -> &PackageInfo {
        self.package_of(&self.rule(r).id)
    }

    pub fn package_of_pred(&self, p: PredId) -> &PackageInfo {
        self.package_of(&self.pred(p).id)
    }

    /// The package of `priorities[i]`.
    pub fn package_of_priority(&self, i: usize) -> &PackageInfo {
        self.package_of(&self.priorities[i].id)
    }

    /// The package of `derogations[i]`.
    pub fn package_of_derogation(&self, i: usize) -> &PackageInfo {
        self.package_of(&self.derogations[i].id)
    }

    /// The package of `closures[i]`.
    pub fn package_of_closure(&self, i: usize) -> &PackageInfo {
        self.package_of(&self.closures[i].id)
    }

    pub fn package_of_fragment(&self, f: FragId) -> &PackageInfo {
        self.package_of(&self.fragments[f.0 as usize].id)
    }

    /// The package of `constants[i]`.
    pub fn package_of_constant(&self, i: usize) -> &PackageInfo {
        self.package_of(&self.constants[i].id)
    }

    /// The package of `types[t]`.
    pub fn package_of_type(&self, t: TypeId) -> &PackageInfo {
        self.package_of(&self.types[t.0 as usize].id)
    }

    /// Does the model span more than one package?
    pub fn is_layered(&self) -> bool {
        self.packages.len() > 1
    }

    /// The full ids of the predicates that share the local name `local`,
    /// when two or more do (then facts must name them by full id).
    pub fn ambiguous_pred(&self, local: &str) -> Option<&[String]> {
        self.ambiguous_preds.get(local).map(Vec::as_slice)
    }

    /// Likewise for constants.
    pub fn ambiguous_constant(&self, local: &str) -> Option<&[String]> {
        self.ambiguous_consts.get(local).map(Vec::as_slice)
    }

    /// Looks a predicate up by local name or full id.
    pub fn pred_by_name(&self, name: &str) -> Option<PredId> {
        if self.index.preds == self.preds.len() {
            return self.index.by_name.get(name).copied();
        }
        self.preds
            .iter()
            .position(|p| p.local == name || p.id == name)
            .map(|i| PredId(i as u32))
    }
}
