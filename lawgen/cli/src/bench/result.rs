//! What a benchmark measures ([`BenchResult`]), the table of counts every
//! backend must agree on, and the case generator a run draws from.

use super::config::{BenchConfig, BenchError};
use lawgen::driver::Loaded;
use lawgen::synth::Synth;
use lawgen_runtime::program::RelationKind;
use lawgen_runtime::program::{Catalog, Lit, PredId};

/// Time spent in one program stratum (interp only, estimated).
#[derive(Clone, Debug, PartialEq)]
pub struct StratumTime {
    /// The stratum's index, or `load` (facts into input relations) or
    /// `read` (the conclusions off the store).
    pub label: String,
    /// Program rules in the stratum.
    pub rules: usize,
    /// The relations its rules derive (the first few).
    pub heads: Vec<String>,
    /// Microseconds per case.
    pub us_per_case: f64,
}

/// A benchmark's measurements (what the compiled child prints as JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    pub backend: String,
    pub package: String,
    pub version: String,
    pub policy: String,
    pub cases: usize,
    pub threads: usize,
    pub batch: usize,
    pub seed: u64,
    pub entities_per_type: usize,
    pub density: f64,
    pub template: bool,
    /// Input facts (rows of `p` and `~p`) over all cases of one run.
    pub facts: u64,
    /// Seconds per run over all cases, generation included.
    pub runs: Vec<f64>,
    /// Seconds of one pass that only draws the cases (and, compiled, pushes
    /// them into the generated `Facts`).
    pub generation: f64,
    /// Peak resident memory of the evaluating process (KiB).
    pub peak_rss_kib: Option<u64>,
    /// Per institutional literal, +∂ tuples summed over the cases.
    pub counts: Vec<(String, u64)>,
    /// Estimated per-stratum times (interp only).
    pub strata: Option<Vec<StratumTime>>,
    /// The load average before and after (1, 5, 15 minutes).
    pub load_before: Option<[f64; 3]>,
    pub load_after: Option<[f64; 3]>,
    /// Literals with a strict or defeasible rule: how many there are, and
    /// those never concluded in any case.
    pub concludable: usize,
    pub never_concluded: Vec<String>,
    pub notes: Vec<String>,
}

/// Institutional literals in table order: by predicate name, `p` before `~p`.
pub fn count_literals(m: &Catalog) -> Vec<String> {
    let mut preds: Vec<(usize, &str)> = m
        .preds
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == RelationKind::Institutional)
        .map(|(i, p)| (i, p.local.as_str()))
        .collect();
    preds.sort_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(&b.0)));
    preds
        .into_iter()
        .flat_map(|(i, _)| {
            [false, true].map(|negative| {
                m.lit_name(Lit {
                    pred: PredId(i as u32),
                    negative,
                })
            })
        })
        .collect()
}

/// The generator for `cfg`: synthetic, or the template (read and checked
/// against the package like `lawgen eval --facts`).
pub fn make_synth<'m>(loaded: &'m Loaded, cfg: &BenchConfig) -> Result<Synth<'m>, BenchError> {
    let synth = match &cfg.template {
        None => Synth::new(loaded, cfg.synth.clone()),
        Some(path) => {
            use lawgen::driver::{read_facts_file, FactsFileError};
            let limits = lawgen::driver::ReadLimits::default();
            let facts = read_facts_file(path, loaded, &limits).map_err(|e| match e {
                FactsFileError::Io(e) => BenchError {
                    code: 2,
                    message: format!("error: cannot read {}: {e}", path.display()),
                },
                FactsFileError::Invalid(d) => BenchError {
                    code: 1,
                    message: format!(
                        "{}error: {} is not a valid facts file for {}",
                        d.render(),
                        path.display(),
                        loaded.name()
                    ),
                },
            })?;
            Synth::with_template(loaded, cfg.synth.clone(), &facts)
        }
    };
    synth.map_err(|e| BenchError::usage(&e.0))
}

pub(super) fn result_shell(loaded: &Loaded, backend: &str, cfg: &BenchConfig) -> BenchResult {
    BenchResult {
        backend: backend.to_owned(),
        package: loaded.name().to_owned(),
        version: loaded.version().to_owned(),
        policy: cfg.policy.as_str().to_owned(),
        cases: cfg.cases,
        threads: cfg.threads,
        batch: cfg.batch,
        seed: cfg.synth.seed,
        entities_per_type: cfg.synth.entities_per_type,
        density: cfg.synth.density,
        template: cfg.template.is_some(),
        facts: 0,
        runs: Vec::new(),
        generation: 0.0,
        peak_rss_kib: None,
        counts: Vec::new(),
        strata: None,
        load_before: None,
        load_after: None,
        concludable: 0,
        never_concluded: Vec::new(),
        notes: Vec::new(),
    }
}

impl BenchResult {
    /// Fills in which literals with a concluding rule were never concluded.
    #[cfg(feature = "cli")]
    pub(super) fn coverage(&mut self, m: &Catalog) {
        let can: std::collections::HashSet<String> = (0..m.preds.len())
            .flat_map(|i| {
                [false, true].map(|negative| Lit {
                    pred: PredId(i as u32),
                    negative,
                })
            })
            // A strict or defeasible rule concludes it.
            .filter(|l| {
                m.rules_for(*l)
                    .any(|(_, r)| r.strength != lawgen_runtime::program::Strength::Defeater)
            })
            .map(|l| m.lit_name(l))
            .collect();
        self.concludable = self.counts.iter().filter(|(l, _)| can.contains(l)).count();
        self.never_concluded = self
            .counts
            .iter()
            .filter(|(l, n)| *n == 0 && can.contains(l))
            .map(|(l, _)| l.clone())
            .collect();
    }
}

pub(super) fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median, min and max of `f(run seconds)` (min/max of the value, not of
/// the time).
fn stats(runs: &[f64], f: impl Fn(f64) -> f64) -> [f64; 3] {
    let vals: Vec<f64> = runs.iter().map(|&s| f(s)).collect();
    let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    [median(&vals), min, max]
}

impl BenchResult {
    /// Cases per second: median, min, max over the runs.
    pub fn cases_per_sec(&self) -> [f64; 3] {
        let n = self.cases as f64;
        stats(&self.runs, |s| n / s.max(1e-12))
    }

    /// Facts per second: median, min, max.
    pub fn facts_per_sec(&self) -> [f64; 3] {
        let n = self.facts as f64;
        stats(&self.runs, |s| n / s.max(1e-12))
    }

    /// Microseconds per case: median, min, max.
    pub fn us_per_case(&self) -> [f64; 3] {
        let n = self.cases.max(1) as f64;
        stats(&self.runs, |s| s * 1e6 / n)
    }
}
