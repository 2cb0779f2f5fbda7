//! The protocol between `lawgen bench` and a compiled package's binary:
//! the parent runs `BIN --bench key=value…` ([`child_args`]), the child
//! prints its [`BenchResult`] as one JSON document on stdout
//! ([`BenchResult::to_json`]), which the parent reads back
//! ([`BenchResult::from_json`]). The same JSON is what `--json` prints.

use super::config::{BenchConfig, BenchError};
use super::result::{BenchResult, StratumTime};
use lawgen_runtime::Policy;
use serde_json::{json, Value as J};
use std::path::PathBuf;

/// The arguments the parent passes to `BIN --bench`.
pub fn child_args(cfg: &BenchConfig) -> Vec<String> {
    let mut a = vec![
        format!("cases={}", cfg.cases),
        format!("threads={}", cfg.threads),
        format!("batch={}", cfg.batch),
        format!("policy={}", cfg.policy.as_str()),
        format!("seed={}", cfg.synth.seed),
        format!("entities={}", cfg.synth.entities_per_type),
        format!("density={}", cfg.synth.density),
        format!("repeat={}", cfg.repeat),
        format!("progress={}", u8::from(cfg.progress)),
    ];
    if let Some(t) = &cfg.template {
        let t = t.canonicalize().unwrap_or_else(|_| t.clone());
        a.push(format!("template={}", t.display()));
    }
    a
}

pub(super) fn parse_child_args(args: &[String]) -> Result<BenchConfig, BenchError> {
    let mut cfg = BenchConfig {
        strata_sample: 0,
        ..BenchConfig::default()
    };
    for a in args {
        let Some((k, v)) = a.split_once('=') else {
            return Err(BenchError::usage(&format!(
                "bench argument `{a}` is not key=value"
            )));
        };
        let num = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| BenchError::usage(&format!("bench argument `{a}`: not a number")))
        };
        match k {
            "cases" => cfg.cases = num(v)? as usize,
            "threads" => cfg.threads = num(v)? as usize,
            "batch" => cfg.batch = num(v)? as usize,
            "seed" => cfg.synth.seed = num(v)?,
            "entities" => cfg.synth.entities_per_type = num(v)? as usize,
            "repeat" => cfg.repeat = num(v)? as usize,
            "progress" => cfg.progress = num(v)? != 0,
            "density" => {
                cfg.synth.density = v
                    .parse()
                    .map_err(|_| BenchError::usage(&format!("bench argument `{a}`")))?
            }
            "policy" => {
                cfg.policy = match v {
                    "blocking" => Policy::Blocking,
                    "propagating" => Policy::Propagating,
                    _ => return Err(BenchError::usage(&format!("unknown policy `{v}`"))),
                }
            }
            "template" => cfg.template = Some(PathBuf::from(v)),
            _ => return Err(BenchError::usage(&format!("unknown bench argument `{k}`"))),
        }
    }
    cfg.validate()?;
    Ok(cfg)
}

impl BenchResult {
    /// The measurements as JSON (what `--json` prints, and what the compiled
    /// child hands its parent).
    pub fn to_json(&self) -> J {
        let three = |a: [f64; 3]| json!({"median": a[0], "min": a[1], "max": a[2]});
        json!({
            "backend": self.backend,
            "package": self.package,
            "version": self.version,
            "policy": self.policy,
            "cases": self.cases,
            "threads": self.threads,
            "batch": self.batch,
            "seed": self.seed,
            "entities_per_type": self.entities_per_type,
            "density": self.density,
            "template": self.template,
            "facts": self.facts,
            "runs_secs": self.runs,
            "generation_secs": self.generation,
            "peak_rss_kib": self.peak_rss_kib,
            "counts": self.counts.iter().map(|(l, n)| json!([l, n])).collect::<Vec<_>>(),
            "strata": self.strata.as_ref().map(|s| s.iter().map(|t| json!({
                "stratum": t.label,
                "rules": t.rules,
                "heads": t.heads,
                "us_per_case": t.us_per_case,
            })).collect::<Vec<_>>()),
            "load_before": self.load_before,
            "load_after": self.load_after,
            "concludable": self.concludable,
            "never_concluded": self.never_concluded,
            "notes": self.notes,
            "cases_per_sec": three(self.cases_per_sec()),
            "facts_per_sec": three(self.facts_per_sec()),
            "us_per_case": three(self.us_per_case()),
            "generation_us_per_case": self.generation * 1e6 / self.cases.max(1) as f64,
        })
    }

    /// Reads [`BenchResult::to_json`] back.
    pub fn from_json(j: &J) -> Result<BenchResult, String> {
        let bad = |k: &str| format!("bench result: missing or invalid `{k}`");
        let s = |k: &str| j[k].as_str().map(str::to_owned).ok_or_else(|| bad(k));
        let u = |k: &str| j[k].as_u64().ok_or_else(|| bad(k));
        let f = |k: &str| j[k].as_f64().ok_or_else(|| bad(k));
        let three = |k: &str| -> Result<Option<[f64; 3]>, String> {
            match &j[k] {
                J::Null => Ok(None),
                J::Array(a) if a.len() == 3 => {
                    let v: Option<Vec<f64>> = a.iter().map(J::as_f64).collect();
                    let v = v.ok_or_else(|| bad(k))?;
                    Ok(Some([v[0], v[1], v[2]]))
                }
                _ => Err(bad(k)),
            }
        };
        let counts = j["counts"]
            .as_array()
            .ok_or_else(|| bad("counts"))?
            .iter()
            .map(|e| match (e[0].as_str(), e[1].as_u64()) {
                (Some(l), Some(n)) => Ok((l.to_owned(), n)),
                _ => Err(bad("counts")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let strata = match &j["strata"] {
            J::Null => None,
            J::Array(a) => Some(
                a.iter()
                    .map(|t| {
                        Ok(StratumTime {
                            label: t["stratum"]
                                .as_str()
                                .ok_or_else(|| bad("strata"))?
                                .to_owned(),
                            rules: t["rules"].as_u64().ok_or_else(|| bad("strata"))? as usize,
                            heads: t["heads"]
                                .as_array()
                                .ok_or_else(|| bad("strata"))?
                                .iter()
                                .filter_map(|h| h.as_str().map(str::to_owned))
                                .collect(),
                            us_per_case: t["us_per_case"].as_f64().ok_or_else(|| bad("strata"))?,
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            ),
            _ => return Err(bad("strata")),
        };
        Ok(BenchResult {
            backend: s("backend")?,
            package: s("package")?,
            version: s("version")?,
            policy: s("policy")?,
            cases: u("cases")? as usize,
            threads: u("threads")? as usize,
            batch: u("batch")? as usize,
            seed: u("seed")?,
            entities_per_type: u("entities_per_type")? as usize,
            density: f("density")?,
            template: j["template"].as_bool().ok_or_else(|| bad("template"))?,
            facts: u("facts")?,
            runs: j["runs_secs"]
                .as_array()
                .ok_or_else(|| bad("runs_secs"))?
                .iter()
                .map(|x| x.as_f64().ok_or_else(|| bad("runs_secs")))
                .collect::<Result<_, _>>()?,
            generation: f("generation_secs")?,
            peak_rss_kib: j["peak_rss_kib"].as_u64(),
            counts,
            strata,
            load_before: three("load_before")?,
            load_after: three("load_after")?,
            concludable: j["concludable"].as_u64().unwrap_or(0) as usize,
            never_concluded: j["never_concluded"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            notes: j["notes"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        })
    }
}
