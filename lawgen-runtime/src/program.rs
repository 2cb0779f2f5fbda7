//! The lowered program: plain stratified Datalog with negation as failure and
//! comparisons. Every backend (the reference interpreter, the ascent and direct
//! engines) consumes this and nothing else; all of defeasible logic has been
//! compiled away by lawgen's `lower` stage into ordinary relations and rules.
//!
//! A [`Program`] also carries what run time needs to talk about the package:
//! its [`Catalog`] (names, types, labels, anchors with their article text,
//! priorities, closures) and, per rule and per relation, what it *means* in
//! the overlay ([`Meaning`], [`View`]). Generated code embeds the program it
//! was built from, so facts, canonical output and explanations need neither
//! the package text nor the compiler at run time.
//!
//! `Display` prints a stable text dump (`lawgen lower`) that snapshot tests hold.

use std::collections::HashSet;
use std::fmt;

#[cfg(feature = "data")]
use serde::{Deserialize, Serialize};

/// Index into [`Catalog::types`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct TypeId(pub u32);

/// Index into [`Catalog::preds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct PredId(pub u32);

/// A column type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Ty {
    /// `urn:law:std#Integer`, an `i64`.
    Int,
    Entity(TypeId),
}

/// A ground value. Entities are identified by name: a constant is the entity
/// named by its local name (constants are written by local name in facts).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Value {
    Int(i64),
    Entity(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Entity(e) => f.write_str(e),
        }
    }
}

/// A literal kind: a predicate and a polarity. `~p` is `Lit { pred: p, negative: true }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Lit {
    pub pred: PredId,
    pub negative: bool,
}

impl Lit {
    pub fn complement(self) -> Lit {
        Lit {
            pred: self.pred,
            negative: !self.negative,
        }
    }
}

/// What a predicate is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum RelationKind {
    /// Input facts.
    Empirical,
    /// Derived by rules; the outputs.
    Institutional,
    /// An input an authority decides (three-valued until decided).
    Judgment,
}

/// How strong a rule is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Strength {
    Strict,
    Defeasible,
    Defeater,
}

impl Strength {
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Strict => "strict",
            Strength::Defeasible => "defeasible",
            Strength::Defeater => "defeater",
        }
    }
}

/// The status a body item asks of its literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Status {
    Established,
    Supported,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Established => "established",
            Status::Supported => "supported",
        }
    }

    /// The level the word names: `established` is +∂, `supported` is +Σ.
    /// (Where a rule body reads an item is lowering's decision, recorded
    /// per item as a [`Read`]: an established item of a body applied at Δ
    /// is read at Δ.)
    pub fn level(self) -> Level {
        match self {
            Status::Established => Level::Defeasible,
            Status::Supported => Level::Supported,
        }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
        }
    }

    /// The operator as mathematics writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "≠",
            CmpOp::Lt => "<",
            CmpOp::Le => "≤",
            CmpOp::Gt => ">",
            CmpOp::Ge => "≥",
        }
    }

    /// Order comparisons are defined on integers only.
    pub fn is_order(self) -> bool {
        matches!(self, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)
    }

    /// Whether `a op b` holds: the one definition of a comparison, which
    /// the reference evaluator (on interned values), the explainer and
    /// `lawgen lint` (on constants) all apply. Integers compare by value;
    /// the checker allows only `=` and `≠` on entities, which compare
    /// names, or ids (one id per name within an evaluation).
    pub fn holds<T: PartialOrd + ?Sized>(self, a: &T, b: &T) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    /// [`CmpOp::holds`] on two integers.
    pub fn holds_int(self, a: i64, b: i64) -> bool {
        self.holds(&a, &b)
    }
}

/// A proof tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Level {
    /// +Δ, definitely.
    Definite,
    /// +∂, defeasibly (established).
    Defeasible,
    /// +Σ, supported.
    Supported,
}

/// The certain model C or the possible model P of the three-valued
/// evaluation of judgments (see `docs/reference.md`, "Judgments").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum World {
    Certain,
    Possible,
}

impl World {
    pub fn other(self) -> World {
        match self {
            World::Certain => World::Possible,
            World::Possible => World::Certain,
        }
    }
}

/// A human label or text in one language (BCP 47 tag; may be empty).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Label {
    pub language: String,
    pub text: String,
}

