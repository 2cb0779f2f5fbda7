//! Explanations: why a ground literal holds, is contested, pending, or not
//! concluded, as a tree an arbiter can read (rule, label, anchor with the
//! cited article text, sub-conclusions, facts, closure policies, attackers
//! and how they lost, judgment requests).
//!
//! The explainer is backend-neutral: it reads the canonical conclusions
//! ([`crate::interp::Conclusions`]) and re-grounds rule bodies of the checked
//! [`Model`] against them. The store is consulted only to tell input facts
//! apart from derived literals and, when available, for the round in which a
//! literal was derived, so that the chosen derivation is well-founded (every
//! premise strictly earlier than its conclusion). Along a path the explainer
//! never re-enters a literal it is already explaining, and it stops at
//! [`MAX_DEPTH`] with "…".

use crate::driver::{Evaluated, Loaded};
use crate::interp::{Policy, Request, Row};
use crate::lower::{Level, World};
use crate::model::{Atom, Item, Lit, Model, PredId, Rule, RuleId, Term, Ty, Value};
use crate::program::{RelId, Role, Section};
use crate::syntax::{CmpOp, RelationKind, Status, Strength};
use serde_json::{json, Value as J};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Derivations deeper than this are cut with "…".
pub const MAX_DEPTH: usize = 12;

/// Ground rule instances tried per rule when choosing a derivation.
const GROUNDING_LIMIT: usize = 64;

/// A ground literal to explain: `p(args)` or `~p(args)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    pub lit: Lit,
    pub args: Vec<Value>,
}

/// The status of the explained literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// +Δ.
    Definitely,
    /// +∂ but not +Δ.
    Defeasibly,
    /// +Σ but not +∂: there are grounds, but they are contested.
    Supported,
    /// +∂ in the possible model only: depends on undecided judgments.
    Pending,
    /// A judgment atom nobody decided yet.
    Undecided,
    /// None of the above.
    NotConcluded,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Definitely => "definitely",
            Verdict::Defeasibly => "defeasibly",
            Verdict::Supported => "supported",
            Verdict::Pending => "pending",
            Verdict::Undecided => "undecided",
            Verdict::NotConcluded => "not_concluded",
        }
    }

    fn headline(self) -> &'static str {
        match self {
            Verdict::Definitely => "DEFINITELY holds",
            Verdict::Defeasibly => "DEFEASIBLY holds (not definitely)",
            Verdict::Supported => "only SUPPORTED (there are grounds, but it is not established)",
            Verdict::Pending => "PENDING (holds only if pending judgments are decided for it)",
            Verdict::Undecided => "UNDECIDED judgment (a decision is requested)",
            Verdict::NotConcluded => "NOT CONCLUDED",
        }
    }
}

/// The cited law text of a rule or priority.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// Fragment id.
    pub fragment: String,
    /// Article locator, e.g. `article/9`.
    pub locator: String,
    /// The paragraph of the fragment text the label cites (trimmed), if found.
    pub quote: Option<String>,
}

/// A rule as an explanation names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRef {
    pub id: String,
    /// Local name, e.g. `SeventyFiveAutomaticDraw`.
    pub name: String,
    pub strength: Strength,
    pub label: Option<String>,
    pub anchors: Vec<Anchor>,
}

/// A priority rule as an explanation names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriorityRef {
    pub id: String,
    pub name: String,
    /// Local name of the reason, e.g. `lex_specialis`.
    pub reason: Option<String>,
    pub label: Option<String>,
}

/// How an attacking rule (a rule for the complement) fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not applicable under the conflict policy: `item` is `reason`
    /// (e.g. `checkmate_delivered(g1, _)` / `is not established`).
    Discarded { item: String, reason: String },
    /// Applicable, but a higher rule for the explained literal applies.
    Defeated { by: RuleRef, priority: PriorityRef },
    /// Applicable and not defeated, so the explained literal is not
    /// established; `defeats` lists the explained side's rules it beats by
    /// priority (empty: neither side has priority — the conflict is ambiguous).
    Prevails { defeats: Vec<(String, PriorityRef)> },
}

/// What a node of the explanation says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// The literal is an input fact.
    Fact,
    /// The explicit negative was derived by a closure policy; the child is
    /// the domain fact.
    Closure {
        id: String,
        name: String,
        label: Option<String>,
        snapshot: Option<String>,
        complete_as_of: Option<String>,
        /// The positive atom that is not a fact.
        absent: String,
    },
    /// The literal is concluded by a ground instance of `rule` at `level`;
    /// children are the body items (then the attackers, if any).
    Rule { rule: RuleRef, level: &'static str },
    /// A comparison of the rule body, evaluated.
    Compare { text: String, holds: bool },
    /// A `not` item of the rule body that is satisfied.
    Absent { text: String },
    /// An undecided judgment atom (requested).
    Judgment {
        authority: String,
        capability: String,
    },
    /// A heading grouping its children.
    Group { title: String },
    /// A rule for the complement and how it fared.
    Attacker { rule: RuleRef, outcome: Outcome },
    /// A rule for the literal that does not apply: `item` is `reason`.
    Unsatisfied {
        rule: RuleRef,
        item: String,
        reason: String,
    },
    /// A plain statement (e.g. "not given as a fact").
    Note { text: String },
    /// Cut: too deep or already being explained on this path.
    Elided { reason: String },
}

/// One node of the explanation tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The ground literal this node is about, when it is about one.
    pub literal: Option<String>,
    pub kind: NodeKind,
    pub children: Vec<Node>,
}

/// The explanation of one ground literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The literal, e.g. `game_drawn(g1)`.
    pub literal: String,
    pub verdict: Verdict,
    pub policy: Policy,
    /// Top-level nodes (the derivation, the reasons).
    pub tree: Vec<Node>,
    /// The judgment requests the verdict depends on.
    pub requests: Vec<Request>,
}

// ---------------------------------------------------------------------------
// Parsing a query

