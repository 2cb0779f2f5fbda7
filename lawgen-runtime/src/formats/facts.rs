//! Facts files: JSON → typed rows, every error naming key and row.

use super::json_error;
use crate::diagnostics::{pointer_push, Code, Diagnostics, Location};
use crate::program::{local_name, Catalog as Model, Lit, RelationKind, Ty, TypeId, Value};
use serde_json::Value as J;

use crate::interp::Facts;

/// At most this many diagnostics are collected from one facts file; a
/// hostile file cannot make the error list itself exhaust memory.
const MAX_DIAGNOSTICS: usize = 1000;

/// Reads a facts file for `model`.
pub fn read_facts(bytes: &[u8], model: &Model) -> Result<Facts, Diagnostics> {
    read(&mut serde_json::Deserializer::from_slice(bytes), model)
}

/// Reads a facts file from a stream. The file is never held in memory as a
/// whole, nor as a JSON tree: rows are checked and stored one at a time, so
/// a 1 GB file costs the facts it states plus a bounded buffer.
pub fn read_facts_from<R: std::io::Read>(reader: R, model: &Model) -> Result<Facts, Diagnostics> {
    read(
        &mut serde_json::Deserializer::from_reader(std::io::BufReader::new(reader)),
        model,
    )
}

fn read<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    model: &Model,
) -> Result<Facts, Diagnostics> {
    let mut st = State {
        model,
        out: Facts::default(),
        diags: Diagnostics::new(),
        dropped: 0,
    };
    let parsed =
        serde::de::DeserializeSeed::deserialize(Root(&mut st), &mut *de).and_then(|()| de.end());
    let State {
        mut out,
        mut diags,
        dropped,
        ..
    } = st;
    if let Err(e) = parsed {
        diags.push(json_error(&e));
        return Err(diags);
    }
    diags.add_not_shown(dropped);
    check_contradictions(model, &out, &mut diags);
    diags.sort();
    if diags.is_empty() {
        out.rows.retain(|_, rows| !rows.is_empty());
        Ok(out)
    } else {
        out.rows.clear();
        Err(diags)
    }
}

/// Writes `facts` as a facts file for `model` (docs/reference.md#facts-files)
/// that [`read_facts`] reads back to the same `Facts`: keys sorted, each
/// predicate named by its local name unless packages of the closure share
/// it (then by full id), each type likewise by name or id, rows sorted, one
/// row per line. Constants are written by local name, as the reader takes
/// them. Rows of predicates `model` does not declare are an error of the
/// caller's and are not written.
pub fn write_facts(facts: &Facts, model: &Model) -> String {
    use super::write_string;
    let mut out = String::from("{");
    let mut sections = 0;
    if let Some(d) = facts.as_of {
        out.push_str("\n  \"asOf\": ");
        write_string(&mut out, &d.to_string());
        sections += 1;
    }
    let entities: Vec<(String, &std::collections::BTreeSet<String>)> = facts
        .entities
        .iter()
        .filter(|(t, names)| (t.0 as usize) < model.types.len() && !names.is_empty())
        .map(|(t, names)| {
            let ty = &model.types[t.0 as usize];
            let shared = model.types.iter().filter(|o| o.name == ty.name).count() > 1;
            let key = if shared {
                ty.id.clone()
            } else {
                ty.name.clone()
            };
            (key, names)
        })
        .collect();
    if !entities.is_empty() {
        if sections > 0 {
            out.push(',');
        }
        out.push_str("\n  \"entities\": {");
        let mut sorted = entities;
        sorted.sort();
        for (i, (key, names)) in sorted.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            write_string(&mut out, key);
            out.push_str(": [");
            for (j, n) in names.iter().enumerate() {
                if j > 0 {
                    out.push_str(", ");
                }
                write_string(&mut out, n);
            }
            out.push(']');
        }
        out.push_str("\n  }");
        sections += 1;
    }
    let mut keys: Vec<(String, &std::collections::BTreeSet<Vec<Value>>)> = facts
        .rows
        .iter()
        .filter(|(l, rows)| (l.pred.0 as usize) < model.preds.len() && !rows.is_empty())
        .map(|(l, rows)| {
            let p = model.pred(l.pred);
            let name = if model.ambiguous_pred(&p.local).is_some() {
                p.id.as_str()
            } else {
                p.local.as_str()
            };
            let key = if l.negative {
                format!("~{name}")
            } else {
                name.to_owned()
            };
            (key, rows)
        })
        .collect();
    keys.sort();
    if sections > 0 {
        out.push(',');
    }
    out.push_str("\n  \"facts\": {");
    for (i, (key, rows)) in keys.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        write_string(&mut out, key);
        out.push_str(": [");
        for (j, row) in rows.iter().enumerate() {
            out.push_str(if j == 0 { "\n      [" } else { ",\n      [" });
            for (k, v) in row.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                match v {
                    Value::Int(x) => out.push_str(&x.to_string()),
                    Value::Entity(e) => write_string(&mut out, e),
                }
            }
            out.push(']');
        }
        out.push_str("\n    ]");
    }
    if !keys.is_empty() {
        out.push_str("\n  ");
    }
    out.push_str("}\n}\n");
    out
}

