//! The `arrow` target: record batches built from the fuzzer's bytes (columns
//! of any name and Arrow type, any length, nulls anywhere, dictionaries)
//! read as chess facts by `lawgen_runtime::arrow`, the reader the Python
//! modules' `evaluate_arrow` runs (docs/python.md).
//!
//! What must hold, besides no panic: the Arrow reader and the facts-file
//! reader agree. A case the Arrow reader takes, written as a facts file
//! (`FactKeys::case_file`), reads to the same rows (or is refused only for
//! `p` and `~p` given together, which the module reports after evaluating);
//! a case it refuses is refused by the facts reader too, since the module
//! reports that reader's message (anything else would be its "internal
//! error in lawgen").

use arbitrary::{Result, Unstructured};
use arrow_array::builder::{
    LargeStringBuilder, StringBuilder, StringDictionaryBuilder, StringViewBuilder,
};
use arrow_array::types::{Int8Type, UInt16Type};
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, NullArray, RecordBatch,
};
use arrow_schema::{Field, Schema};
use lawgen::diagnostics::RuntimeCode as Code;
use lawgen_runtime::arrow::{FactKeys, FactsColumns, Sink};
use lawgen_runtime::program::{Program, Role, Ty, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

/// The chess package's lowered program and the names its batches may use.
fn chess() -> &'static (Program, FactKeys, Vec<String>) {
    static CHESS: OnceLock<(Program, FactKeys, Vec<String>)> = OnceLock::new();
    CHESS.get_or_init(|| {
        let program =
            lawgen::internals::lower::lower(crate::chess().model()).expect("chess lowers");
        let keys = FactKeys::new(&program);
        let mut names: Vec<String> = keys.keys.keys().cloned().collect();
        names.sort();
        (program, keys, names)
    })
}

/// A string for a `predicate` or `e<j>` cell: mostly names the package
/// knows, entity names, and some that are neither.
fn cell(u: &mut Unstructured, names: &[String]) -> Result<String> {
    Ok(match u.int_in_range(0..=5u8)? {
        0..=2 => names[u.choose_index(names.len())?].clone(),
        3 => ["g1", "White", "Black", "Arbiter", "e4", ""][u.choose_index(6)?].to_owned(),
        4 => format!(
            "@{}",
            ["Game", "Player", "Piece", "Nope"][u.choose_index(4)?]
        ),
        _ => {
            let len = u.int_in_range(0..=6usize)?;
            String::from_utf8_lossy(u.bytes(len)?).into_owned()
        }
    })
}

fn column(u: &mut Unstructured, rows: usize, names: &[String]) -> Result<ArrayRef> {
    let nulls = u.int_in_range(0..=3u8)?;
    let null = |u: &mut Unstructured| -> Result<bool> { Ok(nulls > 0 && u.ratio(1, 4 * nulls)?) };
    Ok(match u.int_in_range(0..=9u8)? {
        0..=1 => {
            let mut v = Vec::with_capacity(rows);
            for _ in 0..rows {
                v.push(if null(u)? {
                    None
                } else {
                    Some(match u.int_in_range(0..=3u8)? {
                        0 => u.int_in_range(0..=3i64)?,
                        1 => i64::MIN,
                        2 => i64::MAX,
                        _ => u.arbitrary()?,
                    })
                });
            }
            Arc::new(Int64Array::from(v))
        }
        2..=3 => {
            let mut b = StringBuilder::new();
            for _ in 0..rows {
                if null(u)? {
                    b.append_null()
                } else {
                    b.append_value(cell(u, names)?)
                }
            }
            Arc::new(b.finish())
        }
        4 => {
            let mut b = LargeStringBuilder::new();
            for _ in 0..rows {
                if null(u)? {
                    b.append_null()
                } else {
                    b.append_value(cell(u, names)?)
                }
            }
            Arc::new(b.finish())
        }
        5 => {
            let mut b = StringViewBuilder::new();
            for _ in 0..rows {
                if null(u)? {
                    b.append_null()
                } else {
                    b.append_value(cell(u, names)?)
                }
            }
            Arc::new(b.finish())
        }
        6 => {
            let mut b = StringDictionaryBuilder::<Int8Type>::new();
            for _ in 0..rows {
                if null(u)? {
                    b.append_null()
                } else if b.append(cell(u, names)?).is_err() {
                    // More distinct values than an i8 key holds.
                    b.append_null()
                }
            }
            Arc::new(b.finish())
        }
        7 => {
            let mut b = StringDictionaryBuilder::<UInt16Type>::new();
            for _ in 0..rows {
                if null(u)? {
                    b.append_null()
                } else {
                    let _ = b.append(cell(u, names)?);
                }
            }
            Arc::new(b.finish())
        }
        8 => match u.int_in_range(0..=3u8)? {
            0 => Arc::new(Int32Array::from_iter((0..rows).map(|i| i as i32))),
            1 => Arc::new(Float64Array::from_iter((0..rows).map(|i| i as f64))),
            2 => Arc::new(BooleanArray::from_iter((0..rows).map(|i| Some(i % 2 == 0)))),
            _ => Arc::new(NullArray::new(rows)),
        },
        _ => {
            // Another length than the batch's: RecordBatch refuses it.
            let n = u.int_in_range(0..=rows + 2)?;
            Arc::new(Int64Array::from_iter_values(0..n as i64))
        }
    })
}

