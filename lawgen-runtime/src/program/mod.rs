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

use crate::text::Shown;
use crate::Policy;
use std::collections::HashSet;
use std::fmt;

#[cfg(feature = "data")]
use serde::{Deserialize, Serialize};

mod catalog;
mod graph;
pub use catalog::*;
pub use graph::{Component, EdgeOrder, RuleComponents};

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
    /// An entity of a declared type (compared by name; only `=` and `≠`).
    Entity(TypeId),
}

/// A ground value. Entities are identified by name: a constant is the entity
/// named by its local name (constants are written by local name in facts).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Value {
    /// An integer.
    Int(i64),
    /// An entity, by local name.
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
    /// The predicate.
    pub pred: PredId,
    /// `~p`, the explicit negation, rather than `p`.
    pub negative: bool,
}

impl Lit {
    /// `~p` for `p`, `p` for `~p`: the literal a conflicting rule concludes.
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
    /// Concludes its head definitely (+Δ) from definite premises, and
    /// cannot be defeated.
    Strict,
    /// Concludes its head unless a rule for the complement prevails.
    Defeasible,
    /// Concludes nothing; only keeps the complement of its head from being
    /// established.
    Defeater,
}

impl Strength {
    /// The word packages and explanations use (`strict`, `defeasible`,
    /// `defeater`).
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
    /// Established: +∂ (or +Δ).
    Established,
    /// Merely supported: +Σ, there are grounds even if they lose.
    Supported,
}

impl Status {
    /// The word packages and explanations use.
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
    /// Equal (integers or entities).
    Eq,
    /// Not equal (integers or entities).
    Ne,
    /// Less than (integers only).
    Lt,
    /// At most (integers only).
    Le,
    /// Greater than (integers only).
    Gt,
    /// At least (integers only).
    Ge,
}

impl CmpOp {
    /// The operator's name in package JSON (`eq`, `ne`, …).
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
    /// Judgments as decided: an undecided atom holds neither way.
    Certain,
    /// Judgments as they may yet be decided: an undecided atom holds both
    /// ways.
    Possible,
}