/// The label shown when no language is asked for: English, else the first.
pub fn default_label(labels: &[Label]) -> Option<&str> {
    labels
        .iter()
        .find(|l| l.language == "en")
        .or_else(|| labels.first())
        .map(|l| l.text.as_str())
}

/// The label to show in `lang`: one in that language, else the node's first.
pub fn label_in<'a>(labels: &'a [Label], lang: &str) -> Option<&'a str> {
    labels
        .iter()
        .find(|l| l.language == lang)
        .or_else(|| labels.first())
        .map(|l| l.text.as_str())
}

/// The local name of an id: the part after its first `#`, or the whole id.
pub fn local_name(id: &str) -> &str {
    id.split_once('#').map_or(id, |(_, l)| l)
}

/// What run time needs to know of the package a program was lowered from.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Catalog {
    pub namespace: String,
    pub semantic_hash: Option<String>,
    pub types: Vec<TypeInfo>,
    pub preds: Vec<PredInfo>,
    pub constants: Vec<ConstInfo>,
    pub rules: Vec<RuleInfo>,
    pub priorities: Vec<PriorityInfo>,
    pub closures: Vec<ClosureInfo>,
    /// The derogations of the closure (docs/reference.md#derogations).
    /// Empty lists are left out of the encoding, so a program without
    /// derogations encodes as it always did.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub derogations: Vec<DerogationInfo>,
    /// The imported rules the derogations set aside, as written. No rule of
    /// the program is lowered from them except the `SetAside` rules that
    /// say whether their body would have held.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub set_aside: Vec<SetAsideInfo>,
    /// The packages of the import closure, the root first (one for a
    /// package without imports): `name version`, as explanations name the
    /// layer of the law a rule, priority, closure or anchor comes from.
    pub packages: Vec<String>,
    /// The top-level `semanticHash` of each package of [`Catalog::packages`],
    /// for a closure of more than one (headers of generated code name them).
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub semantic_hashes: Vec<Option<String>>,
    /// Local names that packages of an import closure share, with the full
    /// ids they stand for: such predicates and constants are named by full
    /// id at the edges, and the short name is refused as ambiguous.
    pub ambiguous_preds: std::collections::BTreeMap<String, Vec<String>>,
    pub ambiguous_consts: std::collections::BTreeMap<String, Vec<String>>,
    /// Predicates by local name and by full id (first wins), for readers of
    /// facts and queries: built on first use.
    #[cfg_attr(feature = "data", serde(skip))]
    by_name: std::sync::OnceLock<std::collections::HashMap<String, PredId>>,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct TypeInfo {
    pub id: String,
    pub name: String,
    pub labels: Vec<Label>,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct PredInfo {
    pub id: String,
    /// The id after its first `#` (what facts files and the output use).
    pub local: String,
    pub kind: RelationKind,
    pub params: Vec<Ty>,
    pub param_names: Vec<Option<String>>,
    pub labels: Vec<Label>,
    /// For judgment predicates: who decides.
    pub external: Option<External>,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct External {
    /// Local name of the authority (e.g. `FIDEArbiter`).
    pub authority: String,
    pub capability: String,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct ConstInfo {
    pub id: String,
    pub local: String,
    pub ty: TypeId,
}

/// A package rule as written (after name resolution): what explanations cite
/// and how they print its body.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct RuleInfo {
    pub id: String,
    pub local: String,
    pub strength: Strength,
    pub head: SourceAtom,
    pub body: Vec<SourceItem>,
    /// Variable names, indexed like the program rules lowered from it.
    pub vars: Vec<String>,
    pub labels: Vec<Label>,
    pub anchors: Vec<AnchorInfo>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct SourceAtom {
    pub lit: Lit,
    pub args: Vec<Term>,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum SourceItem {
    Status { status: Status, atom: SourceAtom },
    Compare { left: Term, op: CmpOp, right: Term },
    Not { status: Status, atom: SourceAtom },
}

/// A fragment of the law a rule is anchored to.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct AnchorInfo {
    pub fragment: String,
    /// Article locator, e.g. `article/9`.
    pub locator: String,
    /// The article text, per language.
    pub texts: Vec<Label>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

/// A derogation: imported rules set aside for the closure's meaning.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct DerogationInfo {
    pub id: String,
    pub local: String,
    pub labels: Vec<Label>,
    /// The articles that displace the rules.
    pub anchors: Vec<AnchorInfo>,
    /// Indices into [`Catalog::set_aside`] of the rules it lists.
    pub rules: Vec<u32>,
    /// Ids of the priority rules that went with them.
    pub priorities: Vec<String>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

/// A rule set aside by one or more derogations.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct SetAsideInfo {
    /// The rule as written in its own package.
    pub rule: RuleInfo,
    /// Indices into [`Catalog::derogations`] of the derogations that list it.
    pub by: Vec<u32>,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct PriorityInfo {
    pub id: String,
    pub local: String,
    /// Indices into [`Catalog::rules`].
    pub higher: u32,
    pub lower: u32,
    /// Local name of the reason, e.g. `lex_specialis`.
    pub reason: Option<String>,
    pub labels: Vec<Label>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct ClosureInfo {
    pub id: String,
    pub local: String,
    pub pred: PredId,
    pub domain: PredId,
    pub derive_negative: bool,
    pub snapshot: Option<String>,
    pub complete_as_of: Option<String>,
    pub labels: Vec<Label>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

impl Catalog {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        namespace: String,
        semantic_hash: Option<String>,
        types: Vec<TypeInfo>,
        preds: Vec<PredInfo>,
        constants: Vec<ConstInfo>,
        rules: Vec<RuleInfo>,
        priorities: Vec<PriorityInfo>,
        closures: Vec<ClosureInfo>,
    ) -> Catalog {
        Catalog {
            namespace,
            semantic_hash,
            types,
            preds,
            constants,
            rules,
            priorities,
            closures,
            derogations: Vec::new(),
            set_aside: Vec::new(),
            packages: Vec::new(),
            semantic_hashes: Vec::new(),
            ambiguous_preds: Default::default(),
            ambiguous_consts: Default::default(),
            by_name: Default::default(),
        }
    }

    /// The full ids a local name shared by packages of the closure stands for.
    pub fn ambiguous_pred(&self, local: &str) -> Option<&[String]> {
        self.ambiguous_preds.get(local).map(Vec::as_slice)
    }

    /// Likewise for constants.
    pub fn ambiguous_constant(&self, local: &str) -> Option<&[String]> {
        self.ambiguous_consts.get(local).map(Vec::as_slice)
    }

    pub fn pred(&self, p: PredId) -> &PredInfo {
        &self.preds[p.0 as usize]
    }

    pub fn rule(&self, r: u32) -> &RuleInfo {
        &self.rules[r as usize]
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

    /// The rules whose head is `l`, with their catalog indices.
    pub fn rules_for(&self, l: Lit) -> impl Iterator<Item = (u32, &RuleInfo)> + '_ {
        self.rules
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.head.lit == l)
            .map(|(i, r)| (i as u32, r))
    }

    pub fn type_name(&self, t: Ty) -> &str {
        match t {
            Ty::Int => "Integer",
            Ty::Entity(id) => &self.types[id.0 as usize].name,
        }
    }

    /// Looks a predicate up by local name or full id.
    pub fn pred_by_name(&self, name: &str) -> Option<PredId> {
        self.by_name
            .get_or_init(|| {
                let mut m = std::collections::HashMap::new();
                for (i, p) in self.preds.iter().enumerate() {
                    m.entry(p.local.clone()).or_insert(PredId(i as u32));
                    m.entry(p.id.clone()).or_insert(PredId(i as u32));
                }
                m
            })
            .get(name)
            .copied()
    }

    /// `p` / `~p` by output name.
    pub fn lit_of(&self, name: &str) -> Option<Lit> {
        let (negative, n) = match name.strip_prefix('~') {
            Some(r) => (true, r),
            None => (false, name),
        };
        self.pred_by_name(n).map(|pred| Lit { pred, negative })
    }

    /// The package `packages[i]` names, when the closure has more than one
    /// (a package without imports names none).
    pub fn layer(&self, i: u32) -> Option<&str> {
        (self.packages.len() > 1)
            .then(|| self.packages.get(i as usize).map(String::as_str))
            .flatten()
    }

    /// The priority `higher > lower`, if declared.
    pub fn priority(&self, higher: u32, lower: u32) -> Option<&PriorityInfo> {
        self.priorities
            .iter()
            .find(|p| p.higher == higher && p.lower == lower)
    }
}

/// What a program rule stands for in the defeasible overlay. Explanations
/// read evaluated relations through these; they never re-derive them.
/// `rule`, `attacker` and `by` index [`Catalog::rules`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Meaning {
    /// The head copies the facts of its literal.
    Facts,
    /// The head's explicit negative comes from closure policy `closure`.
    Closure { closure: u32 },
    /// `undecided[j]`: an atom of judgment `pred` nobody decided (that some
    /// rule instance could read).
    Undecided { pred: PredId },
    /// `demand[j]`: the atoms of a judgment that item `item` of `rule` could
    /// read (the instances whose other items may hold).
    Demand { rule: u32, item: u32 },
    /// `demand[j]`: closure policy `closure`, whose domain is the judgment,
    /// reads every atom of it.
    DemandOfClosure { closure: u32 },
    /// An undecided judgment atom holds (both ways) in the possible model.
    UndecidedHolds,
    /// The values a judgment ranges over (`dom[T]`).
    Domain,
    /// A strict rule concludes its head definitely (in `world`). `reads`:
    /// how its body items are read, as for [`Meaning::Applicable`].
    Strict {
        rule: u32,
        world: World,
        reads: Vec<Option<Read>>,
    },
    /// A rule's body holds at `level` in `world` (`app[r]`). `reads` has an
    /// entry per body item (`None` for a comparison): the level and world
    /// at which the item reads its literal.
    Applicable {
        rule: u32,
        level: Level,
        world: World,
        reads: Vec<Option<Read>>,
    },
    /// +Δ implies +∂ and +Σ.
    FromDefinite,
    /// A rule's body holds at Σ: its head is supported.
    Supports { rule: u32 },
    /// A rule for the literal applies at ∂ (`cand[L]`).
    Candidate { rule: u32 },
    /// Attacker `attacker` does not apply at `level` in the other world:
    /// not supported (`Supported`, both policies) or not established
    /// (`Defeasible`, blocking only).
    Discarded { attacker: u32, level: Level },
    /// Attacker `attacker` is beaten by rule `by`, which applies at ∂, under
    /// priority `priority` (index into [`Catalog::priorities`]).
    Defeated {
        attacker: u32,
        by: u32,
        priority: u32,
    },
    /// +∂: some rule applies, the complement is not +Δ, every attacker is
    /// discarded or defeated. `attackers`: one entry per `ok` item of the
    /// body, saying who attacks and what it beats.
    Established { attackers: Vec<Attack> },
    /// The projection `∃Y a(X, Y)` behind item `item` (a `not`) of `rule`.
    Projection { rule: u32, item: u32 },
    /// A request for the judgment atom at item `item` of `rule`; `reads`
    /// as for [`Meaning::Applicable`] (`None` for the undecided atom last).
    Request {
        rule: u32,
        item: u32,
        reads: Vec<Option<Read>>,
    },
    /// The body of set-aside rule `rule` (index into
    /// [`Catalog::set_aside`]) holds at Σ in the certain model: the rule
    /// would have supported its head, had no derogation set it aside. Read
    /// by explanations only; nothing else in the program depends on it.
    SetAside { rule: u32, reads: Vec<Option<Read>> },
    /// Like [`Meaning::Projection`], for item `item` of set-aside rule `rule`.
    SetAsideProjection { rule: u32, item: u32 },
}

impl Meaning {
    /// How the items of a rule body lowered from a package rule read their
    /// literals, one entry per body item (empty for other rules).
    pub fn reads(&self) -> &[Option<Read>] {
        match self {
            Meaning::Strict { reads, .. }
            | Meaning::Applicable { reads, .. }
            | Meaning::Request { reads, .. }
            | Meaning::SetAside { reads, .. } => reads,
            _ => &[],
        }
    }
}

/// Where a body item of a rule lowered from a package rule reads its
/// literal: at `level` in `world`, as lowering asked for it (several of
/// these may share one relation: a literal whose tags coincide, or that no
/// judgment reaches). A `not` item reads the other world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Read {
    pub level: Level,
    pub world: World,
}

/// An attacker of a literal `L`, as `L`'s `+∂` rule reads it: an
/// `ok[L, s]` item of its body, which holds when `s` is discarded or
/// defeated.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Attack {
    /// The attacking rule `s` (a rule for `~L`; index into [`Catalog::rules`]).
    pub rule: u32,
    /// The index of its `ok[L, s]` item in the `+∂` rule's body.
    pub item: u32,
    /// `s` is a defeater: when it applies and is not defeated, it keeps `L`
    /// from being established (it blocks) and concludes nothing itself.
    pub blocks: bool,
    /// The rules for `L` that `s` beats: `s` concludes `~L` and a priority
    /// puts it above them (a defeater beats none).
    pub beats: Vec<Beat>,
}

/// A rule beaten under a priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Beat {
    /// The beaten rule (index into [`Catalog::rules`]).
    pub rule: u32,
    /// The priority that puts the other rule above it (index into
    /// [`Catalog::priorities`]).
    pub priority: u32,
}

