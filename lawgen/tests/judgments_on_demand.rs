//! Undecided judgment atoms are materialised on demand (`lower::Judgments::
//! OnDemand`, the default): only the atoms some rule instance could read.
//! That must not change anything a program concludes or requests, so the
//! canonical output of every evaluation here is compared byte for byte with
//! the whole-domain form of docs/reference.md#undecided-judgments (`Judgments::WholeDomain`): random packages
//! with judgments, `not` items and comparisons, both policies; every chess
//! scenario; every scenario of the Russian package (which imports the chess
//! package). The test also counts how often the demand is strictly smaller,
//! so that it cannot pass by comparing a form with itself.
//!
//! `LAWGEN_DEMAND_PACKAGES` sets how many random packages (default 200).

use lawgen_test_support as support;

use lawgen::driver::{self, Loaded};
use lawgen::internals::lower::{lower_with, Judgments, Options};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::interp::{self, Facts};
use lawgen_runtime::program::{Meaning, Program};
use lawgen_runtime::Policy;
use std::path::PathBuf;
use support::gen::{generate, package_seed, GenConfig};

const SEED: u64 = 0x0de3_a4d0_0000_0000;

fn program(loaded: &Loaded, judgments: Judgments) -> Program {
    lower_with(loaded.model(), Options { judgments }).expect("the package lowers")
}

/// Rows of every `undecided[j]` relation after evaluating `facts`.
fn undecided_rows(prog: &Program, store: &interp::Store) -> usize {
    prog.rules
        .iter()
        .filter_map(|r| match r.meaning {
            Meaning::Undecided { .. } => Some(r.head.rel),
            _ => None,
        })
        .map(|rel| store.tuples(rel).count())
        .sum()
}

#[derive(Default)]
struct Tally {
    evaluations: usize,
    /// Evaluations where the demand left out some atom of the whole domain.
    smaller: usize,
    undecided_on_demand: usize,
    undecided_whole: usize,
}