impl World {
    /// The model a negative condition reads: checked in C against P and in
    /// P against C (docs/reference.md#undecided-judgments).
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
    /// The language, as a BCP 47 tag.
    pub language: String,
    /// The text in that language.
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

/// What a program rule stands for in the defeasible overlay. Explanations
/// read evaluated relations through these; they never re-derive them.
/// `rule`, `attacker` and `by` index [`Catalog::rules`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Meaning {
    /// The head copies the facts of its literal.
    Facts,
    /// The head's explicit negative comes from a closure policy.
    Closure {
        /// The policy (index into [`Catalog::closures`]).
        closure: u32,
    },
    /// `undecided[j]`: an atom of a judgment nobody decided (that some rule
    /// instance could read).
    Undecided {
        /// The judgment predicate.
        pred: PredId,
        /// Per argument, the values an undecided atom ranges over
        /// (docs/reference.md#undecided-judgments), whether or not some
        /// rule instance reads it.
        domain: Vec<Domain>,
    },
    /// `demand[j]`: the atoms of a judgment that one body item could read
    /// (the instances whose other items may hold).
    Demand {
        /// The rule whose body reads the judgment.
        rule: u32,
        /// The body item (index into the rule's body as written).
        item: u32,
    },
    /// `demand[j]`: a closure policy whose domain is the judgment reads every
    /// atom of it.
    DemandOfClosure {
        /// The policy (index into [`Catalog::closures`]).
        closure: u32,
    },
    /// An undecided judgment atom holds (both ways) in the possible model.
    UndecidedHolds,
    /// The values a judgment ranges over (`dom[T]`).
    Domain,
    /// A strict rule concludes its head definitely.
    Strict {
        /// The package rule.
        rule: u32,
        /// The model it concludes in.
        world: World,
        /// How its body items are read, as for [`Meaning::Applicable`].
        reads: Vec<Option<Read>>,
    },
    /// A rule's body holds (`app[r]`).
    Applicable {
        /// The package rule.
        rule: u32,
        /// The level its established items are read at.
        level: Level,
        /// The model its positive items are read in.
        world: World,
        /// An entry per body item (`None` for a comparison): the level and
        /// world at which the item reads its literal.
        reads: Vec<Option<Read>>,
    },
    /// +Δ implies +∂ and +Σ.
    FromDefinite,
    /// A rule's body holds at Σ: its head is supported.
    Supports {
        /// The package rule.
        rule: u32,
    },
    /// A rule for the literal applies at ∂ (`cand[L]`).
    Candidate {
        /// The package rule.
        rule: u32,
    },
    /// An attacker does not apply in the other world: not supported (both
    /// policies) or not established (blocking only).
    Discarded {
        /// The attacking rule (for the complement).
        attacker: u32,
        /// The level at which it fails to apply: `Supported` or `Defeasible`.
        level: Level,
        /// The one policy this rule discards under (it reads the policy
        /// input), or `None` for both: not established discards only under
        /// blocking, not supported under either.
        under: Option<Policy>,
    },
    /// An attacker is beaten by a rule for the literal, which applies at ∂,
    /// under a priority.
    Defeated {
        /// The attacking rule (for the complement).
        attacker: u32,
        /// The rule that beats it.
        by: u32,
        /// The priority that puts `by` above `attacker` (index into
        /// [`Catalog::priorities`]).
        priority: u32,
    },
    /// +∂: some rule applies, the complement is not +Δ, every attacker is
    /// discarded or defeated.
    Established {
        /// One entry per `ok` item of the body: who attacks, and what it beats.
        attackers: Vec<Attack>,
    },
    /// The projection `∃Y a(X, Y)` behind a `not` item.
    Projection {
        /// The package rule.
        rule: u32,
        /// The `not` item (index into the rule's body as written).
        item: u32,
    },
    /// A request for the judgment atom one body item reads.
    Request {
        /// The package rule.
        rule: u32,
        /// The judgment item (index into the rule's body as written).
        item: u32,
        /// As for [`Meaning::Applicable`], without the judgment item; `None`
        /// last, for the undecided atom.
        reads: Vec<Option<Read>>,
    },
    /// The body of a rule set aside holds at Σ in the certain model: the rule
    /// would have supported its head, had no derogation set it aside. Read
    /// by explanations only; nothing else in the program depends on it.
    SetAside {
        /// The rule (index into [`Catalog::set_aside`]).
        rule: u32,
        /// As for [`Meaning::Applicable`].
        reads: Vec<Option<Read>>,
    },
    /// Like [`Meaning::Projection`], for a rule set aside.
    SetAsideProjection {
        /// The rule (index into [`Catalog::set_aside`]).
        rule: u32,
        /// The `not` item (index into the rule's body as written).
        item: u32,
    },
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
    /// The level the item's literal must hold at.
    pub level: Level,
    /// The model it is read in.
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

/// Where the values one argument of an undecided judgment atom range over
/// come from, as lowering formed them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Domain {
    /// The rows of `dom[T]`, which lowering made for the argument's type.
    Relation(RelId),
    /// No `dom[T]`: every rule that reads the judgment binds the argument
    /// from an input column, so its values are what `dom[T]` would hold:
    /// those these input columns (relation, column) mention, and the
    /// package's constants of the argument's type.
    Inputs(Vec<(RelId, u32)>),
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
    /// The literal.
    pub lit: Lit,
    /// The proof tag.
    pub level: Level,
    /// The model.
    pub world: World,
    /// The relation that holds it (shared with other entries where
    /// collapsed).
    pub rel: RelId,
}

/// Index into [`Program::relations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct RelId(pub u32);

