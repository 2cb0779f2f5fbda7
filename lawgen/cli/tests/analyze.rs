//! `lawgen analyze` (docs/analyze.md): the encoding against the reference
//! evaluator, "none within K" against exhaustive enumeration, planted
//! conflicts, and the properties of the chess and Russian packages.
//!
//! - On random packages (support/gen.rs: judgments, `not` items,
//!   comparisons, closures, priorities, positive recursion), the solver's
//!   model of every ground atom equals the reference evaluator's on random
//!   inputs, under both policies (`LAWGEN_ANALYZE_PACKAGES`, default 60).
//! - On random packages whose inputs within a tiny bound are few enough to
//!   enumerate, every goal's answer — witness or none — and the witness's
//!   size (the fewest facts) equal what enumerating every input gives, and
//!   so do the rules that can apply and conclude (`LAWGEN_ANALYZE_EXHAUSTIVE`,
//!   default 12 packages).
//! - Two unrelated rules planted into random packages that conclude two new
//!   predicates from facts that can co-occur: `--exclusive` finds the
//!   conflict in at least 48 of 50 packages (`LAWGEN_ANALYZE_PLANTED`).
//! - The FIDE package's properties, each violation with its witness; the
//!   drawn-and-lost witness of the Russian package 0.1.0; the current
//!   Russian package's properties; `--compare` of both Russian versions
//!   against FIDE, each witness evaluated again in both packages.
//! - The outputs docs/analyze.md quotes are what the command prints
//!   (`LAWGEN_BLESS=1 cargo test -p lawgen-cli --test analyze docs` rewrites
//!   them), and its table of reasons names exactly the unreachable rules.

use lawgen_test_support as support;

use lawgen::driver;
use lawgen::internals::syntax::hash::node_hash;
use lawgen_cli::analyze::check::{self, goal_holds, store_heads};
use lawgen_cli::analyze::domain::{Bound, Named};
use lawgen_cli::analyze::encode::{well_formed, InputKey};
use lawgen_cli::analyze::pattern::{parse_goal, Goal, PArg, Pattern};
use lawgen_cli::analyze::run::{run, Request};
use lawgen_cli::analyze::{Analysis, Options, Outcome, SECTIONS};
use lawgen_runtime::program::{Lit, Program, Section, Strength};
use lawgen_runtime::Policy;
use serde_json::{json, Value as J};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::gen::{generate, package_seed, GenConfig, Rng};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn lowered(pkg: &[u8]) -> Option<Program> {
    let loaded = driver::load_bytes(pkg, &Default::default()).ok()?;
    lawgen::driver::lower(&loaded).ok()
}

fn options(k: usize, spread: u32, policy: Policy, symmetry: bool) -> Options {
    Options {
        bound: Bound {
            entities: k,
            spread,
        },
        policy,
        minimize: true,
        symmetry,
        lang: "en".into(),
        minimize_seconds: 20.0,
        explain: true,
        max_seconds: None,
        as_of: Vec::new(),
    }
}

/// A random well-formed input: each atom with probability `pct`, never a
/// fact with its negation.
fn random_input(an: &Analysis, rng: &mut Rng, pct: u64) -> Vec<InputKey> {
    let mut chosen: Vec<InputKey> = Vec::new();
    for (k, _) in &an.enc.inputs {
        if !rng.chance(pct) {
            continue;
        }
        chosen.push(k.clone());
        if !well_formed(&chosen) {
            chosen.pop();
        }
    }
    chosen
}

#[test]
fn the_encoding_agrees_with_the_reference_evaluator_on_random_inputs() {
    let want = env_usize("LAWGEN_ANALYZE_PACKAGES", 60);
    let (mut checked, mut inputs, mut cyclic) = (0, 0, 0);
    let mut i = 0;
    while checked < want {
        i += 1;
        assert!(i < want as u64 * 10, "too few random packages check");
        let g = generate(&GenConfig::new(package_seed(0xa2a1_7515, i)));
        let Some(prog) = lowered(&g.package) else {
            continue;
        };
        checked += 1;
        let mut rng = Rng::new(i);
        for policy in [Policy::Blocking, Policy::Propagating] {
            let (k, spread) = (1 + rng.below(2), rng.below(2) as u32);
            let mut an = Analysis::new(
                &[&prog],
                options(k, spread, policy, false),
                &Named::default(),
            )
            .unwrap_or_else(|e| panic!("package {i}: {e}\n{}", g.description));
            cyclic += an.enc.cycles;
            for pct in [5, 20, 50] {
                let input = random_input(&an, &mut rng, pct);
                an.check_inputs(&input).unwrap_or_else(|e| {
                    panic!(
                        "package seed {}: {e}\n{}",
                        package_seed(0xa2a1_7515, i),
                        g.description
                    )
                });
                inputs += 1;
            }
        }
    }
    eprintln!("{checked} packages, {inputs} inputs, {cyclic} positive cycles of ground atoms");
    assert!(cyclic > 0, "no package exercised a positive cycle");
}

/// Everything enumeration says about one package.
struct Truth {
    /// Per goal: the fewest facts of an input reaching it, if any does.
    goals: Vec<Option<usize>>,
    /// Per rule: the fewest facts under which it applies / concludes.
    applies: Vec<Option<usize>>,
    concludes: Vec<Option<usize>>,
}

