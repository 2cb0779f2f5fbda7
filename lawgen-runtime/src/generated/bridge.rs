//! What generated code calls for the features that need the lowered program
//! as data: facts files in, the canonical output out, explanations.
//!
//! The generated module embeds the program its engine was generated from
//! ([`Embedded::program`], encoded by this crate); it is decoded once, on first
//! use ([`embedded_program`]). Relation indices are what generated code and this module exchange
//! rows by, and they are the embedded program's own, so they cannot drift.

use super::embedded::{embedded_program, Embedded};
use super::input::{entity, CaseNames};
use super::interner::Interner;
use crate::interp;
#[cfg(feature = "explain")]
use crate::interp::Facts;
use crate::program::{Program, RelId, Role, Ty, TypeId, Value};
use crate::{Error, Policy};
#[cfg(feature = "serde")]
use std::collections::BTreeSet;

fn decode(prog: &Program, rel: RelId, names: CaseNames<'_>, row: &[i64]) -> Vec<Value> {
    prog.relation(rel)
        .columns
        .iter()
        .zip(row)
        .map(|(c, &v)| match c {
            Ty::Int => Value::Int(v),
            Ty::Entity(t) => name_of(prog, names, *t, v),
        })
        .collect()
}

/// An entity column's value as its name (a batch refuses a case with an id
/// it cannot name, so every id here has one).
fn name_of(prog: &Program, names: CaseNames<'_>, t: TypeId, v: i64) -> Value {
    let ty = &prog.catalog.types[t.0 as usize].name;
    entity(names, ty, u32::try_from(v).unwrap_or(u32::MAX))
}

/// Reads a facts file: every row is handed to `push` with the index of its
/// input relation, entities interned into `interner`; returns the file's
/// `asOf` (refused if no law is in force then), which the caller gives the
/// case.
#[cfg(feature = "serde")]
pub fn read_facts_json(
    pkg: &'static Embedded,
    bytes: &[u8],
    interner: &mut Interner,
    push: &mut dyn FnMut(usize, &[i64]),
) -> Result<Option<crate::law::Date>, Error> {
    let prog = embedded_program(pkg)?;
    let facts = crate::formats::facts::read_facts(bytes, &prog.catalog)
        .map_err(|d| Error::Facts(d.render()))?;
    interp::in_force(prog, &facts).map_err(|e| Error::Facts(e.to_string()))?;
    let mut encode = |v: &Value| match v {
        Value::Int(i) => *i,
        Value::Entity(e) => i64::from(interner.intern(e)),
    };
    for (i, rel) in prog.relations.iter().enumerate() {
        match &rel.role {
            // Set with the case's date (`Case::as_of`), which the caller
            // gives the date returned.
            Role::InForce(_) | Role::AsOf => {}
            Role::Facts(lit) => {
                for row in facts.rows.get(lit).into_iter().flatten() {
                    let t: Vec<i64> = row.iter().map(&mut encode).collect();
                    push(i, &t);
                }
            }
            Role::Entities(Ty::Entity(t)) => {
                for name in facts.entities.get(t).into_iter().flatten() {
                    push(i, &[encode(&Value::Entity(name.clone()))]);
                }
            }
            Role::Entities(Ty::Int) | Role::PolicyPropagating | Role::Derived => {}
        }
    }
    Ok(facts.as_of)
}

/// Rows of the generated engine's relations by index (entity columns as ids).
pub type Rows<'a> = &'a dyn Fn(usize) -> Vec<Vec<i64>>;

/// The date a compiled case gives (`None`: the package's current date).
fn as_of(prog: &Program, rows: Rows<'_>) -> Option<crate::law::Date> {
    let r = prog.relations.iter().position(|r| r.role == Role::AsOf)?;
    rows(r)
        .first()
        .and_then(|t| u32::try_from(*t.first()?).ok())
        .map(crate::law::Date)
}

/// The canonical conclusions of a compiled evaluation, typed: what the
/// canonical output prints, read off the same relations.
#[cfg(feature = "serde")]
pub fn canonical(
    pkg: &'static Embedded,
    p: Policy,
    names: CaseNames<'_>,
    rows: Rows<'_>,
) -> Result<interp::Conclusions, Error> {
    let prog = embedded_program(pkg)?;
    let in_force = prog.catalog.law.on(as_of(prog, rows)).ok();
    Ok(interp::conclusions_from(
        prog,
        p,
        in_force.as_ref(),
        &mut |rel| {
            rows(rel.0 as usize)
                .iter()
                .map(|t| decode(prog, rel, names, t))
                .collect::<BTreeSet<_>>()
        },
    ))
}

/// The canonical output of compiled conclusions, written by the same code
/// as `lawgen eval`.
#[cfg(feature = "serde")]
pub fn canonical_json(
    pkg: &'static Embedded,
    p: Policy,
    names: CaseNames<'_>,
    rows: Rows<'_>,
) -> Result<String, Error> {
    Ok(crate::formats::output::canonical_json(&canonical(
        pkg, p, names, rows,
    )?))
}