/// A batch built from the fuzzer's bytes, or `None` when arrow itself
/// refuses the columns (lengths, duplicate names are fine for it).
pub fn batch(data: &[u8]) -> Result<Option<RecordBatch>> {
    let mut u = Unstructured::new(data);
    let (_, keys, names) = chess();
    let rows = u.int_in_range(0..=12usize)?;
    let n_cols = u.int_in_range(0..=2 + 2 * keys.arity)?;
    let mut fields = Vec::new();
    let mut cols = Vec::new();
    // Mostly the columns the layout names, in any order.
    let mut wanted: Vec<String> = vec!["case".into(), "predicate".into()];
    for j in 0..keys.arity {
        wanted.push(format!("e{j}"));
        wanted.push(format!("n{j}"));
    }
    for i in 0..n_cols {
        let name = match u.int_in_range(0..=9u8)? {
            0 => [
                "E0",
                "e01",
                "n-1",
                "x",
                "",
                "case ",
                &format!("e{}", keys.arity),
            ][u.choose_index(7)?]
            .to_owned(),
            1 => wanted[u.choose_index(wanted.len())?].clone(),
            _ => wanted[i % wanted.len()].clone(),
        };
        // The layout's own types where it names them, most of the time.
        let col = if u.ratio(2u8, 3u8)? {
            let nulls = u.ratio(1u8, 4u8)?;
            layout_column(&mut u, &name, rows, names, nulls)?
        } else {
            column(&mut u, rows, names)?
        };
        fields.push(Field::new(name, col.data_type().clone(), true));
        cols.push(col);
    }
    let schema = Arc::new(Schema::new(fields));
    Ok(RecordBatch::try_new(schema, cols).ok())
}

/// A column of the type the layout gives `name`: int64 for `case` and
/// `n<j>`, strings for the others.
fn layout_column(
    u: &mut Unstructured,
    name: &str,
    rows: usize,
    names: &[String],
    nulls: bool,
) -> Result<ArrayRef> {
    if name == "case" || name.starts_with('n') {
        let mut v = Vec::with_capacity(rows);
        for _ in 0..rows {
            v.push(if nulls && u.ratio(1u8, 3u8)? {
                None
            } else {
                Some(u.int_in_range(0..=3i64)?)
            });
        }
        return Ok(Arc::new(Int64Array::from(v)));
    }
    let mut b = StringBuilder::new();
    for _ in 0..rows {
        if nulls && u.ratio(1u8, 2u8)? {
            b.append_null()
        } else {
            b.append_value(cell(u, names)?)
        }
    }
    Ok(Arc::new(b.finish()))
}

/// What the Arrow reader put into the facts: by relation, rows of ids.
#[derive(Default)]
struct Collect {
    names: Vec<String>,
    ids: HashMap<String, i64>,
    rows: Vec<(usize, Vec<i64>)>,
}

impl Sink for Collect {
    fn intern(&mut self, name: &str) -> i64 {
        if let Some(&i) = self.ids.get(name) {
            return i;
        }
        let i = self.names.len() as i64;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), i);
        i
    }
    fn push(&mut self, rel: usize, row: &[i64]) {
        self.rows.push((rel, row.to_vec()));
    }
}

