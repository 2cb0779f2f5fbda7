//! Facts from an Arrow record batch in the columnar layout of docs/python.md
//! (`evaluate_arrow` of the Python modules): one row per fact, a `case`
//! column, a `predicate` column, and a pair of value columns `e<j>` (entity
//! names, any string encoding) and `n<j>` (int64) per argument position;
//! optionally an `asOf` column (strings `YYYY-MM-DD`), the date of the
//! row's case (docs/reference.md#as-of-evaluation).
//!
//! This is the package-independent reading of a batch, compiled here rather
//! than in each module's glue so that it is built, linted and fuzzed with
//! the workspace (`fuzz/harness`, target `arrow`). The glue supplies the
//! package's `Facts` as a [`Sink`] and maps [`BatchError`] to Python
//! exceptions.

use crate::program::{local_name, Program, Role, Ty, TypeId};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch};
use arrow_schema::DataType;
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::sync::Arc;

/// Why a batch cannot be read at all (a case's own bad rows are not this:
/// see [`FactKeys::case_rows`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchError {
    /// A column of the wrong Arrow type (Python's `TypeError`).
    Type(String),
    /// A missing or unexpected column, nulls where none may be, too many
    /// rows (Python's `ValueError`).
    Value(String),
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BatchError::Type(m) | BatchError::Value(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for BatchError {}

/// What a `predicate` value names.
#[derive(Clone, Debug)]
pub enum Key {
    /// A fact (or explicit negation) for an input relation.
    Fact {
        /// The input relation (index into the program's relations).
        rel: usize,
        /// Its column types, which say whether `e<j>` or `n<j>` is read.
        cols: Arc<[Ty]>,
    },
    /// `@Type`: declares the entity in `e0` (docs/reference.md#facts-files
    /// `entities`).
    Entity {
        /// Where the program takes declared entities of the type, if it does.
        rel: Option<usize>,
    },
}

/// The names a facts batch may use for a program's input relations, with
/// their column types.
#[derive(Clone, Debug)]
pub struct FactKeys {
    /// Each name a `predicate` value may take (local names, full ids,
    /// `~` negations, `@Type`), and what it names. Looked up once per row:
    /// FxHash, not the default SipHash, which was a sixth of the cost of
    /// reading a case's rows. The table's keys are the package's own names,
    /// so input can make lookups miss but cannot lengthen the table's
    /// chains (no hash flooding).
    pub keys: FxHashMap<String, Key>,
    /// The largest arity of any predicate: the `e<j>`/`n<j>` column pairs.
    pub arity: usize,
}

/// Where the rows of one case go: the generated `Facts`.
pub trait Sink {
    /// The id of entity `name` (interned).
    fn intern(&mut self, name: &str) -> i64;
    /// A row of relation `rel`.
    fn push(&mut self, rel: usize, row: &[i64]);
}

impl FactKeys {
    /// The names of `program`'s input relations, as its facts files accept
    /// them.
    pub fn new(program: &Program) -> FactKeys {
        let model = &program.catalog;
        let mut keys = FxHashMap::default();
        let mut declared: HashMap<Ty, usize> = HashMap::new();
        for (i, rel) in program.relations.iter().enumerate() {
            if let Role::Entities(t @ Ty::Entity(_)) = &rel.role {
                declared.insert(*t, i);
            }
        }
        // The names the facts reader accepts for a type: its name, id and
        // the id's local part.
        for (k, t) in model.types.iter().enumerate() {
            let rel = declared.get(&Ty::Entity(TypeId(k as u32))).copied();
            for name in [t.name.as_str(), t.id.as_str(), local_name(&t.id)] {
                keys.insert(format!("@{name}"), Key::Entity { rel });
            }
        }
        for (i, rel) in program.relations.iter().enumerate() {
            if let Role::Facts(lit) = &rel.role {
                let p = model.pred(lit.pred);
                let cols: Arc<[Ty]> = rel.columns.clone().into();
                let sign = if lit.negative { "~" } else { "" };
                // The names the facts reader resolves to this predicate (a
                // local name shared by two imported packages is not one).
                for name in [&p.local, &p.id] {
                    if model.pred_by_name(name) == Some(lit.pred) {
                        keys.insert(
                            format!("{sign}{name}"),
                            Key::Fact {
                                rel: i,
                                cols: cols.clone(),
                            },
                        );
                    }
                }
            }
        }
        let arity = model
            .preds
            .iter()
            .map(|p| p.params.len())
            .max()
            .unwrap_or(0);
        FactKeys { keys, arity }
    }

    /// Puts the rows of one case into `sink`; `None` when a row does not fit
    /// the package (its message is then [`FactKeys::case_file`]'s).
    pub fn case_rows<'c>(
        &self,
        cols: &'c FactsColumns<'_>,
        rows: &[u32],
        sink: &mut dyn Sink,
    ) -> Option<()> {
        let mut row = Vec::with_capacity(self.arity);
        // Per entity column, the last name interned from it and its id: a
        // case's rows mostly repeat a name in a column (the game in `e0`),
        // and comparing a short name with the last one costs a fraction
        // of interning it again. The sink is this case's alone, so a name
        // has one id throughout.
        let mut last: Vec<Option<(&'c str, i64)>> = vec![None; self.arity];
        let mut intern = |j: usize, name: &'c str, sink: &mut dyn Sink| match last.get(j) {
            Some(&Some((n, id))) if n == name => id,
            _ => {
                let id = sink.intern(name);
                if let Some(l) = last.get_mut(j) {
                    *l = Some((name, id));
                }
                id
            }
        };
        for &r in rows {
            let r = r as usize;
            let key = self.keys.get(cols.predicate.get(r)?)?;
            let (rel, width) = match key {
                Key::Fact { rel, cols: tys } => {
                    row.clear();
                    for (j, t) in tys.iter().enumerate() {
                        match (t, cols.entity(j, r), cols.int(j, r)) {
                            (Ty::Entity(_), Some(name), None) => row.push(intern(j, name, sink)),
                            (Ty::Int, None, Some(v)) => row.push(v),
                            _ => return None,
                        }
                    }
                    (Some(*rel), tys.len())
                }
                Key::Entity { rel } => {
                    let (Some(name), None) = (cols.entity(0, r), cols.int(0, r)) else {
                        return None;
                    };
                    row.clear();
                    row.push(intern(0, name, sink));
                    (*rel, 1)
                }
            };
            if (width..self.arity).any(|j| cols.entity(j, r).is_some() || cols.int(j, r).is_some())
            {
                return None;
            }
            if let Some(rel) = rel {
                sink.push(rel, &row);
            }
        }
        Some(())
    }

    /// The rows of one case as a docs/reference.md#facts-files facts file
    /// (`Ok`), for the package's facts reader to give the message a file
    /// with the same content gets (its JSON pointers are into that file:
    /// `/facts/<predicate>/<row>`); or the message itself (`Err`) for a row
    /// no file can express: no predicate, or both `e<j>` and `n<j>`.
    pub fn case_file(&self, cols: &FactsColumns<'_>, rows: &[u32]) -> Result<String, String> {
        use serde_json::Value;
        let mut facts = serde_json::Map::new();
        let mut entities = serde_json::Map::new();
        for &r in rows {
            let r = r as usize;
            let Some(pred) = cols.predicate.get(r) else {
                return Err(format!(
                    "invalid facts: row {r} of the batch has no predicate (a null in column `predicate`)"
                ));
            };
            let mut values = Vec::new();
            for j in 0..self.arity {
                values.push(match (cols.entity(j, r), cols.int(j, r)) {
                    (Some(_), Some(_)) => {
                        return Err(format!(
                            "invalid facts: row {r} of the batch has both `e{j}` and `n{j}`; give value {} in one of them",
                            j + 1
                        ))
                    }
                    (Some(e), None) => Value::from(e),
                    (None, Some(n)) => Value::from(n),
                    (None, None) => Value::Null,
                });
            }
            let width = match self.keys.get(pred) {
                Some(Key::Fact { cols, .. }) => cols.len(),
                Some(Key::Entity { .. }) => 1,
                None => 0,
            };
            // Trailing nulls past the predicate's arity are absent values.
            while values.len() > width && values.last() == Some(&Value::Null) {
                values.pop();
            }
            match pred.strip_prefix('@') {
                // An entity list holds names only: a value past `e0` has no
                // place in the file, and dropping it would make the file
                // say less than the batch.
                Some(ty) if values.len() > 1 => {
                    return Err(format!(
                        "invalid facts: row {r} of the batch declares a `{ty}` entity with {} values; give its name alone, in `e0`",
                        values.len()
                    ))
                }
                Some(ty) => {
                    let names = entities
                        .entry(ty.to_owned())
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(a) = names {
                        a.push(values.into_iter().next().unwrap_or(Value::Null));
                    }
                }
                None => {
                    let list = facts
                        .entry(pred.to_owned())
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(a) = list {
                        a.push(Value::Array(values));
                    }
                }
            }
        }
        let mut file = serde_json::Map::new();
        if let Some(d) = cols.case_date(rows)? {
            file.insert("asOf".into(), d.into());
        }
        if !entities.is_empty() {
            file.insert("entities".into(), entities.into());
        }
        file.insert("facts".into(), facts.into());
        Ok(Value::Object(file).to_string())
    }
}

