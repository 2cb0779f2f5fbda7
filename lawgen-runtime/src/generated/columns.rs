//! What a generated module's `Columns` is read through: per field, one
//! descriptor ([`ColumnsField`]) naming its slices, and the functions that
//! check them ([`columns_order`]) and group their rows by case
//! ([`super::input::Gather::count_fields`], `place_fields`). A module
//! states its fields once, in one function that hands each descriptor to
//! a visitor; the code over them is compiled here, once per entity type,
//! not once per field.
//!
//! And the error naming a contradiction ([`first_contradiction`]), read
//! from a table of the module's negatable input relations.

use super::input::{case_order, entity, out_of_range, same_lengths, CaseNames, InputRel, MAX_ID};
use crate::{Arg, Entity, Error, Id};

/// One argument column of a `Columns` field, whatever its type.
pub trait InputColumn {
    /// How many rows.
    fn len(&self) -> usize;
    /// Whether there are no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The entity type's name of an entity column (`None`: integers).
    fn entity(&self) -> Option<&'static str>;
    /// The first row whose entity id is past [`MAX_ID`], and the id.
    fn bad_id(&self) -> Option<(usize, Id)>;
    /// Appends the value of each row of `at` to `out`, as a fact row
    /// holds it (an entity as its id).
    fn read(&self, at: &[u32], out: &mut Vec<i64>);
}

impl<E: Entity> InputColumn for &[E] {
    fn len(&self) -> usize {
        <[E]>::len(self)
    }

    fn entity(&self) -> Option<&'static str> {
        Some(E::TYPE_NAME)
    }

    fn bad_id(&self) -> Option<(usize, Id)> {
        self.iter()
            .map(|e| e.id())
            .enumerate()
            .find(|&(_, id)| id > MAX_ID)
    }

    fn read(&self, at: &[u32], out: &mut Vec<i64>) {
        out.extend(at.iter().map(|&i| i64::from(self[i as usize].id())));
    }
}

impl InputColumn for &[i64] {
    fn len(&self) -> usize {
        <[i64]>::len(self)
    }

    fn entity(&self) -> Option<&'static str> {
        None
    }

    fn bad_id(&self) -> Option<(usize, Id)> {
        None
    }

    fn read(&self, at: &[u32], out: &mut Vec<i64>) {
        out.extend(at.iter().map(|&i| self[i as usize]));
    }
}

/// Which relation each row of a field is a fact of.
#[derive(Clone, Copy, Debug)]
pub enum FieldRows<'a> {
    /// None: a declared type with no relation to load (its rows are
    /// checked, not loaded).
    Nothing,
    /// Every row of relation `0`.
    Fact(u32),
    /// A decision: row `i` of relation `1` where `holds[i]`, else of `2`.
    Decide(&'a [bool], u32, u32),
}

/// One field of a generated `Columns`: its name, its argument columns'
/// labels (`` `game` ``), the case column, the argument columns (as many as
/// labels) and which relation its rows state.
pub struct ColumnsField<'a> {
    name: &'static str,
    labels: &'static [&'static str],
    cases: &'a [u32],
    cols: &'a [&'a dyn InputColumn],
    rows: FieldRows<'a>,
}

impl<'a> ColumnsField<'a> {
    /// The descriptor of field `name` (what a generated module writes,
    /// one line per field).
    pub fn new(
        name: &'static str,
        labels: &'static [&'static str],
        cases: &'a [u32],
        cols: &'a [&'a dyn InputColumn],
        rows: FieldRows<'a>,
    ) -> Self {
        debug_assert_eq!(labels.len(), cols.len(), "a label per column of `{name}`");
        ColumnsField {
            name,
            labels,
            cases,
            cols,
            rows,
        }
    }

    /// The case column.
    pub fn cases(&self) -> &'a [u32] {
        self.cases
    }

    /// The argument columns.
    pub fn cols(&self) -> &'a [&'a dyn InputColumn] {
        self.cols
    }

    /// Which relation each row states.
    pub fn rows(&self) -> FieldRows<'a> {
        self.rows
    }

    /// Checks the field for `n` cases (its columns' lengths, then each
    /// entity column's ids, then its case column); returns the order of
    /// its rows by case when they are not in it.
    pub fn order(&self, first: u32, n: usize) -> Result<Option<Vec<u32>>, Error> {
        let mut lens: Vec<(&str, usize)> = Vec::with_capacity(self.cols.len() + 2);
        lens.push(("the case column", self.cases.len()));
        lens.extend(
            self.labels
                .iter()
                .zip(self.cols)
                .map(|(l, c)| (*l, c.len())),
        );
        if let FieldRows::Decide(holds, ..) = self.rows {
            lens.push(("`holds`", holds.len()));
        }
        same_lengths(self.name, &lens)?;
        for c in self.cols {
            if let (Some(ty), Some((row, id))) = (c.entity(), c.bad_id()) {
                return Err(bad_column_id(self.name, ty, first, row, id));
            }
        }
        case_order(self.name, self.cases, n)
    }
}

