//! The merge of the `tournament` binary: games merged into one facts file
//! evaluate, with the reference interpreter, to exactly the union of the
//! games evaluated one by one (renamed the same way), so the merged
//! concluded counts are the sums of the per-game counts.

use lawgen_benches::cases::{self, SEED, TRANSITIONS};
use lawgen_benches::engines::Interpreter;
use lawgen_benches::plain;
use lawgen_benches::tournament::{self, Merger};
use lawgen_runtime::Policy;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Games merged: enough for every kind of entity (situations, touched
/// pieces, castling sides, the arbiter) and for several endings.
const GAMES: usize = 12;

/// The interpreter's canonical output of a facts file, parsed.
fn output(interp: &Interpreter, facts_file: &str) -> Value {
    let facts =
        lawgen_runtime::formats::facts::read_facts(facts_file.as_bytes(), &interp.loaded.catalog)
            .unwrap_or_else(|d| panic!("facts file reads:\n{}", d.render()));
    let c = interp.conclusions(&facts, Policy::Blocking);
    serde_json::from_str(&lawgen_runtime::formats::output::canonical_json(&c))
        .expect("canonical JSON")
}

/// What an output concludes, as sets: (section, literal) → rows, and the
/// requests (predicate, args).
type Sets = (
    BTreeMap<(String, String), BTreeSet<String>>,
    BTreeSet<String>,
);

/// The sets of an output whose entities are renamed by `prefix`.
fn sets(out: &Value, prefix: &str, sets: &mut Sets) {
    let constants = tournament::chess_constants();
    for (section, lits) in out.as_object().expect("an object") {
        let Some(lits) = lits.as_object() else {
            continue; // package, version, policy, requests
        };
        for (lit, rows) in lits {
            let set = sets.0.entry((section.clone(), lit.clone())).or_default();
            for row in rows.as_array().expect("rows") {
                let row = tournament::rename_row(row, prefix, &constants).expect("a row");
                set.insert(row.to_string());
            }
        }
    }
    for r in out["requests"].as_array().expect("requests") {
        let args = tournament::rename_row(&r["args"], prefix, &constants).expect("args");
        let r = json!([r["predicate"], args, r["authority"], r["capability"]]);
        assert!(sets.1.insert(r.to_string()), "request {r} twice");
    }
}

#[test]
fn merged_games_conclude_the_union_of_the_games() {
    let interp = Interpreter::new();
    let mut per_game: Sets = Default::default();
    let mut per_game_counts = [0u64; 40];
    for i in 0..GAMES as u64 {
        let file = cases::to_json(&cases::case(SEED, i));
        let out = output(&interp, &file);
        sets(&out, &tournament::prefix(i), &mut per_game);
        let facts = interp.facts(&cases::case(SEED, i));
        plain::add(
            &mut per_game_counts,
            &interp.counts(&interp.conclusions(&facts, Policy::Blocking)),
        );
    }
    let merged_file = tournament::merged_games(SEED, GAMES, &tournament::chess_constants());
    let merged_out = output(&interp, &merged_file);
    let mut merged: Sets = Default::default();
    sets(&merged_out, "", &mut merged);
    // Row by row: no tuple joins two games, none is lost.
    for (key, rows) in per_game.0.iter().chain(&merged.0) {
        let empty = BTreeSet::new();
        let want = per_game.0.get(key).unwrap_or(&empty);
        let got = merged.0.get(key).unwrap_or(&empty);
        assert_eq!(
            want,
            got,
            "{key:?}: the games one by one and merged differ ({} rows)",
            rows.len()
        );
    }
    assert_eq!(per_game.1, merged.1, "requests differ");
    assert!(!merged.1.is_empty(), "some judgment is asked for");

    // The counts the binary checks: interpreter merged = interpreter per
    // game = plain Rust per game.
    let facts =
        lawgen_runtime::formats::facts::read_facts(merged_file.as_bytes(), &interp.loaded.catalog)
            .expect("merged facts read");
    let merged_counts = interp.counts(&interp.conclusions(&facts, Policy::Blocking));
    let merged_counts: Vec<u64> = merged_counts.iter().map(|&c| u64::from(c)).collect();
    assert_eq!(merged_counts, per_game_counts.to_vec());
    let plain_counts = lawgen_benches::engines::plain(&cases::cases(SEED, GAMES));
    assert_eq!(plain_counts, per_game_counts);
    assert!(
        per_game_counts.iter().filter(|&&c| c > 0).count() >= 15,
        "the games conclude many literals: {per_game_counts:?}"
    );
}

#[test]
fn constants_are_the_packages() {
    let interp = Interpreter::new();
    let from_json = tournament::chess_constants();
    let mut from_catalog = BTreeSet::new();
    for c in &interp.loaded.catalog.constants {
        from_catalog.insert(c.local.clone());
        from_catalog.insert(c.id.clone());
    }
    assert_eq!(from_json, from_catalog);
    for t in TRANSITIONS {
        assert!(from_json.contains(t), "{t}");
    }
    assert!(from_json.contains("Ended"));
    assert_eq!(
        from_json.len(),
        2 * 12,
        "12 constants, by local name and id"
    );
}

#[test]
fn merge_renames_entities_and_keeps_constants_and_integers() {
    let constants: BTreeSet<String> = ["StartPlay".to_owned()].into();
    let mut m = Merger::new(&constants);
    let game = r#"{"entities": {"Player": ["white"]},
                   "facts": {"attempted_transition": [["g", "StartPlay"]],
                             "completed_illegal_move_count": [["white", 2]],
                             "~draw_agreed": [["g"]]}}"#;
    m.add("g0.", game).unwrap();
    m.add("g1.", game).unwrap();
    m.add("g2.", r#"{"facts": {"player_of": [["g", "black"]]}}"#)
        .unwrap();
    let merged: Value = serde_json::from_str(&m.finish()).unwrap();
    assert_eq!(
        merged,
        json!({
            "entities": {"Player": ["g0.white", "g1.white"]},
            "facts": {
                "attempted_transition": [["g0.g", "StartPlay"], ["g1.g", "StartPlay"]],
                "completed_illegal_move_count": [["g0.white", 2], ["g1.white", 2]],
                "player_of": [["g2.g", "g2.black"]],
                "~draw_agreed": [["g0.g"], ["g1.g"]],
            }
        })
    );
}

#[test]
fn merge_refuses_what_is_not_a_facts_file() {
    let constants = BTreeSet::new();
    for bad in [
        r#"{"facts": {"p": [["a", 1.5]]}}"#,
        r#"{"facts": {"p": [["a", true]]}}"#,
        r#"{"facts": {"p": ["a"]}}"#,
        r#"{"facts": {}, "extra": 1}"#,
        r#"{"entities": {"T": [1]}, "facts": {}}"#,
        r#"{"entities": {}}"#,
        r#"[]"#,
    ] {
        let mut m = Merger::new(&constants);
        assert!(m.add("g0.", bad).is_err(), "{bad}");
    }
}