/// Parses `game_drawn(g1)`, `~game_drawn(g1)`, `castling_legal(g1, white, kingside)`.
/// Integers are unquoted; names may be `"quoted"`.
pub fn parse_query(model: &Model, text: &str) -> Result<Query, String> {
    let t = text.trim();
    let (negative, rest) = match t.strip_prefix('~') {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let (name, args_text) = match rest.find('(') {
        Some(i) => {
            let inner = rest[i + 1..].trim_end();
            let Some(inner) = inner.strip_suffix(')') else {
                return Err(format!(
                    "query `{t}` has no closing `)`; write it like `game_drawn(g1)`"
                ));
            };
            (rest[..i].trim(), Some(inner))
        }
        None => (rest.trim(), None),
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!(
            "query `{t}` is not a literal; write it like `game_drawn(g1)` or `~game_drawn(g1)`"
        ));
    }
    let Some(pred) = model.pred_by_name(name) else {
        let close = close_names(model, name);
        let hint = if close.is_empty() {
            "; `lawgen summary PACKAGE` lists the predicates".to_owned()
        } else {
            format!("; did you mean {}?", close.join(", "))
        };
        return Err(format!("unknown predicate `{name}`{hint}"));
    };
    let p = model.pred(pred);
    let raw = match args_text {
        Some(a) => split_args(a)?,
        None => Vec::new(),
    };
    let signature = || {
        let cols: Vec<String> = p
            .params
            .iter()
            .zip(&p.param_names)
            .map(|(ty, n)| match n {
                Some(n) => format!("{n}: {}", model.type_name(*ty)),
                None => model.type_name(*ty).to_owned(),
            })
            .collect();
        format!("{}({})", p.local, cols.join(", "))
    };
    if raw.len() != p.params.len() {
        return Err(format!(
            "`{}` takes {} argument{}, the query gives {}; write {}",
            p.local,
            p.params.len(),
            if p.params.len() == 1 { "" } else { "s" },
            raw.len(),
            signature()
        ));
    }
    let mut args = Vec::new();
    for (i, ((s, quoted), ty)) in raw.iter().zip(&p.params).enumerate() {
        match ty {
            Ty::Int => match (quoted, s.parse::<i64>()) {
                (false, Ok(v)) => args.push(Value::Int(v)),
                _ => {
                    return Err(format!(
                        "argument {} of `{}` must be an integer (column type Integer), got `{}`; \
                         write integers unquoted, as in {}",
                        i + 1,
                        p.local,
                        s,
                        signature()
                    ))
                }
            },
            Ty::Entity(_) => {
                if s.is_empty() {
                    return Err(format!(
                        "argument {} of `{}` is empty; write {}",
                        i + 1,
                        p.local,
                        signature()
                    ));
                }
                args.push(Value::Entity(s.clone()));
            }
        }
    }
    Ok(Query {
        lit: Lit { pred, negative },
        args,
    })
}

/// Splits `a, "b c", 3` into (text, quoted) pairs.
fn split_args(s: &str) -> Result<Vec<(String, bool)>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut cur = String::new();
        let mut quoted = false;
        if chars.peek() == Some(&'"') {
            quoted = true;
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(format!("unterminated quote in `{s}`")),
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(c) => cur.push(c),
                        None => return Err(format!("unterminated quote in `{s}`")),
                    },
                    Some(c) => cur.push(c),
                }
            }
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ',' {
                    break;
                }
                cur.push(c);
                chars.next();
            }
            cur = cur.trim().to_owned();
        }
        out.push((cur, quoted));
        match chars.next() {
            None => break,
            Some(',') => {}
            Some(c) => {
                return Err(format!(
                    "unexpected `{c}` in the arguments `{s}`; separate arguments with commas"
                ))
            }
        }
    }
    Ok(out)
}

fn close_names(model: &Model, name: &str) -> Vec<String> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = model
        .preds
        .iter()
        .filter_map(|p| {
            let l = p.local.to_lowercase();
            let d = levenshtein(&lower, &l);
            let limit = (lower.chars().count() / 3).max(2);
            if d <= limit || l.contains(&lower) || (lower.len() >= 4 && lower.contains(&l)) {
                Some((d, p.local.as_str()))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(5)
        .map(|(_, n)| n.to_owned())
        .collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

// ---------------------------------------------------------------------------
// Explaining

/// Explains the query against an evaluation of the loaded package.
pub fn explain(loaded: &Loaded, ev: &Evaluated, q: &Query) -> Explanation {
    let cx = Cx::new(&loaded.model, ev);
    let row: Row = q.args.clone();
    let literal = cx.fmt_lit(q.lit, &row);
    let verdict = cx.verdict(q.lit, &row);
    let mut path = Vec::new();
    let mut tree = Vec::new();
    match verdict {
        Verdict::Definitely => {
            tree.push(cx.derive_at(q.lit, &row, Level::Definite, World::Certain, &mut path, 0));
        }
        Verdict::Defeasibly => {
            tree.push(cx.derive_at(q.lit, &row, Level::Defeasible, World::Certain, &mut path, 0));
        }
        Verdict::Supported => {
            tree.push(cx.derive_at(q.lit, &row, Level::Supported, World::Certain, &mut path, 0));
            tree.push(cx.why_not_established(q.lit, &row));
        }
        Verdict::Pending => {
            tree.push(cx.derive_at(
                q.lit,
                &row,
                Level::Defeasible,
                World::Possible,
                &mut path,
                0,
            ));
        }
        Verdict::Undecided => {
            let (authority, capability) = cx.external(q.lit.pred);
            tree.push(Node {
                literal: None,
                kind: NodeKind::Judgment {
                    authority,
                    capability,
                },
                children: Vec::new(),
            });
        }
        Verdict::NotConcluded => tree.extend(cx.why_not(q.lit, &row, 1)),
    }
    // Requests: undecided judgment atoms in the derivation (and the literal itself).
    let mut atoms = BTreeSet::new();
    for n in &tree {
        collect_judgments(n, &mut atoms);
    }
    if verdict == Verdict::Undecided {
        atoms.insert(literal.clone());
    }
    let requests: Vec<Request> = ev
        .conclusions
        .requests
        .iter()
        .filter(|r| {
            let text = format!(
                "{}({})",
                r.predicate,
                r.args.iter().map(fmt_value).collect::<Vec<_>>().join(", ")
            );
            atoms.contains(&text)
        })
        .cloned()
        .collect();
    Explanation {
        literal,
        verdict,
        policy: ev.conclusions.policy,
        tree,
        requests,
    }
}

fn collect_judgments(n: &Node, out: &mut BTreeSet<String>) {
    if let (NodeKind::Judgment { .. }, Some(l)) = (&n.kind, &n.literal) {
        out.insert(l.trim_start_matches('~').to_owned());
    }
    for c in &n.children {
        collect_judgments(c, out);
    }
}

type Binding = Vec<Option<Value>>;

/// The deepest point a body search reached before an item failed.
struct Failure {
    depth: usize,
    item: usize,
    binding: Binding,
}

struct Search {
    found: Vec<Binding>,
    limit: usize,
    fail: Option<Failure>,
}

struct Cx<'a> {
    m: &'a Model,
    ev: &'a Evaluated,
    facts: HashMap<Lit, RelId>,
    outputs: HashMap<(Section, Lit), RelId>,
    policy: Policy,
}

fn section_of(l: Level) -> Section {
    match l {
        Level::Definite => Section::Definitely,
        Level::Defeasible => Section::Defeasibly,
        Level::Supported => Section::Supported,
    }
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Definite => "definitely",
        Level::Defeasible => "defeasibly",
        Level::Supported => "supported",
    }
}

fn other(w: World) -> World {
    match w {
        World::Certain => World::Possible,
        World::Possible => World::Certain,
    }
}

fn fmt_value(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Entity(e) => {
            if !e.is_empty()
                && e.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
            {
                e.clone()
            } else {
                J::from(e.as_str()).to_string()
            }
        }
    }
}

