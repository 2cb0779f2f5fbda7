//! The plan path of a large package: its rules evaluated from the lowered
//! program the generated module embeds, by the reference evaluator, instead
//! of straight-line code per rule.
//!
//! A generated module whose engine would have more rules than lawgen's
//! straight-line limit (`lawgen::EmitOptions::plan_above`) keeps its whole
//! typed API — ids, `Facts`, `Case`, `Columns`, `Conclusions`, each in
//! proportion to the package's predicates — and calls [`evaluate_case`] for
//! each case: the case's input rows are read back as facts (entities by
//! their names), the embedded program is evaluated by
//! [`crate::interp::evaluate`], and the rows of the relations the
//! conclusions keep come back with the case's own entity ids, for the
//! module to store as it stores any engine's. The rules are compiled once,
//! with this crate, whatever the package's size: rustc's time and memory
//! for such a module grow with its predicates only
//! (docs/performance.md, "Large packages").

use crate::generated::batch::ByCase;
#[cfg(feature = "data")]
use crate::generated::embedded::embedded_program;
use crate::generated::embedded::Embedded;
use crate::generated::input::CaseNames;
#[cfg(feature = "data")]
use crate::program::{Program, RelId, Role, Ty, Value};
use crate::{Error, Policy};

/// One case's rows of each relation of `kept` (relation indices of the
/// embedded program), each row its columns (entities as the case's ids),
/// sorted and without duplicates: case `rows` (`(relation, columns)`, the
/// batch's checked, contradiction-free input) evaluated under `policy` by
/// the reference evaluator.
#[cfg(feature = "data")]
pub fn evaluate_case<const W: usize>(
    pkg: &'static Embedded,
    policy: Policy,
    names: CaseNames<'_>,
    rows: &[(u32, [i64; W])],
    kept: &[u32],
) -> Result<Vec<Vec<Vec<i64>>>, Error> {
    let prog = embedded_program(pkg)?;
    let facts = facts(prog, names, rows)?;
    let store = crate::interp::evaluate(prog, &facts, policy);
    kept.iter()
        .map(|&r| {
            let rel = prog
                .relations
                .get(r as usize)
                .ok_or_else(|| Error::Internal(format!("no relation {r} in the embedded program")))?;
            let mut out = store
                .tuples(RelId(r))
                .map(|t| {
                    rel.columns
                        .iter()
                        .zip(t)
                        .map(|(c, &v)| match c {
                            Ty::Int => Ok(v),
                            Ty::Entity(ty) => {
                                let ty = &prog.catalog.types[ty.0 as usize].name;
                                store
                                    .name_of(v)
                                    .and_then(|n| names.id(ty, n))
                                    .map(i64::from)
                                    .ok_or_else(|| {
                                        Error::Internal(format!(
                                            "the {ty} with id {v} of a conclusion has no id in the case"
                                        ))
                                    })
                            }
                        })
                        .collect::<Result<Vec<i64>, Error>>()
                })
                .collect::<Result<Vec<_>, Error>>()?;
            out.sort_unstable();
            out.dedup();
            Ok(out)
        })
        .collect()
}

/// Without the `data` feature the module cannot read its embedded program:
/// every case fails with an error saying what to enable.
#[cfg(not(feature = "data"))]
pub fn evaluate_case<const W: usize>(
    _pkg: &'static Embedded,
    _policy: Policy,
    _names: CaseNames<'_>,
    _rows: &[(u32, [i64; W])],
    _kept: &[u32],
) -> Result<Vec<Vec<Vec<i64>>>, Error> {
    Err(Error::Internal(
        "this module evaluates its rules from the program it embeds (its package is above the \
         straight-line limit): enable lawgen-runtime's `data` feature (or a default feature)"
            .into(),
    ))
}