/// The relation holding literal `lit` at `level` in `world`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct View {
    pub lit: Lit,
    pub level: Level,
    pub world: World,
    pub rel: RelId,
}

/// Index into [`Program::relations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct RelId(pub u32);

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Program {
    pub package: String,
    pub version: String,
    pub catalog: Catalog,
    /// Every (literal, level, world) that has a relation, after collapsing:
    /// a literal whose three tags coincide, or that no judgment reaches,
    /// shares one relation among several entries.
    pub views: Vec<View>,
    pub relations: Vec<Relation>,
    pub rules: Vec<Rule>,
    /// Rule indices per program stratum, lowest first. Negated relations are
    /// always complete in an earlier stratum.
    pub strata: Vec<Vec<usize>>,
    /// How the canonical output is read off the relations.
    pub outputs: Vec<Output>,
    /// Judgment requests: one relation per judgment predicate.
    pub requests: Vec<RequestView>,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Relation {
    pub name: String,
    pub columns: Vec<Ty>,
    pub role: Role,
}

/// Where a relation's tuples come from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Role {
    /// Rows of the facts file for a literal (`p` or `~p`).
    Facts(Lit),
    /// Entities of a type listed under `entities` in the facts file.
    Entities(Ty),
    /// The 0-ary flag set when evaluating under the `propagating` policy.
    PolicyPropagating,
    /// Derived by rules.
    Derived,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Item>,
    /// Variable names, indexed by the `u32` in [`Term::Var`] (for dumps and codegen).
    pub vars: Vec<String>,
    /// Why this rule exists, for people: the source rule and its role.
    pub origin: String,
    /// The same, for explanations.
    pub meaning: Meaning,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Atom {
    pub rel: RelId,
    pub args: Vec<Term>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Term {
    Var(u32),
    Value(Value),
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Item {
    Pos(Atom),
    /// Negation as failure; every variable is bound by earlier positive atoms.
    Neg(Atom),
    Cmp(Term, CmpOp, Term),
}

/// Sections of the canonical output (docs/reference.md#the-canonical-output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Section {
    Definitely,
    Defeasibly,
    Supported,
    Pending,
}

impl Section {
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Definitely => "definitely",
            Section::Defeasibly => "defeasibly",
            Section::Supported => "supported",
            Section::Pending => "pending",
        }
    }
}

