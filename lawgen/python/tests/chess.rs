//! The bindings over the golden chess module (tests/golden/generated, both
//! engines), without a Python interpreter: every chess scenario through
//! `evaluate_json`, `evaluate_many`, `explain` and `evaluate_arrow`, against
//! the reference evaluator run on the program the module embeds. The PyO3
//! layer on top is exercised by tests/python (scripts/test-python.sh) and
//! lawgen's `python_module` test, through real Python modules.

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use lawgen_python::{ArrowError, Bindings, Package};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::{interp, Batching, Error, Policy};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod ascent {
    lawgen_python::python_module! {
        package = lawgen_golden::fide_laws_chess,
        name = "fide_laws_chess",
        doc = "the chess package (Ascent engine)",
    }
}

mod direct {
    lawgen_python::python_module! {
        package = lawgen_golden::fide_laws_chess_direct,
        name = "fide_laws_chess_direct",
        doc = "the chess package (Direct engine)",
    }
}

const POLICIES: [Policy; 2] = [Policy::Blocking, Policy::Propagating];

/// Every chess scenario's facts file, by name.
fn scenarios() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/chess");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    files.sort();
    assert!(
        files.len() > 40,
        "the chess scenarios are in {}",
        dir.display()
    );
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// The reference evaluator's canonical output, on the program the module
/// embeds (what `lawgen eval` prints for the package).
fn reference<P: Package>(facts: &[u8], policy: Policy) -> String {
    let program = lawgen_runtime::__private::embedded_program(P::embedded()).unwrap();
    let facts = read_facts(facts, &program.catalog).unwrap();
    let store = interp::evaluate(program, &facts, policy);
    canonical_json(&interp::conclusions(program, &store, policy))
}

fn evaluate_json_is_the_reference_output<P: Package>() {
    let b = Bindings::<P>::new().unwrap();
    for (name, facts) in scenarios() {
        for policy in POLICIES {
            let got = b.evaluate_json(&facts, policy).unwrap();
            assert_eq!(got, reference::<P>(&facts, policy), "{name} ({policy:?})");
        }
    }
}

#[test]
fn evaluate_json_is_the_reference_output_on_both_engines() {
    evaluate_json_is_the_reference_output::<ascent::Package>();
    evaluate_json_is_the_reference_output::<direct::Package>();
}

#[test]
fn evaluate_many_keeps_the_order_and_the_error_of_each_case() {
    let b = Bindings::<ascent::Package>::new().unwrap();
    let mut cases: Vec<Vec<u8>> = scenarios().into_iter().map(|(_, f)| f).collect();
    let bad = cases.len() / 2;
    cases.insert(
        bad,
        br#"{"facts": {"no_such_predicate": [["g1"]]}}"#.to_vec(),
    );
    let batching = Batching {
        threads: 2,
        batch_size: 7,
    };
    let out = b.evaluate_many(&cases, Policy::Blocking, &batching);
    assert_eq!(out.len(), cases.len());
    for (i, (case, got)) in cases.iter().zip(&out).enumerate() {
        match got {
            Ok(text) => assert_eq!(*text, reference::<ascent::Package>(case, Policy::Blocking)),
            Err(Error::Facts(d)) if i == bad => assert!(d.contains("no_such_predicate"), "{d}"),
            Err(e) => panic!("case {i}: {e}"),
        }
    }
}

#[test]
fn explain_answers_and_refuses_as_the_module_does() {
    let b = Bindings::<ascent::Package>::new().unwrap();
    let facts = br#"{"facts": {"player_of": [["g1", "white"], ["g1", "black"]],
                                "moves_by_each_without_pawn_or_capture": [["g1", 75]]}}"#;
    let e = b
        .explain(facts, "game_drawn(g1)", "en", Policy::Blocking)
        .unwrap();
    assert!(e.text().contains("game_drawn(g1)"), "{}", e.text());
    let ru = b
        .explain(facts, "game_drawn(g1)", "ru", Policy::Blocking)
        .unwrap();
    assert_ne!(e.text(), ru.text());
    match b.explain(facts, "no_such_literal(g1)", "en", Policy::Blocking) {
        Err(Error::Query(m)) => assert!(m.contains("no_such_literal"), "{m}"),
        other => panic!("an unknown literal: {other:?}"),
    }
}