impl<'a> Cx<'a> {
    fn new(m: &'a Model, ev: &'a Evaluated) -> Self {
        let mut facts = HashMap::new();
        for (i, r) in ev.program.relations.iter().enumerate() {
            if let Role::Facts(l) = r.role {
                facts.insert(l, RelId(i as u32));
            }
        }
        let mut outputs = HashMap::new();
        for o in &ev.program.outputs {
            if o.section != Section::Pending {
                outputs.insert((o.section, o.lit), o.rel);
            }
        }
        Cx {
            m,
            ev,
            facts,
            outputs,
            policy: ev.conclusions.policy,
        }
    }

    fn fmt_lit(&self, l: Lit, row: &[Value]) -> String {
        format!(
            "{}({})",
            self.m.lit_name(l),
            row.iter().map(fmt_value).collect::<Vec<_>>().join(", ")
        )
    }

    fn fmt_atom(&self, a: &Atom, b: &Binding) -> String {
        let args: Vec<String> = a
            .args
            .iter()
            .map(|t| match self.term(t, b) {
                Some(v) => fmt_value(&v),
                None => "_".to_owned(),
            })
            .collect();
        format!("{}({})", self.m.lit_name(a.lit()), args.join(", "))
    }

    fn term(&self, t: &Term, b: &Binding) -> Option<Value> {
        match t {
            Term::Var(v) => b.get(v.0 as usize).cloned().flatten(),
            Term::Value(v) => Some(v.clone()),
        }
    }

    fn encode(&self, row: &[Value]) -> Option<Vec<i64>> {
        row.iter().map(|v| self.ev.store.encode(v)).collect()
    }

    fn is_fact(&self, l: Lit, row: &[Value]) -> bool {
        match (self.facts.get(&l), self.encode(row)) {
            (Some(r), Some(t)) => self.ev.store.contains(*r, &t),
            _ => false,
        }
    }

    fn round(&self, l: Lit, row: &[Value], lv: Level) -> Option<u32> {
        let rel = self.outputs.get(&(section_of(lv), l))?;
        self.ev.store.round(*rel, &self.encode(row)?)
    }