/// `section[lit] = rel \ minus`.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Output {
    pub section: Section,
    pub lit: Lit,
    pub rel: RelId,
    pub minus: Option<RelId>,
    /// For the pending section: the judgment predicates in the literal's
    /// past, whose open requests a pending verdict names.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub on: Vec<PredId>,
}

/// Whether a tuple is in an output section `rel \ minus`, from whether
/// `rel` holds it and (asked only if it does) whether `minus` does. The one
/// definition of section membership: the canonical conclusions, the
/// explainer's verdict and the verdict functions of generated code decide
/// with it.
pub fn section_member(in_rel: bool, in_minus: impl FnOnce() -> bool) -> bool {
    in_rel && !in_minus()
}

impl Output {
    /// Does this section hold the tuple that `contains` tests relations for?
    pub fn holds(&self, contains: impl Fn(RelId) -> bool) -> bool {
        section_member(contains(self.rel), || self.minus.is_some_and(&contains))
    }
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct RequestView {
    /// The judgment predicate (positive literal).
    pub lit: Lit,
    pub rel: RelId,
    pub authority: String,
    pub capability: String,
}

impl Item {
    /// The terms an item mentions, in order.
    pub fn terms(&self) -> Vec<&Term> {
        match self {
            Item::Pos(a) | Item::Neg(a) => a.args.iter().collect(),
            Item::Cmp(a, _, b) => vec![a, b],
        }
    }
}

impl Rule {
    /// How many variables a binding of the rule holds: its named variables,
    /// and any variable a term numbers beyond them.
    pub fn binding_len(&self) -> usize {
        let max = self
            .body
            .iter()
            .flat_map(Item::terms)
            .chain(self.head.args.iter())
            .filter_map(|t| match t {
                Term::Var(v) => Some(*v as usize + 1),
                Term::Value(_) => None,
            })
            .max()
            .unwrap_or(0);
        self.vars.len().max(max)
    }
}

impl Program {
    pub fn relation(&self, r: RelId) -> &Relation {
        &self.relations[r.0 as usize]
    }