/// Facts files as one facts batch of the columnar layout (docs/python.md),
/// case `i` the `i`-th file (as tests/python/layout.py writes it). When a
/// file has an `asOf`, the batch has an `asOf` column holding it on every
/// row of the case (`asOfFirstRow`, if given, on its first row instead).
fn facts_batch(cases: &[Value], arity: usize) -> RecordBatch {
    let (mut case, mut pred) = (Vec::new(), Vec::new());
    let mut dates: Vec<Option<String>> = Vec::new();
    let mut ents: Vec<Vec<Option<String>>> = vec![Vec::new(); arity];
    let mut ints: Vec<Vec<Option<i64>>> = vec![Vec::new(); arity];
    for (k, f) in cases.iter().enumerate() {
        let mut first = true;
        let mut row = |p: String, values: &[Value]| {
            case.push(k as i64);
            let date = match (first, f["asOfFirstRow"].as_str()) {
                (true, Some(d)) => Some(d),
                _ => f["asOf"].as_str(),
            };
            dates.push(date.map(str::to_owned));
            first = false;
            pred.push(p);
            for j in 0..arity {
                ents[j].push(values.get(j).and_then(Value::as_str).map(str::to_owned));
                ints[j].push(values.get(j).and_then(Value::as_i64));
            }
        };
        if let Some(types) = f["entities"].as_object() {
            for (ty, names) in types {
                for n in names.as_array().unwrap() {
                    row(format!("@{ty}"), std::slice::from_ref(n));
                }
            }
        }
        for (p, rows) in f["facts"].as_object().unwrap() {
            for values in rows.as_array().unwrap() {
                row(p.clone(), values.as_array().unwrap());
            }
        }
    }
    let mut columns: Vec<(String, ArrayRef)> = vec![
        ("case".into(), Arc::new(Int64Array::from(case))),
        ("predicate".into(), Arc::new(StringArray::from(pred))),
    ];
    for (j, e) in ents.into_iter().enumerate() {
        columns.push((format!("e{j}"), Arc::new(StringArray::from(e))));
    }
    for (j, n) in ints.into_iter().enumerate() {
        columns.push((format!("n{j}"), Arc::new(Int64Array::from(n))));
    }
    if dates.iter().any(Option::is_some) {
        columns.push(("asOf".into(), Arc::new(StringArray::from(dates))));
    }
    RecordBatch::try_from_iter(columns).unwrap()
}