impl Tally {
    /// Evaluates `facts` under both forms and both policies; the canonical
    /// outputs must be equal.
    fn compare(&mut self, what: &str, on_demand: &Program, whole: &Program, facts: &Facts) {
        for policy in [Policy::Blocking, Policy::Propagating] {
            let a = interp::evaluate(on_demand, facts, policy);
            let b = interp::evaluate(whole, facts, policy);
            let out_a = canonical_json(&interp::conclusions(on_demand, &a, policy));
            let out_b = canonical_json(&interp::conclusions(whole, &b, policy));
            if out_a != out_b {
                let (la, lb): (Vec<&str>, Vec<&str>) =
                    (out_a.lines().collect(), out_b.lines().collect());
                let only = |x: &[&str], y: &[&str]| {
                    x.iter()
                        .filter(|l| !y.contains(l))
                        .copied()
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                panic!(
                    "{what} ({policy}): on demand differs from the whole domain\n\
                     only on demand:\n{}\nonly over the whole domain:\n{}\nprogram on demand:\n{on_demand}",
                    only(&la, &lb),
                    only(&lb, &la)
                );
            }
            let (ua, ub) = (undecided_rows(on_demand, &a), undecided_rows(whole, &b));
            assert!(
                ua <= ub,
                "{what}: {ua} undecided atoms on demand, {ub} in all"
            );
            self.evaluations += 1;
            self.smaller += usize::from(ua < ub);
            self.undecided_on_demand += ua;
            self.undecided_whole += ub;
        }
    }
}

#[test]
fn random_packages_conclude_and_request_the_same_with_judgments_on_demand() {
    let n: u64 = std::env::var("LAWGEN_DEMAND_PACKAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let (mut packages, mut tally) = (0, Tally::default());
    for i in 0..n {
        let mut cfg = GenConfig::new(package_seed(SEED, i));
        cfg.predicates = [(2, 4), (1, 3), (3, 5)];
        cfg.facts_files = 3;
        let g = generate(&cfg);
        let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) else {
            continue; // the generator may write an unstratifiable package
        };
        packages += 1;
        let on_demand = program(&loaded, Judgments::OnDemand);
        let whole = program(&loaded, Judgments::WholeDomain);
        for (k, facts) in g.facts.iter().enumerate() {
            let facts = read_facts(facts, &loaded.catalog).expect("generated facts are valid");
            let what = format!("package {i} (seed {:#x}), facts {k}", cfg.seed);
            tally.compare(&what, &on_demand, &whole, &facts);
        }
    }
    println!(
        "{packages} packages, {} evaluations, {} with a smaller demand; undecided atoms: {} on \
         demand, {} over the whole domain",
        tally.evaluations, tally.smaller, tally.undecided_on_demand, tally.undecided_whole
    );
    assert!(
        packages >= n as usize / 2,
        "too few valid packages: {packages}"
    );
    assert!(
        tally.smaller * 5 >= tally.evaluations,
        "the demand was smaller in only {} of {} evaluations: the comparison says little",
        tally.smaller,
        tally.evaluations
    );
}

fn scenarios(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(support::path(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    v.sort();
    v
}

fn compare_scenarios(loaded: &Loaded, dir: &str) -> Tally {
    let on_demand = program(loaded, Judgments::OnDemand);
    let whole = program(loaded, Judgments::WholeDomain);
    let mut tally = Tally::default();
    for path in scenarios(dir) {
        let facts = read_facts(&std::fs::read(&path).unwrap(), &loaded.catalog).unwrap();
        tally.compare(&path.display().to_string(), &on_demand, &whole, &facts);
    }
    tally
}

#[test]
fn chess_scenarios_conclude_and_request_the_same_with_judgments_on_demand() {
    let bytes = support::read(support::CHESS);
    let loaded = driver::load_bytes(&bytes, &Default::default()).unwrap();
    let tally = compare_scenarios(&loaded, support::CHESS_SCENARIOS);
    assert!(
        tally.evaluations >= 100,
        "{} evaluations",
        tally.evaluations
    );
    assert!(tally.smaller > 0, "no chess scenario has a smaller demand");
}

#[test]
fn russian_scenarios_conclude_and_request_the_same_with_judgments_on_demand() {
    let loaded = driver::load_file_with(
        &support::path(support::RU),
        &Default::default(),
        &[support::path(support::CHESS_DIR)],
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let tally = compare_scenarios(&loaded, support::RU_SCENARIOS);
    assert!(tally.evaluations >= 40, "{} evaluations", tally.evaluations);
}

/// A facts file of many games: the demand grows with the games, the whole
/// domain with their square.
#[test]
fn the_demand_of_many_games_grows_linearly() {
    let bytes = support::read(support::CHESS);
    let loaded = driver::load_bytes(&bytes, &Default::default()).unwrap();
    let on_demand = program(&loaded, Judgments::OnDemand);
    let whole = program(&loaded, Judgments::WholeDomain);
    let games = |n: usize| {
        let rows = |f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(",");
        let text = format!(
            "{{\"facts\":{{\"player_has_the_move\":[{}],\"own_piece_of\":[{}],\"piece_can_be_moved\":[{}]}}}}",
            rows(&|g| format!("[\"g{g}\",\"w{g}\"]")),
            rows(&|g| format!("[\"w{g}\",\"p{g}\"]")),
            rows(&|g| format!("[\"p{g}\"]")),
        );
        read_facts(text.as_bytes(), &loaded.catalog).unwrap()
    };
    let facts = games(40);
    let a = interp::evaluate(&on_demand, &facts, Policy::Blocking);
    let b = interp::evaluate(&whole, &facts, Policy::Blocking);
    assert_eq!(undecided_rows(&on_demand, &a), 40, "one atom per game");
    assert_eq!(
        undecided_rows(&whole, &b),
        40 * 40,
        "every player × every piece"
    );
    assert_eq!(
        canonical_json(&interp::conclusions(&on_demand, &a, Policy::Blocking)),
        canonical_json(&interp::conclusions(&whole, &b, Policy::Blocking))
    );
}