fn goals_of(prog: &Program) -> Vec<Goal> {
    let cat = &prog.catalog;
    let mut goals = Vec::new();
    let any = |lit: Lit, var: bool| Pattern {
        lit,
        args: (0..cat.pred(lit.pred).params.len())
            .map(|i| {
                if var {
                    PArg::Var(format!("X{i}"))
                } else {
                    PArg::Any
                }
            })
            .collect(),
    };
    for o in &prog.outputs {
        goals.push(Goal {
            items: vec![(false, any(o.lit, false))],
            cmps: vec![],
            section: o.section,
        });
        if o.section == Section::Supported {
            // Supported, and the complement not concluded, for one binding.
            goals.push(Goal {
                items: vec![
                    (false, any(o.lit, true)),
                    (true, any(o.lit.complement(), true)),
                ],
                cmps: vec![],
                section: o.section,
            });
        }
        if o.section == Section::Defeasibly && !o.lit.negative {
            goals.push(Goal {
                items: vec![
                    (false, any(o.lit, true)),
                    (false, any(o.lit.complement(), true)),
                ],
                cmps: vec![],
                section: Section::Supported,
            });
        }
    }
    goals
}

fn applies_and_concludes(
    an: &Analysis,
    prog: &Program,
    store: &lawgen_runtime::interp::Store,
    c: &lawgen_runtime::interp::Conclusions,
    r: u32,
) -> (bool, bool) {
    let info = prog.catalog.rule(r);
    let heads: Vec<Vec<i64>> = an
        .applies_rules(r)
        .into_iter()
        .flat_map(|pr| store_heads(prog, pr, store))
        .collect();
    if heads.is_empty() {
        return (false, false);
    }
    if info.strength == Strength::Defeater {
        return (true, false);
    }
    let name = prog.catalog.lit_name(info.head.lit);
    let cols = prog.catalog.pred(info.head.lit.pred).params.clone();
    let concluded = heads.iter().any(|h| {
        let row: Vec<_> = cols
            .iter()
            .zip(h)
            .map(|(t, v)| store.decode(*t, *v))
            .collect();
        let in_sec = |s: Section| {
            c.sections[&s]
                .get(&name)
                .is_some_and(|rs| rs.contains(&row))
        };
        in_sec(Section::Defeasibly)
            && !(info.strength == Strength::Defeasible && in_sec(Section::Definitely))
    });
    (true, concluded)
}

fn enumerate(an: &Analysis, prog: &Program, goals: &[Goal], policy: Policy) -> Truth {
    let n = an.enc.inputs.len();
    let keys: Vec<InputKey> = an.enc.inputs.iter().map(|(k, _)| k.clone()).collect();
    let nrules = prog.catalog.rules.len();
    let mut t = Truth {
        goals: vec![None; goals.len()],
        applies: vec![None; nrules],
        concludes: vec![None; nrules],
    };
    let better = |slot: &mut Option<usize>, size: usize| {
        if slot.is_none_or(|s| size < s) {
            *slot = Some(size);
        }
    };
    'input: for mask in 0u32..(1u32 << n) {
        let chosen: Vec<InputKey> = (0..n)
            .filter(|b| mask & (1 << b) != 0)
            .map(|b| keys[b].clone())
            .collect();
        if !well_formed(&chosen) {
            continue 'input;
        }
        let size = chosen.len();
        let facts = check::facts_for(an, 0, &chosen);
        let e = check::evaluate(prog, &facts, policy).unwrap();
        for (gi, g) in goals.iter().enumerate() {
            if goal_holds(&prog.catalog, &e.conclusions, g, &BTreeMap::new()).is_some() {
                better(&mut t.goals[gi], size);
            }
        }
        for r in 0..nrules {
            let (a, c) = applies_and_concludes(an, prog, &e.store, &e.conclusions, r as u32);
            if a {
                better(&mut t.applies[r], size);
            }
            if c {
                better(&mut t.concludes[r], size);
            }
        }
    }
    t
}

fn size_of(o: &Outcome) -> Option<usize> {
    o.witness().map(|w| {
        assert!(w.minimum, "a minimized witness is proved the fewest");
        w.size
    })
}

#[test]
fn none_within_the_bound_agrees_with_exhaustive_enumeration() {
    let want = env_usize("LAWGEN_ANALYZE_EXHAUSTIVE", 12);
    let max_inputs = env_usize("LAWGEN_ANALYZE_EXHAUSTIVE_INPUTS", 11);
    let (mut done, mut goals_checked, mut nones, mut rules_checked) = (0, 0, 0, 0);
    let mut i = 0u64;
    while done < want {
        i += 1;
        assert!(
            i < 20_000,
            "too few random packages are small enough to enumerate"
        );
        let mut cfg = GenConfig::new(package_seed(0xe4a0_57ed, i));
        cfg.predicates = [(1, 3), (0, 1), (2, 4)];
        cfg.min_rules = 2;
        cfg.max_rules = 7;
        let g = generate(&cfg);
        let Some(prog) = lowered(&g.package) else {
            continue;
        };
        let policy = if i % 2 == 0 {
            Policy::Blocking
        } else {
            Policy::Propagating
        };
        let goals = goals_of(&prog);
        let mut named = Named::default();
        for goal in &goals {
            goal.name_values(&prog.catalog, &mut named);
        }
        let mut an = Analysis::new(&[&prog], options(1, 0, policy, true), &named).unwrap();
        if an.enc.inputs.len() > max_inputs || an.enc.inputs.len() < 3 {
            continue;
        }
        done += 1;
        let truth = enumerate(&an, &prog, &goals, policy);
        let ctx = || {
            format!(
                "package seed {} ({policy:?}): {}",
                package_seed(0xe4a0_57ed, i),
                g.description
            )
        };
        for (gi, goal) in goals.iter().enumerate() {
            let got = an.goal(goal).unwrap_or_else(|e| panic!("{}: {e}", ctx()));
            assert_eq!(
                size_of(&got),
                truth.goals[gi],
                "{}: goal {}",
                ctx(),
                goal.show(&prog.catalog)
            );
            goals_checked += 1;
            if got.witness().is_none() {
                nones += 1;
            }
        }
        for r in 0..prog.catalog.rules.len() {
            let reach = an.reachable(r as u32).unwrap();
            let name = &prog.catalog.rule(r as u32).local;
            assert_eq!(
                size_of(&reach.applies),
                truth.applies[r],
                "{}: {name} applies",
                ctx()
            );
            if let Some(c) = &reach.concludes {
                assert_eq!(
                    size_of(c),
                    truth.concludes[r],
                    "{}: {name} concludes",
                    ctx()
                );
            } else if prog.catalog.rule(r as u32).strength != Strength::Defeater {
                assert_eq!(truth.applies[r], None, "{}: {name}", ctx());
            }
            rules_checked += 1;
        }
    }
    eprintln!(
        "{done} packages enumerated: {goals_checked} goals ({nones} none within the bound), {rules_checked} rules"
    );
    assert!(
        nones > 0 && nones < goals_checked,
        "both answers must occur"
    );
}