/// p and ~p for the same tuple (docs/reference.md#facts-files).
fn check_contradictions(model: &Model, out: &Facts, diags: &mut Diagnostics) {
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
}

/// What the streaming visitors share.
struct State<'m> {
    model: &'m Model,
    out: Facts,
    diags: Diagnostics,
    /// Diagnostics beyond [`MAX_DIAGNOSTICS`].
    dropped: usize,
}

impl State<'_> {
    fn error(
        &mut self,
        code: Code,
        loc: Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        if self.diags.len() >= MAX_DIAGNOSTICS {
            self.dropped += 1;
        } else {
            self.diags.error(code, loc, message, help);
        }
    }
}

/// The top-level object: `facts` streamed, `entities` (small) as a tree.
struct Root<'a, 'm>(&'a mut State<'m>);

impl<'de> serde::de::DeserializeSeed<'de> for Root<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Root<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a facts object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "facts" => map.next_value_seed(FactsMap(&mut *self.0))?,
                "entities" => {
                    let v: J = map.next_value()?;
                    read_entities(&v, self.0);
                }
                "asOf" => {
                    let v: J = map.next_value()?;
                    match v.as_str().and_then(crate::law::Date::parse) {
                        Some(d) => self.0.out.as_of = Some(d),
                        // No date: the package's current date.
                        None if v.is_null() => self.0.out.as_of = None,
                        None => self.0.error(
                            Code::FactsDate,
                            Location::new(None, "/asOf"),
                            format!("`asOf` is not a date: `{v}`"),
                            "write the case's date as a string `YYYY-MM-DD` of a real calendar day, e.g. \"asOf\": \"2024-05-01\"",
                        ),
                    }
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    self.0.error(
                        Code::FactsShape,
                        Location::new(None, pointer_push("", &key)),
                        format!("unknown top-level key `{key}`"),
                        "a facts file has only `facts` and (optionally) `entities` and `asOf`",
                    );
                }
            }
        }
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        self.not_an_object();
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
}

impl Root<'_, '_> {
    fn not_an_object(self) {
        self.0.error(
            Code::FactsShape,
            Location::default(),
            "a facts file must be a JSON object",
            r#"write {"facts": {"predicate": [[…], …]}, "entities": {"Type": ["name", …]}}"#,
        );
    }
}

/// `"facts": { key: rows, … }`, one key at a time.
struct FactsMap<'a, 'm>(&'a mut State<'m>);

impl<'de> serde::de::DeserializeSeed<'de> for FactsMap<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FactsMap<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object mapping predicate names to arrays of rows")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match resolve_key(&key, self.0) {
                Some(lit) => map.next_value_seed(Rows {
                    st: &mut *self.0,
                    key: &key,
                    lit,
                })?,
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        self.not_an_object();
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
}

impl FactsMap<'_, '_> {
    fn not_an_object(self) {
        self.0.error(
            Code::FactsShape,
            Location::new(None, "/facts"),
            "`facts` must be an object mapping predicate names to arrays of rows",
            r#"write "facts": {"player_of": [["g1", "white"]]}"#,
        );
    }
}

/// The rows of one key, one row at a time.
struct Rows<'a, 'm> {
    st: &'a mut State<'m>,
    key: &'a str,
    lit: Lit,
}

impl<'de> serde::de::DeserializeSeed<'de> for Rows<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Rows<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of rows")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        // Each row is small: a tree per row is fine, a tree per file is not.
        while let Some(row) = seq.next_element::<J>()? {
            read_row(self.key, self.lit, i, &row, self.st);
            i += 1;
        }
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        self.not_an_array();
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
}