    fn section(&self, s: Section, l: Lit) -> Option<&'a BTreeSet<Row>> {
        self.ev
            .conclusions
            .sections
            .get(&s)
            .and_then(|m| m.get(&self.m.lit_name(l)))
    }

    fn in_section(&self, s: Section, l: Lit, row: &[Value]) -> bool {
        self.section(s, l).is_some_and(|set| set.contains(row))
    }

    fn undecided(&self, l: Lit, row: &[Value]) -> bool {
        self.m.pred(l.pred).kind == RelationKind::Judgment
            && !self.is_fact(l, row)
            && !self.is_fact(l.complement(), row)
    }

    fn holds(&self, l: Lit, row: &[Value], lv: Level, w: World) -> bool {
        if self.in_section(section_of(lv), l, row) {
            return true;
        }
        w == World::Possible
            && (self.in_section(Section::Pending, l, row) || self.undecided(l, row))
    }

    /// The strongest level at which `l(row)` holds in `w`.
    fn strongest(&self, l: Lit, row: &[Value], w: World) -> Option<Level> {
        [Level::Definite, Level::Defeasible, Level::Supported]
            .into_iter()
            .find(|&lv| self.holds(l, row, lv, w))
    }

    /// Candidate rows of `l` at `lv` in `w` (a superset is fine: callers re-check).
    fn rows(&self, l: Lit, lv: Level, w: World) -> Vec<Row> {
        let mut out: Vec<Row> = self
            .section(section_of(lv), l)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        if w == World::Possible {
            if let Some(s) = self.section(Section::Pending, l) {
                out.extend(s.iter().cloned());
            }
            if self.m.pred(l.pred).kind == RelationKind::Judgment {
                let local = &self.m.pred(l.pred).local;
                out.extend(
                    self.ev
                        .conclusions
                        .requests
                        .iter()
                        .filter(|r| &r.predicate == local)
                        .map(|r| r.args.clone()),
                );
            }
        }
        out
    }

    fn verdict(&self, l: Lit, row: &[Value]) -> Verdict {
        if self.in_section(Section::Definitely, l, row) {
            Verdict::Definitely
        } else if self.in_section(Section::Defeasibly, l, row) {
            Verdict::Defeasibly
        } else if self.in_section(Section::Pending, l, row) {
            Verdict::Pending
        } else if self.in_section(Section::Supported, l, row) {
            Verdict::Supported
        } else if self.undecided(l, row) {
            Verdict::Undecided
        } else {
            Verdict::NotConcluded
        }
    }

    fn external(&self, p: PredId) -> (String, String) {
        match &self.m.pred(p).external {
            Some(e) => (e.authority.clone(), e.capability.clone()),
            None => (String::new(), String::new()),
        }
    }

    // -- rule references --------------------------------------------------

    fn rule_ref(&self, r: RuleId) -> RuleRef {
        let rule = self.m.rule(r);
        let anchors = rule
            .anchors
            .iter()
            .map(|f| {
                let frag = &self.m.fragments[f.0 as usize];
                Anchor {
                    fragment: frag.id.clone(),
                    locator: frag.locator.clone(),
                    quote: frag
                        .text
                        .as_deref()
                        .and_then(|t| cited_paragraph(t, rule.label.as_deref()?)),
                }
            })
            .collect();
        RuleRef {
            id: rule.id.clone(),
            name: rule.local.clone(),
            strength: rule.strength,
            label: rule.label.clone(),
            anchors,
        }
    }

    fn priority_ref(&self, higher: RuleId, lower: RuleId) -> Option<PriorityRef> {
        self.m
            .priorities
            .iter()
            .find(|p| p.higher == higher && p.lower == lower)
            .map(|p| PriorityRef {
                id: p.id.clone(),
                name: crate::model::local_name(&p.id).to_owned(),
                reason: p
                    .reason
                    .as_deref()
                    .map(|r| crate::model::local_name(r).to_owned()),
                label: p.label.clone(),
            })
    }

    // -- grounding ----------------------------------------------------------

    /// Join order: status items with the most bound arguments first (judgment
    /// atoms last), filters as soon as their variables are bound.
    fn plan(&self, rule: &Rule, bound: &HashSet<u32>) -> Vec<usize> {
        let mut bound = bound.clone();
        let vars_of = |a: &Atom| -> Vec<u32> {
            a.args
                .iter()
                .filter_map(|t| match t {
                    Term::Var(v) => Some(v.0),
                    Term::Value(_) => None,
                })
                .collect()
        };
        let mut binding_vars: HashSet<u32> = HashSet::new();
        for it in &rule.body {
            if let Item::Status { atom, .. } = it {
                binding_vars.extend(vars_of(atom));
            }
        }
        let filter_vars = |it: &Item| -> Vec<u32> {
            match it {
                Item::Compare { left, right, .. } => [left, right]
                    .into_iter()
                    .filter_map(|t| match t {
                        Term::Var(v) => Some(v.0),
                        Term::Value(_) => None,
                    })
                    .collect(),
                Item::Not { atom, .. } => vars_of(atom)
                    .into_iter()
                    .filter(|v| binding_vars.contains(v))
                    .collect(),
                Item::Status { .. } => Vec::new(),
            }
        };
        let mut left: Vec<usize> = (0..rule.body.len()).collect();
        let mut order = Vec::new();
        while !left.is_empty() {
            if let Some(p) = left.iter().position(|&i| {
                !matches!(rule.body[i], Item::Status { .. })
                    && filter_vars(&rule.body[i]).iter().all(|v| bound.contains(v))
            }) {
                order.push(left.remove(p));
                continue;
            }
            let best = left
                .iter()
                .enumerate()
                .filter_map(|(p, &i)| match &rule.body[i] {
                    Item::Status { atom, .. } => {
                        let judgment = self.m.pred(atom.pred).kind == RelationKind::Judgment;
                        let b = atom
                            .args
                            .iter()
                            .filter(|t| match t {
                                Term::Var(v) => bound.contains(&v.0),
                                Term::Value(_) => true,
                            })
                            .count();
                        Some(((!judgment, b, std::cmp::Reverse(i)), p))
                    }
                    _ => None,
                })
                .max()
                .map(|(_, p)| p);
            match best {
                Some(p) => {
                    let i = left.remove(p);
                    if let Item::Status { atom, .. } = &rule.body[i] {
                        bound.extend(vars_of(atom));
                    }
                    order.push(i);
                }
                None => order.append(&mut left),
            }
        }
        order
    }

    /// Ground instances of `r` concluding `row` with every body item satisfied
    /// at `lv` in `w` (up to `limit`), or the deepest failure.
    fn ground(&self, r: RuleId, row: &[Value], lv: Level, w: World, limit: usize) -> Search {
        let rule = self.m.rule(r);
        let mut st = Search {
            found: Vec::new(),
            limit,
            fail: None,
        };
        let mut b: Binding = vec![None; rule.vars.len()];
        for (t, v) in rule.head.args.iter().zip(row) {
            match t {
                Term::Var(x) => match &b[x.0 as usize] {
                    Some(old) if old != v => return st,
                    _ => b[x.0 as usize] = Some(v.clone()),
                },
                Term::Value(c) if c != v => return st,
                Term::Value(_) => {}
            }
        }
        let bound: HashSet<u32> = (0..b.len() as u32)
            .filter(|&i| b[i as usize].is_some())
            .collect();
        let order = self.plan(rule, &bound);
        self.search(rule, &order, 0, &mut b, lv, w, &mut st);
        st
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        rule: &Rule,
        order: &[usize],
        k: usize,
        b: &mut Binding,
        lv: Level,
        w: World,
        st: &mut Search,
    ) {
        if st.found.len() >= st.limit {
            return;
        }
        if k == order.len() {
            st.found.push(b.clone());
            return;
        }
        let idx = order[k];
        let mut any = false;
        match &rule.body[idx] {
            Item::Status { status, atom } => {
                let l = item_level(*status, lv);
                for row in self.rows(atom.lit(), l, w) {
                    let saved = b.clone();
                    if self.unify(atom, &row, b) && self.holds(atom.lit(), &row, l, w) {
                        any = true;
                        self.search(rule, order, k + 1, b, lv, w, st);
                    }
                    *b = saved;
                    if st.found.len() >= st.limit {
                        return;
                    }
                }
                // A fully bound undecided judgment atom holds in P.
                if !any && w == World::Possible {
                    let ground: Option<Row> = atom.args.iter().map(|t| self.term(t, b)).collect();
                    if let Some(g) = ground {
                        if self.undecided(atom.lit(), &g) {
                            any = true;
                            self.search(rule, order, k + 1, b, lv, w, st);
                        }
                    }
                }
            }
            Item::Compare { left, op, right } => {
                if self.compare(left, *op, right, b) == Some(true) {
                    any = true;
                    self.search(rule, order, k + 1, b, lv, w, st);
                }
            }
            Item::Not { status, atom } => {
                if self.not_holds(*status, atom, b, w) {
                    any = true;
                    self.search(rule, order, k + 1, b, lv, w, st);
                }
            }
        }
        if !any && st.fail.as_ref().is_none_or(|f| k > f.depth) {
            st.fail = Some(Failure {
                depth: k,
                item: idx,
                binding: b.clone(),
            });
        }
    }

    fn unify(&self, a: &Atom, row: &[Value], b: &mut Binding) -> bool {
        for (t, v) in a.args.iter().zip(row) {
            match t {
                Term::Var(x) => match &b[x.0 as usize] {
                    Some(old) if old != v => return false,
                    Some(_) => {}
                    None => b[x.0 as usize] = Some(v.clone()),
                },
                Term::Value(c) => {
                    if c != v {
                        return false;
                    }
                }
            }
        }
        true
    }

    fn compare(&self, left: &Term, op: CmpOp, right: &Term, b: &Binding) -> Option<bool> {
        let (x, y) = (self.term(left, b)?, self.term(right, b)?);
        Some(match op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            _ => {
                let (Value::Int(x), Value::Int(y)) = (x, y) else {
                    return Some(false);
                };
                match op {
                    CmpOp::Lt => x < y,
                    CmpOp::Le => x <= y,
                    CmpOp::Gt => x > y,
                    _ => x >= y,
                }
            }
        })
    }

    /// `not status atom` under `b`, checked against the other world (§4.6);
    /// unbound variables are existential.
    fn not_holds(&self, status: Status, atom: &Atom, b: &Binding, w: World) -> bool {
        let l = match status {
            Status::Established => Level::Defeasible,
            Status::Supported => Level::Supported,
        };
        let ow = other(w);
        !self.rows(atom.lit(), l, ow).iter().any(|row| {
            let mut bb = b.clone();
            self.unify(atom, row, &mut bb) && self.holds(atom.lit(), row, l, ow)
        })
    }

    fn fmt_compare(&self, left: &Term, op: CmpOp, right: &Term, b: &Binding) -> String {
        let show = |t: &Term| match self.term(t, b) {
            Some(v) => fmt_value(&v),
            None => "_".to_owned(),
        };
        format!("{} {} {}", show(left), op.symbol(), show(right))
    }

    /// "`item`" and "why it fails" for a search failure.
    /// `lv` words the reason ("not established" at ∂, "not supported" at Σ).
    fn failure_text(&self, r: RuleId, f: &Failure, lv: Level) -> (String, String) {
        let rule = self.m.rule(r);
        match &rule.body[f.item] {
            Item::Status { status, atom } => {
                let reason = match (status, lv) {
                    (Status::Supported, _) | (_, Level::Supported) => "is not supported",
                    (_, Level::Definite) => "is not definitely concluded",
                    _ => "is not established",
                };
                (self.fmt_atom(atom, &f.binding), reason.to_owned())
            }
            Item::Compare { left, op, right } => (
                self.fmt_compare(left, *op, right, &f.binding),
                "is false".to_owned(),
            ),
            Item::Not { status, atom } => (
                format!(
                    "not {} {}",
                    status.as_str(),
                    self.fmt_atom(atom, &f.binding)
                ),
                format!(
                    "fails: {} is {}",
                    self.fmt_atom(atom, &f.binding),
                    status.as_str()
                ),
            ),
        }
    }

    // -- derivations ----------------------------------------------------------

    /// Explains why `l(row)` holds at (at least) `need` in `w`.
    fn derive_at(
        &self,
        l: Lit,
        row: &[Value],
        need: Level,
        w: World,
        path: &mut Vec<(Lit, Row)>,
        depth: usize,
    ) -> Node {
        let literal = if depth == 0 {
            None
        } else {
            Some(self.fmt_lit(l, row))
        };
        let leaf = |kind| Node {
            literal: literal.clone(),
            kind,
            children: Vec::new(),
        };
        if depth > MAX_DEPTH {
            return leaf(NodeKind::Elided {
                reason: "explanation too deep".into(),
            });
        }
        if self.is_fact(l, row) {
            return leaf(NodeKind::Fact);
        }
        if let Some(n) = self.closure_node(l, row, w, literal.clone(), path, depth) {
            return n;
        }
        if self.m.pred(l.pred).kind == RelationKind::Judgment {
            if self.undecided(l, row) {
                let (authority, capability) = self.external(l.pred);
                return leaf(NodeKind::Judgment {
                    authority,
                    capability,
                });
            }
            return leaf(NodeKind::Note {
                text: "decided the other way".into(),
            });
        }
        if path.iter().any(|(pl, pr)| *pl == l && pr.as_slice() == row) {
            return leaf(NodeKind::Elided {
                reason: "already being explained above".into(),
            });
        }
        let Some(strongest) = self.strongest(l, row, w) else {
            return leaf(NodeKind::Note {
                text: "not concluded".into(),
            });
        };
        // Explain at the strongest level that holds (never weaker than needed).
        let start = if strongest <= need { strongest } else { need };
        path.push((l, row.to_vec()));
        let mut chosen = None;
        for lv in [Level::Definite, Level::Defeasible, Level::Supported] {
            if lv < start {
                continue;
            }
            if let Some(c) = self.choose_instance(l, row, lv, w, path) {
                chosen = Some((lv, c));
                break;
            }
        }
        let node = match chosen {
            None => leaf(NodeKind::Elided {
                reason: "only recursive derivations remain on this path".into(),
            }),
            Some((lv, (r, b))) => {
                let mut n = self.rule_node(r, &b, lv, w, path, depth);
                n.literal = literal.clone();
                if lv == Level::Defeasible
                    && w == World::Certain
                    && self.m.rules_for(l.complement()).next().is_some()
                {
                    n.children.push(self.attackers(l, row, w));
                }
                n
            }
        };
        path.pop();
        node
    }

    /// Picks a ground rule instance for `l(row)` at `lv`: well-founded by
    /// derivation round when the store knows them, never re-entering `path`.
    fn choose_instance(
        &self,
        l: Lit,
        row: &[Value],
        lv: Level,
        w: World,
        path: &[(Lit, Row)],
    ) -> Option<(RuleId, Binding)> {
        let head_round = if w == World::Certain {
            self.round(l, row, lv)
        } else {
            None
        };
        let mut fallback = None;
        for r in self.m.rules_for(l) {
            let s = self.m.rule(r).strength;
            if s == Strength::Defeater || (lv == Level::Definite && s != Strength::Strict) {
                continue;
            }
            for b in self.ground(r, row, lv, w, GROUNDING_LIMIT).found {
                let atoms = self.body_atoms(r, &b, lv);
                if atoms
                    .iter()
                    .any(|(al, ar, _)| path.iter().any(|(pl, pr)| pl == al && pr == ar))
                {
                    continue;
                }
                if let Some(h) = head_round {
                    let earlier = atoms.iter().all(|(al, ar, alv)| {
                        self.is_fact(*al, ar) || self.round(*al, ar, *alv).is_some_and(|x| x < h)
                    });
                    if earlier {
                        return Some((r, b));
                    }
                }
                if fallback.is_none() {
                    fallback = Some((r, b));
                }
            }
        }
        fallback
    }

    fn body_atoms(&self, r: RuleId, b: &Binding, lv: Level) -> Vec<(Lit, Row, Level)> {
        self.m
            .rule(r)
            .body
            .iter()
            .filter_map(|it| match it {
                Item::Status { status, atom } => {
                    let row: Option<Row> = atom.args.iter().map(|t| self.term(t, b)).collect();
                    row.map(|row| (atom.lit(), row, item_level(*status, lv)))
                }
                _ => None,
            })
            .collect()
    }

    fn rule_node(
        &self,
        r: RuleId,
        b: &Binding,
        lv: Level,
        w: World,
        path: &mut Vec<(Lit, Row)>,
        depth: usize,
    ) -> Node {
        let rule = self.m.rule(r);
        let mut children = Vec::new();
        for it in &rule.body {
            match it {
                Item::Status { status, atom } => {
                    let row: Option<Row> = atom.args.iter().map(|t| self.term(t, b)).collect();
                    match row {
                        Some(row) => children.push(self.derive_at(
                            atom.lit(),
                            &row,
                            item_level(*status, lv),
                            w,
                            path,
                            depth + 1,
                        )),
                        None => children.push(Node {
                            literal: Some(self.fmt_atom(atom, b)),
                            kind: NodeKind::Note {
                                text: "holds".into(),
                            },
                            children: Vec::new(),
                        }),
                    }
                }
                Item::Compare { left, op, right } => children.push(Node {
                    literal: None,
                    kind: NodeKind::Compare {
                        text: self.fmt_compare(left, *op, right, b),
                        holds: self.compare(left, *op, right, b) == Some(true),
                    },
                    children: Vec::new(),
                }),
                Item::Not { status, atom } => children.push(Node {
                    literal: None,
                    kind: NodeKind::Absent {
                        text: format!("{} is not {}", self.fmt_atom(atom, b), status.as_str()),
                    },
                    children: Vec::new(),
                }),
            }
        }
        Node {
            literal: None,
            kind: NodeKind::Rule {
                rule: self.rule_ref(r),
                level: level_word(lv),
            },
            children,
        }
    }

    fn closure_node(
        &self,
        l: Lit,
        row: &[Value],
        w: World,
        literal: Option<String>,
        path: &mut Vec<(Lit, Row)>,
        depth: usize,
    ) -> Option<Node> {
        if !l.negative || self.is_fact(l.complement(), row) {
            return None;
        }
        for c in &self.m.closures {
            if c.pred != l.pred || !c.derive_negative {
                continue;
            }
            let dom = Lit {
                pred: c.domain,
                negative: false,
            };
            if !self.holds(dom, row, Level::Definite, w) {
                continue;
            }
            let child = self.derive_at(dom, row, Level::Definite, w, path, depth + 1);
            return Some(Node {
                literal,
                kind: NodeKind::Closure {
                    id: c.id.clone(),
                    name: crate::model::local_name(&c.id).to_owned(),
                    label: c.label.clone(),
                    snapshot: c.snapshot.clone(),
                    complete_as_of: c.complete_as_of.clone(),
                    absent: self.fmt_lit(l.complement(), row),
                },
                children: vec![child],
            });
        }
        None
    }

    /// The level at which an attacker must apply to count (§4.3).
    fn policy_level(&self) -> Level {
        match self.policy {
            Policy::Blocking => Level::Defeasible,
            Policy::Propagating => Level::Supported,
        }
    }

    /// Every rule for the complement of `l(row)` and why it lost (`l` holds at ∂).
    fn attackers(&self, l: Lit, row: &[Value], w: World) -> Node {
        let mut children = Vec::new();
        for s in self.m.rules_for(l.complement()) {
            let outcome = match self.discarded(s, row, w) {
                Some((item, reason)) => Outcome::Discarded { item, reason },
                None => match self.defeater_of(l, s, row, w) {
                    Some((by, priority)) => Outcome::Defeated { by, priority },
                    None => Outcome::Prevails { defeats: vec![] },
                },
            };
            children.push(Node {
                literal: None,
                kind: NodeKind::Attacker {
                    rule: self.rule_ref(s),
                    outcome,
                },
                children: Vec::new(),
            });
        }
        Node {
            literal: None,
            kind: NodeKind::Group {
                title: format!("attackers (rules for {}):", self.m.lit_name(l.complement())),
            },
            children,
        }
    }

    /// `Some((item, reason))` when attacker `s` does not apply at the policy
    /// level (checked against the other world, §4.6).
    fn discarded(&self, s: RuleId, row: &[Value], w: World) -> Option<(String, String)> {
        let lv = self.policy_level();
        let st = self.ground(s, row, lv, other(w), 1);
        if !st.found.is_empty() {
            return None;
        }
        Some(match &st.fail {
            Some(f) => self.failure_text(s, f, lv),
            None => (
                self.fmt_lit(self.m.rule(s).head.lit(), row),
                "does not match its head".to_owned(),
            ),
        })
    }

    /// A rule for `l`, applicable at ∂ in `w`, with priority over `s`.
    fn defeater_of(
        &self,
        l: Lit,
        s: RuleId,
        row: &[Value],
        w: World,
    ) -> Option<(RuleRef, PriorityRef)> {
        self.m.rules_for(l).find_map(|t| {
            if self.m.rule(t).strength == Strength::Defeater {
                return None;
            }
            let p = self.priority_ref(t, s)?;
            let st = self.ground(t, row, Level::Defeasible, w, 1);
            (!st.found.is_empty()).then(|| (self.rule_ref(t), p))
        })
    }

    /// For a literal that is supported but not established in C.
    fn why_not_established(&self, l: Lit, row: &[Value]) -> Node {
        let w = World::Certain;
        let mut children = Vec::new();
        let comp = l.complement();
        if self.holds(comp, row, Level::Definite, other(w)) {
            let mut path = vec![(l, row.to_vec())];
            let n = self.derive_at(comp, row, Level::Definite, w, &mut path, 1);
            return Node {
                literal: None,
                kind: NodeKind::Group {
                    title: format!(
                        "why it is not established: the complement {} is definitely concluded",
                        self.fmt_lit(comp, row)
                    ),
                },
                children: vec![n],
            };
        }
        let ours: Vec<RuleId> = self
            .m
            .rules_for(l)
            .filter(|&r| self.m.rule(r).strength != Strength::Defeater)
            .collect();
        let applicable: Vec<RuleId> = ours
            .iter()
            .copied()
            .filter(|&r| {
                !self
                    .ground(r, row, Level::Defeasible, w, 1)
                    .found
                    .is_empty()
            })
            .collect();
        if applicable.is_empty() {
            for &r in &ours {
                let st = self.ground(r, row, Level::Defeasible, w, 1);
                if let Some(f) = &st.fail {
                    let (item, reason) = self.failure_text(r, f, Level::Defeasible);
                    children.push(Node {
                        literal: None,
                        kind: NodeKind::Unsatisfied {
                            rule: self.rule_ref(r),
                            item,
                            reason,
                        },
                        children: Vec::new(),
                    });
                }
            }
        }
        for s in self.m.rules_for(comp) {
            if self.discarded(s, row, w).is_some() {
                continue;
            }
            if self.defeater_of(l, s, row, w).is_some() {
                continue;
            }
            let defeats: Vec<(String, PriorityRef)> = ours
                .iter()
                .filter_map(|&r| {
                    self.priority_ref(s, r)
                        .map(|p| (self.m.rule(r).local.clone(), p))
                })
                .collect();
            // Show why the attacker applies.
            let lv = self.policy_level();
            let mut path = vec![(l, row.to_vec())];
            let body = self
                .ground(s, row, lv, other(w), 1)
                .found
                .into_iter()
                .next()
                .map(|b| self.rule_node(s, &b, lv, other(w), &mut path, 1).children)
                .unwrap_or_default();
            children.push(Node {
                literal: None,
                kind: NodeKind::Attacker {
                    rule: self.rule_ref(s),
                    outcome: Outcome::Prevails { defeats },
                },
                children: body,
            });
        }
        if children.is_empty() {
            children.push(Node {
                literal: None,
                kind: NodeKind::Note {
                    text: "no reason found (please report this)".into(),
                },
                children: Vec::new(),
            });
        }
        Node {
            literal: None,
            kind: NodeKind::Group {
                title: "why it is not established:".into(),
            },
            children,
        }
    }

    /// Why `l(row)` is not concluded: per rule, the first body item that
    /// fails, and (`budget` more levels) why that item fails.
    fn why_not(&self, l: Lit, row: &[Value], budget: usize) -> Vec<Node> {
        let mut out = Vec::new();
        let note = |text: String| Node {
            literal: None,
            kind: NodeKind::Note { text },
            children: Vec::new(),
        };
        let pred = self.m.pred(l.pred);
        match pred.kind {
            RelationKind::Empirical => {
                if l.negative && self.is_fact(l.complement(), row) {
                    out.push(note(format!(
                        "{} is given as a fact",
                        self.fmt_lit(l.complement(), row)
                    )));
                    return out;
                }
                out.push(note("it is not given as a fact".into()));
                if l.negative {
                    let closures: Vec<_> = self
                        .m
                        .closures
                        .iter()
                        .filter(|c| c.pred == l.pred && c.derive_negative)
                        .collect();
                    if closures.is_empty() {
                        out.push(note(format!(
                            "no closure policy makes the list of {} facts exhaustive",
                            pred.local
                        )));
                    }
                    for c in closures {
                        let dom = Lit {
                            pred: c.domain,
                            negative: false,
                        };
                        out.push(note(format!(
                            "closure policy {} covers only {}, which is not definitely concluded",
                            crate::model::local_name(&c.id),
                            self.fmt_lit(dom, row)
                        )));
                    }
                }
                return out;
            }
            RelationKind::Judgment => {
                if self.is_fact(l.complement(), row) {
                    out.push(note(format!(
                        "decided the other way: {} is given",
                        self.fmt_lit(l.complement(), row)
                    )));
                } else {
                    out.push(note("not decided".into()));
                }
                return out;
            }
            RelationKind::Institutional => {}
        }
        let rules: Vec<RuleId> = self
            .m
            .rules_for(l)
            .filter(|&r| self.m.rule(r).strength != Strength::Defeater)
            .collect();
        if rules.is_empty() {
            out.push(note("no rule concludes it and it is not a fact".to_owned()));
            return out;
        }
        for r in rules {
            let st = self.ground(r, row, Level::Supported, World::Certain, 1);
            let (item, reason, sub) = match &st.fail {
                Some(f) => {
                    // Checked at Σ (nothing supports it), worded as the rule reads.
                    let (item, reason) = self.failure_text(r, f, Level::Defeasible);
                    let sub = if budget > 0 {
                        self.why_item_fails(r, f, budget - 1)
                    } else {
                        Vec::new()
                    };
                    (item, reason, sub)
                }
                None if st.found.is_empty() => (
                    self.fmt_lit(self.m.rule(r).head.lit(), row),
                    "does not match its head".to_owned(),
                    Vec::new(),
                ),
                None => continue,
            };
            out.push(Node {
                literal: None,
                kind: NodeKind::Unsatisfied {
                    rule: self.rule_ref(r),
                    item,
                    reason,
                },
                children: sub,
            });
        }
        out
    }

    fn why_item_fails(&self, r: RuleId, f: &Failure, budget: usize) -> Vec<Node> {
        let rule = self.m.rule(r);
        match &rule.body[f.item] {
            Item::Status { atom, .. } => {
                let row: Option<Row> = atom.args.iter().map(|t| self.term(t, &f.binding)).collect();
                match row {
                    Some(row) => {
                        let l = atom.lit();
                        let mut n = Node {
                            literal: Some(self.fmt_lit(l, &row)),
                            kind: NodeKind::Note {
                                text: match self.verdict(l, &row) {
                                    Verdict::Supported => "only supported".into(),
                                    Verdict::Pending => "pending".into(),
                                    Verdict::Undecided => "undecided judgment".into(),
                                    _ => "not concluded".into(),
                                },
                            },
                            children: Vec::new(),
                        };
                        n.children = self.why_not(l, &row, budget);
                        vec![n]
                    }
                    None => vec![Node {
                        literal: Some(self.fmt_atom(atom, &f.binding)),
                        kind: NodeKind::Note {
                            text: match self.m.pred(atom.pred).kind {
                                RelationKind::Institutional => {
                                    "not concluded for any value of `_`".into()
                                }
                                _ => "no matching fact is given".into(),
                            },
                        },
                        children: Vec::new(),
                    }],
                }
            }
            _ => Vec::new(),
        }
    }
}