/// Adds two rules concluding new predicates `planted_a(x)` and
/// `planted_b(x)` from two empirical literals that share `x`.
fn plant(pkg: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
    let mut p: J = serde_json::from_slice(pkg).ok()?;
    let nodes = p["nodes"].as_array()?.clone();
    let empirical: Vec<&J> = nodes
        .iter()
        .filter(|n| n["relationKind"] == "empirical")
        .collect();
    // Candidates: (predicate id, its column types).
    let cands: Vec<(String, Vec<String>)> = empirical
        .iter()
        .filter_map(|n| {
            let cols: Vec<String> = n["parameters"]
                .as_array()?
                .iter()
                .map(|c| c["type"]["name"].as_str().map(str::to_owned))
                .collect::<Option<_>>()?;
            let id = n["id"].as_str()?.to_owned();
            (!cols.is_empty()).then_some((id, cols))
        })
        .collect();
    if cands.is_empty() {
        return None;
    }
    let (e1, c1) = rng.pick(&cands).clone();
    let col1 = rng.below(c1.len());
    let ty = c1[col1].clone();
    let others: Vec<&(String, Vec<String>)> =
        cands.iter().filter(|(_, c)| c.contains(&ty)).collect();
    let (e2, c2) = (*rng.pick(&others)).clone();
    let col2 = c2.iter().position(|t| *t == ty)?;
    let literal = |pred: &str, cols: &[String], at: usize, prefix: &str| -> (J, Vec<J>) {
        let mut vars = Vec::new();
        let args: Vec<J> = cols
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let v = if k == at {
                    "x".to_owned()
                } else {
                    format!("{prefix}{k}")
                };
                if k != at {
                    vars.push(json!({"id": v, "type": {"name": t}}));
                }
                json!({"kind": "var", "var": v})
            })
            .collect();
        (
            json!({"kind": "status", "status": "established", "formula":
                {"kind": "literal", "predicate": pred, "polarity": "positive", "args": args}}),
            vars,
        )
    };
    let mut out = nodes;
    for (name, pred, cols, at) in [("planted_a", &e1, &c1, col1), ("planted_b", &e2, &c2, col2)] {
        let id = format!("urn:t#{name}");
        let mut decl = json!({"id": id, "kind": "symbol_decl", "symbolKind": "relation",
            "name": name, "relationKind": "institutional",
            "parameters": [{"name": "x", "type": {"name": ty}}]});
        decl["contentHash"] = J::from(node_hash(decl.as_object()?));
        let (item, mut vars) = literal(pred, cols, at, "y");
        vars.push(json!({"id": "x", "type": {"name": ty}}));
        let strength = if rng.chance(50) {
            "strict"
        } else {
            "defeasible"
        };
        let mut rule = json!({"id": format!("urn:t#Plant_{name}"), "kind": "rule", "strength": strength,
            "head": {"kind": "literal", "predicate": id, "polarity": "positive", "args": [{"kind": "var", "var": "x"}]},
            "body": {"kind": "and", "items": [item]}, "variables": vars, "anchors": [],
            "scope": {"kind": "boolean", "value": true}});
        rule["contentHash"] = J::from(node_hash(rule.as_object()?));
        out.push(decl);
        out.push(rule);
    }
    p["nodes"] = J::Array(out);
    serde_json::to_vec(&p).ok()
}

#[test]
fn planted_conflicts_are_found() {
    let want = env_usize("LAWGEN_ANALYZE_PLANTED", 50);
    let (mut tried, mut found) = (0, 0);
    let mut i = 0u64;
    while tried < want {
        i += 1;
        assert!(
            i < want as u64 * 20,
            "too few packages take a planted conflict"
        );
        let g = generate(&GenConfig::new(package_seed(0x91a7_7ed0, i)));
        let mut rng = Rng::new(i ^ 0x5a5a);
        let Some(pkg) = plant(&g.package, &mut rng) else {
            continue;
        };
        let Some(prog) = lowered(&pkg) else {
            continue;
        };
        tried += 1;
        // The path `lawgen analyze PACKAGE --exclusive A B` takes, with the
        // command line's defaults (K = 2, spread 1, blocking, minimized).
        let req = Request {
            exclusive: vec![("planted_a(X)".into(), "planted_b(X)".into())],
            json: true,
            ..Default::default()
        };
        let r = run(&prog, None, &req, &Options::default())
            .unwrap_or_else(|e| panic!("package seed {}: {e}", package_seed(0x91a7_7ed0, i)));
        let doc: J = serde_json::from_str(&r.text).unwrap();
        let a = &doc["answers"][0];
        assert_eq!(a["query"], "exclusive planted_a(X), planted_b(X)");
        if a["result"] == "witness" {
            found += 1;
            assert!(
                a["size"].as_u64().unwrap() <= 2,
                "two facts show a planted conflict: {}",
                a["facts"]
            );
        }
    }
    eprintln!("planted conflicts found in {found} of {tried} packages");
    assert!(found * 50 >= tried * 48, "found {found} of {tried}");
}

// ---------------------------------------------------------------------
// The chess and Russian packages.

