//! Facts files (SPEC §2): JSON → typed rows, every error naming key and row.

use super::read::json_error;
use crate::diagnostics::{pointer_push, Code, Diagnostics, Location};
use crate::model::{local_name, Lit, Model, Ty, TypeId, Value};
use crate::syntax::RelationKind;
use serde_json::Value as J;
use std::collections::{BTreeMap, BTreeSet};

/// Input facts, validated against a package.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Rows per literal (`p` or `~p`), as sets.
    pub rows: BTreeMap<Lit, BTreeSet<Vec<Value>>>,
    /// Entities declared under `entities`.
    pub entities: BTreeMap<TypeId, BTreeSet<String>>,
    /// Rows given more than once (accepted once).
    pub duplicates: usize,
}

/// Reads a facts file for `model`.
pub fn read_facts(bytes: &[u8], model: &Model) -> Result<Facts, Diagnostics> {
    let mut diags = Diagnostics::new();
    let root: J = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            diags.push(json_error(&e));
            return Err(diags);
        }
    };
    let mut out = Facts::default();
    let Some(obj) = root.as_object() else {
        diags.error(
            Code::FactsShape,
            Location::default(),
            "a facts file must be a JSON object",
            r#"write {"facts": {"predicate": [[…], …]}, "entities": {"Type": ["name", …]}}"#,
        );
        return Err(diags);
    };
    for key in obj.keys() {
        if key != "facts" && key != "entities" {
            diags.error(
                Code::FactsShape,
                Location::new(None, pointer_push("", key)),
                format!("unknown top-level key `{key}`"),
                "a facts file has only `facts` and (optionally) `entities`",
            );
        }
    }
    if let Some(ents) = obj.get("entities") {
        read_entities(ents, model, &mut out, &mut diags);
    }
    match obj.get("facts") {
        Some(J::Object(facts)) => {
            for (key, rows) in facts {
                read_key(key, rows, model, &mut out, &mut diags);
            }
        }
        Some(_) => diags.error(
            Code::FactsShape,
            Location::new(None, "/facts"),
            "`facts` must be an object mapping predicate names to arrays of rows",
            r#"write "facts": {"player_of": [["g1", "white"]]}"#,
        ),
        None => {}
    }
    // p and ~p for the same tuple.
    for (lit, rows) in &out.rows {
        if lit.negative {
            continue;
        }
        if let Some(neg) = out.rows.get(&lit.complement()) {
            for row in rows.intersection(neg) {
                let name = &model.pred(lit.pred).local;
                diags.error(
                    Code::FactsContradiction,
                    Location::new(Some(name), pointer_push("/facts", format!("~{name}"))),
                    format!(
                        "both `{name}{}` and `~{name}{}` are given",
                        show_row(row),
                        show_row(row)
                    ),
                    "a fact and its explicit negation cannot both hold: remove the wrong one",
                );
            }
        }
    }
    diags.sort();
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(diags)
    }
}

fn show_row(row: &[Value]) -> String {
    let parts: Vec<_> = row
        .iter()
        .map(|v| match v {
            Value::Int(i) => i.to_string(),
            Value::Entity(e) => e.clone(),
        })
        .collect();
    format!("({})", parts.join(", "))
}

