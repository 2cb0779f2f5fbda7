//! The catalog of a lowered program: what run time needs to know of the
//! package it was lowered from (names, types, labels, anchors with their
//! article text, rules, derogations, priorities, closures), apart from the
//! rules and relations the engines run.

use super::*;

/// What run time needs to know of the package a program was lowered from.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Catalog {
    /// The root package's namespace (`urn:…`).
    pub namespace: String,
    /// The root package's declared semantic hash, if any.
    pub semantic_hash: Option<String>,
    /// Entity types, indexed by [`TypeId`].
    pub types: Vec<TypeInfo>,
    /// Predicates, indexed by [`PredId`].
    pub preds: Vec<PredInfo>,
    /// Named entities of the package, with their types.
    pub constants: Vec<ConstInfo>,
    /// The package rules as written; [`Meaning`]s index them.
    pub rules: Vec<RuleInfo>,
    /// Priorities between conflicting rules; [`Meaning::Defeated`] and
    /// [`Beat`] index them.
    pub priorities: Vec<PriorityInfo>,
    /// Closure policies; [`Meaning::Closure`] indexes them.
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
    /// The input deprecations of the closure
    /// (docs/reference.md#deprecated-inputs): inputs whose facts readers
    /// warn about, or refuse. Empty lists are left out of the encoding.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub deprecations: Vec<DeprecationInfo>,
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
    /// The same, for constants.
    pub ambiguous_consts: std::collections::BTreeMap<String, Vec<String>>,
    /// The dated works and editions of the closure and the conditions of
    /// the program's in-force inputs (docs/reference.md#as-of-evaluation).
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "crate::law::Law::is_empty")
    )]
    pub law: crate::law::Law,
    /// Predicates by local name and by full id (first wins), for readers of
    /// facts and queries: built on first use.
    #[cfg_attr(feature = "data", serde(skip))]
    by_name: std::sync::OnceLock<std::collections::HashMap<String, PredId>>,
}

/// An entity type of the package.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct TypeInfo {
    /// The type's full id.
    pub id: String,
    /// Its name, as facts files and messages write it (`Game`).
    pub name: String,
    /// Human names of the type, per language.
    pub labels: Vec<Label>,
}

/// A predicate of the package: its kind and signature, as facts, queries
/// and explanations name it.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct PredInfo {
    /// The predicate's full id (`urn:…#game_drawn`).
    pub id: String,
    /// The id after its first `#` (what facts files and the output use).
    pub local: String,
    /// Input, derived, or decided by an authority.
    pub kind: RelationKind,
    /// The column types, in order.
    pub params: Vec<Ty>,
    /// The parameters' names, where the package gives them (for messages
    /// and generated method arguments).
    pub param_names: Vec<Option<String>>,
    /// Human names of the predicate, per language.
    pub labels: Vec<Label>,
    /// For judgment predicates: who decides.
    pub external: Option<External>,
}

/// Who decides a judgment predicate, as requests name them.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct External {
    /// Local name of the authority (e.g. `FIDEArbiter`).
    pub authority: String,
    /// The capability the authority exercises (e.g. `decide`).
    pub capability: String,
}

/// A named entity of the package (a constant of rule bodies and facts).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct ConstInfo {
    /// The constant's full id.
    pub id: String,
    /// Its local name: the entity's name in facts and output.
    pub local: String,
    /// Its entity type.
    pub ty: TypeId,
}

/// A package rule as written (after name resolution): what explanations cite
/// and how they print its body.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct RuleInfo {
    /// The rule's full id.
    pub id: String,
    /// Its local name, as explanations and coverage name it.
    pub local: String,
    /// Strict, defeasible or defeater.
    pub strength: Strength,
    /// The literal it concludes (or, for a defeater, blocks).
    pub head: SourceAtom,
    /// The body items, in the package's order (what `rule … does not
    /// apply — item …` counts in).
    pub body: Vec<SourceItem>,
    /// Variable names, indexed like the program rules lowered from it.
    pub vars: Vec<String>,
    /// Human names of the rule, per language.
    pub labels: Vec<Label>,
    /// The articles it implements, cited by explanations.
    pub anchors: Vec<AnchorInfo>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

/// A literal with its argument terms, as a rule is written.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct SourceAtom {
    /// The predicate and polarity.
    pub lit: Lit,
    /// The arguments: the rule's variables (by index into
    /// [`RuleInfo::vars`]) or constants.
    pub args: Vec<Term>,
}

