//! The interpreter's time per program stratum, estimated by differences of
//! prefix evaluations (the compiled backend has none: ascent's
//! `scc_times_summary()` is not reachable through the generated API).

use super::config::BenchConfig;
use super::result::StratumTime;
use lawgen::synth::Synth;
use lawgen_runtime::interp;
use lawgen_runtime::program::Program;
use std::time::{Duration, Instant};

/// Time per program stratum, by differences of prefix evaluations.
pub(super) fn strata_profile(prog: &Program, synth: &Synth, cfg: &BenchConfig) -> Vec<StratumTime> {
    let sample: Vec<_> = (0..cfg.strata_sample.min(cfg.cases))
        .map(|i| synth.case(i as u64))
        .collect();
    let per_case = |d: Duration| d.as_secs_f64() * 1e6 / sample.len().max(1) as f64;
    let mut p = prog.clone();
    let mut cumulative = Vec::with_capacity(prog.strata.len() + 1);
    let mut stores = Vec::new();
    for k in 0..=prog.strata.len() {
        p.strata = prog.strata[..k].to_vec();
        let start = Instant::now();
        // Kept until after the clock stops, so dropping them is not timed.
        stores = sample
            .iter()
            .map(|f| interp::evaluate(&p, f, cfg.policy))
            .collect::<Vec<_>>();
        cumulative.push(per_case(start.elapsed()));
    }
    let start = Instant::now();
    let conclusions: Vec<_> = stores
        .iter()
        .map(|st| interp::conclusions(prog, st, cfg.policy))
        .collect();
    let reading = per_case(start.elapsed());
    drop(conclusions);
    let mut out = vec![StratumTime {
        label: "load".to_owned(),
        rules: 0,
        heads: vec!["(the facts into the input relations)".to_owned()],
        us_per_case: cumulative[0],
    }];
    for (k, rules) in prog.strata.iter().enumerate() {
        let mut heads: Vec<String> = Vec::new();
        for &r in rules {
            let name = &prog.relations[prog.rules[r].head.rel.0 as usize].name;
            if !heads.contains(name) {
                heads.push(name.clone());
            }
        }
        out.push(StratumTime {
            label: k.to_string(),
            rules: rules.len(),
            heads,
            us_per_case: (cumulative[k + 1] - cumulative[k]).max(0.0),
        });
    }
    out.push(StratumTime {
        label: "read".to_owned(),
        rules: 0,
        heads: vec![
            "(the docs/reference.md#the-canonical-output sections off the store)".to_owned(),
        ],
        us_per_case: reading,
    });
    out
}