fn item_level(status: Status, lv: Level) -> Level {
    match status {
        Status::Established => lv,
        Status::Supported => Level::Supported,
    }
}

/// What generated docs quote of an anchor's text: the paragraph the rule's
/// label cites, else the beginning of the text.
pub fn anchor_quote(text: &str, label: Option<&str>) -> String {
    label
        .and_then(|l| cited_paragraph(text, l))
        .unwrap_or_else(|| trim_quote(text.trim(), 240))
}

/// The paragraph of `text` that `label` cites ("Article 9.6.2. …" → the
/// paragraph starting with "9.6.2"), trimmed to a readable length.
fn cited_paragraph(text: &str, label: &str) -> Option<String> {
    let mut words = label.split_whitespace();
    let first = words.next()?;
    let token = if first.starts_with(|c: char| c.is_ascii_digit()) {
        first
    } else {
        words.next()?
    };
    let number: String = token
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut number = number.trim_end_matches('.').to_owned();
    if !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let paragraphs: Vec<&str> = text
        .split('\n')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    loop {
        let found = paragraphs.iter().find(|p| {
            p.strip_prefix(number.as_str()).is_some_and(|rest| {
                let mut cs = rest.chars();
                match cs.next() {
                    None => true,
                    Some(c) if c.is_ascii_digit() => false,
                    Some('.') => !cs.next().is_some_and(|c| c.is_ascii_digit()),
                    Some(_) => true,
                }
            })
        });
        if let Some(p) = found {
            return Some(trim_quote(p, 240));
        }
        match number.rfind('.') {
            Some(i) => number.truncate(i),
            None => return None,
        }
    }
}