/// A lowered package: plain stratified Datalog with the defeasible overlay
/// compiled in, plus what run time needs to talk about the package.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Program {
    /// The root package's name.
    pub package: String,
    /// The root package's version.
    pub version: String,
    /// Names, types, labels and rules as written, for facts, output and
    /// explanations.
    pub catalog: Catalog,
    /// Every (literal, level, world) that has a relation, after collapsing:
    /// a literal whose three tags coincide, or that no judgment reaches,
    /// shares one relation among several entries.
    pub views: Vec<View>,
    /// Every relation, indexed by [`RelId`]: the contract between generated
    /// engines and the runtime.
    pub relations: Vec<Relation>,
    /// Every rule, with what it means in the overlay.
    pub rules: Vec<Rule>,
    /// Rule indices per program stratum, lowest first. Negated relations are
    /// always complete in an earlier stratum.
    pub strata: Vec<Vec<usize>>,
    /// How the canonical output is read off the relations.
    pub outputs: Vec<Output>,
    /// Judgment requests: one relation per judgment predicate.
    pub requests: Vec<RequestView>,
}

/// A relation of the program.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Relation {
    /// A readable name (`P[game_drawn]`, `app[SeventyFiveMoves]`), for dumps
    /// and generated code comments.
    pub name: String,
    /// The column types.
    pub columns: Vec<Ty>,
    /// Where its tuples come from.
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
    /// The 0-ary input set when the condition of gate `k` of
    /// [`crate::law::Law::gates`] holds on the case's date.
    InForce(u32),
    /// The case's date, one row `[YYYYMMDD]` when the case gives one (none:
    /// the package's current date). No rule reads it: it carries the date
    /// to what reports it (the canonical output, explanations).
    AsOf,
    /// Derived by rules.
    Derived,
}

/// A Datalog rule: the head holds for every binding of its variables that
/// satisfies the body.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Rule {
    /// The derived atom.
    pub head: Atom,
    /// The items, matched in [`join_order`], not in this order.
    pub body: Vec<Item>,
    /// Variable names, indexed by the `u32` in [`Term::Var`] (for dumps and codegen).
    pub vars: Vec<String>,
    /// Why this rule exists, for people: the source rule and its role.
    pub origin: String,
    /// The same, for explanations.
    pub meaning: Meaning,
}

/// A relation applied to terms.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Atom {
    /// The relation.
    pub rel: RelId,
    /// One term per column.
    pub args: Vec<Term>,
}

/// A rule's variable or a constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Term {
    /// Variable `n` of the rule (index into [`Rule::vars`]).
    Var(u32),
    /// A constant.
    Value(Value),
}

/// A body item.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Item {
    /// The atom holds.
    Pos(Atom),
    /// Negation as failure; every variable is bound by earlier positive atoms.
    Neg(Atom),
    /// The comparison holds on the bound values ([`CmpOp::holds`]).
    Cmp(Term, CmpOp, Term),
}

/// Sections of the canonical output (docs/reference.md#the-canonical-output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum Section {
    /// +Δ: follows from facts and strict rules alone.
    Definitely,
    /// +∂: established.
    Defeasibly,
    /// +Σ: supported.
    Supported,
    /// +∂ in the possible model only: waits on a judgment.
    Pending,
}