use support::{CHESS as FIDE, CHESS_DIR as FIDE_DIR};
const RU_DIR: &str = "packages/ru.chess.competition";

/// The Russian package 0.1.0: a test fixture once its successor replaced it.
fn russian_010() -> PathBuf {
    let fixture = support::path(support::RU_0_1_0);
    if fixture.exists() {
        fixture
    } else {
        support::path(RU_DIR).join("ru.chess.competition-0.1.0.ir.json")
    }
}

/// The current Russian package: the newest version in its directory.
fn russian_current() -> PathBuf {
    let mut files: Vec<(Vec<u64>, PathBuf)> = std::fs::read_dir(support::path(RU_DIR))
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_str()?.to_owned();
            let v = name
                .strip_prefix("ru.chess.competition-")?
                .strip_suffix(".ir.json")?;
            let key = v.split('.').map(|x| x.parse().unwrap_or(0)).collect();
            Some((key, p))
        })
        .collect();
    files.sort();
    files.pop().expect("a Russian package").1
}

fn load(path: &Path) -> Program {
    let loaded = driver::load_file_with(path, &Default::default(), &[support::path(FIDE_DIR)])
        .unwrap_or_else(|e| panic!("{e}"));
    lawgen::driver::lower(&loaded).unwrap()
}

fn properties(prog: &Program, file: &str) -> (String, u8) {
    let req = Request {
        properties: Some((file.to_owned(), std::fs::read(file).unwrap())),
        json: true,
        ..Default::default()
    };
    let r = run(prog, None, &req, &options(2, 1, Policy::Blocking, true)).unwrap();
    (r.text, r.code)
}

/// Each witness of a JSON report, evaluated again through the facts reader
/// and the driver, as `lawgen eval` would.
fn reevaluate(path: &Path, facts: &J) -> lawgen_runtime::interp::Conclusions {
    let loaded =
        driver::load_file_with(path, &Default::default(), &[support::path(FIDE_DIR)]).unwrap();
    let bytes = serde_json::to_vec(facts).unwrap();
    let f = lawgen_runtime::formats::facts::read_facts(&bytes, &loaded.catalog).unwrap();
    driver::evaluate(&loaded, &f, Policy::Blocking)
        .unwrap()
        .conclusions
}

#[test]
fn the_chess_properties_hold_or_are_violated_with_a_witness() {
    let prog = load(&support::path(FIDE));
    let (text, code) = properties(&prog, "../../packages/fide.laws.chess/properties.json");
    let doc: J = serde_json::from_str(&text).unwrap();
    // The FIDE package constrains no input: facts no game produces together
    // (a stalemate and a resignation) conclude results that exclude each
    // other. Each violation is asserted here with what its witness shows.
    let expected: BTreeMap<&str, bool> = [
        ("not-drawn-and-won", false),
        ("not-drawn-and-lost", false),
        ("not-won-by-both", false),
        ("not-won-and-lost-by-one", false),
        ("not-ended-and-still-in-play", false),
        ("a-game-can-be-drawn", true),
        ("a-game-can-be-won", true),
        ("a-game-can-be-lost", true),
        ("a-game-can-end", true),
    ]
    .into_iter()
    .collect();
    let answers = doc["answers"].as_array().unwrap();
    assert_eq!(answers.len(), expected.len());
    for a in answers {
        let name = a["property"].as_str().unwrap();
        assert_eq!(a["holds"], expected[name], "{name}");
        if a["result"] == "witness" {
            let c = reevaluate(&support::path(FIDE), &a["facts"]);
            let concluded = |lit: &str| {
                c.sections[&Section::Defeasibly].contains_key(lit)
                    || c.sections[&Section::Definitely].contains_key(lit)
            };
            match name {
                "not-drawn-and-won" => assert!(concluded("game_drawn") && concluded("game_won_by")),
                "not-drawn-and-lost" => {
                    assert!(concluded("game_drawn") && concluded("game_lost_by"))
                }
                "not-won-by-both" => {
                    assert_eq!(c.sections[&Section::Defeasibly]["game_won_by"].len(), 2)
                }
                "not-won-and-lost-by-one" => {
                    assert!(concluded("game_won_by") && concluded("game_lost_by"))
                }
                "not-ended-and-still-in-play" => {
                    assert!(concluded("entered_state") && concluded("valid_transition"))
                }
                _ => {}
            }
        }
    }
    assert_eq!(code, 1, "violated properties exit 1");
}

#[test]
fn the_russian_package_010_is_drawn_and_lost_at_once() {
    let path = russian_010();
    let prog = load(&path);
    assert_eq!(prog.version, "0.1.0");
    let req = Request {
        exclusive: vec![("game_drawn(G)".into(), "game_lost_by(G, _)".into())],
        json: true,
        ..Default::default()
    };
    let r = run(&prog, None, &req, &options(2, 1, Policy::Blocking, true)).unwrap();
    let doc: J = serde_json::from_str(&r.text).unwrap();
    let a = &doc["answers"][0];
    assert_eq!(a["result"], "witness", "{}", r.text);
    let g = a["binding"]["G"].as_str().unwrap();
    let c = reevaluate(&path, &a["facts"]);
    assert!(c.sections[&Section::Defeasibly]["game_drawn"]
        .contains(&vec![lawgen_runtime::program::Value::Entity(g.into())]));
    assert!(c.sections[&Section::Defeasibly]["game_lost_by"]
        .iter()
        .any(|row| row[0] == lawgen_runtime::program::Value::Entity(g.into())));
}