    /// Is a tuple of `lit` in output section `section`? `contains` tests
    /// whether a relation holds the tuple.
    pub fn in_section(&self, lit: Lit, section: Section, contains: impl Fn(RelId) -> bool) -> bool {
        self.outputs
            .iter()
            .any(|o| o.lit == lit && o.section == section && o.holds(&contains))
    }

    /// The verdict on a tuple of `lit` ([`crate::Verdict::decide`] over its
    /// output sections); `contains` tests whether a relation holds the tuple,
    /// `requests` gives a pending verdict's requests.
    pub fn verdict(
        &self,
        lit: Lit,
        contains: impl Fn(RelId) -> bool,
        requests: impl FnOnce() -> Vec<crate::Request>,
    ) -> crate::Verdict {
        crate::Verdict::decide(|s| self.in_section(lit, s, &contains), requests)
    }

    /// The relation holding `lit` at `level` in `world`, if any rule or
    /// input can fill it (none: the literal never holds there).
    pub fn view(&self, lit: Lit, level: Level, world: World) -> Option<RelId> {
        self.views
            .iter()
            .find(|v| v.lit == lit && v.level == level && v.world == world)
            .map(|v| v.rel)
    }
}

#[cfg(feature = "data")]
impl Program {
    /// The program as data, for generated modules to embed.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("a program always serializes")
    }