/// A body item as written.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub enum SourceItem {
    /// `established p(…)` or `supported p(…)`.
    Status {
        /// What the item asks of the literal.
        status: Status,
        /// The literal.
        atom: SourceAtom,
    },
    /// A comparison of two terms.
    Compare {
        /// The left-hand term.
        left: Term,
        /// The operator.
        op: CmpOp,
        /// The right-hand term.
        right: Term,
    },
    /// `not established p(…)` or `not supported p(…)`.
    Not {
        /// What the literal must not be.
        status: Status,
        /// The literal.
        atom: SourceAtom,
    },
}

/// A fragment of the law a rule is anchored to.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct AnchorInfo {
    /// The fragment's full id.
    pub fragment: String,
    /// Article locator, e.g. `article/9`.
    pub locator: String,
    /// The article text, per language.
    pub texts: Vec<Label>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
    /// The local name of the fragment's edition, if it names one.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub edition: Option<String>,
    /// The edition, if it is dated (index into [`crate::law::Law::editions`]).
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub dated: Option<u32>,
}

/// A derogation: imported rules set aside for the closure's meaning.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct DerogationInfo {
    /// The derogation's full id.
    pub id: String,
    /// Its local name, as explanations name it.
    pub local: String,
    /// Human names of the derogation, per language.
    pub labels: Vec<Label>,
    /// The articles that displace the rules.
    pub anchors: Vec<AnchorInfo>,
    /// Indices into [`Catalog::set_aside`] of the rules it lists.
    pub rules: Vec<u32>,
    /// Ids of the priority rules that went with them.
    pub priorities: Vec<String>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
    /// Anchored to a dated edition, it is in force on some dates only: the
    /// rules of the program (indices into [`Catalog::rules`]) it leaves out
    /// on those dates (docs/reference.md#as-of-evaluation). `rules` is then
    /// empty.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub gated: Vec<u32>,
}

/// An input predicate a package of the closure deprecates
/// (docs/reference.md#deprecated-inputs).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct DeprecationInfo {
    /// The deprecation node's full id.
    pub id: String,
    /// Its local name.
    pub local: String,
    /// The deprecated input.
    pub pred: PredId,
    /// `None`: deprecated outright. `Some(t)`: its facts mean what the
    /// package says only in a facts file holding at most one entity of `t`.
    pub one_per: Option<TypeId>,
    /// The predicates to state instead.
    pub replaced_by: Vec<PredId>,
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

/// A declared priority between two rules with complementary heads.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct PriorityInfo {
    /// The priority rule's full id.
    pub id: String,
    /// Its local name, as explanations name it.
    pub local: String,
    /// Indices into [`Catalog::rules`].
    pub higher: u32,
    /// The rule it puts below `higher`.
    pub lower: u32,
    /// Local name of the reason, e.g. `lex_specialis`.
    pub reason: Option<String>,
    /// Human names of the priority, per language.
    pub labels: Vec<Label>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

/// A closure policy: the facts of a predicate are complete over a domain.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct ClosureInfo {
    /// The policy's full id.
    pub id: String,
    /// Its local name, as explanations name it.
    pub local: String,
    /// The predicate whose facts are complete.
    pub pred: PredId,
    /// The domain predicate: `~pred(t)` follows where `domain(t)` holds
    /// definitely and `pred(t)` is not a fact.
    pub domain: PredId,
    /// Whether the policy derives explicit negatives (only such policies
    /// change what a program concludes).
    pub derive_negative: bool,
    /// The snapshot the facts were taken from, as explanations cite it.
    pub snapshot: Option<String>,
    /// The date the facts are complete as of, as explanations cite it.
    pub complete_as_of: Option<String>,
    /// Human names of the policy, per language.
    pub labels: Vec<Label>,
    /// Index into [`Catalog::packages`].
    pub package: u32,
}

impl Catalog {
    /// A catalog with the lists every package has; derogations, the layers
    /// of an import closure and ambiguous names are set afterwards, when
    /// there are any.
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
            deprecations: Vec::new(),
            packages: Vec::new(),
            semantic_hashes: Vec::new(),
            ambiguous_preds: Default::default(),
            ambiguous_consts: Default::default(),
            law: Default::default(),
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

    /// Predicate `p`'s entry.
    pub fn pred(&self, p: PredId) -> &PredInfo {
        &self.preds[p.0 as usize]
    }

    /// Package rule `r` (index into [`Catalog::rules`]).
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

    /// The type's name as facts files and messages write it (`Integer` for
    /// integers).
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