#[test]
fn the_current_russian_package_keeps_its_properties() {
    let path = russian_current();
    let prog = load(&path);
    let (text, code) = properties(&prog, "../../packages/ru.chess.competition/properties.json");
    let doc: J = serde_json::from_str(&text).unwrap();
    let violated: Vec<&str> = doc["violated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    if prog.version == "0.1.0" {
        // Before the legal-fidelity fixes the results are not exclusive:
        // the witnesses must be found (the one for drawn and lost above).
        assert!(violated.contains(&"not-drawn-and-lost"), "{violated:?}");
        assert_eq!(code, 1);
    } else {
        assert!(
            violated.is_empty(),
            "{} {} violates {violated:?}",
            prog.package,
            prog.version
        );
        assert_eq!(code, 0);
    }
    for a in doc["answers"].as_array().unwrap() {
        if a["result"] == "witness" {
            reevaluate(&path, &a["facts"]);
        }
    }
}

#[test]
fn every_query_on_the_chess_package_answers() {
    let prog = load(&support::path(FIDE));
    let req = Request {
        goals: vec!["game_drawn(G), not entered_state(G, Ended)".into()],
        requires: vec!["game_won_by(G, P)".into()],
        reachable: vec![
            "SeventyFiveAutomaticDraw".into(),
            "CheckmateTakesPrecedenceOverSeventyFive".into(),
        ],
        unreachable: true,
        json: true,
        ..Default::default()
    };
    let r = run(&prog, None, &req, &options(2, 1, Policy::Blocking, true)).unwrap();
    let doc: J = serde_json::from_str(&r.text).unwrap();
    let answers = doc["answers"].as_array().unwrap();
    assert_eq!(answers[0]["result"], "witness");
    assert_eq!(
        answers[1]["size"], 1,
        "a checkmate alone wins: {}",
        answers[1]
    );
    assert_eq!(answers[2]["concludes"]["result"], "witness");
    assert_eq!(answers[3]["applies"]["result"], "witness");
    let rules = answers[4]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), prog.catalog.rules.len());
}

/// The verdict of one ground literal (`game_drawn(game1)`) in evaluated
/// conclusions, in the words `--compare` prints.
fn verdict_of(c: &lawgen_runtime::interp::Conclusions, ground: &str) -> String {
    let (name, args) = ground.split_once('(').unwrap();
    let args = args.strip_suffix(')').unwrap();
    let bits: Vec<bool> = SECTIONS
        .iter()
        .map(|s| {
            c.sections[s].get(name).is_some_and(|rows| {
                rows.iter().any(|row| {
                    row.iter()
                        .map(lawgen_runtime::explain::fmt_value)
                        .collect::<Vec<_>>()
                        .join(", ")
                        == args
                })
            })
        })
        .collect();
    check::verdict(&bits)
}

#[test]
fn comparing_the_russian_layer_with_fide_finds_what_it_changes() {
    let fide = load(&support::path(FIDE));
    // The current layer (what docs/analyze.md shows), and 0.1.0.
    let current = russian_current();
    assert_ne!(load(&current).version, "0.1.0");
    for path in [current, russian_010()] {
        let ru = load(&path);
        let req = Request {
            compare: true,
            json: true,
            ..Default::default()
        };
        let r = run(&ru, Some(&fide), &req, &Options::default()).unwrap();
        let doc: J = serde_json::from_str(&r.text).unwrap();
        let rows = doc["answers"][0]["literals"].as_array().unwrap();
        let by: BTreeMap<&str, &J> = rows
            .iter()
            .map(|r| (r["literal"].as_str().unwrap(), r))
            .collect();
        let v = &ru.version;
        // The layer sets aside FIDE's endings and concludes its own results;
        // from 0.2.0 on, a player wins only a game he plays.
        let mut changed = vec!["game_drawn", "game_lost_by"];
        if ru.version != "0.1.0" {
            changed.push("game_won_by");
        }
        for lit in changed {
            assert_eq!(by[lit]["result"], "witness", "{v}: {lit}");
        }
        // A literal neither layer changes: castling.
        assert_eq!(by["castling_legal"]["result"], "none", "{v}");
        // Every witness, evaluated again through the facts reader and the
        // driver in each package, gives the verdicts the table prints, and
        // they differ.
        for row in rows.iter().filter(|r| r["result"] == "witness") {
            let ground = row["ground"].as_str().unwrap();
            let files = row["facts_per_package"].as_array().unwrap();
            let here = verdict_of(&reevaluate(&path, &files[0]), ground);
            let there = verdict_of(&reevaluate(&support::path(FIDE), &files[1]), ground);
            assert_eq!(
                (&here, &there),
                (
                    &row["here"].as_str().unwrap().to_owned(),
                    &row["there"].as_str().unwrap().to_owned()
                ),
                "{v}: {ground}"
            );
            assert_ne!(here, there, "{v}: {ground}");
        }
    }
}

#[test]
fn queries_with_mistakes_are_refused_with_a_fix() {
    let prog = load(&support::path(FIDE));
    for (req, needle) in [
        (
            Request {
                goals: vec!["game_drawn(G".into()],
                ..Default::default()
            },
            "unclosed",
        ),
        (
            Request {
                goals: vec!["gme_drawn(G)".into()],
                ..Default::default()
            },
            "unknown predicate",
        ),
        (
            Request {
                goals: vec!["game_drawn(G, H)".into()],
                ..Default::default()
            },
            "takes 1 argument",
        ),
        (
            Request {
                goals: vec!["game_won_by(G, P), game_lost_by(G, Q), P < Q".into()],
                ..Default::default()
            },
            "integers only",
        ),
        (
            Request {
                goals: vec!["game_drawn(G), X != G".into()],
                ..Default::default()
            },
            "no positive literal",
        ),
        (
            Request {
                reachable: vec!["NoSuchRule".into()],
                ..Default::default()
            },
            "unknown rule",
        ),
        (
            Request {
                requires: vec!["game_drawn(G), game_won_by(G, _)".into()],
                ..Default::default()
            },
            "one literal",
        ),
        (Request::default(), "no query"),
    ] {
        let e = run(&prog, None, &req, &Options::default())
            .err()
            .expect(needle);
        assert_eq!(e.code, 1);
        assert!(e.message.contains(needle), "{needle}: {}", e.message);
    }
    for (k, spread) in [(65, 1), (2, 1001)] {
        let e = Analysis::new(
            &[&prog],
            options(k, spread, Policy::Blocking, true),
            &Named::default(),
        )
        .err()
        .expect("refused");
        assert!(
            e.message.contains("the bound is too large"),
            "{}",
            e.message
        );
    }
    let e = Analysis::new(
        &[&prog],
        options(40, 1, Policy::Blocking, true),
        &Named::default(),
    )
    .err()
    .expect("refused before it exhausts memory");
    assert!(e.message.contains("ground tuples"), "{}", e.message);
    // Witnesses are found for the levels too.
    let goal = parse_goal(&prog.catalog, "game_drawn(G)", Section::Pending).unwrap();
    let mut an = Analysis::new(&[&prog], Options::default(), &Named::default()).unwrap();
    assert!(
        an.goal(&goal).unwrap().witness().is_none(),
        "game_drawn depends on no judgment"
    );
    let _ = SECTIONS;
}