/// A string column in any of Arrow's string encodings.
pub enum Strings<'a> {
    /// `Utf8`.
    Utf8(&'a arrow_array::StringArray),
    /// `LargeUtf8`.
    Large(&'a arrow_array::LargeStringArray),
    /// `Utf8View`.
    View(&'a arrow_array::StringViewArray),
    /// A dictionary-encoded column: `keys` index into `values`.
    Dict {
        /// The column itself, for its null mask.
        array: &'a dyn Array,
        /// Per row, its value's index into `values`.
        keys: Vec<usize>,
        /// The dictionary's values.
        values: Box<Strings<'a>>,
    },
}

impl<'a> Strings<'a> {
    fn new(name: &str, a: &'a ArrayRef) -> Result<Strings<'a>, BatchError> {
        Ok(match a.data_type() {
            DataType::Utf8 => Strings::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => Strings::Large(a.as_string::<i64>()),
            DataType::Utf8View => Strings::View(a.as_string_view()),
            DataType::Dictionary(_, v)
                if matches!(**v, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) =>
            {
                let d = a.as_any_dictionary();
                let values: &'a ArrayRef = d.values();
                Strings::Dict {
                    array: a.as_ref(),
                    // A dictionary of no values (pyarrow encodes a column of
                    // nulls so) has only null keys; arrow's normalized_keys
                    // asserts there is a value.
                    keys: if values.is_empty() {
                        Vec::new()
                    } else {
                        d.normalized_keys()
                    },
                    values: Box::new(Strings::new(name, values)?),
                }
            }
            t => {
                return Err(BatchError::Type(format!(
                    "column `{name}` must hold strings (utf8, large_utf8, utf8_view or a dictionary of them), not {t}"
                )))
            }
        })
    }

    /// The string at row `i`; `None` for a null (or a dictionary key that
    /// names no value).
    pub fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strings::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::View(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Dict {
                array,
                keys,
                values,
            } => {
                if array.is_valid(i) {
                    values.get(*keys.get(i)?)
                } else {
                    None
                }
            }
        }
    }
}

/// The columns of a facts batch.
pub struct FactsColumns<'a> {
    /// Which case each row belongs to.
    pub case: &'a Int64Array,
    /// The predicate (or `@Type`) of each row.
    pub predicate: Strings<'a>,
    /// `e<j>`: the j-th argument where it is an entity.
    pub entities: Vec<Option<Strings<'a>>>,
    /// `n<j>`: the j-th argument where it is an integer.
    pub ints: Vec<Option<&'a Int64Array>>,
    /// `asOf`: the date of the row's case, if the batch has the column
    /// (null: the row says nothing of it).
    pub as_of: Option<Strings<'a>>,
}

impl<'a> FactsColumns<'a> {
    /// The columns of `batch` for a program of `arity`.
    pub fn new(batch: &'a RecordBatch, arity: usize) -> Result<FactsColumns<'a>, BatchError> {
        let schema = batch.schema();
        let mut entities: Vec<Option<Strings<'a>>> = (0..arity).map(|_| None).collect();
        let mut ints: Vec<Option<&'a Int64Array>> = vec![None; arity];
        let (mut case, mut predicate, mut as_of) = (None, None, None);
        for (f, col) in schema.fields().iter().zip(batch.columns()) {
            let name = f.name().as_str();
            let pos = |prefix: char| {
                name.strip_prefix(prefix)
                    .and_then(|d| d.parse::<usize>().ok())
                    .filter(|&j| j < arity && name == format!("{prefix}{j}"))
            };
            if name == "case" {
                case = Some(int_column(name, col)?);
            } else if name == "predicate" {
                predicate = Some(Strings::new(name, col)?);
            } else if name == "asOf" {
                as_of = Some(Strings::new(name, col)?);
            } else if let Some(j) = pos('e') {
                entities[j] = Some(Strings::new(name, col)?);
            } else if let Some(j) = pos('n') {
                ints[j] = Some(int_column(name, col)?);
            } else {
                return Err(BatchError::Value(format!(
                    "unexpected column `{name}`: a facts batch has the columns case, predicate{}, and optionally asOf",
                    (0..arity)
                        .map(|j| format!(", e{j}, n{j}"))
                        .collect::<String>()
                )));
            }
        }
        let missing = |c: &str| BatchError::Value(format!("the facts batch has no column `{c}`"));
        Ok(FactsColumns {
            case: case.ok_or_else(|| missing("case"))?,
            predicate: predicate.ok_or_else(|| missing("predicate"))?,
            entities,
            ints,
            as_of,
        })
    }

    /// The date the rows of one case give in `asOf` (`None`: the batch has
    /// no such column, or every row of the case leaves it null), or why
    /// they give none: two rows of the case with different dates. Whether
    /// it is a date is for the facts reader to say.
    pub fn case_date(&self, rows: &[u32]) -> Result<Option<&'a str>, String> {
        let Some(col) = &self.as_of else {
            return Ok(None);
        };
        let mut first: Option<(u32, &'a str)> = None;
        for &r in rows {
            let Some(d) = col.get(r as usize) else {
                continue;
            };
            match first {
                None => first = Some((r, d)),
                Some((_, f)) if f == d => {}
                Some((fr, f)) => {
                    return Err(format!(
                        "invalid facts: rows {fr} and {r} of the batch are of the same case and give it two dates in `asOf`, `{f}` and `{d}`; give a case one date (on any of its rows, the others null)"
                    ))
                }
            }
        }
        Ok(first.map(|(_, d)| d))
    }

    /// Row `r`'s j-th entity argument, if it has one.
    pub fn entity(&self, j: usize, r: usize) -> Option<&str> {
        self.entities.get(j)?.as_ref()?.get(r)
    }

    /// Row `r`'s j-th integer argument, if it has one.
    pub fn int(&self, j: usize, r: usize) -> Option<i64> {
        self.ints
            .get(j)
            .copied()
            .flatten()
            .and_then(|c| c.is_valid(r).then(|| c.value(r)))
    }

    /// The cases of a batch of `n_rows` rows in order of first appearance,
    /// with each case's rows in batch order.
    pub fn cases(&self, n_rows: usize) -> Result<Cases, BatchError> {
        if self.case.null_count() > 0 {
            return Err(BatchError::Value(
                "column `case` has nulls: every fact belongs to a case".into(),
            ));
        }
        u32::try_from(n_rows).map_err(|_| {
            BatchError::Value("a facts batch has at most 2^32 rows; split it".into())
        })?;
        // Two passes and three flat vectors, not a vector per case: the
        // first numbers each row's case (in order of first appearance) and
        // counts the cases' rows; the second places every row after the
        // rows of the cases before its own.
        // SipHash, not FxHash: case keys are input, and looked up only
        // when the case changes from one row to the next.
        let mut index: HashMap<i64, u32> = HashMap::new();
        let mut keys: Vec<i64> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        let mut case_of: Vec<u32> = Vec::with_capacity(n_rows);
        // A case's rows usually come together: the row after one of case
        // `k` is looked up only when it is of another case.
        let mut last: Option<(i64, u32)> = None;
        for &key in self.case.values().iter().take(n_rows) {
            let i = match last {
                Some((k, i)) if k == key => i,
                _ => *index.entry(key).or_insert_with(|| {
                    keys.push(key);
                    counts.push(0);
                    // At most `n_rows` cases, and `n_rows` fits in a u32.
                    (keys.len() - 1) as u32
                }),
            };
            last = Some((key, i));
            counts[i as usize] += 1;
            case_of.push(i);
        }
        let mut starts = Vec::with_capacity(keys.len() + 1);
        let mut at = 0u32;
        for c in &counts {
            starts.push(at);
            at += c;
        }
        starts.push(at);
        let mut next = starts.clone();
        let mut rows = vec![0u32; case_of.len()];
        for (r, &i) in case_of.iter().enumerate() {
            let slot = &mut next[i as usize];
            rows[*slot as usize] = r as u32;
            *slot += 1;
        }
        Ok(Cases { keys, starts, rows })
    }
}

/// The cases of a facts batch ([`FactsColumns::cases`]): their keys in
/// order of first appearance, and the rows of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cases {
    /// The `case` value of each case.
    pub keys: Vec<i64>,
    /// Case `i`'s rows are `rows[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    rows: Vec<u32>,
}

impl Cases {
    /// The rows of case `i` (an index into `keys`), in batch order.
    pub fn rows(&self, i: usize) -> &[u32] {
        &self.rows[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

fn int_column<'a>(name: &str, col: &'a ArrayRef) -> Result<&'a Int64Array, BatchError> {
    col.as_primitive_opt::<arrow_array::types::Int64Type>()
        .ok_or_else(|| {
            BatchError::Type(format!(
                "column `{name}` must be int64, not {}",
                col.data_type()
            ))
        })
}