/// The facts of a case's input rows, as the reference evaluator reads them:
/// entities by their names, the date from the `asOf` row (what is in force
/// then the evaluator works out itself, as it does for a facts file).
#[cfg(feature = "data")]
fn facts<const W: usize>(
    prog: &Program,
    names: CaseNames<'_>,
    rows: &[(u32, [i64; W])],
) -> Result<crate::interp::Facts, Error> {
    let mut facts = crate::interp::Facts::default();
    let entity = |t: crate::program::TypeId, v: i64| -> Result<String, Error> {
        let ty = &prog.catalog.types[t.0 as usize].name;
        u32::try_from(v)
            .ok()
            .and_then(|id| names.name(ty, id))
            .map(|n| n.into_owned())
            .ok_or_else(|| Error::Internal(format!("the {ty} with id {v} has no name")))
    };
    for (r, v) in rows {
        let rel = prog
            .relations
            .get(*r as usize)
            .ok_or_else(|| Error::Internal(format!("no relation {r} in the embedded program")))?;
        match &rel.role {
            Role::Facts(lit) => {
                let row = rel
                    .columns
                    .iter()
                    .zip(v)
                    .map(|(c, &x)| match c {
                        Ty::Int => Ok(Value::Int(x)),
                        Ty::Entity(t) => entity(*t, x).map(Value::Entity),
                    })
                    .collect::<Result<Vec<Value>, Error>>()?;
                facts.rows.entry(*lit).or_default().insert(row);
            }
            Role::Entities(Ty::Entity(t)) => {
                let name = entity(*t, v.first().copied().unwrap_or(-1))?;
                facts.entities.entry(*t).or_default().insert(name);
            }
            Role::AsOf => {
                facts.as_of = v
                    .first()
                    .and_then(|&d| u32::try_from(d).ok())
                    .map(crate::law::Date);
            }
            // What is in force the evaluator derives from the date; the
            // policy is its argument.
            Role::InForce(_)
            | Role::Entities(Ty::Int)
            | Role::PolicyPropagating
            | Role::Derived => {}
        }
    }
    Ok(facts)
}

/// A column of a row type of generated code, from the runtime's `i64`
/// (the inverse of [`crate::generated::batch::Column::wide`]).
pub trait Narrow: Copy {
    /// The column from its widened value.
    fn narrow(v: i64) -> Self;
}

impl Narrow for u32 {
    #[inline]
    fn narrow(v: i64) -> Self {
        // An entity id: `evaluate_case` returns only the case's own ids.
        v as u32
    }
}

impl Narrow for i64 {
    #[inline]
    fn narrow(v: i64) -> Self {
        v
    }
}

/// A row of a kept relation with its case first, `(c, columns…)`, from the
/// columns [`evaluate_case`] returns.
pub trait FromColumns: Copy + Ord {
    /// The row of case `c` with columns `cols`.
    fn from_columns(c: u32, cols: &[i64]) -> Self;
}

macro_rules! from_columns {
    ($($c:ident $i:tt),*) => {
        impl<$($c: Narrow + Ord),*> FromColumns for (u32, $($c,)*) {
            #[inline]
            #[allow(unused_variables)]
            fn from_columns(c: u32, cols: &[i64]) -> Self {
                (c, $($c::narrow(cols.get($i).copied().unwrap_or(0)),)*)
            }
        }
    };
}
from_columns!();
from_columns!(A 0);
from_columns!(A 0, B 1);
from_columns!(A 0, B 1, C 2);
from_columns!(A 0, B 1, C 2, D 3);
from_columns!(A 0, B 1, C 2, D 3, E 4);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);

/// Appends case `c`'s rows `rows` (sorted, as [`evaluate_case`] returns
/// them) to a batch's output: compiled once per row type, not once per
/// relation.
#[inline(never)]
pub fn push_columns<T: FromColumns>(out: &mut ByCase<T>, c: u32, rows: &[Vec<i64>]) {
    out.push_case(c, rows.iter().map(|t| T::from_columns(c, t)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Widened columns come back in the row type, the case first, after
    /// the rows of the cases pushed before.
    #[test]
    fn rows_are_narrowed_to_the_row_type_with_the_case_first() {
        let mut out: ByCase<(u32, u32, i64)> = ByCase::with_cases(3);
        push_columns(&mut out, 0, &[vec![4, 1]]);
        push_columns(&mut out, 2, &[vec![2, -5], vec![3, i64::MAX]]);
        assert_eq!(out.case(0), &[(0, 4, 1)]);
        assert!(out.case(1).is_empty());
        assert_eq!(out.case(2), &[(2, 2, -5), (2, 3, i64::MAX)]);
        let mut flags: ByCase<(u32,)> = ByCase::with_cases(1);
        push_columns(&mut flags, 0, &[vec![]]);
        assert_eq!(flags.case(0), &[(0,)]);
    }

    /// A module whose embedded program cannot be read fails each case with
    /// the reason, never a panic.
    #[cfg(feature = "data")]
    #[test]
    fn a_program_that_does_not_decode_fails_the_case() {
        static BAD: Embedded = Embedded::new("p", "1", "", env!("CARGO_PKG_VERSION"), "{");
        static NAMELESS: crate::generated::input::Nameless =
            crate::generated::input::Nameless::new(&[], |_| None, "#");
        let rows: [(u32, [i64; 1]); 1] = [(0, [0])];
        match evaluate_case(
            &BAD,
            Policy::Blocking,
            CaseNames::Nameless(&NAMELESS),
            &rows,
            &[0],
        ) {
            Err(Error::Internal(m)) => {
                assert!(m.starts_with("the embedded program does not decode"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
