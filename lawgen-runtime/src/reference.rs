//! The bridge to lawgen's reference pipeline, for the features that need the
//! package itself: SPEC §2 facts in, SPEC §3 output out, explanations.
//!
//! The generated module embeds the package text. On first use it is read,
//! checked and lowered once more (deterministically, by the same lawgen
//! version that generated the module), and the lowered program's relation
//! indices are what generated code and this module exchange rows by. A shape
//! mismatch is an [`Error::Internal`], never a silently wrong answer.

use crate::__private::{Embedded, Interner};
use crate::{Error, Policy};
use lawgen::driver::Loaded;
use lawgen::model::{Ty, Value};
use lawgen::program::{Program, RelId, Role};
use std::collections::BTreeSet;

/// The checked model and lowered program of an embedded package.
pub struct Reference {
    pub(crate) loaded: Loaded,
    pub(crate) program: Program,
}

fn reference(pkg: &'static Embedded) -> Result<&'static Reference, Error> {
    pkg.cell
        .get_or_init(|| {
            let loaded = lawgen::driver::load_bytes(pkg.source.as_bytes(), &Default::default())
                .map_err(|d| format!("the embedded package does not load:\n{}", d.render()))?;
            let program = lawgen::lower::lower(&loaded.model).map_err(|e| e.to_string())?;
            if program.relations.len() != pkg.relations || program.rules.len() != pkg.rules {
                return Err(format!(
                    "the embedded package lowers to {} relations and {} rules, the generated \
                     code has {} and {}: regenerate it with this version of lawgen",
                    program.relations.len(),
                    program.rules.len(),
                    pkg.relations,
                    pkg.rules
                ));
            }
            Ok(Reference { loaded, program })
        })
        .as_ref()
        .map_err(|e| Error::Internal(e.clone()))
}

fn policy(p: Policy) -> lawgen::interp::Policy {
    match p {
        Policy::Blocking => lawgen::interp::Policy::Blocking,
        Policy::Propagating => lawgen::interp::Policy::Propagating,
    }
}

fn decode(r: &Reference, rel: RelId, interner: &Interner, row: &[i64]) -> Vec<Value> {
    r.program
        .relation(rel)
        .columns
        .iter()
        .zip(row)
        .map(|(c, &v)| match c {
            Ty::Int => Value::Int(v),
            Ty::Entity(_) => Value::Entity(interner.name(v as u32).to_owned()),
        })
        .collect()
}

/// Reads a SPEC §2 facts file: every row is handed to `push` with the index
/// of its input relation, entities interned into `interner`.
pub fn read_facts_json(
    pkg: &'static Embedded,
    bytes: &[u8],
    interner: &mut Interner,
    push: &mut dyn FnMut(usize, &[i64]),
) -> Result<(), Error> {
    let r = reference(pkg)?;
    let facts = lawgen::syntax::facts::read_facts(bytes, &r.loaded.model)
        .map_err(|d| Error::Facts(d.render()))?;
    let mut encode = |v: &Value| match v {
        Value::Int(i) => *i,
        Value::Entity(e) => i64::from(interner.intern(e)),
    };
    for (i, rel) in r.program.relations.iter().enumerate() {
        match &rel.role {
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
    Ok(())
}

/// Rows of the generated engine's relations by index (entity columns as ids).
pub type Rows<'a> = &'a dyn Fn(usize) -> Vec<Vec<i64>>;

fn conclusions(
    r: &Reference,
    p: Policy,
    interner: &Interner,
    rows: Rows<'_>,
) -> lawgen::interp::Conclusions {
    lawgen::interp::conclusions_from(&r.program, &r.loaded.model, policy(p), &mut |rel| {
        rows(rel.0 as usize)
            .iter()
            .map(|t| decode(r, rel, interner, t))
            .collect::<BTreeSet<_>>()
    })
}

/// The SPEC §3 canonical output of compiled conclusions, written by the same
/// code as `lawgen eval`.
pub fn canonical_json(
    pkg: &'static Embedded,
    p: Policy,
    interner: &Interner,
    rows: Rows<'_>,
) -> Result<String, Error> {
    let r = reference(pkg)?;
    Ok(lawgen::syntax::output::canonical_json(&conclusions(
        r, p, interner, rows,
    )))
}

/// The facts the compiled engine ran on, read back from its input relations.
fn input_facts(r: &Reference, interner: &Interner, rows: Rows<'_>) -> lawgen::syntax::facts::Facts {
    let mut facts = lawgen::syntax::facts::Facts::default();
    for (i, rel) in r.program.relations.iter().enumerate() {
        match &rel.role {
            Role::Facts(lit) => {
                let set = facts.rows.entry(*lit).or_default();
                for t in rows(i) {
                    set.insert(decode(r, RelId(i as u32), interner, &t));
                }
            }
            Role::Entities(Ty::Entity(ty)) => {
                let set = facts.entities.entry(*ty).or_default();
                for t in rows(i) {
                    set.insert(interner.name(t[0] as u32).to_owned());
                }
            }
            Role::Entities(Ty::Int) | Role::PolicyPropagating | Role::Derived => {}
        }
    }
    facts
}

/// An explanation of one ground literal: the derivation tree an arbiter can
/// read, the same content as `lawgen explain`.
#[derive(Clone, Debug)]
pub struct Explanation {
    literal: String,
    verdict: &'static str,
    text: String,
    json: String,
}

impl Explanation {
    /// The explained literal, e.g. `game_drawn(g1)`.
    pub fn literal(&self) -> &str {
        &self.literal
    }
    /// `definitely`, `defeasibly`, `pending`, `supported`, `undecided` or `not_concluded`.
    pub fn verdict(&self) -> &'static str {
        self.verdict
    }
    /// The tree as text (what `lawgen explain` prints).
    pub fn text(&self) -> &str {
        &self.text
    }
    /// The tree as JSON (what `lawgen explain --format json` prints).
    pub fn to_json(&self) -> &str {
        &self.json
    }
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Explains `query` (`game_drawn(g1)`, `~castling_legal(g1, white, kingside)`)
/// by re-deriving it with the reference evaluator from the same input the
/// compiled engine ran on. `compiled` (the compiled verdict's name, when the
/// caller has one) is cross-checked: a disagreement is an internal error.
pub fn explain(
    pkg: &'static Embedded,
    p: Policy,
    interner: &Interner,
    rows: Rows<'_>,
    query: &str,
    compiled: Option<&str>,
) -> Result<Explanation, Error> {
    let r = reference(pkg)?;
    let q = lawgen::explain::parse_query(&r.loaded.model, query).map_err(Error::Query)?;
    explain_query(r, p, interner, rows, q, compiled)
}

fn explain_query(
    r: &Reference,
    p: Policy,
    interner: &Interner,
    rows: Rows<'_>,
    q: lawgen::explain::Query,
    compiled: Option<&str>,
) -> Result<Explanation, Error> {
    let facts = input_facts(r, interner, rows);
    let ev = lawgen::driver::evaluate(&r.loaded, &facts, policy(p))
        .map_err(|e| Error::Internal(e.to_string()))?;
    let e = lawgen::explain::explain(&r.loaded, &ev, &q);
    let verdict = e.verdict.as_str();
    if let Some(c) = compiled {
        // An undecided judgment atom is "not concluded" to the typed API.
        let same = c == verdict || (c == "not_concluded" && verdict == "undecided");
        if !same {
            return Err(Error::Internal(format!(
                "the compiled verdict on {} is {c}, the reference evaluator says {verdict}",
                e.literal
            )));
        }
    }
    Ok(Explanation {
        literal: e.literal.clone(),
        verdict,
        text: lawgen::explain::render_text(&r.loaded.model, &e),
        json: lawgen::explain::render_json(&e),
    })
}

/// Explains one ground literal given by predicate id, polarity and arguments
/// (what the generated `explain_*` methods call).
#[allow(clippy::too_many_arguments)]
pub fn explain_literal(
    pkg: &'static Embedded,
    p: Policy,
    interner: &Interner,
    rows: Rows<'_>,
    predicate: &str,
    negative: bool,
    args: Vec<crate::Arg>,
    compiled: Option<&str>,
) -> Result<Explanation, Error> {
    let r = reference(pkg)?;
    let pred = r
        .loaded
        .model
        .pred_by_name(predicate)
        .ok_or_else(|| Error::Internal(format!("no predicate `{predicate}` in the package")))?;
    let q = lawgen::explain::Query {
        lit: lawgen::model::Lit { pred, negative },
        args: args
            .into_iter()
            .map(|a| match a {
                crate::Arg::Int(i) => Value::Int(i),
                crate::Arg::Entity(e) => Value::Entity(e),
            })
            .collect(),
    };
    explain_query(r, p, interner, rows, q, compiled)
}
