//! The reference interpreter as a backend of the benchmark, in this process.

use super::config::{BenchConfig, BenchError};
use super::measure::{
    add_template_note, check_same_counts, load_average, parallel, peak_rss_kib, Progress,
};
use super::result::{count_literals, make_synth, result_shell, BenchResult};
use super::strata::strata_profile;
use lawgen::driver::Loaded;
use lawgen_runtime::interp;
use lawgen_runtime::program::Section;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// Runs the benchmark on the reference evaluator, in this process.
pub fn run_interp(loaded: &Loaded, cfg: &BenchConfig) -> Result<BenchResult, BenchError> {
    cfg.validate()?;
    let load_before = load_average();
    let synth = make_synth(loaded, cfg)?;
    let prog = lawgen::driver::lower(loaded).map_err(BenchError::internal)?;
    let lits = count_literals(&loaded.catalog);
    let index: HashMap<&str, usize> = lits
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    let mut out = result_shell(loaded, "interp", cfg);
    let mut first: Option<Vec<u64>> = None;
    for r in 0..cfg.repeat {
        let progress = Mutex::new(Progress::new(
            format!("interp run {}/{}", r + 1, cfg.repeat),
            cfg.cases,
            cfg.progress,
        ));
        let start = Instant::now();
        let parts = parallel(
            cfg.cases,
            cfg.threads,
            16,
            Some(&progress),
            &|| vec![0u64; lits.len()],
            &|i, acc: &mut Vec<u64>| {
                let facts = synth.case(i as u64);
                let store = interp::evaluate(&prog, &facts, cfg.policy);
                let c = interp::conclusions(&prog, &store, cfg.policy);
                for (name, rows) in &c.sections[&Section::Defeasibly] {
                    if let Some(&k) = index.get(name.as_str()) {
                        acc[k] += rows.len() as u64;
                    }
                }
            },
        );
        out.runs.push(start.elapsed().as_secs_f64());
        progress.lock().map(|mut p| p.finish()).ok();
        let counts = sum(parts, lits.len());
        check_same_counts(&mut first, counts, r, &lits)?;
    }
    let progress = Mutex::new(Progress::new(
        "generation only".to_owned(),
        cfg.cases,
        cfg.progress,
    ));
    let start = Instant::now();
    let facts = parallel(
        cfg.cases,
        cfg.threads,
        64,
        Some(&progress),
        &|| 0u64,
        &|i, acc: &mut u64| {
            let f = synth.case(i as u64);
            *acc += f.rows.values().map(|r| r.len() as u64).sum::<u64>();
        },
    );
    out.generation = start.elapsed().as_secs_f64();
    progress.lock().map(|mut p| p.finish()).ok();
    out.facts = facts.into_iter().sum();
    if cfg.strata_sample > 0 {
        out.strata = Some(strata_profile(&prog, &synth, cfg));
        out.notes.push(format!(
            "per-stratum times: estimated on the first {} case(s), single-threaded, by \
             evaluating with the first k program strata for each k and taking differences",
            cfg.strata_sample.min(cfg.cases)
        ));
    }
    out.notes.push(
        "interp: each case is interp::evaluate + interp::conclusions on a program lowered once; \
         --batch does not apply"
            .to_owned(),
    );
    out.counts = lits.into_iter().zip(first.unwrap_or_default()).collect();
    out.peak_rss_kib = peak_rss_kib();
    out.load_before = load_before;
    out.load_after = load_average();
    out.coverage(&loaded.catalog);
    add_template_note(&mut out);
    Ok(out)
}

fn sum(parts: Vec<Vec<u64>>, n: usize) -> Vec<u64> {
    let mut out = vec![0u64; n];
    for p in parts {
        for (o, x) in out.iter_mut().zip(p) {
            *o += x;
        }
    }
    out
}