impl Section {
    /// The section's name in the canonical output.
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
    /// The section.
    pub section: Section,
    /// The literal whose rows it lists.
    pub lit: Lit,
    /// The relation it is read from.
    pub rel: RelId,
    /// A relation whose tuples the section leaves out (the pending section
    /// is `P'[L]` less `P[L]`).
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

/// Where the open requests of one judgment predicate are.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct RequestView {
    /// The judgment predicate (positive literal).
    pub lit: Lit,
    /// The relation of its open requests (`request[j]`).
    pub rel: RelId,
    /// Who decides it (local name).
    pub authority: String,
    /// The capability the authority exercises.
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
    /// Relation `r`.
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
    /// The program as JSON (what [`Program::embed`] deflates).
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("a program always serializes")
    }

    /// The program as generated modules embed it: its JSON deflated and in
    /// base64, in lines of [`EMBED_LINE`] characters. A lowered program's
    /// JSON repeats itself (every rule spells the same keys): deflated it is
    /// ten to twenty times smaller, and at thousands of rules it was more
    /// than half of a module's bytes. Its readable form is the lowering
    /// snapshot of `Display`, not the module. The text is ASCII, so it can
    /// hold no character that rustc refuses in a literal.
    pub fn embed(&self) -> String {
        use base64::Engine as _;
        let deflated = miniz_oxide::deflate::compress_to_vec(self.encode().as_bytes(), 9);
        let text = base64::engine::general_purpose::STANDARD.encode(deflated);
        let mut out = String::with_capacity(text.len() + text.len() / EMBED_LINE + 1);
        for (i, chunk) in text.as_bytes().chunks(EMBED_LINE).enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        }
        out
    }

    /// The inverse of [`Program::embed`] (by the same runtime version).
    pub fn decode(text: &str) -> Result<Program, String> {
        use base64::Engine as _;
        let fail = |e: &dyn fmt::Display| format!("the embedded program does not decode: {e}");
        let packed: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        let deflated = base64::engine::general_purpose::STANDARD
            .decode(packed)
            .map_err(|e| fail(&e))?;
        let json = miniz_oxide::inflate::decompress_to_vec(&deflated).map_err(|e| fail(&e))?;
        serde_json::from_slice(&json).map_err(|e| fail(&e))
    }
}

/// The width of the lines of an embedded program.
#[cfg(feature = "data")]
pub const EMBED_LINE: usize = 100;

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names, values and origins come from the package: shown through
        // `text`, so none can break a line or reach the terminal raw.
        writeln!(
            f,
            "% lowered program of {} {}",
            Shown(&self.package),
            Shown(&self.version)
        )?;
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
                Role::InForce(_) => " input(in force)",
                Role::AsOf => " input(as of)",
                Role::Derived => "",
            };
            writeln!(f, ".decl {}({}){role}", Shown(&r.name), cols.join(", "))?;
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
                writeln!(f, ".  % {}", Shown(&r.origin))?;
            }
        }
        Ok(())
    }
}

impl Program {
    fn show_atom(&self, a: &Atom, r: &Rule) -> String {
        let args: Vec<_> = a.args.iter().map(|t| show_term(t, r)).collect();
        format!("{}({})", Shown(&self.relation(a.rel).name), args.join(", "))
    }
}