    /// [`Program::encode`] laid out one entry per line down to the
    /// catalog's lists (a relation, a rule, a predicate per line), so that a
    /// change to lowering shows as a readable diff of the generated code
    /// that embeds it. [`Program::decode`] reads either form.
    pub fn encode_lines(&self) -> String {
        let v = serde_json::to_value(self).expect("a program always serializes");
        let mut text = String::new();
        write_lines(&v, 0, &mut text);
        // rustc refuses a literal holding a codepoint that changes the
        // visible direction of text (they can make code read other than it
        // compiles), and generated code embeds this text in a raw string:
        // such codepoints (only ever inside JSON strings) are written as
        // JSON escapes, which decode to the same program.
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            {
                out.push_str(&format!("\\u{:04x}", c as u32));
            } else {
                out.push(c);
            }
        }
        out
    }

    /// The inverse of [`Program::encode`] (by the same runtime version).
    pub fn decode(text: &str) -> Result<Program, String> {
        serde_json::from_str(text).map_err(|e| format!("the embedded program does not decode: {e}"))
    }
}

/// Objects and arrays nested less than this deep get a line per entry.
#[cfg(feature = "data")]
const LINE_DEPTH: usize = 3;

#[cfg(feature = "data")]
fn write_lines(v: &serde_json::Value, depth: usize, out: &mut String) {
    use serde_json::Value;
    let indent = |out: &mut String, d: usize| out.extend(std::iter::repeat_n(' ', d));
    match v {
        Value::Array(a) if depth < LINE_DEPTH && !a.is_empty() => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                indent(out, depth + 1);
                write_lines(x, depth + 1, out);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push(']');
        }
        Value::Object(m) if depth < LINE_DEPTH && !m.is_empty() => {
            out.push_str("{\n");
            for (i, (k, x)) in m.iter().enumerate() {
                indent(out, depth + 1);
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write_lines(x, depth + 1, out);
                out.push_str(if i + 1 < m.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "% lowered program of {} {}", self.package, self.version)?;
        writeln!(
            f,
            "% {} relations, {} rules, {} strata",
            self.relations.len(),
            self.rules.len(),
            self.strata.len()
        )?;
        writeln!(f)?;
        for r in &self.relations {
            let cols: Vec<_> = r
                .columns
                .iter()
                .map(|c| match c {
                    Ty::Int => "int".to_owned(),
                    Ty::Entity(t) => format!("e{}", t.0),
                })
                .collect();
            let role = match &r.role {
                Role::Facts(_) => " input",
                Role::Entities(_) => " input(entities)",
                Role::PolicyPropagating => " input(policy)",
                Role::Derived => "",
            };
            writeln!(f, ".decl {}({}){role}", r.name, cols.join(", "))?;
        }
        for (si, s) in self.strata.iter().enumerate() {
            writeln!(f, "\n% stratum {si}")?;
            for &ri in s {
                let r = &self.rules[ri];
                write!(f, "{}", self.show_atom(&r.head, r))?;
                if !r.body.is_empty() {
                    write!(f, " :- ")?;
                    for (i, it) in r.body.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        match it {
                            Item::Pos(a) => write!(f, "{}", self.show_atom(a, r))?,
                            Item::Neg(a) => write!(f, "!{}", self.show_atom(a, r))?,
                            Item::Cmp(a, op, b) => write!(
                                f,
                                "{} {} {}",
                                show_term(a, r),
                                op.symbol(),
                                show_term(b, r)
                            )?,
                        }
                    }
                }
                writeln!(f, ".  % {}", r.origin)?;
            }
        }
        Ok(())
    }
}