fn trim_quote(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let cut: String = s.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_owned(),
        _ => cut,
    };
    format!("{cut} …")
}

// ---------------------------------------------------------------------------
// Rendering

/// An indented tree for people.
pub fn render_text(model: &Model, e: &Explanation) -> String {
    let _ = model;
    let mut out = format!("{}: {}\n", e.literal, e.verdict.headline());
    let n = e.tree.len();
    for (i, node) in e.tree.iter().enumerate() {
        text_node(&mut out, node, "", i + 1 == n);
    }
    if !e.requests.is_empty() {
        out.push_str("judgment requests:\n");
        let n = e.requests.len();
        for (i, r) in e.requests.iter().enumerate() {
            let branch = if i + 1 == n { "└─ " } else { "├─ " };
            out.push_str(&format!(
                "{branch}{}({}) — to be decided by {} ({})\n",
                r.predicate,
                r.args.iter().map(fmt_value).collect::<Vec<_>>().join(", "),
                r.authority,
                r.capability
            ));
        }
    }
    out
}

fn rule_title(r: &RuleRef) -> String {
    match &r.label {
        Some(l) => format!("{} ({}) — {}", r.name, r.strength.as_str(), l),
        None => format!("{} ({})", r.name, r.strength.as_str()),
    }
}

fn anchor_lines(r: &RuleRef) -> Vec<String> {
    r.anchors
        .iter()
        .map(|a| match &a.quote {
            Some(q) => format!("anchor: {} — \"{}\"", a.locator, q),
            None => format!("anchor: {}", a.locator),
        })
        .collect()
}