type Rows = BTreeMap<lawgen_runtime::program::Lit, BTreeSet<Vec<Value>>>;

/// The collected rows as the facts reader's `rows` (and declared entities).
fn as_facts(program: &Program, c: &Collect) -> (Rows, BTreeSet<(u32, String)>) {
    let mut rows = Rows::new();
    let mut entities = BTreeSet::new();
    for (rel, row) in &c.rows {
        let r = &program.relations[*rel];
        let name = |id: i64| c.names[id as usize].clone();
        match &r.role {
            Role::Facts(lit) => {
                let values = row
                    .iter()
                    .zip(r.columns.iter())
                    .map(|(&v, t)| match t {
                        Ty::Int => Value::Int(v),
                        Ty::Entity(_) => Value::Entity(name(v)),
                    })
                    .collect();
                rows.entry(*lit).or_default().insert(values);
            }
            Role::Entities(Ty::Entity(t)) => {
                entities.insert((t.0, name(row[0])));
            }
            _ => panic!("the Arrow reader pushed a row into relation {rel}, which takes no facts"),
        }
    }
    (rows, entities)
}

/// The target.
pub fn arrow(data: &[u8]) {
    let Ok(Some(batch)) = batch(data) else {
        return;
    };
    let (program, keys, _) = chess();
    let cols = match FactsColumns::new(&batch, keys.arity) {
        Ok(c) => c,
        Err(e) => {
            assert!(!e.to_string().is_empty(), "an empty message");
            return;
        }
    };
    let cases = match cols.cases(batch.num_rows()) {
        Ok(c) => c,
        Err(e) => {
            assert!(!e.to_string().is_empty(), "an empty message");
            return;
        }
    };
    // Every row in exactly one case, the case of its key, in batch order;
    // cases in order of first appearance.
    let mut seen = vec![false; batch.num_rows()];
    let mut firsts = Vec::new();
    for (i, &key) in cases.keys.iter().enumerate() {
        let rows = cases.rows(i);
        assert!(
            rows.windows(2).all(|w| w[0] < w[1]),
            "a case's rows out of batch order"
        );
        for &r in rows {
            assert_eq!(
                cols.case.value(r as usize),
                key,
                "row {r} in the wrong case"
            );
            assert!(
                !std::mem::replace(&mut seen[r as usize], true),
                "row {r} twice"
            );
        }
        firsts.push(rows.first().copied());
    }
    assert!(seen.iter().all(|&s| s), "a row in no case");
    assert!(
        firsts.windows(2).all(|w| w[0] < w[1]),
        "cases out of order of first appearance"
    );
    let catalog = &crate::chess().catalog;
    for i in 0..cases.keys.len() {
        let rows = cases.rows(i);
        let mut sink = Collect::default();
        let taken = keys.case_rows(&cols, rows, &mut sink).is_some();
        let file = keys.case_file(&cols, rows);
        let read = file
            .as_ref()
            .map(|text| lawgen_runtime::formats::facts::read_facts(text.as_bytes(), catalog));
        match (taken, read) {
            (true, Err(message)) => {
                panic!("the Arrow reader took a case it cannot write as a facts file: {message}")
            }
            (true, Ok(Ok(facts))) => {
                let (rows, entities) = as_facts(program, &sink);
                assert_eq!(
                    rows,
                    facts.rows,
                    "the Arrow reader and the facts reader read different rows from {}",
                    file.as_deref().unwrap_or_default()
                );
                for (t, name) in entities {
                    assert!(
                        facts
                            .entities
                            .get(&lawgen_runtime::program::TypeId(t))
                            .is_some_and(|s| s.contains(&name)),
                        "the Arrow reader declared {name} the facts reader did not"
                    );
                }
            }
            (true, Ok(Err(d))) => assert!(
                d.iter().all(|d| d.code == Code::FactsContradiction),
                "the facts reader refused a case the Arrow reader took, not for `p` and `~p`:\n{}\n{}",
                d.render(),
                file.as_deref().unwrap_or_default()
            ),
            (false, Err(message)) => assert!(!message.is_empty()),
            (false, Ok(Ok(_))) => panic!(
                "the Arrow reader refused a case that the facts reader accepts: {}",
                file.as_deref().unwrap_or_default()
            ),
            (false, Ok(Err(d))) => assert!(!d.is_empty()),
        }
    }
}