fn show_term(t: &Term, r: &Rule) -> String {
    match t {
        Term::Var(v) => r
            .vars
            .get(*v as usize)
            .map(|n| Shown(n).to_string())
            .unwrap_or_else(|| format!("_{v}")),
        Term::Value(Value::Int(i)) => i.to_string(),
        Term::Value(Value::Entity(e)) => Shown(&format!("{e:?}")).to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::program;
    use crate::{Request, Verdict};

    /// `p(X, Y), q(Y), X < 3, !r(X), s(Z, X)` over relations 0..3.
    fn body() -> Vec<Item> {
        let v = Term::Var;
        let atom = |rel, args: Vec<Term>| Atom {
            rel: RelId(rel),
            args,
        };
        vec![
            Item::Pos(atom(0, vec![v(0), v(1)])),
            Item::Pos(atom(1, vec![v(1)])),
            Item::Cmp(v(0), CmpOp::Lt, Term::Value(Value::Int(3))),
            Item::Neg(atom(2, vec![v(0)])),
            Item::Pos(atom(3, vec![v(2), v(0)])),
        ]
    }

    #[test]
    fn join_order_binds_most_first_and_filters_as_soon_as_bound() {
        let b = body();
        // Nothing bound: the first atom, then both filters, then the atom
        // with a bound variable that comes first.
        assert_eq!(join_order(&b, None), [0, 2, 3, 1, 4]);
        // A delta atom goes first.
        assert_eq!(join_order(&b, Some(4)), [4, 2, 3, 0, 1]);
        // From a bound head variable, with `p` last.
        assert_eq!(join_order_from(&b, None, &[1], |i| i == 0), [1, 4, 2, 3, 0]);
        // Every item once, whatever is bound.
        let mut all = join_order_from(&b, None, &[0, 1, 2], |_| true);
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn comparisons_hold_on_integers_ids_and_values() {
        let cases = [
            (CmpOp::Eq, 1, 1, true),
            (CmpOp::Ne, 1, 1, false),
            (CmpOp::Lt, -2, 1, true),
            (CmpOp::Le, 1, 1, true),
            (CmpOp::Gt, 1, 1, false),
            (CmpOp::Ge, 2, 1, true),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(op.holds(&a, &b), want, "{a} {} {b}", op.symbol());
            assert_eq!(op.holds_int(a, b), want);
        }
        let (x, y) = (Value::Entity("x".into()), Value::Entity("y".into()));
        assert!(CmpOp::Ne.holds(&x, &y) && CmpOp::Eq.holds(&x, &x));
        assert!(!CmpOp::Eq.holds(&x, &y));
        assert!(CmpOp::Lt.is_order() && !CmpOp::Ne.is_order());
    }

    /// A program whose literal `q` has every section: definitely (rel 0),
    /// defeasibly (1), pending (2 less 1), supported (3).
    fn sections() -> (Program, Lit) {
        let mut p = program(
            "type T
             pred q(T) institutional
             rel d(T)
             rel e(T)
             rel e2(T)
             rel s(T)",
            &[],
        );
        let q = Lit {
            pred: PredId(0),
            negative: false,
        };
        let out = |section, rel, minus: Option<u32>| Output {
            section,
            lit: q,
            rel: RelId(rel),
            minus: minus.map(RelId),
            on: Vec::new(),
        };
        p.outputs = vec![
            out(Section::Definitely, 0, None),
            out(Section::Defeasibly, 1, None),
            out(Section::Pending, 2, Some(1)),
            out(Section::Supported, 3, None),
        ];
        (p, q)
    }

    #[test]
    fn a_verdict_is_the_strongest_section_that_holds() {
        let (p, q) = sections();
        let request = || {
            vec![Request {
                predicate: "j".into(),
                args: Vec::new(),
                authority: "A".into(),
                capability: "decide".into(),
            }]
        };
        let verdict = |held: &[u32]| p.verdict(q, |r| held.contains(&r.0), request);
        assert_eq!(verdict(&[0, 1, 3]), Verdict::Definitely);
        assert_eq!(verdict(&[1, 3]), Verdict::Defeasibly);
        assert_eq!(verdict(&[2, 3]), Verdict::Pending(request()));
        assert_eq!(verdict(&[3]), Verdict::SupportedOnly);
        assert_eq!(verdict(&[]), Verdict::NotConcluded);
        // Pending is its relation less the established one.
        assert!(p.in_section(q, Section::Pending, |r| r.0 == 2));
        assert!(!p.in_section(q, Section::Pending, |r| r.0 == 2 || r.0 == 1));
        assert!(!p.in_section(q.complement(), Section::Supported, |_| true));
        // The minus relation is asked only when the relation holds.
        assert!(!section_member(false, || panic!("asked")));
        assert!(section_member(true, || false));
    }

    #[test]
    fn small_facts_of_literals_levels_and_worlds() {
        let q = Lit {
            pred: PredId(3),
            negative: false,
        };
        assert_eq!(q.complement().complement(), q);
        assert!(q.complement().negative);
        assert_eq!(World::Certain.other(), World::Possible);
        assert_eq!(Status::Established.level(), Level::Defeasible);
        assert_eq!(Status::Supported.level(), Level::Supported);
        assert_eq!(local_name("urn:x#game_drawn"), "game_drawn");
        assert_eq!(local_name("plain"), "plain");
        let labels = [
            Label {
                language: "ru".into(),
                text: "ничья".into(),
            },
            Label {
                language: "en".into(),
                text: "drawn".into(),
            },
        ];
        assert_eq!(default_label(&labels), Some("drawn"));
        assert_eq!(label_in(&labels, "ru"), Some("ничья"));
        assert_eq!(label_in(&labels, "de"), Some("ничья"));
        let read = Read {
            level: Level::Supported,
            world: World::Possible,
        };
        let m = Meaning::Applicable {
            rule: 0,
            level: Level::Supported,
            world: World::Possible,
            reads: vec![Some(read), None],
        };
        assert_eq!(m.reads(), [Some(read), None]);
        assert!(Meaning::Candidate { rule: 0 }.reads().is_empty());
    }

    /// The dump `lawgen lower` prints, and a rule's binding size.
    #[test]
    fn display_prints_declarations_then_strata() {
        let p = program(
            "type T
             pred a(T, int) empirical
             input fa(T, int) = a
             flag propagating
             rel big(T)
             rel small(T)",
            &[
                ("big(X) :- fa(X, N), N >= 10.", Meaning::Domain),
                (
                    "small(X) :- fa(X, N), !big(X), X != \"o k\".",
                    Meaning::Domain,
                ),
            ],
        );
        assert_eq!(
            p.to_string(),
            "% lowered program of t 1
% 4 relations, 2 rules, 2 strata

.decl fa(e0, int) input
.decl propagating() input(policy)
.decl big(e0)
.decl small(e0)

% stratum 0
big(X) :- fa(X, N), N ≥ 10.  % big(X) :- fa(X, N), N >= 10

% stratum 1
small(X) :- fa(X, N), !big(X), X ≠ \"o k\".  % small(X) :- fa(X, N), !big(X), X != \"o k\"
"
        );
        assert_eq!(p.rules[1].binding_len(), 2);
    }

    /// What a generated module embeds decodes to the same program, in
    /// either layout; codepoints that turn text around are escaped.
    #[cfg(feature = "data")]
    #[test]
    fn the_encoded_program_round_trips() {
        let mut p = program(
            "type T
             pred a(T) empirical
             input fa(T) = a
             rel q(T)",
            &[(
                "q(X) :- fa(X).",
                Meaning::Established {
                    attackers: vec![Attack {
                        rule: 1,
                        item: 2,
                        blocks: false,
                        beats: vec![Beat {
                            rule: 0,
                            priority: 0,
                        }],
                    }],
                },
            )],
        );
        p.catalog.preds[0].labels.push(Label {
            language: "he".into(),
            text: "\u{202E}abc".into(),
        });
        let compact = p.encode();
        let embedded = p.embed();
        assert!(embedded.is_ascii());
        assert!(embedded.lines().all(|l| l.len() <= EMBED_LINE));
        let back = Program::decode(&embedded).unwrap();
        assert_eq!(back.encode(), compact);
        assert_eq!(back.rules[0].meaning, p.rules[0].meaning);
        assert_eq!(back.catalog.preds[0].labels[0].text, "\u{202E}abc");
        let cut = Program::decode(&embedded[..embedded.len() / 2]).unwrap_err();
        assert!(
            cut.starts_with("the embedded program does not decode: "),
            "{cut}"
        );
        let err = Program::decode("{\"package\": 1}").unwrap_err();
        assert!(
            err.starts_with("the embedded program does not decode: "),
            "{err}"
        );
    }

    #[test]
    fn catalog_lookups() {
        let p = program(
            "type Game
             pred game_drawn(Game) institutional
             pred moves(Game, int) empirical",
            &[],
        );
        let c = &p.catalog;
        let drawn = c.pred_by_name("game_drawn").unwrap();
        assert_eq!(c.pred_by_name("urn:t#game_drawn"), Some(drawn));
        assert_eq!(c.pred_by_name("nothing"), None);
        let neg = c.lit_of("~game_drawn").unwrap();
        assert!(neg.negative && neg.pred == drawn);
        assert_eq!(c.lit_name(neg), "~game_drawn");
        assert_eq!(c.type_name(Ty::Int), "Integer");
        assert_eq!(c.type_name(c.pred(PredId(1)).params[0]), "Game");
        // One package: explanations name no layer.
        assert_eq!(c.layer(0), None);
    }
}