/// A verdicts batch read back into one canonical output per case (or
/// `{"error": message}`), as tests/python/layout.py reads it.
fn outputs(batch: &RecordBatch) -> Vec<(i64, Value)> {
    let meta = batch.schema().metadata().clone();
    let col = |name: &str| batch.column_by_name(name).unwrap().clone();
    let text = |a: &ArrayRef, i: usize| {
        let a = a.as_any().downcast_ref::<StringArray>().unwrap();
        (!a.is_null(i)).then(|| a.value(i).to_owned())
    };
    let arity = (0..)
        .take_while(|j| batch.column_by_name(&format!("e{j}")).is_some())
        .count();
    let case = col("case");
    let case = case.as_any().downcast_ref::<Int64Array>().unwrap();
    let (section, literal, message) = (col("section"), col("literal"), col("message"));
    let (authority, capability) = (col("authority"), col("capability"));
    // A batch with an `asOf` column gives each case's date on its rows.
    let as_of = batch.column_by_name("asOf").cloned();
    let mut out: Vec<(i64, Value)> = Vec::new();
    for i in 0..batch.num_rows() {
        let k = case.value(i);
        if out.last().is_none_or(|(c, _)| *c != k) {
            let date = match &as_of {
                Some(a) => json!(text(a, i)),
                None => serde_json::from_str::<Value>(&meta["lawgen.asOf"]).unwrap(),
            };
            out.push((
                k,
                json!({
                    "package": meta["lawgen.package"], "version": meta["lawgen.version"],
                    "policy": meta["lawgen.policy"],
                    "asOf": date,
                    "editions": serde_json::from_str::<Value>(&meta["lawgen.editions"]).unwrap(),
                    "definitely": {}, "defeasibly": {},
                    "supported": {}, "pending": {}, "requests": [],
                }),
            ));
        }
        let o = &mut out.last_mut().unwrap().1;
        let mut args = Vec::new();
        for j in 0..arity {
            let e = col(&format!("e{j}"));
            let n = col(&format!("n{j}"));
            let n = n.as_any().downcast_ref::<Int64Array>().unwrap();
            match (text(&e, i), n.is_null(i)) {
                (Some(e), _) => args.push(json!(e)),
                (None, false) => args.push(json!(n.value(i))),
                (None, true) => break,
            }
        }
        let lit = text(&literal, i);
        match text(&section, i).unwrap().as_str() {
            "none" => {}
            "error" => *o = json!({ "error": text(&message, i) }),
            "request" => o["requests"].as_array_mut().unwrap().push(json!({
                "args": args, "authority": text(&authority, i),
                "capability": text(&capability, i), "predicate": lit,
            })),
            s => {
                let sec: &mut Map<String, Value> = o[s].as_object_mut().unwrap();
                let rows = sec.entry(lit.unwrap()).or_insert_with(|| json!([]));
                rows.as_array_mut().unwrap().push(Value::Array(args));
            }
        }
    }
    out
}

fn evaluate_arrow_is_the_canonical_output<P: Package>() {
    let b = Bindings::<P>::new().unwrap();
    let files = scenarios();
    let cases: Vec<Value> = files
        .iter()
        .map(|(_, f)| serde_json::from_slice(f).unwrap())
        .collect();
    let batch = facts_batch(&cases, b.arity());
    let batching = Batching {
        threads: 2,
        batch_size: 5,
    };
    // A case without a fact or an entity has no row in a facts batch.
    let present: Vec<usize> = (0..cases.len())
        .filter(|&k| {
            let rows = |key: &str| {
                cases[k][key].as_object().is_some_and(|o| {
                    o.values()
                        .any(|v| v.as_array().is_some_and(|a| !a.is_empty()))
                })
            };
            rows("facts") || rows("entities")
        })
        .collect();
    assert!(present.len() > 40);
    for policy in POLICIES {
        let got = outputs(&b.evaluate_arrow(&batch, policy, &batching, true).unwrap());
        let keys: Vec<usize> = got.iter().map(|(k, _)| *k as usize).collect();
        assert_eq!(keys, present, "the cases of the batch, in order");
        for (k, got) in got {
            let (name, facts) = &files[k as usize];
            let want: Value = serde_json::from_str(&reference::<P>(facts, policy)).unwrap();
            assert_eq!(got, want, "case {k}, {name} ({policy:?})");
        }
    }
}

#[test]
fn evaluate_arrow_gives_the_canonical_output_of_each_case_on_both_engines() {
    evaluate_arrow_is_the_canonical_output::<ascent::Package>();
    evaluate_arrow_is_the_canonical_output::<direct::Package>();
}

