//! The lowered program: plain stratified Datalog with negation as failure and
//! comparisons. Every backend (the reference interpreter, the ascent emitter)
//! consumes this and nothing else; all of defeasible logic has been compiled
//! away by `lower` into ordinary relations and rules.
//!
//! `Display` prints a stable text dump (`lawgen lower`) that snapshot tests hold.

use crate::model::{Lit, Ty, Value};
use crate::syntax::CmpOp;
use std::collections::HashSet;
use std::fmt;

/// Index into [`Program::relations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelId(pub u32);

#[derive(Clone, Debug)]
pub struct Program {
    pub package: String,
    pub version: String,
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
pub struct Relation {
    pub name: String,
    pub columns: Vec<Ty>,
    pub role: Role,
}

/// Where a relation's tuples come from.
#[derive(Clone, Debug, PartialEq, Eq)]
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
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Item>,
    /// Variable names, indexed by the `u32` in [`Term::Var`] (for dumps and codegen).
    pub vars: Vec<String>,
    /// Why this rule exists: the source rule id and its role in the overlay.
    pub origin: String,
}

#[derive(Clone, Debug)]
pub struct Atom {
    pub rel: RelId,
    pub args: Vec<Term>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Var(u32),
    Value(Value),
}

#[derive(Clone, Debug)]
pub enum Item {
    Pos(Atom),
    /// Negation as failure; every variable is bound by earlier positive atoms.
    Neg(Atom),
    Cmp(Term, CmpOp, Term),
}

/// Sections of the canonical output (SPEC §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
pub struct Output {
    pub section: Section,
    pub lit: Lit,
    pub rel: RelId,
    pub minus: Option<RelId>,
}

#[derive(Clone, Debug)]
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

impl Program {
    pub fn relation(&self, r: RelId) -> &Relation {
        &self.relations[r.0 as usize]
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
    let mut bound: HashSet<u32> = HashSet::new();
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
        let best = left
            .iter()
            .enumerate()
            .filter(|(_, &i)| matches!(body[i], Item::Pos(_)))
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
