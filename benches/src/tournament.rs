//! Many games in one facts file: the bench games merged into ONE case, as a
//! tournament's facts would be written (the `tournament` binary measures how
//! each engine scales with it).
//!
//! Every game names the same entities (`g`, `white`, `black`, `wK`, ...), so
//! game `i` is renamed by prefixing each entity name with [`prefix`]`(i)`
//! (`g7.white`). The package's constants (`StartPlay`, `Ended`, ...) are
//! shared by every game and keep their names; integers are JSON numbers and
//! are never renamed. The merged file is the disjoint union of the games:
//! every rule of the chess package joins its items on shared variables
//! (no body has two unconnected parts), so each derived tuple names the
//! entities of one game only, and the merged conclusions are the union of
//! the per-game conclusions renamed the same way (`tests/tournament.rs`
//! checks this row by row).

use crate::cases::{self, SEED};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The prefix that renames the entities of game `i`.
pub fn prefix(i: u64) -> String {
    format!("g{i}.")
}

/// The names a facts file may use for the package's constants: the local
/// name and the full id of every `symbol_decl` of kind `constant` (for the
/// chess package, the nine transitions of [`cases::TRANSITIONS`] and the
/// three states). Read from the package JSON, so a compiled backend's child
/// process needs no part of the compiler for it.
pub fn package_constants(package_json: &str) -> Result<BTreeSet<String>, String> {
    let package: Value =
        serde_json::from_str(package_json).map_err(|e| format!("package JSON: {e}"))?;
    let nodes = package["nodes"]
        .as_array()
        .ok_or("package JSON: no `nodes` array")?;
    let mut out = BTreeSet::new();
    for n in nodes {
        if n["kind"] == "symbol_decl" && n["symbolKind"] == "constant" {
            for key in ["name", "id"] {
                if let Some(s) = n[key].as_str() {
                    out.insert(s.to_owned());
                }
            }
        }
    }
    Ok(out)
}

/// The chess package's constants ([`package_constants`] of
/// [`crate::engines::PACKAGE`]).
pub fn chess_constants() -> BTreeSet<String> {
    package_constants(crate::engines::PACKAGE).expect("the chess package is valid JSON")
}

/// One value of a row renamed: an entity name gets `prefix` unless it names
/// a constant; an integer stays. Anything else is not a facts-file value.
pub fn rename_value(
    v: &Value,
    prefix: &str,
    constants: &BTreeSet<String>,
) -> Result<Value, String> {
    match v {
        Value::String(s) if constants.contains(s) => Ok(v.clone()),
        Value::String(s) => Ok(Value::String(format!("{prefix}{s}"))),
        Value::Number(n) if n.is_i64() => Ok(v.clone()),
        other => Err(format!("not an entity name or an i64: {other}")),
    }
}

/// A row (`[value, …]`) renamed with [`rename_value`].
pub fn rename_row(
    row: &Value,
    prefix: &str,
    constants: &BTreeSet<String>,
) -> Result<Value, String> {
    let vals = row
        .as_array()
        .ok_or_else(|| format!("a row must be an array, found {row}"))?;
    vals.iter()
        .map(|v| rename_value(v, prefix, constants))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// Facts files merged into one: [`Merger::add`] each, then [`Merger::finish`].
pub struct Merger<'c> {
    constants: &'c BTreeSet<String>,
    entities: Map<String, Value>,
    facts: Map<String, Value>,
}

/// The array under `key` of a merged map, created empty on first use.
fn slot<'m>(map: &'m mut Map<String, Value>, key: &str) -> &'m mut Vec<Value> {
    match map
        .entry(key.to_owned())
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        Value::Array(a) => a,
        _ => unreachable!("merged maps hold arrays only"),
    }
}

impl<'c> Merger<'c> {
    pub fn new(constants: &'c BTreeSet<String>) -> Self {
        Merger {
            constants,
            entities: Map::new(),
            facts: Map::new(),
        }
    }

    /// Adds one facts file (docs/reference.md#facts-files) with its entities
    /// renamed by `prefix`. Types and predicate keys (`p`, `~p`) are kept;
    /// the rows of the same key from different files are concatenated.
    pub fn add(&mut self, prefix: &str, facts_file: &str) -> Result<(), String> {
        let file: Value =
            serde_json::from_str(facts_file).map_err(|e| format!("facts file: {e}"))?;
        let top = file.as_object().ok_or("a facts file is a JSON object")?;
        for key in top.keys() {
            if key != "entities" && key != "facts" {
                return Err(format!("unknown top-level key `{key}`"));
            }
        }
        if let Some(entities) = top.get("entities") {
            let entities = entities.as_object().ok_or("`entities` is an object")?;
            for (ty, names) in entities {
                let names = names
                    .as_array()
                    .ok_or_else(|| format!("`entities.{ty}` is an array"))?;
                let renamed = names
                    .iter()
                    .map(|n| match n {
                        Value::String(_) => rename_value(n, prefix, self.constants),
                        other => Err(format!("`entities.{ty}`: not a name: {other}")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                slot(&mut self.entities, ty).extend(renamed);
            }
        }
        let facts = top
            .get("facts")
            .ok_or("a facts file has `facts`")?
            .as_object()
            .ok_or("`facts` is an object")?;
        for (lit, rows) in facts {
            let rows = rows
                .as_array()
                .ok_or_else(|| format!("`facts.{lit}` is an array of rows"))?;
            let renamed = rows
                .iter()
                .map(|r| rename_row(r, prefix, self.constants))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("`facts.{lit}`: {e}"))?;
            slot(&mut self.facts, lit).extend(renamed);
        }
        Ok(())
    }

    /// The merged facts file.
    pub fn finish(self) -> String {
        let mut top = Map::new();
        top.insert("entities".into(), Value::Object(self.entities));
        top.insert("facts".into(), Value::Object(self.facts));
        serde_json::to_string(&Value::Object(top)).expect("JSON values serialize")
    }
}

/// Games `0..n` of `seed` (the bench games, [`cases::case`]) written as facts
/// files by [`cases::to_json`] and merged into one, game `i` renamed by
/// [`prefix`]`(i)`.
pub fn merged_games(seed: u64, n: usize, constants: &BTreeSet<String>) -> String {
    let mut m = Merger::new(constants);
    for i in 0..n as u64 {
        m.add(&prefix(i), &cases::to_json(&cases::case(seed, i)))
            .expect("generated facts files are well-formed");
    }
    m.finish()
}

/// [`merged_games`] of the bench seed and the chess package's constants.
pub fn tournament(n: usize) -> String {
    merged_games(SEED, n, &chess_constants())
}