impl Rows<'_, '_> {
    fn not_an_array(self) {
        let key = self.key;
        self.st.error(
            Code::FactsShape,
            Location::new(Some(key), pointer_push("/facts", key)),
            "rows must be an array of arrays",
            format!(r#"write "{key}": [[…], …], one inner array per fact"#),
        );
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

fn read_entities(v: &J, st: &mut State) {
    let model = st.model;
    let Some(m) = v.as_object() else {
        st.error(
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
            st.error(
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
            st.error(
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
                    st.out
                        .entities
                        .entry(TypeId(t as u32))
                        .or_default()
                        .insert(s.to_owned());
                }
                None => st.error(
                    Code::FactsType,
                    Location::new(Some(ty), pointer_push(&ptr, i)),
                    "an entity name must be a string",
                    "write the entity's name as a JSON string",
                ),
            }
        }
    }
}

/// The literal a `facts` key names, or an error (and `None`).
fn resolve_key(key: &str, st: &mut State) -> Option<Lit> {
    let model = st.model;
    let ptr = pointer_push("/facts", key);
    let (negative, name) = match key.strip_prefix('~') {
        Some(rest) => (true, rest),
        None => (false, key),
    };
    let Some(pred) = model.pred_by_name(name) else {
        if let Some(ids) = model.ambiguous_pred(name) {
            let ids: Vec<String> = ids.iter().map(|i| format!("`{i}`")).collect();
            st.error(
                Code::FactsAmbiguousName,
                Location::new(Some(key), ptr),
                format!(
                    "`{name}` is ambiguous: packages of the import closure declare {}",
                    ids.join(" and ")
                ),
                "name the predicate by its full id",
            );
            return None;
        }
        st.error(
            Code::FactsUnknownPredicate,
            Location::new(Some(key), ptr),
            format!("unknown predicate `{name}`"),
            "use a predicate's local name (the part of its id after `#`) or its full id; `~` before it states the explicit negation",
        );
        return None;
    };
    let decl = model.pred(pred);
    if decl.kind == RelationKind::Institutional {
        st.error(
            Code::FactsInstitutional,
            Location::new(Some(key), ptr),
            format!(
                "`{}` is institutional: it is concluded by the rules, not given",
                decl.local
            ),
            "give the empirical facts the rules conclude it from, and let the evaluator derive it",
        );
        return None;
    }
    Some(Lit { pred, negative })
}

/// The full ids (quoted) of the constants of type `t` whose shared local name is `name`.
fn ambiguous_constant(model: &Model, t: TypeId, name: &str) -> Option<Vec<String>> {
    let ids = model.ambiguous_constant(name)?;
    let of_type: Vec<String> = model
        .constants
        .iter()
        .filter(|c| c.ty == t && ids.contains(&c.id))
        .map(|c| format!("`{}`", c.id))
        .collect();
    (!of_type.is_empty()).then_some(of_type)
}

/// Checks and stores row `i` of `key`.
fn read_row(key: &str, lit: Lit, i: usize, row: &J, st: &mut State) {
    let model = st.model;
    let decl = model.pred(lit.pred);
    let rptr = pointer_push(&pointer_push("/facts", key), i);
    let loc = || Location::new(Some(key), rptr.clone());
    let Some(vals) = row.as_array() else {
        st.error(
            Code::FactsShape,
            loc(),
            "a row must be an array of values",
            "write the row as [value, …]",
        );
        return;
    };
    if vals.len() != decl.params.len() {
        st.error(
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
        return;
    }
    let mut typed = Vec::with_capacity(vals.len());
    for (j, (v, t)) in vals.iter().zip(&decl.params).enumerate() {
        let ok = match (t, v) {
            (Ty::Int, J::Number(n)) => n.as_i64().map(Value::Int),
            (Ty::Entity(t), J::String(s)) => {
                if let Some(ids) = ambiguous_constant(model, *t, s) {
                    st.error(
                        Code::FactsAmbiguousName,
                        Location::new(Some(key), pointer_push(&rptr, j)),
                        format!(
                            "`{s}` is ambiguous: packages of the import closure declare the constants {}",
                            ids.join(" and ")
                        ),
                        "name the constant by its full id",
                    );
                    return;
                }
                Some(Value::Entity(s.clone()))
            }
            _ => None,
        };
        match ok {
            Some(x) => typed.push(x),
            None => st.error(
                Code::FactsType,
                Location::new(Some(key), pointer_push(&rptr, j)),
                format!(
                    "value {} of `{}` must be {}, found {}",
                    j + 1,
                    decl.local,
                    match t {
                        Ty::Int => "an integer in the i64 range".to_owned(),
                        Ty::Entity(_) =>
                            format!("an entity name (a string) of type {}", model.type_name(*t)),
                    },
                    v
                ),
                "fix the value's JSON type: integers unquoted, entity names quoted",
            ),
        }
    }
    if typed.len() == vals.len() && !st.out.rows.entry(lit).or_default().insert(typed) {
        st.out.duplicates += 1;
    }
}
