//! `lawgen analyze --as-of D` and `--compare-dates D1 D2`
//! (docs/analyze.md#dates) on the FIDE editions: the in-force inputs are
//! fixed to the date, every witness carries its `asOf` and is checked by the
//! reference evaluator on that date (an internal error otherwise), and the
//! rules that enter or leave force and decide each difference are named.

use lawgen_test_support as support;
use serde_json::Value as J;
use std::process::Command;

const HISTORY: &str = "packages/fide.laws.chess.history/fide.laws.chess.history-0.1.0.ir.json";
const PATHS: [&str; 6] = [
    "--import-path",
    "packages/fide.laws.chess",
    "--import-path",
    "packages/fide.laws.chess.2017",
    "--import-path",
    "packages/fide.laws.chess.2009",
];

fn analyze(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .arg("analyze")
        .arg(HISTORY)
        .args(PATHS)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(args: &[&str]) -> J {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, out, err) = analyze(&all);
    assert_eq!(code, 0, "{out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn row<'a>(answer: &'a J, literal: &str) -> &'a J {
    answer["literals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["literal"] == literal)
        .unwrap_or_else(|| panic!("no row for {literal} in {answer:#}"))
}

#[test]
fn comparing_the_last_day_of_2017_with_the_first_of_2023() {
    let doc = json(&["--compare-dates", "2022-12-31", "2023-01-01"]);
    let a = &doc["answers"][0];
    assert_eq!(a["query"], "compare-dates");
    assert_eq!(a["dates"], serde_json::json!(["2022-12-31", "2023-01-01"]));
    let leaving: Vec<&str> = a["leaving"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        leaving,
        [
            "CheckmateWins2017",
            "CheckmateEndsTheGame2017",
            "ResignationWinsForOpponent2017",
            "ResignationEndsTheGame2017"
        ]
    );
    assert_eq!(a["entering"].as_array().unwrap().len(), 28);
    // A resignation: the opponent wins on the last day of 2017's edition,
    // and nobody is said to win on the first day of 2023's.
    let won = row(a, "game_won_by");
    assert_eq!(won["result"], "witness");
    assert_eq!(won["from"], "definitely");
    assert_eq!(won["to"], "not concluded");
    assert_eq!(
        won["decided_by"],
        serde_json::json!(["ResignationWinsForOpponent2017 (leaves force after 2022-12-31)"])
    );
    let files = won["facts_per_package"].as_array().unwrap();
    assert_eq!(files[0]["asOf"], "2022-12-31");
    assert_eq!(files[1]["asOf"], "2023-01-01");
    assert_eq!(
        files[0]["facts"]["player_resigned"],
        serde_json::json!([["player2"]])
    );
    // A witness with entities and a date: its facts file reads back (the
    // reference evaluator checked it on each date).
    let arbiter = row(a, "arbiter_competent_to_decide");
    assert_eq!(arbiter["to"], "pending");
    let f = &arbiter["facts_per_package"][1];
    assert_eq!(f["asOf"], "2023-01-01");
    assert_eq!(
        f["entities"]["Situation"],
        serde_json::json!(["situation1"])
    );
    // Checkmate and resignation end the game under both editions: a proof
    // that no input within the bound tells the dates apart.
    for same in [
        "checkmate_has_been_delivered",
        "resignation_has_ended_the_game",
    ] {
        assert_eq!(row(a, same)["result"], "none", "{same}");
    }
    // A timeless state-machine literal differs through what enters force.
    let entered = row(a, "valid_transition");
    assert_eq!(entered["result"], "witness");
    assert!(entered["decided_by"][0]
        .as_str()
        .unwrap()
        .ends_with("; upstream)"));
}

#[test]
fn the_text_report_names_the_dates_and_explains_each_side() {
    let (code, out, err) = analyze(&["--compare-dates", "2022-12-31", "2023-01-01"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with(
        "lawgen analyze fide.laws.chess.history 0.1.0 as of 2022-12-31 against fide.laws.chess.history 0.1.0 as of 2023-01-01 "
    ));
    assert!(out.contains("rules that leave force after 2022-12-31: 4\n"));
    assert!(out.contains(
        "| `game_won_by` | `game_won_by(game1, player1)` | definitely | not concluded | ResignationWinsForOpponent2017 (leaves force after 2022-12-31) |"
    ));
    assert!(out.contains("as of 2022-12-31:\ngame_won_by(game1, player1): DEFINITELY holds"));
    assert!(out.contains("as of 2023-01-01:\ngame_won_by(game1, player1): NOT CONCLUDED"));
}

#[test]
fn as_of_fixes_the_law_of_every_query() {
    // A resignation loses only under the 2023 edition.
    let goal = "game_lost_by(G, P), player_resigned(P)";
    let on = |d: &str| json(&["--as-of", d, "--goal", goal, "--no-minimize"]);
    let before = on("2019-05-01");
    assert_eq!(before["answers"][0]["result"], "none");
    let after = on("2024-05-01");
    let a = &after["answers"][0];
    assert_eq!(a["result"], "witness");
    assert_eq!(a["facts"]["asOf"], "2024-05-01");
    // The lettered edition draws an agreement made before any move.
    let agreed = "agreed_draw_has_ended_the_game(G), not both_players_have_moved(G)";
    assert_eq!(
        json(&["--as-of", "2012-03-15", "--goal", agreed])["answers"][0]["result"],
        "witness"
    );
    assert_eq!(
        json(&["--as-of", "2024-05-01", "--goal", agreed])["answers"][0]["result"],
        "none"
    );
}

#[test]
fn a_bad_date_is_refused_with_what_to_do() {
    let (code, _, err) = analyze(&["--as-of", "2023-02-30", "--goal", "game_drawn(G)"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: `--as-of` takes a date `YYYY-MM-DD` of a real calendar day, not `2023-02-30`\n  = help: write it like `--as-of 2023-01-01`\n"
    );
    let (code, _, err) = analyze(&["--compare-dates", "2009-06-30", "2023-01-01"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: `--compare-dates 2009-06-30`: no edition of the work `FIDE_LAWS_OF_CHESS` is in force on 2009-06-30: it has an edition in force from 2009-07-01\n  = help: analyse a date on which the package has law in force\n"
    );
    let (code, _, err) = analyze(&[
        "--as-of",
        "2019-05-01",
        "--compare-dates",
        "2022-12-31",
        "2023-01-01",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("error: `--as-of` and `--compare-dates` cannot be given together\n"),
        "{err}"
    );
}

/// docs/analyze.md quotes, between `<!-- analyze-dates-output -->` and
/// `<!-- /analyze-dates-output -->`, what `--compare-dates 2022-12-31
/// 2023-01-01` prints on the FIDE editions (times elided): the section of
/// the comparison and the resignation's witness. `LAWGEN_BLESS=1` rewrites it.
#[test]
fn the_output_docs_analyze_md_quotes_is_what_the_command_prints() {
    const OPEN: &str = "<!-- analyze-dates-output -->\n";
    const CLOSE: &str = "<!-- /analyze-dates-output -->";
    let (code, out, err) = analyze(&["--compare-dates", "2022-12-31", "2023-01-01"]);
    assert_eq!(code, 0, "{out}{err}");
    let elide = |s: &str| -> String {
        let mut o = String::new();
        let mut rest = s;
        // "(1.23 s)" and "(21 literals)" keep their words, not their times.
        while let Some(at) = rest.find(" s)") {
            let start = rest[..at]
                .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(0, |i| i + 1);
            if start < at && rest[..start].ends_with('(') {
                o.push_str(&rest[..start]);
                o.push('…');
            } else {
                o.push_str(&rest[..at]);
            }
            o.push_str(" s)");
            rest = &rest[at + 3..];
        }
        o.push_str(rest);
        o
    };
    let out = elide(&out);
    let section = &out[out.find("== compare dates").unwrap()..];
    let table_end = section.find(" literals)\n").unwrap() + " literals)\n".len();
    let won = &section[section.find("\n-- game_won_by\n").unwrap() + 1..];
    let won = &won[..won[3..].find("\n-- ").map_or(won.len(), |i| i + 4)];
    let want = format!(
        "```text\n$ lawgen analyze {HISTORY} \\\n    {} \\\n    --compare-dates 2022-12-31 2023-01-01\n…\n{}…\n{}…\n```\n",
        PATHS.join(" "),
        &section[..table_end],
        won
    );
    let page_path = support::workspace().join("docs/analyze.md");
    let page = std::fs::read_to_string(&page_path).unwrap();
    let start = page.find(OPEN).expect("docs/analyze.md has the marker") + OPEN.len();
    let end = start + page[start..].find(CLOSE).expect("and its end");
    if page[start..end] == want {
        return;
    }
    if support::bless() {
        std::fs::write(
            &page_path,
            format!("{}{want}{}", &page[..start], &page[end..]),
        )
        .unwrap();
        return;
    }
    panic!(
        "docs/analyze.md quotes another output; review, then regenerate: LAWGEN_BLESS=1 cargo test -p lawgen-cli --test analyze_dates docs\n--- the page\n{}+++ the command prints\n{want}",
        &page[start..end]
    );
}