/// The error of an entity id past [`MAX_ID`] at `row` of `Columns::name`.
fn bad_column_id(name: &str, ty: &str, first: u32, row: usize, id: Id) -> Error {
    Error::Facts(format!(
        "`Columns::{name}`, row {row}: {}",
        out_of_range(first)(ty, id)
    ))
}

/// Checks every field `fields` hands its visitor, for `n` cases whose
/// constants' ids end before `first`; returns, per field in order, the
/// order of its rows by case when they are not in it. The first field
/// that fails is the error.
pub fn columns_order(
    n: usize,
    first: u32,
    fields: impl FnOnce(&mut dyn FnMut(ColumnsField<'_>)),
) -> Result<Vec<Option<Vec<u32>>>, Error> {
    let mut order = Vec::new();
    let mut failed = None;
    fields(&mut |f| {
        if failed.is_none() {
            match f.order(first, n) {
                Ok(o) => order.push(o),
                Err(e) => failed = Some(e),
            }
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(order),
    }
}

/// An input relation whose facts have explicit negations, as the error
/// naming a contradiction states it: its predicate (its columns' types are
/// those of its [`InputRel`]).
#[derive(Debug)]
pub struct Negatable {
    /// The relation's index in the program.
    pub rel: u32,
    /// The predicate's local name.
    pub predicate: &'static str,
}

impl Negatable {
    /// What a generated module's `NEGATABLE` writes, one line each.
    pub const fn new(rel: u32, predicate: &'static str) -> Self {
        Negatable { rel, predicate }
    }
}

/// The first row of sorted `rows` whose explicit negation (`negation[r]`:
/// the relation stating the negation of relation `r`'s facts, `u32::MAX`
/// or out of range for none) is also there, as the error every engine
/// reports, its predicate read from `negatable` and its columns' types
/// from `input_rels`.
pub fn first_contradiction<const W: usize>(
    rows: &[(u32, [i64; W])],
    negation: &[u32],
    negatable: &[Negatable],
    input_rels: &[InputRel],
    names: CaseNames<'_>,
) -> Option<Error> {
    for (rel, v) in rows {
        let neg = match negation.get(*rel as usize) {
            Some(&n) if n != u32::MAX => n,
            _ => continue,
        };
        if rows.binary_search(&(neg, *v)).is_err() {
            continue;
        }
        let predicate = negatable.iter().find(|r| r.rel == *rel);
        let columns = input_rels.iter().find(|r| r.rel == *rel);
        return Some(match (predicate, columns) {
            (Some(p), Some(c)) => Error::Contradiction {
                predicate: p.predicate,
                args: c
                    .columns
                    .iter()
                    .zip(v)
                    .map(|(ty, &x)| match ty {
                        Some(ty) => entity(names, ty, x as u32),
                        None => Arg::Int(x),
                    })
                    .collect(),
            },
            _ => Error::Internal(format!("no negation for relation {rel}")),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::input::{Gather, Nameless, INVALID};

    #[derive(Clone, Copy, Debug)]
    struct Game(u32);
    impl Entity for Game {
        const TYPE_NAME: &'static str = "Game";
        fn id(self) -> Id {
            self.0
        }
        fn __from_id(id: Id) -> Self {
            Game(id)
        }
    }

    /// Two constants: a case's own entities start at id 2.
    const FIRST: u32 = 2;

    /// A `Columns` of three fields: `in_game` (a game and an integer,
    /// relation 5), `decided` (a game and `holds`: relation 7, else 8),
    /// `game` (a declared type, loaded nowhere).
    struct Cols<'a> {
        in_game: (&'a [u32], &'a [Game], &'a [i64]),
        decided: (&'a [u32], &'a [Game], &'a [bool]),
        game: (&'a [u32], &'a [Game]),
    }

    fn fields(c: &Cols<'_>, f: &mut dyn FnMut(ColumnsField<'_>)) {
        f(ColumnsField::new(
            "in_game",
            &["`game`", "`n`"],
            c.in_game.0,
            &[&c.in_game.1, &c.in_game.2],
            FieldRows::Fact(5),
        ));
        f(ColumnsField::new(
            "decided",
            &["`game`"],
            c.decided.0,
            &[&c.decided.1],
            FieldRows::Decide(c.decided.2, 7, 8),
        ));
        f(ColumnsField::new(
            "game",
            &["`entity`"],
            c.game.0,
            &[&c.game.1],
            FieldRows::Nothing,
        ));
    }

    fn order(c: &Cols<'_>, n: usize) -> Result<Vec<Option<Vec<u32>>>, Error> {
        columns_order(n, FIRST, |f| fields(c, f))
    }

    fn ok<'a>() -> Cols<'a> {
        Cols {
            // Not in case order: 2, 0, 2, 1.
            in_game: (
                &[2, 0, 2, 1],
                &[Game(2), Game(3), Game(4), Game(9)],
                &[10, 11, 12, 13],
            ),
            decided: (&[0, 1], &[Game(6), Game(2)], &[true, false]),
            game: (&[1], &[Game(40)]),
        }
    }

    #[test]
    fn fields_are_checked_in_order_and_their_rows_ordered_by_case() {
        let order = order(&ok(), 3).unwrap();
        assert_eq!(order, vec![Some(vec![1, 3, 0, 2]), None, None]);
    }

    #[test]
    fn a_bad_field_is_named_with_its_row_and_the_first_one_wins() {
        // Columns of different lengths, `holds` included.
        let mut c = ok();
        c.decided.2 = &[true];
        assert_eq!(
            order(&c, 3),
            Err(Error::Facts(
                "`Columns::decided`: its columns differ in length: the case column has 2, \
                 `game` has 2, `holds` has 1; give every column of a predicate one value per row"
                    .into()
            ))
        );
        // An id past the last index, in the second column checked.
        let mut c = ok();
        c.in_game.1 = &[Game(2), Game(3), Game(INVALID), Game(9)];
        assert_eq!(
            order(&c, 3),
            Err(Error::Facts(format!(
                "`Columns::in_game`, row 2: the Game id {INVALID} is out of range: \
                 `Game::from_index` takes indexes up to {} (a larger index gives this id)",
                MAX_ID - FIRST
            )))
        );
        // A case index not below the number of cases, in a field of no
        // relation; an earlier field's error comes first.
        let mut c = ok();
        c.game.0 = &[3];
        assert_eq!(
            order(&c, 3),
            Err(Error::Facts(
                "`Columns::game`, row 0: case 3 is out of range: the batch has 3 cases \
                 (indexes 0 to 2)"
                    .into()
            ))
        );
        c.in_game.0 = &[0, 0, 0];
        assert!(
            matches!(order(&c, 3), Err(Error::Facts(m)) if m.starts_with("`Columns::in_game`: its columns differ"))
        );
    }

    #[test]
    fn fields_are_gathered_by_case_in_field_order() {
        let c = ok();
        let order = order(&c, 3).unwrap();
        type Row = (u32, [i64; 2]);
        for range in [0..3, 1..3, 2..3, 1..1] {
            let mut g: Gather<Row> = Gather::new(range.clone());
            g.count_fields(&order, |f| fields(&c, f));
            g.each(&[(1, [0, 0])]);
            g.start_placing();
            g.place_fields(&order, |f| fields(&c, f));
            let out = g.finish();
            assert_eq!(out.len(), range.len());
            let want: [(&[Row], u32); 3] = [
                (&[(1, [0, 0]), (5, [3, 11]), (7, [6, 0])], 7),
                (&[(1, [0, 0]), (5, [9, 13]), (8, [2, 0])], 10),
                (&[(1, [0, 0]), (5, [2, 10]), (5, [4, 12])], 5),
            ];
            for (k, case) in range.clone().enumerate() {
                assert_eq!(out.rows(k), want[case].0, "case {case} of {range:?}");
                assert_eq!(out.hi(k), want[case].1, "case {case} of {range:?}");
            }
        }
    }

    #[test]
    fn a_contradiction_is_named_by_predicate_and_arguments() {
        static NEGATABLE: [Negatable; 2] =
            [Negatable::new(0, "in_game"), Negatable::new(3, "lost")];
        static INPUT_RELS: [InputRel; 2] = [
            InputRel {
                rel: 0,
                method: "in_game",
                columns: &[Some("Game"), None],
            },
            InputRel {
                rel: 3,
                method: "lost",
                columns: &[Some("Game")],
            },
        ];
        // 0's negation is 1, 3's is 4; 2 has none (nor has 5, past the table).
        let negation = [1, u32::MAX, u32::MAX, 4, u32::MAX];
        static CONSTANTS: [&str; 2] = ["white", "black"];
        let n: &'static Nameless = Box::leak(Box::new(Nameless::new(&CONSTANTS, |_| None, "#")));
        let names = CaseNames::Nameless(n);
        let mut rows = vec![
            (0u32, [2i64, 7]),
            (1, [2, 8]),
            (2, [3, 0]),
            (5, [3, 0]),
            (3, [4, 0]),
        ];
        rows.sort_unstable();
        assert_eq!(
            first_contradiction(&rows, &negation, &NEGATABLE, &INPUT_RELS, names),
            None
        );
        rows.push((4, [4, 0]));
        rows.push((1, [2, 7]));
        rows.sort_unstable();
        assert_eq!(
            first_contradiction(&rows, &negation, &NEGATABLE, &INPUT_RELS, names),
            Some(Error::Contradiction {
                predicate: "in_game",
                args: vec![Arg::Entity("Game#0".into()), Arg::Int(7)],
            })
        );
        // A negation without its table row is an internal error, not a
        // wrong name.
        assert_eq!(
            first_contradiction(&rows, &negation, &NEGATABLE[1..], &INPUT_RELS, names),
            Some(Error::Internal("no negation for relation 0".into()))
        );
    }
}
