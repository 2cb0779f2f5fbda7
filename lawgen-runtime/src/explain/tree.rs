//! The explanation tree: what an explanation says, before it is worded.
//!
//! Everything lawgen itself says is a [`Phrase`] (worded per language by
//! `words`); everything the package says (labels, article texts) was picked
//! in the explanation's language when the tree was built.

use crate::law::Date;
use crate::program::{CmpOp, Level, Lit, Status, Strength, Value, World};
use crate::{Policy, Request, Verdict};
use std::fmt;

/// A literal with its arguments, as an explanation names it: the literal's
/// id and the values, worded only when rendered (its `Display`:
/// `game_drawn(g1)`, `checkmate_delivered(g1, _)`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Atom {
    /// The literal: predicate and sign.
    pub lit: Lit,
    /// Its name as the package spells it, `~` before a negative one.
    pub name: String,
    /// The arguments in the predicate's order; `None` where the rule binds
    /// no value to the variable (shown `_`).
    pub args: Vec<Option<Value>>,
}

impl Atom {
    /// The arguments, when every one is bound.
    pub fn values(&self) -> Option<Vec<Value>> {
        self.args.iter().cloned().collect()
    }

    /// Is it the atom `request` asks to decide (the same judgment, by name
    /// as a [`Request`] names it, and the same values; either sign)?
    pub fn is_asked_by(&self, request: &Request) -> bool {
        self.name.trim_start_matches('~') == request.predicate
            && self.args.len() == request.args.len()
            && self
                .args
                .iter()
                .zip(&request.args)
                .all(|(a, r)| a.as_ref() == Some(r))
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match a {
                Some(v) => f.write_str(&super::fmt_value(v))?,
                None => f.write_str("_")?,
            }
        }
        f.write_str(")")
    }
}

/// A comparison of a rule body on the values bound (its `Display`: `50 > 30`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// The left side; `None` where no value is bound (shown `_`).
    pub left: Option<Value>,
    /// The operator.
    pub op: CmpOp,
    /// The right side; `None` where no value is bound.
    pub right: Option<Value>,
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |v: &Option<Value>| v.as_ref().map_or_else(|| "_".to_owned(), super::fmt_value);
        write!(
            f,
            "{} {} {}",
            side(&self.left),
            self.op.symbol(),
            side(&self.right)
        )
    }
}

/// A body item of a rule, on the values bound when it was tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// A status item: its literal must hold (established or supported).
    Holds(Atom),
    /// A comparison.
    Compare(Comparison),
    /// A `not` item: its literal must not hold at `status`.
    Not {
        /// What the literal must not be: established or supported.
        status: Status,
        /// The literal.
        atom: Atom,
    },
    /// Past the items as written: the rule's in-force input (explained as
    /// a rule not in force wherever it can fail).
    InForce,
}

impl Condition {
    /// How an explanation words it in language `lang` (`en`, `ru`):
    /// `p(x)`, `50 > 30`, `not established p(x)`.
    pub fn text(&self, lang: &str) -> String {
        super::words::condition(super::words::Lang::of(lang), self)
    }
}

/// The cited law text of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// Fragment id.
    pub fragment: String,
    /// Article locator, e.g. `article/9`.
    pub locator: String,
    /// The paragraph of the fragment text the label cites (trimmed), if found.
    pub quote: Option<String>,
    /// The package the fragment belongs to, when the law comes in layers.
    pub package: Option<String>,
    /// The edition the fragment belongs to (its label in the explanation's
    /// language, else its local name), if it names one.
    pub edition: Option<String>,
}

/// An edition and when it is in force (docs/reference.md#as-of-evaluation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditionSpan {
    /// Its label in the explanation's language, else its local name.
    pub name: String,
    /// The first day it is in force (`None`: on no day).
    pub from: Option<Date>,
    /// The last day it is in force (`None`: still in force).
    pub to: Option<Date>,
}

/// A rule as an explanation names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRef {
    /// The rule's full id.
    pub id: String,
    /// Local name, e.g. `SeventyFiveAutomaticDraw`.
    pub name: String,
    /// Strict, defeasible or defeater, as the explanation prints it beside the name.
    pub strength: Strength,
    /// Its label in the explanation's language, if it has one.
    pub label: Option<String>,
    /// The articles it implements, with the paragraph its label cites.
    pub anchors: Vec<Anchor>,
    /// The package the rule belongs to, when the law comes in layers.
    pub package: Option<String>,
}

/// A derogation as an explanation names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerogationRef {
    /// The derogation's full id.
    pub id: String,
    /// Its local name.
    pub name: String,
    /// Its label in the explanation's language, if it has one.
    pub label: Option<String>,
    /// The articles that displace the rules it sets aside.
    pub anchors: Vec<Anchor>,
    /// The package the derogation belongs to, when the law comes in layers.
    pub package: Option<String>,
}

