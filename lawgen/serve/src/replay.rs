//! Replay (docs/service.md, "Replay"): every receipt of a decision log
//! evaluated again on the packages given, with the same calls the service
//! made, and checked: its signature, when a key is given; the closure's names, versions and semantic hashes are
//! the packages', the facts hash to the receipt's `factsSha256`, and the
//! output is byte for byte the receipt's.

pub mod against;

use crate::receipt::{self, PackageId, Receipt};
use crate::App;
use ed25519_dalek::VerifyingKey;
use lawgen_runtime::Policy;
use serde_json::Value;

/// What a replay found of one line of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// The line's number in the log, from 1.
    pub line: usize,
    /// Why the receipt does not reproduce; `None` when it does.
    pub problem: Option<String>,
}

/// Replays every non-empty line of `log` against the packages of `app`;
/// with `key`, each receipt's signature is verified first.
pub fn replay(app: &App, log: &str, key: Option<&VerifyingKey>) -> Vec<Replayed> {
    log.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| Replayed {
            line: i + 1,
            problem: replay_one(app, l, key).err(),
        })
        .collect()
}

fn replay_one(app: &App, line: &str, key: Option<&VerifyingKey>) -> Result<(), String> {
    let r: Value = serde_json::from_str(line).map_err(|e| format!("the line is not JSON: {e}"))?;
    if let Some(key) = key {
        crate::signing::verify(key, &r)?;
    }
    if r["format"] != receipt::FORMAT {
        return Err(format!(
            "not a receipt of format `{}` (its `format` is {})",
            receipt::FORMAT,
            r["format"]
        ));
    }
    let text = |k: &str| {
        r[k].as_str()
            .ok_or_else(|| format!("the receipt has no string `{k}`"))
    };
    let name = r["package"]["name"]
        .as_str()
        .ok_or("the receipt names no package")?;
    let served =
        app.inner.packages.get(name).ok_or_else(|| {
            format!("the receipt's package `{name}` is not among the packages given")
        })?;
    let closure: Vec<Value> = served.closure.iter().map(PackageId::to_json).collect();
    if r["closure"] != Value::from(closure.clone()) {
        return Err(format!(
            "the receipt's closure {} is not the closure of the package given {}",
            r["closure"],
            Value::from(closure)
        ));
    }
    let facts = text("facts")?;
    if lawgen::sha256_hex(facts.as_bytes()) != text("factsSha256")? {
        return Err("the receipt's facts do not hash to its `factsSha256`".into());
    }
    let policy = match text("policy")? {
        "blocking" => Policy::Blocking,
        "propagating" => Policy::Propagating,
        p => return Err(format!("unknown policy `{p}`")),
    };
    let engine = text("engine")?;
    if crate::Engine::from_name(engine).is_none() {
        return Err(format!(
            "made by the engine `{engine}`, which this lawgen does not evaluate with"
        ));
    }
    let facts =
        lawgen_runtime::formats::facts::read_facts(facts.as_bytes(), &served.loaded.catalog)
            .map_err(|d| {
                format!(
                    "{}the receipt's facts are not a valid facts file for {name}",
                    d.render()
                )
            })?;
    lawgen_runtime::interp::in_force(&served.program, &facts).map_err(|e| e.to_string())?;
    let (_, conclusions) = crate::evaluate_case(served, &facts, policy);
    let again = Receipt::new(
        served.identity.clone(),
        served.closure.clone(),
        &facts,
        &served.loaded.catalog,
        &conclusions,
        engine,
        std::time::SystemTime::now(),
    );
    let output = text("output")?;
    if again.output != output {
        let at = again
            .output
            .lines()
            .zip(output.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| again.output.lines().count().min(output.lines().count()));
        return Err(format!(
            "the output differs from the receipt's, from its line {}: the receipt has {:?}, the replay {:?}",
            at + 1,
            output.lines().nth(at).unwrap_or(""),
            again.output.lines().nth(at).unwrap_or("")
        ));
    }
    Ok(())
}