/// The facts the compiled engine ran on, read back from its input relations.
#[cfg(feature = "explain")]
fn input_facts(prog: &Program, names: CaseNames<'_>, rows: Rows<'_>) -> Facts {
    let mut facts = Facts::default();
    for (i, rel) in prog.relations.iter().enumerate() {
        match &rel.role {
            Role::Facts(lit) => {
                let set = facts.rows.entry(*lit).or_default();
                for t in rows(i) {
                    set.insert(decode(prog, RelId(i as u32), names, &t));
                }
            }
            Role::Entities(Ty::Entity(ty)) => {
                let set = facts.entities.entry(*ty).or_default();
                for t in rows(i) {
                    if let Value::Entity(n) = name_of(prog, names, *ty, t[0]) {
                        set.insert(n);
                    }
                }
            }
            Role::AsOf => {
                facts.as_of = rows(i)
                    .first()
                    .and_then(|t| u32::try_from(*t.first()?).ok())
                    .map(crate::law::Date);
            }
            Role::Entities(Ty::Int)
            | Role::PolicyPropagating
            | Role::InForce(_)
            | Role::Derived => {}
        }
    }
    facts
}

/// Explains `query` (`game_drawn(g1)`, `~castling_legal(g1, white, kingside)`)
/// from an evaluation of the embedded program by the reference evaluator,
/// on the same input the compiled engine ran on, in language `lang`.
#[cfg(feature = "explain")]
pub fn explain(
    pkg: &'static Embedded,
    p: Policy,
    names: CaseNames<'_>,
    rows: Rows<'_>,
    query: &str,
    lang: &str,
) -> Result<crate::Explanation, Error> {
    let prog = embedded_program(pkg)?;
    let q = crate::explain::parse_query(&prog.catalog, query).map_err(Error::Query)?;
    explain_query(prog, p, names, rows, q, None, lang)
}

#[cfg(feature = "explain")]
fn explain_query(
    prog: &Program,
    p: Policy,
    names: CaseNames<'_>,
    rows: Rows<'_>,
    q: crate::explain::Query,
    compiled: Option<&crate::Verdict>,
    lang: &str,
) -> Result<crate::Explanation, Error> {
    let facts = input_facts(prog, names, rows);
    let store = interp::evaluate(prog, &facts, p);
    let e = crate::explain::explain(prog, &store, p, &q, lang);
    if let Some(c) = compiled {
        // Both decided by `Verdict::decide`, one over the compiled engine's
        // relations, one over the reference evaluator's.
        if c.section() != e.verdict.section() {
            return Err(Error::Internal(format!(
                "the compiled verdict on {} is {}, the reference evaluator says {}",
                e.literal,
                c.as_str(),
                e.verdict.as_str()
            )));
        }
    }
    Ok(e)
}

/// Explains one ground literal given by predicate id, polarity and arguments
/// (what the generated `explain_*` methods call).
#[cfg(feature = "explain")]
#[allow(clippy::too_many_arguments)]
pub fn explain_literal(
    pkg: &'static Embedded,
    p: Policy,
    names: CaseNames<'_>,
    rows: Rows<'_>,
    predicate: &str,
    negative: bool,
    args: Vec<crate::Arg>,
    compiled: Option<&crate::Verdict>,
    lang: &str,
) -> Result<crate::Explanation, Error> {
    let prog = embedded_program(pkg)?;
    let pred = prog
        .catalog
        .pred_by_name(predicate)
        .ok_or_else(|| Error::Internal(format!("no predicate `{predicate}` in the package")))?;
    let q = crate::explain::Query {
        lit: crate::program::Lit { pred, negative },
        args,
    };
    explain_query(prog, p, names, rows, q, compiled, lang)
}

/// An argument of a typed explanation method: an entity, decoded by
/// [`known_entity`](super::input::known_entity), or an integer. One generic
/// path for both, so that a module's explanation methods are written once
/// (its `__explain_fns!`), not per literal.
#[cfg(feature = "explain")]
pub trait QueryArg: Copy {
    /// The argument as the reference evaluator names it in `names`.
    fn query_arg(self, names: CaseNames<'_>) -> Result<crate::Arg, Error>;
}

#[cfg(feature = "explain")]
impl<E: crate::Entity> QueryArg for E {
    fn query_arg(self, names: CaseNames<'_>) -> Result<crate::Arg, Error> {
        super::input::known_entity(names, self)
    }
}

#[cfg(feature = "explain")]
impl QueryArg for i64 {
    fn query_arg(self, _: CaseNames<'_>) -> Result<crate::Arg, Error> {
        Ok(crate::Arg::Int(self))
    }
}