/// A priority rule as an explanation names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriorityRef {
    /// The priority rule's full id.
    pub id: String,
    /// Its local name.
    pub name: String,
    /// Local name of the reason, e.g. `lex_specialis`.
    pub reason: Option<String>,
    /// Its label in the explanation's language, if it has one.
    pub label: Option<String>,
    /// The package the priority belongs to, when the law comes in layers.
    pub package: Option<String>,
}

/// Why a body item does not hold, as lawgen words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A status item that is not concluded at a level in a model.
    NotAt {
        /// The level lowering read the item at.
        level: Level,
        /// The model it was read in.
        world: World,
    },
    /// A comparison that is false on the bound values.
    False,
    /// A `not` item whose inner item holds.
    InnerHolds {
        /// What the inner literal is: established or supported.
        status: Status,
    },
}

impl Reason {
    /// How an explanation words it after the item, in language `lang`
    /// (`en`, `ru`): "is not established", "is false", …
    pub fn text(&self, lang: &str) -> String {
        super::words::reason(super::words::Lang::of(lang), self)
    }
}

/// How an attacking rule (a rule for the complement) fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not applicable under the conflict policy.
    Discarded {
        /// The body item that fails, with the values bound so far (e.g.
        /// `checkmate_delivered(g1, _)`).
        item: Condition,
        /// Why it fails (e.g. not established).
        reason: Reason,
    },
    /// Applicable, but a higher rule for the explained literal applies.
    Defeated {
        /// The rule for the explained literal that beats it.
        by: RuleRef,
        /// The priority that puts `by` above it.
        priority: PriorityRef,
    },
    /// Applicable and not defeated, so the explained literal is not
    /// established; `defeats` lists the explained side's rules it beats by
    /// priority (empty: neither side has priority — the conflict is
    /// ambiguous — or the attacker is a defeater, which beats nothing).
    /// `blocks`: the attacker is a defeater, which keeps the literal from
    /// being established without concluding the complement.
    Prevails {
        /// The explained literal's rules it beats, each with the priority
        /// that says so.
        defeats: Vec<(RuleRef, PriorityRef)>,
        /// It is a defeater.
        blocks: bool,
    },
}

/// A plain statement lawgen makes about a literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phrase {
    /// The literal is not concluded.
    NotConcluded,
    /// The complement of an empirical literal is a fact.
    ComplementIsFact {
        /// The complement, as given.
        lit: Atom,
    },
    /// An empirical literal that is not among the facts.
    NotGiven,
    /// No closure policy makes the facts of a predicate exhaustive, so a
    /// missing fact does not make its negation true.
    NoClosure {
        /// The predicate.
        pred: String,
    },
    /// A closure policy covers only its domain, which does not hold
    /// definitely for the tuple.
    ClosureCoversOnly {
        /// The policy.
        closure: String,
        /// The domain atom that does not hold.
        domain: Atom,
    },
    /// A judgment decided the other way.
    DecidedOtherWay {
        /// The complement that is given.
        lit: Atom,
    },
    /// A judgment nobody decided.
    NotDecided,
    /// An institutional literal no rule concludes.
    NoRule,
    /// A failing sub-literal is only supported.
    OnlySupported,
    /// A failing sub-literal is pending.
    Pending,
    /// A failing sub-literal is a judgment atom nobody decided.
    UndecidedJudgment,
    /// A status item with unbound (`_`) arguments holds for no value in the
    /// certain model.
    NoValue {
        /// The item's predicate is institutional (so it could be pending).
        institutional: bool,
        /// The tuples for which it is pending.
        pending: Vec<Atom>,
    },
    /// Lowering left no derivation to show (a lawgen bug).
    NoDerivation,
}

/// What a heading says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Title {
    /// `attackers (rules for ~p):`.
    Attackers {
        /// The literal the attackers conclude (or block).
        complement: String,
    },
    /// `why it is not established:`.
    WhyNotEstablished,
    /// Not established because the complement is definitely concluded.
    ComplementDefinite {
        /// The complement.
        lit: Atom,
        /// Where it holds (possible: only once judgments are decided).
        world: World,
    },
}