fn priority_text(p: &PriorityRef) -> String {
    let mut s = format!("priority {}", p.name);
    if let Some(r) = &p.reason {
        s.push_str(&format!(" ({r})"));
    }
    if let Some(l) = &p.label {
        s.push_str(&format!(" — {l}"));
    }
    s
}

fn node_lines(n: &Node) -> Vec<String> {
    let lit = |s: String| match &n.literal {
        Some(l) => format!("{l}: {s}"),
        None => s,
    };
    match &n.kind {
        NodeKind::Fact => vec![lit("given as a fact".into())],
        NodeKind::Closure {
            name,
            label,
            snapshot,
            complete_as_of,
            absent,
            ..
        } => {
            let mut s = format!("by closure policy {name}");
            if let Some(l) = label {
                s.push_str(&format!(" — \"{l}\""));
            }
            vec![
                lit(s),
                format!(
                    "snapshot {}, complete as of {}; {absent} is not among the facts",
                    snapshot.as_deref().unwrap_or("(none)"),
                    complete_as_of.as_deref().unwrap_or("(not stated)")
                ),
            ]
        }
        NodeKind::Rule { rule, level } => {
            let mut v = vec![lit(format!("{level} by rule {}", rule_title(rule)))];
            if n.literal.is_none() {
                v[0] = format!("rule {}", rule_title(rule));
            }
            v.extend(anchor_lines(rule));
            v
        }
        NodeKind::Compare { text, holds } => {
            if *holds {
                vec![text.clone()]
            } else {
                vec![format!("{text} is false")]
            }
        }
        NodeKind::Absent { text } => vec![text.clone()],
        NodeKind::Judgment {
            authority,
            capability,
        } => vec![lit(format!(
            "undecided judgment — requested from {authority} ({capability})"
        ))],
        NodeKind::Group { title } => vec![title.clone()],
        NodeKind::Attacker { rule, outcome } => {
            let head = format!("{} ({})", rule.name, rule.strength.as_str());
            let mut v = vec![match outcome {
                Outcome::Discarded { item, reason } => {
                    format!("{head}: discarded — {item} {reason}")
                }
                Outcome::Defeated { by, priority } => format!(
                    "{head}: defeated by {} under {}",
                    by.name,
                    priority_text(priority)
                ),
                Outcome::Prevails { defeats } if defeats.is_empty() => format!(
                    "{head}: applies and is not defeated (neither side has priority: the conflict is ambiguous)"
                ),
                Outcome::Prevails { defeats } => {
                    let parts: Vec<String> = defeats
                        .iter()
                        .map(|(r, p)| {
                            format!("{r} is defeated by {} under {}", rule.name, priority_text(p))
                        })
                        .collect();
                    format!("{head}: applies and is not defeated; {}", parts.join("; "))
                }
            }];
            if let Some(l) = &rule.label {
                v.push(format!("label: {l}"));
            }
            if !matches!(outcome, Outcome::Discarded { .. }) {
                v.extend(anchor_lines(rule));
            }
            v
        }
        NodeKind::Unsatisfied { rule, item, reason } => {
            let mut v = vec![format!(
                "rule {}: does not apply — {item} {reason}",
                rule_title(rule)
            )];
            v.extend(anchor_lines(rule));
            v
        }
        NodeKind::Note { text } => vec![lit(text.clone())],
        NodeKind::Elided { reason } => vec![lit(format!("… ({reason})"))],
    }
}