#[test]
fn a_case_that_does_not_fit_gets_the_facts_readers_message_and_spares_the_others() {
    let b = Bindings::<ascent::Package>::new().unwrap();
    let cases = [
        json!({"facts": {"draw_agreed": [["g1"]], "both_players_have_moved": [["g1"]]}}),
        json!({"facts": {"player_of": [["g1", 7]]}}),
        json!({"facts": {"checkmate_delivered": [["g1", "white"]], "player_of": [["g1", "white"]]}}),
    ];
    let batch = facts_batch(&cases, b.arity());
    let got = outputs(
        &b.evaluate_arrow(&batch, Policy::Blocking, &Batching::default(), true)
            .unwrap(),
    );
    let file_error = b
        .evaluate_json(cases[1].to_string().as_bytes(), Policy::Blocking)
        .unwrap_err()
        .to_string();
    assert!(
        file_error.contains("value 2 of `player_of` must be an entity name"),
        "{file_error}"
    );
    assert_eq!(got[1], (1, json!({ "error": file_error })));
    for k in [0, 2] {
        let want = b
            .evaluate_json(cases[k].to_string().as_bytes(), Policy::Blocking)
            .unwrap();
        assert_eq!(got[k], (k as i64, serde_json::from_str(&want).unwrap()));
    }
}

#[test]
fn a_batch_without_the_layouts_columns_is_refused() {
    let b = Bindings::<ascent::Package>::new().unwrap();
    let batch = RecordBatch::try_from_iter([(
        "case",
        Arc::new(StringArray::from(vec!["not an integer"])) as ArrayRef,
    )])
    .unwrap();
    match b.evaluate_arrow(&batch, Policy::Blocking, &Batching::default(), false) {
        Err(ArrowError::Type(m) | ArrowError::Value(m)) => assert!(m.contains("case"), "{m}"),
        other => panic!(
            "a `case` column of strings: {:?}",
            other.map(|b| b.num_rows())
        ),
    }
}

/// An `asOf` column dates each case: a case is judged as of its date as
/// its facts file with that `asOf` is; a date that is no date, one with no
/// law in force, or two dates for one case get the facts reader's message
/// (or the batch reader's), and spare the other cases; a case with no date
/// is judged as of the package's current date. The verdicts batch gives
/// each row's date in its own `asOf` column.
#[test]
fn an_as_of_column_dates_each_case() {
    let b = Bindings::<ascent::Package>::new().unwrap();
    let facts = json!({"draw_agreed": [["g1"]], "both_players_have_moved": [["g1"]]});
    let cases = [
        json!({"asOf": "2024-05-01", "facts": facts}),
        json!({"asOf": "2019-05-01", "facts": facts}),
        json!({"asOf": "2023-02-30", "facts": facts}),
        json!({"facts": facts}),
        json!({"asOf": "2024-05-01", "asOfFirstRow": "2025-01-01", "facts": facts}),
    ];
    let batch = facts_batch(&cases, b.arity());
    let out = b
        .evaluate_arrow(&batch, Policy::Blocking, &Batching::default(), true)
        .unwrap();
    let got = outputs(&out);
    let file = |k: usize| b.evaluate_json(cases[k].to_string().as_bytes(), Policy::Blocking);
    // As of its date, as the facts file with that `asOf`.
    let want: Value = serde_json::from_str(&file(0).unwrap()).unwrap();
    assert_eq!(want["asOf"], json!("2024-05-01"));
    assert_eq!(got[0], (0, want));
    // No law in force, not a date: the facts reader's messages.
    for k in [1, 2] {
        let e = file(k).unwrap_err().to_string();
        assert_eq!(got[k], (k as i64, json!({ "error": e })), "case {k}");
    }
    assert!(
        got[1].1["error"]
            .as_str()
            .unwrap()
            .contains("no edition of the work `FIDE_LAWS_OF_CHESS` is in force on 2019-05-01"),
        "{}",
        got[1].1
    );
    assert!(
        got[2].1["error"].as_str().unwrap().contains("E087"),
        "{}",
        got[2].1
    );
    // No date: the current one.
    let want: Value = serde_json::from_str(&file(3).unwrap()).unwrap();
    assert_eq!(want["asOf"], json!("2023-01-01"));
    assert_eq!(got[3], (3, want));
    // Two dates for one case.
    assert_eq!(
        got[4],
        (
            4,
            json!({ "error": "invalid facts: rows 8 and 9 of the batch are of the same case and give it two dates in `asOf`, `2025-01-01` and `2024-05-01`; give a case one date (on any of its rows, the others null)" })
        )
    );
}