/// What a node of the explanation says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// The literal is an input fact.
    Fact,
    /// The explicit negative was derived by a closure policy; the child is
    /// the domain fact.
    Closure {
        /// The policy's full id.
        id: String,
        /// Its local name.
        name: String,
        /// The package the closure policy belongs to, when the law comes in layers.
        package: Option<String>,
        /// Its label in the explanation's language, if it has one.
        label: Option<String>,
        /// The snapshot the facts were taken from, if the policy names one.
        snapshot: Option<String>,
        /// The date the facts are complete as of, if the policy names one.
        complete_as_of: Option<String>,
        /// The positive atom that is not a fact.
        absent: Atom,
    },
    /// The literal is concluded by a ground instance of a rule; children are
    /// the body items (then the attackers, if any).
    Rule {
        /// The rule.
        rule: RuleRef,
        /// The level it concludes at.
        level: Level,
        /// The model it concludes in.
        world: World,
    },
    /// A comparison of the rule body, evaluated.
    Compare {
        /// The comparison on the bound values (`50 > 30`).
        comparison: Comparison,
        /// Whether it holds.
        holds: bool,
    },
    /// A `not` item of the rule body that is satisfied.
    Absent {
        /// The literal that does not hold.
        atom: Atom,
        /// What it is not: established or supported.
        status: Status,
    },
    /// An undecided judgment atom.
    Judgment {
        /// Who decides it.
        authority: String,
        /// What the authority is asked to exercise.
        capability: String,
        /// Whether it is requested (a rule instance whose other items hold
        /// in P reads it).
        requested: bool,
    },
    /// A heading grouping its children.
    Group {
        /// What the heading says.
        title: Title,
    },
    /// A rule for the complement and how it fared.
    Attacker {
        /// The attacking rule.
        rule: RuleRef,
        /// Discarded, defeated, or prevailing.
        outcome: Outcome,
    },
    /// A rule for the literal that does not apply.
    Unsatisfied {
        /// The rule.
        rule: RuleRef,
        /// Its first body item that fails, with the values bound so far.
        item: Condition,
        /// Why the item fails.
        reason: Reason,
    },
    /// An imported rule for the literal that a derogation set aside: not
    /// part of the program.
    SetAside {
        /// The rule, as its own package writes it.
        rule: RuleRef,
        /// The derogations that set it aside.
        by: Vec<DerogationRef>,
        /// Its body holds here (at Σ, in the certain model), so it would
        /// have concluded the literal.
        applies: bool,
    },
    /// A rule for the literal that is not in force on the case's date:
    /// no edition it is anchored to is, or a derogation in force sets it
    /// aside.
    NotInForce {
        /// The rule.
        rule: RuleRef,
        /// The case's date.
        date: Option<Date>,
        /// The dated editions it is anchored to, with when each is in
        /// force (empty when they are in force and a derogation is not).
        editions: Vec<EditionSpan>,
        /// The dated derogations in force on the date that set it aside,
        /// each with its dated editions in force.
        by: Vec<(DerogationRef, Vec<EditionSpan>)>,
    },
    /// A plain statement.
    Note {
        /// What it says.
        phrase: Phrase,
    },
    /// Cut: the explanation is too deep.
    Elided,
}

/// One node of the explanation tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The literal this node is about, when it is about one.
    pub literal: Option<Atom>,
    /// What the node says.
    pub kind: NodeKind,
    /// What it rests on: body items, attackers, sub-conclusions.
    pub children: Vec<Node>,
}

impl Node {
    pub(crate) fn leaf(literal: Option<Atom>, kind: NodeKind) -> Node {
        Node {
            literal,
            kind,
            children: Vec::new(),
        }
    }

    pub(crate) fn note(literal: Option<Atom>, phrase: Phrase) -> Node {
        Node::leaf(literal, NodeKind::Note { phrase })
    }

    /// This node and every node below it, depth first.
    pub fn walk(&self) -> Vec<&Node> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.walk());
        }
        out
    }
}

/// The explanation of one ground literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The literal, e.g. `game_drawn(g1)`.
    pub literal: Atom,
    /// Its verdict, as the typed API gives it ([`Verdict::decide`] over the
    /// output sections). A judgment atom nobody decided is in no section:
    /// not concluded, with `undecided` set.
    pub verdict: Verdict,
    /// The literal is a judgment atom nobody decided.
    pub undecided: bool,
    /// The conflict policy the evaluation ran under.
    pub policy: Policy,
    /// Top-level nodes (the derivation, the reasons).
    pub tree: Vec<Node>,
    /// The judgment requests the explanation cites.
    pub requests: Vec<Request>,
    /// The language labels were picked in and lawgen's words are rendered in.
    pub lang: String,
}

impl Explanation {
    /// The explained literal as text, e.g. `game_drawn(g1)` (typed: the
    /// [`Explanation::literal`] field).
    pub fn literal(&self) -> String {
        self.literal.to_string()
    }

    /// `definitely`, `defeasibly`, `pending`, `supported`, `undecided` or
    /// `not_concluded`.
    pub fn verdict(&self) -> &'static str {
        if self.undecided {
            "undecided"
        } else {
            self.verdict.as_str()
        }
    }

    /// The rules at the top of the tree: those that conclude the literal,
    /// or support it, in the order the explanation gives them (empty when
    /// nothing concludes it). Typed, so that no caller reads them back
    /// from [`Explanation::to_json`].
    pub fn deciding_rules(&self) -> impl Iterator<Item = &RuleRef> {
        self.tree.iter().filter_map(|n| match &n.kind {
            NodeKind::Rule { rule, .. } => Some(rule),
            _ => None,
        })
    }

    /// Every node of the tree, depth first.
    pub fn nodes(&self) -> Vec<&Node> {
        self.tree.iter().flat_map(Node::walk).collect()
    }

    /// The tree as text (what `lawgen explain` prints).
    pub fn text(&self) -> String {
        super::render::text(self)
    }

    /// The tree as JSON (what `lawgen explain --format json` prints).
    pub fn to_json(&self) -> String {
        super::render::json(self)
    }
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}