#[test]
fn the_command_line_exits_1_on_a_violated_property() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .args([
            "analyze",
            FIDE,
            "--properties",
            "packages/fide.laws.chess/properties.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("VIOLATED"), "{text}");
    assert!(text.contains("4 hold, 5 violated"), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .args([
            "analyze",
            FIDE,
            "--goal",
            "game_drawn(G)",
            "--level",
            "sometimes",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown level"));
}

#[test]
fn ordering_fresh_entities_loses_no_witness() {
    let want = env_usize("LAWGEN_ANALYZE_SYMMETRY", 8);
    let (mut done, mut compared) = (0, 0);
    let mut i = 0u64;
    while done < want {
        i += 1;
        assert!(i < want as u64 * 10, "too few random packages check");
        let mut cfg = GenConfig::new(package_seed(0x5e77_e7a1, i));
        cfg.max_rules = 8;
        let g = generate(&cfg);
        let Some(prog) = lowered(&g.package) else {
            continue;
        };
        done += 1;
        let goals = goals_of(&prog);
        let mut on = Analysis::new(
            &[&prog],
            options(2, 0, Policy::Blocking, true),
            &Named::default(),
        )
        .unwrap();
        let mut off = Analysis::new(
            &[&prog],
            options(2, 0, Policy::Blocking, false),
            &Named::default(),
        )
        .unwrap();
        for goal in &goals {
            let (a, b) = (on.goal(goal).unwrap(), off.goal(goal).unwrap());
            assert_eq!(
                size_of(&a),
                size_of(&b),
                "package seed {}: {}",
                package_seed(0x5e77_e7a1, i),
                goal.show(&prog.catalog)
            );
            compared += 1;
        }
    }
    eprintln!("{done} packages, {compared} goals with and without ordering fresh entities");
}

#[test]
fn every_rule_the_lint_finds_dead_never_applies() {
    let mut dead_found = 0;
    for e in std::fs::read_dir("../../tests/lint").unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".law") || !name.trim_start_matches("ok_").starts_with("w003") {
            continue;
        }
        let loaded = driver::load_file(&path, &Default::default()).unwrap();
        let dead: Vec<String> = lawgen::lint::warnings(&loaded)
            .iter()
            .filter(|d| d.code == lawgen::diagnostics::Code::NeverFires)
            .filter_map(|d| d.message.split('`').nth(1).map(str::to_owned))
            .collect();
        let prog = lawgen::driver::lower(&loaded).unwrap();
        let mut an = Analysis::new(&[&prog], Options::default(), &Named::default()).unwrap();
        for (r, info) in prog.catalog.rules.iter().enumerate() {
            let reach = an.reachable(r as u32).unwrap();
            if dead.contains(&info.local) {
                assert!(
                    reach.applies.witness().is_none(),
                    "{}: {}",
                    path.display(),
                    info.local
                );
                dead_found += 1;
            }
        }
    }
    assert!(dead_found >= 3, "the lint cases have dead rules");
}

// ---------------------------------------------------------------------
// docs/analyze.md quotes what the command prints.

/// One output docs/analyze.md quotes: the name of its marker in the page,
/// the arguments of `lawgen analyze` (paths from the workspace root), and
/// the lines quoted: from the first line starting with `from` to the first
/// line after it starting with `to` (`None`: the first line, the last).
struct Quoted {
    name: &'static str,
    args: Vec<String>,
    from: Option<&'static str>,
    to: Option<&'static str>,
    /// For `--unreachable`: the package whose rules the output lists.
    unreachable_of: Option<&'static str>,
}

/// A path of the workspace as the workspace root names it (`x`).
fn from_root(p: &Path) -> String {
    p.strip_prefix(support::workspace())
        .unwrap_or(p)
        .display()
        .to_string()
}

fn quoted_outputs() -> Vec<Quoted> {
    let fide = FIDE.to_owned();
    let fide_dir = FIDE_DIR.to_owned();
    let ru = from_root(&russian_current());
    let args = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        Quoted {
            name: "drawn-and-lost-0.1.0",
            args: args(&[
                &from_root(&russian_010()),
                "--import-path",
                &fide_dir,
                "--exclusive",
                "game_drawn(G)",
                "game_lost_by(G, _)",
            ]),
            from: None,
            to: None,
            unreachable_of: None,
        },
        Quoted {
            name: "compare",
            args: args(&[&ru, "--import-path", &fide_dir, "--compare", &fide]),
            from: Some("== compare"),
            to: Some("("),
            unreachable_of: None,
        },
        Quoted {
            name: "unreachable-fide",
            args: args(&[&fide, "--bound", "2", "--unreachable"]),
            from: Some("encoding:"),
            to: None,
            unreachable_of: Some("fide.laws.chess"),
        },
        Quoted {
            name: "unreachable-ru",
            args: args(&[
                &ru,
                "--import-path",
                &fide_dir,
                "--bound",
                "2",
                "--unreachable",
            ]),
            from: Some("encoding:"),
            to: None,
            unreachable_of: Some("ru.chess.competition"),
        },
    ]
}

/// `12.34 s)` → `… s)`: the times of a run are not part of what a page
/// can quote.
fn elide_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" s)") {
        let head = &rest[..at];
        let digits = head
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
            .last()
            .map_or(at, |(i, _)| i);
        let number = &head[digits..];
        if number.contains('.') && number.chars().any(|c| c.is_ascii_digit()) {
            out.push_str(&head[..digits]);
            out.push('…');
        } else {
            out.push_str(head);
        }
        out.push_str(" s)");
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out
}

