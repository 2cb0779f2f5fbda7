//! Reports: text for people, JSON for programs (and for the independent
//! checks that re-evaluate witnesses).

use super::{Outcome, Witness};
use lawgen_runtime::interp::Facts;
use lawgen_runtime::program::{Catalog, Value};
use lawgen_runtime::text::Shown;
use serde_json::{json, Value as J};

/// The facts of a witness as one line of literals: `p(a, b), ~q(c)`, its
/// names shown through `text`.
pub fn facts_line(facts: &Facts, cat: &Catalog) -> String {
    let mut parts = Vec::new();
    for (lit, rows) in &facts.rows {
        for row in rows {
            parts.push(format!(
                "{}({})",
                Shown(&cat.lit_name(*lit)),
                row.iter().map(show).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    for (t, names) in &facts.entities {
        for n in names {
            parts.push(format!(
                "entity {} {}",
                Shown(&cat.types[t.0 as usize].name),
                Shown(n)
            ));
        }
    }
    if parts.is_empty() {
        "no facts".into()
    } else {
        parts.join(", ")
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Entity(e) => Shown(e).to_string(),
    }
}

/// How many facts, and whether that is proved the fewest.
pub fn size_words(w: &Witness) -> String {
    let n = w.size;
    let facts = if n == 1 { "fact" } else { "facts" };
    if w.minimum {
        format!("{n} {facts}, the fewest any witness within the bound has")
    } else {
        format!("{n} {facts}")
    }
}

/// A witness in full: binding, notes, the facts file(s), the explanations.
pub fn witness_text(w: &Witness, names: &[String]) -> String {
    let mut out = String::new();
    if !w.binding.is_empty() {
        let b: Vec<String> = w
            .binding
            .iter()
            .map(|(k, v)| format!("{} = {}", Shown(k), show(v)))
            .collect();
        out.push_str(&format!("binding: {}\n", b.join(", ")));
    }
    for n in &w.notes {
        out.push_str(&Shown(n).to_string());
        out.push('\n');
    }
    let same = w.files.windows(2).all(|p| p[0] == p[1]);
    if same {
        out.push_str("facts file (`lawgen eval --facts` reproduces it):\n");
        out.push_str(&w.files[0]);
    } else {
        for (f, name) in w.files.iter().zip(names) {
            out.push_str(&format!(
                "facts file for {name} (its own predicates of the witness):\n"
            ));
            out.push_str(f);
        }
    }
    if !w.explanations.is_empty() {
        out.push_str("why:\n");
        for e in &w.explanations {
            out.push_str(e);
            if !e.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

/// An outcome as JSON.
pub fn outcome_json(o: &Outcome) -> J {
    match o {
        Outcome::None => json!({"result": "none"}),
        Outcome::Witness(w) => {
            let files: Vec<J> = w
                .files
                .iter()
                .map(|f| serde_json::from_str(f).unwrap_or(J::Null))
                .collect();
            let binding: serde_json::Map<String, J> = w
                .binding
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        match v {
                            Value::Int(i) => J::from(*i),
                            Value::Entity(e) => J::from(e.as_str()),
                        },
                    )
                })
                .collect();
            json!({
                "result": "witness",
                "facts": files[0],
                "facts_per_package": files,
                "size": w.size,
                "fewest": w.minimum,
                "binding": binding,
                "notes": w.notes,
            })
        }
    }
}