impl Program {
    fn show_atom(&self, a: &Atom, r: &Rule) -> String {
        let args: Vec<_> = a.args.iter().map(|t| show_term(t, r)).collect();
        format!("{}({})", self.relation(a.rel).name, args.join(", "))
    }
}

fn show_term(t: &Term, r: &Rule) -> String {
    match t {
        Term::Var(v) => r
            .vars
            .get(*v as usize)
            .cloned()
            .unwrap_or_else(|| format!("_{v}")),
        Term::Value(Value::Int(i)) => i.to_string(),
        Term::Value(Value::Entity(e)) => format!("{e:?}"),
    }
}

/// Join order shared by every backend (the body order in a package is not an
/// execution plan): the delta atom first (if any), then positive atoms that share the most
/// bound variables; filters as soon as their variables are bound.
pub fn join_order(body: &[Item], delta: Option<usize>) -> Vec<usize> {
    join_order_from(body, delta, &[], |_| false)
}

/// [`join_order`] from variables `bound` before the body (an explanation
/// matches a rule for a given head), with the positive items `last` picks
/// matched after every other positive item. Ties go to the earlier item, so
/// among orders that bind as much, a failing body stops at the item a reader
/// expects.
pub fn join_order_from(
    body: &[Item],
    delta: Option<usize>,
    bound: &[u32],
    last: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut bound: HashSet<u32> = bound.iter().copied().collect();
    let mut order = Vec::new();
    let mut left: Vec<usize> = (0..body.len()).collect();
    let vars = |it: &Item| -> Vec<u32> {
        Item::terms(it)
            .into_iter()
            .filter_map(|t| match t {
                Term::Var(v) => Some(*v),
                Term::Value(_) => None,
            })
            .collect()
    };
    if let Some(d) = delta {
        order.push(d);
        bound.extend(vars(&body[d]));
        left.retain(|&i| i != d);
    }
    while !left.is_empty() {
        // Filters whose variables are all bound go first.
        if let Some(p) = left.iter().position(|&i| {
            !matches!(body[i], Item::Pos(_)) && vars(&body[i]).iter().all(|v| bound.contains(v))
        }) {
            order.push(left.remove(p));
            continue;
        }
        let positive = |i: usize| matches!(body[i], Item::Pos(_));
        let only_last = left.iter().all(|&i| !positive(i) || last(i));
        let best = left
            .iter()
            .enumerate()
            .filter(|(_, &i)| positive(i) && (only_last || !last(i)))
            .max_by_key(|(_, &i)| {
                let vs = vars(&body[i]);
                let consts = Item::terms(&body[i])
                    .iter()
                    .filter(|t| matches!(t, Term::Value(_)))
                    .count();
                (
                    vs.iter().filter(|v| bound.contains(v)).count() + consts,
                    std::cmp::Reverse(i),
                )
            })
            .map(|(p, _)| p);
        match best {
            Some(p) => {
                let i = left.remove(p);
                bound.extend(vars(&body[i]));
                order.push(i);
            }
            // Only unsafe filters remain (checked packages never get here).
            None => {
                order.append(&mut left);
            }
        }
    }
    order
}