fn text_node(out: &mut String, n: &Node, prefix: &str, last: bool) {
    let lines = node_lines(n);
    let (branch, cont) = if last {
        ("└─ ", "   ")
    } else {
        ("├─ ", "│  ")
    };
    let child_prefix = format!("{prefix}{cont}");
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push_str(&format!("{prefix}{branch}{l}\n"));
        } else {
            out.push_str(&format!("{child_prefix}{l}\n"));
        }
    }
    let k = n.children.len();
    for (i, c) in n.children.iter().enumerate() {
        text_node(out, c, &child_prefix, i + 1 == k);
    }
}

/// Stable, pretty JSON (object keys sorted).
pub fn render_json(e: &Explanation) -> String {
    let v = json!({
        "literal": e.literal,
        "verdict": e.verdict.as_str(),
        "policy": e.policy.as_str(),
        "tree": e.tree.iter().map(json_node).collect::<Vec<_>>(),
        "requests": e.requests.iter().map(|r| json!({
            "predicate": r.predicate,
            "args": r.args.iter().map(json_value).collect::<Vec<_>>(),
            "authority": r.authority,
            "capability": r.capability,
        })).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&v).expect("JSON values always serialize");
    s.push('\n');
    s
}

fn json_value(v: &Value) -> J {
    match v {
        Value::Int(i) => J::from(*i),
        Value::Entity(e) => J::from(e.as_str()),
    }
}

fn json_rule(r: &RuleRef) -> J {
    json!({
        "id": r.id,
        "name": r.name,
        "strength": r.strength.as_str(),
        "label": r.label,
        "anchors": r.anchors.iter().map(|a| json!({
            "fragment": a.fragment,
            "locator": a.locator,
            "quote": a.quote,
        })).collect::<Vec<_>>(),
    })
}

fn json_priority(p: &PriorityRef) -> J {
    json!({ "id": p.id, "name": p.name, "reason": p.reason, "label": p.label })
}

fn json_node(n: &Node) -> J {
    let mut o = match &n.kind {
        NodeKind::Fact => json!({ "kind": "fact" }),
        NodeKind::Closure {
            id,
            name,
            label,
            snapshot,
            complete_as_of,
            absent,
        } => json!({
            "kind": "closure", "id": id, "name": name, "label": label,
            "snapshot": snapshot, "completeAsOf": complete_as_of, "absent": absent,
        }),
        NodeKind::Rule { rule, level } => {
            json!({ "kind": "rule", "rule": json_rule(rule), "level": level })
        }
        NodeKind::Compare { text, holds } => {
            json!({ "kind": "comparison", "text": text, "holds": holds })
        }
        NodeKind::Absent { text } => json!({ "kind": "absent", "text": text }),
        NodeKind::Judgment {
            authority,
            capability,
        } => json!({ "kind": "judgment", "authority": authority, "capability": capability }),
        NodeKind::Group { title } => json!({ "kind": "group", "title": title }),
        NodeKind::Attacker { rule, outcome } => {
            let out = match outcome {
                Outcome::Discarded { item, reason } => {
                    json!({ "kind": "discarded", "item": item, "reason": reason })
                }
                Outcome::Defeated { by, priority } => json!({
                    "kind": "defeated", "by": json_rule(by), "priority": json_priority(priority),
                }),
                Outcome::Prevails { defeats } => json!({
                    "kind": "prevails",
                    "defeats": defeats.iter().map(|(r, p)| json!({
                        "rule": r, "priority": json_priority(p),
                    })).collect::<Vec<_>>(),
                }),
            };
            json!({ "kind": "attacker", "rule": json_rule(rule), "outcome": out })
        }
        NodeKind::Unsatisfied { rule, item, reason } => json!({
            "kind": "unsatisfied", "rule": json_rule(rule), "item": item, "reason": reason,
        }),
        NodeKind::Note { text } => json!({ "kind": "note", "text": text }),
        NodeKind::Elided { reason } => json!({ "kind": "elided", "reason": reason }),
    };
    if let Some(m) = o.as_object_mut() {
        if let Some(l) = &n.literal {
            m.insert("literal".into(), J::from(l.as_str()));
        }
        if !n.children.is_empty() {
            m.insert(
                "children".into(),
                J::Array(n.children.iter().map(json_node).collect()),
            );
        }
    }
    o
}