fn read_entities(v: &J, model: &Model, out: &mut Facts, diags: &mut Diagnostics) {
    let Some(m) = v.as_object() else {
        diags.error(
            Code::FactsShape,
            Location::new(None, "/entities"),
            "`entities` must be an object mapping type names to arrays of names",
            r#"write "entities": {"Situation": ["s1"]}"#,
        );
        return;
    };
    for (ty, names) in m {
        let ptr = pointer_push("/entities", ty);
        let Some(t) = model
            .types
            .iter()
            .position(|t| t.name == *ty || t.id == *ty || local_name(&t.id) == ty)
        else {
            let known: Vec<_> = model.types.iter().map(|t| t.name.as_str()).collect();
            diags.error(
                Code::FactsShape,
                Location::new(Some(ty), ptr),
                format!("unknown entity type `{ty}`"),
                format!(
                    "use one of the package's entity types: {}",
                    known.join(", ")
                ),
            );
            continue;
        };
        let Some(arr) = names.as_array() else {
            diags.error(
                Code::FactsShape,
                Location::new(Some(ty), ptr),
                "entities must be listed as an array of strings",
                r#"write ["name1", "name2"]"#,
            );
            continue;
        };
        for (i, n) in arr.iter().enumerate() {
            match n.as_str() {
                Some(s) => {
                    out.entities
                        .entry(TypeId(t as u32))
                        .or_default()
                        .insert(s.to_owned());
                }
                None => diags.error(
                    Code::FactsType,
                    Location::new(Some(ty), pointer_push(&ptr, i)),
                    "an entity name must be a string",
                    "write the entity's name as a JSON string",
                ),
            }
        }
    }
}

fn read_key(key: &str, rows: &J, model: &Model, out: &mut Facts, diags: &mut Diagnostics) {
    let ptr = pointer_push("/facts", key);
    let (negative, name) = match key.strip_prefix('~') {
        Some(rest) => (true, rest),
        None => (false, key),
    };
    let Some(pred) = model.pred_by_name(name) else {
        diags.error(
            Code::FactsUnknownPredicate,
            Location::new(Some(key), ptr),
            format!("unknown predicate `{name}`"),
            "use a predicate's local name (the part of its id after `#`) or its full id; `~` before it states the explicit negation",
        );
        return;
    };
    let decl = model.pred(pred);
    if decl.kind == RelationKind::Institutional {
        diags.error(
            Code::FactsInstitutional,
            Location::new(Some(key), ptr),
            format!(
                "`{}` is institutional: it is concluded by the rules, not given",
                decl.local
            ),
            "give the empirical facts the rules conclude it from, and let the evaluator derive it",
        );
        return;
    }
    let Some(arr) = rows.as_array() else {
        diags.error(
            Code::FactsShape,
            Location::new(Some(key), ptr),
            "rows must be an array of arrays",
            format!(r#"write "{key}": [[…], …], one inner array per fact"#),
        );
        return;
    };
    let lit = Lit { pred, negative };
    for (i, row) in arr.iter().enumerate() {
        let rptr = pointer_push(&ptr, i);
        let loc = || Location::new(Some(key), rptr.clone());
        let Some(vals) = row.as_array() else {
            diags.error(
                Code::FactsShape,
                loc(),
                "a row must be an array of values",
                "write the row as [value, …]",
            );
            continue;
        };
        if vals.len() != decl.params.len() {
            diags.error(
                Code::FactsArity,
                loc(),
                format!(
                    "`{}` takes {} value(s), this row has {}",
                    decl.local,
                    decl.params.len(),
                    vals.len()
                ),
                format!("give exactly {} value(s) per row", decl.params.len()),
            );
            continue;
        }
        let mut typed = Vec::with_capacity(vals.len());
        for (j, (v, t)) in vals.iter().zip(&decl.params).enumerate() {
            let ok = match (t, v) {
                (Ty::Int, J::Number(n)) => n.as_i64().map(Value::Int),
                (Ty::Entity(_), J::String(s)) => Some(Value::Entity(s.clone())),
                _ => None,
            };
            match ok {
                Some(x) => typed.push(x),
                None => {
                    diags.error(
                        Code::FactsType,
                        Location::new(Some(key), pointer_push(&rptr, j)),
                        format!(
                            "value {} of `{}` must be {}, found {}",
                            j + 1,
                            decl.local,
                            match t {
                                Ty::Int => "an integer in the i64 range".to_owned(),
                                Ty::Entity(_) => format!(
                                    "an entity name (a string) of type {}",
                                    model.type_name(*t)
                                ),
                            },
                            v
                        ),
                        "fix the value's JSON type: integers unquoted, entity names quoted",
                    )
                }
            }
        }
        if typed.len() == vals.len() && !out.rows.entry(lit).or_default().insert(typed) {
            out.duplicates += 1;
        }
    }
}
