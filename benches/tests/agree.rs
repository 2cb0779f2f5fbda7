//! The engines agree: the plain-Rust evaluator's concluded counts equal the
//! generated code's (per case and summed, both policies) on many generated
//! games, and the reference interpreter's on a few hundred; the generated
//! code's canonical output equals the interpreter's byte for byte there. The
//! generator also exercises (nearly) every rule.

use lawgen_benches::cases::{self, ChessCase, SEED};
use lawgen_benches::engines::{self, counts_of, Interpreter};
use lawgen_benches::fide_laws_chess as chess;
use lawgen_benches::plain::{self, LITERALS, RULES};
use lawgen_runtime::{Batching, Policy};

/// Cases compared with the generated code (fewer in debug builds, which
/// evaluate the ascent program some 30× slower).
const GENERATED_CASES: usize = if cfg!(debug_assertions) {
    20_000
} else {
    200_000
};
/// Cases compared with the reference interpreter.
const INTERPRETER_CASES: usize = if cfg!(debug_assertions) { 300 } else { 2_000 };

fn show(c: &ChessCase, i: usize, what: &str, want: &plain::Counts, got: &plain::Counts) -> String {
    let mut diff = String::new();
    for k in 0..LITERALS.len() {
        if want[k] != got[k] {
            diff.push_str(&format!(
                "  {}: plain {} vs {what} {}\n",
                LITERALS[k], want[k], got[k]
            ));
        }
    }
    format!(
        "case {i} disagrees:\n{diff}facts: {}\ncase: {c:#?}",
        cases::to_json(c)
    )
}

#[test]
fn plain_agrees_with_generated_code_on_every_case() {
    let all = cases::cases(SEED, GENERATED_CASES);
    for policy in [Policy::Blocking, Policy::Propagating] {
        let mut per_case = vec![None; all.len()];
        chess::evaluate_indexed(
            all.len(),
            policy,
            &Batching {
                batch_size: 512,
                ..Batching::default()
            },
            |i| cases::to_facts(&all[i]),
            |_, c| counts_of(&c.expect("consistent facts").concluded_counts()),
            |i, counts| per_case[i] = Some(counts),
        );
        let mut want_total = [0u64; 40];
        let mut got_total = [0u64; 40];
        for (i, (c, got)) in all.iter().zip(&per_case).enumerate() {
            let got = got.expect("every case reached the sink");
            let want = plain::evaluate(c);
            assert!(
                want == got,
                "{policy}: {}",
                show(c, i, "generated", &want, &got)
            );
            plain::add(&mut want_total, &want);
            plain::add(&mut got_total, &got);
        }
        assert_eq!(want_total, got_total);
        // The engines' summing entry points agree too, on one and all threads.
        assert_eq!(engines::plain(&all), want_total);
        let one = Batching {
            threads: 1,
            ..Batching::default()
        };
        assert_eq!(
            engines::generated(&all[..2000], policy, &one),
            engines::plain(&all[..2000])
        );
        // Every literal that can be concluded is concluded somewhere.
        for (k, lit) in LITERALS.iter().enumerate() {
            if !lit.starts_with('~') || *lit == "~game_drawn" {
                assert!(want_total[k] > 0, "no case concludes {lit}");
            }
        }
    }
}

/// The Direct engine's module concludes what plain Rust concludes, case by
/// case, and what the Ascent module concludes in sum.
#[test]
fn plain_agrees_with_the_direct_engine_on_every_case() {
    let all = cases::cases(SEED, GENERATED_CASES);
    for policy in [Policy::Blocking, Policy::Propagating] {
        let mut per_case = vec![None; all.len()];
        lawgen_benches::fide_laws_chess_direct::evaluate_indexed(
            all.len(),
            policy,
            &Batching {
                batch_size: 300,
                ..Batching::default()
            },
            |i| cases::to_facts_direct(&all[i]),
            |_, c| counts_of(&c.expect("consistent facts").concluded_counts()),
            |i, counts| per_case[i] = Some(counts),
        );
        for (i, (c, got)) in all.iter().zip(&per_case).enumerate() {
            let got = got.expect("every case reached the sink");
            let want = plain::evaluate(c);
            assert!(
                want == got,
                "{policy}: {}",
                show(c, i, "direct", &want, &got)
            );
        }
        let one = Batching {
            threads: 1,
            ..Batching::default()
        };
        assert_eq!(
            engines::generated_direct(&all[..2000], policy, &one),
            engines::generated(&all[..2000], policy, &one)
        );
    }
}

#[test]
fn plain_and_generated_agree_with_the_reference_interpreter() {
    let interp = Interpreter::new();
    let all = cases::cases(SEED ^ 0xabcd, INTERPRETER_CASES);
    for policy in [Policy::Blocking, Policy::Propagating] {
        let mut generated = vec![None; all.len()];
        chess::evaluate_indexed(
            all.len(),
            policy,
            &Batching::default(),
            |i| cases::to_facts(&all[i]),
            |_, c| {
                let c = c.expect("consistent facts");
                (
                    counts_of(&c.concluded_counts()),
                    c.to_json().expect("canonical output"),
                )
            },
            |i, out| generated[i] = Some(out),
        );
        for (i, c) in all.iter().enumerate() {
            let facts = interp.facts(c);
            let conclusions = interp.conclusions(&facts, policy);
            let got = interp.counts(&conclusions);
            let want = plain::evaluate(c);
            assert!(
                want == got,
                "{policy}: {}",
                show(c, i, "interpreter", &want, &got)
            );
            let (gen_counts, gen_json) = generated[i].take().expect("every case reached the sink");
            assert_eq!(
                gen_counts, got,
                "{policy}: case {i}: generated vs interpreter"
            );
            let interp_json = lawgen_runtime::formats::output::canonical_json(&conclusions);
            assert_eq!(
                gen_json.trim_end(),
                interp_json.trim_end(),
                "{policy}: case {i}: canonical output, generated vs interpreter\nfacts: {}",
                cases::to_json(c)
            );
        }
    }
}

#[test]
fn the_generator_makes_nearly_every_rule_applicable() {
    let mut fired = 0u64;
    let mut per_rule = [0usize; 47];
    let n = 20_000;
    for i in 0..n {
        let f = plain::rules_applicable(&cases::case(SEED, i));
        fired |= f;
        for (k, count) in per_rule.iter_mut().enumerate() {
            *count += (f >> k & 1) as usize;
        }
    }
    let never: Vec<&str> = (0..RULES.len())
        .filter(|k| fired >> k & 1 == 0)
        .map(|k| RULES[k])
        .collect();
    assert!(
        never.is_empty(),
        "rules no case makes applicable: {never:?}"
    );
    // And not only in a handful of cases: every rule in at least 0.5%.
    for (k, count) in per_rule.iter().enumerate() {
        assert!(
            *count * 200 >= n as usize,
            "{} applies in only {count} of {n} cases",
            RULES[k]
        );
    }
}

#[test]
fn cases_are_deterministic_and_varied() {
    assert_eq!(cases::case(SEED, 12345), cases::case(SEED, 12345));
    assert_ne!(cases::case(SEED, 1), cases::case(SEED, 2));
    let distinct: std::collections::HashSet<String> = (0..1000)
        .map(|i| format!("{:?}", cases::case(SEED, i)))
        .collect();
    assert!(distinct.len() > 990);
}