/// `$ lawgen analyze PACKAGE \` and the options, quoted as a shell would
/// need them, on continuation lines.
fn shell_command(args: &[String]) -> String {
    let quote = |a: &str| {
        if a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=".contains(c))
        {
            a.to_owned()
        } else {
            format!("'{a}'")
        }
    };
    let mut lines = vec![format!("$ lawgen analyze {}", quote(&args[0]))];
    let mut line = String::new();
    for a in &args[1..] {
        let word = quote(a);
        if a.starts_with("--") && line.len() + word.len() > 72 {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.clone()
            } else {
                format!("    {l}")
            }
        })
        .collect::<Vec<_>>()
        .join(" \\\n")
}

/// The block the page shows for `q`: the command, then the quoted lines
/// (`…` where lines are left out), times elided.
fn render_quoted(q: &Quoted) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir("../..")
        .arg("analyze")
        .args(&q.args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "lawgen analyze {}:\n{stdout}{}",
        q.args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let start = q.from.map_or(0, |f| {
        lines
            .iter()
            .position(|l| l.starts_with(f))
            .unwrap_or_else(|| panic!("{}: no line starts with {f:?}:\n{stdout}", q.name))
    });
    let end = q.to.map_or(lines.len() - 1, |t| {
        start
            + 1
            + lines[start + 1..]
                .iter()
                .position(|l| l.starts_with(t))
                .unwrap_or_else(|| panic!("{}: no line starts with {t:?}:\n{stdout}", q.name))
    });
    let mut block = format!("```text\n{}\n", shell_command(&q.args));
    if start > 0 {
        block.push_str("…\n");
    }
    for l in &lines[start..=end] {
        block.push_str(&elide_times(l));
        block.push('\n');
    }
    if end + 1 < lines.len() {
        block.push_str("…\n");
    }
    block.push_str("```\n");
    block
}

/// The rules an `--unreachable` block lists (never apply, never conclude,
/// no effect).
fn listed_rules(block: &str) -> Vec<String> {
    block
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split(" (").next().unwrap().to_owned())
        .collect()
}

/// docs/analyze.md quotes, between `<!-- analyze-output: NAME -->` and
/// `<!-- /analyze-output -->`, exactly what the commands print (times
/// elided), and gives a reason for every rule its unreachable lists name.
/// `LAWGEN_BLESS=1` rewrites the quoted blocks; the reasons stay a
/// person's to write.
#[test]
fn the_outputs_docs_analyze_md_quotes_are_what_the_command_prints() {
    const PAGE: &str = "../../docs/analyze.md";
    const OPEN: &str = "<!-- analyze-output: ";
    const CLOSE: &str = "<!-- /analyze-output -->";
    let page = std::fs::read_to_string(PAGE).unwrap();
    let quoted = quoted_outputs();
    let mut blessed = String::new();
    let mut rest = page.as_str();
    let mut stale = Vec::new();
    let mut seen = Vec::new();
    let mut unreachable: Vec<(String, String)> = Vec::new();
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let name_end = after.find(" -->\n").expect("a marker ends with ` -->`");
        let name = &after[..name_end];
        let body_start = at + OPEN.len() + name_end + " -->\n".len();
        let body_len = rest[body_start..]
            .find(CLOSE)
            .unwrap_or_else(|| panic!("{PAGE}: `{name}` has no {CLOSE}"));
        let body = &rest[body_start..body_start + body_len];
        let q = quoted
            .iter()
            .find(|q| q.name == name)
            .unwrap_or_else(|| panic!("{PAGE}: no command for the quoted output `{name}`"));
        let want = render_quoted(q);
        if let Some(pkg) = q.unreachable_of {
            unreachable.extend(listed_rules(&want).into_iter().map(|r| (pkg.to_owned(), r)));
        }
        if body != want {
            stale.push(format!(
                "`{name}`:\n--- the page\n{body}+++ the command prints\n{want}"
            ));
        }
        blessed.push_str(&rest[..body_start]);
        blessed.push_str(&want);
        seen.push(name.to_owned());
        rest = &rest[body_start + body_len..];
    }
    blessed.push_str(rest);
    for q in &quoted {
        assert!(
            seen.iter().any(|s| s == q.name),
            "{PAGE} does not quote `{}` (mark it with {OPEN}{} -->)",
            q.name,
            q.name
        );
    }
    if support::bless() {
        if blessed != page {
            std::fs::write(PAGE, &blessed).unwrap();
        }
    } else {
        assert!(
            stale.is_empty(),
            "{PAGE} quotes outputs the command no longer prints; review, then regenerate: LAWGEN_BLESS=1 cargo test -p lawgen-cli --test analyze docs\n\n{}",
            stale.join("\n")
        );
    }
    // The reasons: one row `| package | `Rule` (strength) | why |` per
    // listed rule, between the markers.
    let table = page
        .split("<!-- unreachable-reasons -->")
        .nth(1)
        .and_then(|t| t.split("<!-- /unreachable-reasons -->").next())
        .expect("docs/analyze.md has the table of unreachable rules and why");
    let mut reasons: Vec<(String, String)> = table
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let rule = cells.get(2)?.strip_prefix('`')?.split('`').next()?;
            Some((cells[1].to_owned(), rule.to_owned()))
        })
        .collect();
    reasons.sort();
    unreachable.sort();
    assert_eq!(
        reasons, unreachable,
        "{PAGE}: the table of reasons must name exactly the rules the --unreachable outputs list (left: the table; right: the lists); write one line on why each never applies (the bound, by design, or a bug in the package)"
    );
}

/// `lawgen analyze ARGS…` from the workspace root: exit code, stdout, stderr.
fn analyze_cli(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .arg("analyze")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn any_minimize_seconds_give_the_smallest_witness_found_or_a_usage_error() {
    // Past what a clock holds: no deadline, the fewest facts.
    for secs in ["inf", "1e19", "1e30"] {
        let (code, out, err) = analyze_cli(&[
            FIDE,
            "--requires",
            "game_drawn(G)",
            "--minimize-seconds",
            secs,
        ]);
        assert_eq!(code, Some(0), "{secs}: {err}");
        assert!(out.contains("a minimal set of facts"), "{secs}: {out}");
    }
    // No time, or little: the smallest witness found so far, never an
    // internal error about a witness that was never claimed minimal.
    // (With K = 3 the first witness for `game_won_by` is not the fewest.)
    for secs in ["0", "0.01", "0.0"] {
        let (code, out, err) = analyze_cli(&[
            FIDE,
            "--requires",
            "game_won_by(G, P)",
            "--bound",
            "3",
            "--minimize-seconds",
            secs,
        ]);
        assert_eq!(code, Some(0), "{secs}: {err}");
        assert!(out.contains("WITNESS"), "{secs}: {out}");
    }
    for secs in ["NaN", "-1", "soon"] {
        let (code, _, err) = analyze_cli(&[
            FIDE,
            "--goal",
            "game_drawn(G)",
            &format!("--minimize-seconds={secs}"),
        ]);
        assert_eq!(code, Some(2), "{secs}: {err}");
        assert!(
            err.contains(&format!("`{secs}` is not a number of seconds")),
            "{err}"
        );
    }
    // Through the library, NaN or negative seconds mean none left.
    let prog = load(&support::path(FIDE));
    let goal = parse_goal(&prog.catalog, "game_drawn(G)", Section::Defeasibly).unwrap();
    for secs in [f64::NAN, -1.0, f64::INFINITY, 1e30] {
        let opts = Options {
            minimize_seconds: secs,
            ..Default::default()
        };
        let mut an = Analysis::new(&[&prog], opts, &Named::default()).unwrap();
        assert!(an.requires(&goal).unwrap().witness().is_some(), "{secs}");
    }
}

#[test]
fn goals_of_many_variables_and_long_runs_end_in_a_clear_error() {
    let prog = load(&support::path(FIDE));
    let vars: Vec<String> = (0..20).map(|i| format!("game_drawn(G{i})")).collect();
    let req = Request {
        goals: vec![vars.join(", ")],
        ..Default::default()
    };
    let e = run(&prog, None, &req, &Options::default())
        .err()
        .expect("refused");
    assert_eq!(e.code, 1);
    assert!(
        e.message.contains("has more than 50000 bindings of its variables within the bound (20 variables)\n  = help: share variables between its literals, give some of them values, or lower `--bound` or `--spread`"),
        "{}",
        e.message
    );
    let req = Request {
        unreachable: true,
        ..Default::default()
    };
    let opts = Options {
        max_seconds: Some(0.0),
        ..Default::default()
    };
    let e = run(&prog, None, &req, &opts).err().expect("out of time");
    assert_eq!(e.code, 1);
    assert_eq!(
        e.message,
        "the analysis ran past its time limit of 0 s (`--max-seconds`), so its questions are not answered\n  = help: ask fewer questions at once (`--reachable RULE` for the rules in doubt rather than `--unreachable`), lower `--bound`, or raise `--max-seconds`"
    );
    let (code, _, err) = analyze_cli(&[FIDE, "--unreachable", "--max-seconds", "0"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("error: the analysis ran past its time limit of 0 s"),
        "{err}"
    );
}

#[test]
fn a_defeater_without_effect_gets_no_applies_answer_in_json() {
    // The parking example's defeater turned against a literal no rule
    // concludes (`parked_without_permit` is only ever concluded positive).
    let dir = std::env::temp_dir().join(format!("lawgen-analyze-{}-no-effect", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut pkg: J = serde_json::from_slice(
        &std::fs::read(support::path("docs/examples/parking/package.ir.json")).unwrap(),
    )
    .unwrap();
    for n in pkg["nodes"].as_array_mut().unwrap() {
        if n["id"] == "urn:example:parking#AppealSuspends" {
            n["head"]["predicate"] = J::from("urn:example:parking#parked_without_permit");
            n["head"]["polarity"] = J::from("positive");
        }
    }
    let file = dir.join("package.ir.json");
    std::fs::write(&file, serde_json::to_vec(&pkg).unwrap()).unwrap();
    let fmt = std::process::Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .args(["fmt", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        fmt.status.success(),
        "{}",
        String::from_utf8_lossy(&fmt.stderr)
    );
    let file = file.to_str().unwrap();
    let (code, text, err) = analyze_cli(&[file, "--reachable", "AppealSuspends"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(text.contains("NO EFFECT"), "{text}");
    let (code, out, err) = analyze_cli(&[file, "--reachable", "AppealSuspends", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let j: J = serde_json::from_str(&out).unwrap();
    let a = &j["answers"][0];
    assert_eq!(a["no_effect"], J::from(true), "{a}");
    assert!(
        a.get("applies").is_none(),
        "no answer where none was sought: {a}"
    );
    assert!(a.get("concludes").is_none(), "{a}");
    let _ = std::fs::remove_dir_all(&dir);
}
