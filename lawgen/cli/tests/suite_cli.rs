//! `lawgen test DIR`: scenario suites as a command — passing and failing
//! scenarios with their readable differences, coverage and its minimum,
//! the allow-list, the three formats, and every error with its message.
//! The suites are written to a scratch directory over the derogation
//! example of docs/reference.md (a base law and a national layer that sets
//! one of its rules aside). The repository's suites run through the command,
//! and the coverage tables the packages' READMEs quote are checked against it.

use lawgen_test_support as support;

use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGE: &str = "docs/examples/derogation/package.ir.json";

/// A scratch suite: `files` are (name, contents).
fn suite(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lawgen-suite-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    dir
}

fn lawgen(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const FIVE_FACTS: &str = r#"{"facts": {"position_repeated": [["g1", 5]]}}"#;
/// What the national layer gives: nothing (five repetitions do not draw).
const FIVE_EXPECTED: &str = r#"{"description": "national Art. 9: five repetitions alone do not draw",
  "definitely": {}, "defeasibly": {}, "supported": {}, "pending": {}, "requests": []}"#;
const CLAIM_FACTS: &str =
    r#"{"facts": {"position_repeated": [["g1", 3]], "draw_claimed": [["g1"]]}}"#;
const CLAIM_EXPECTED: &str = r#"{"definitely": {"game_drawn": [["g1"]]},
  "defeasibly": {"game_drawn": [["g1"]]}, "supported": {"game_drawn": [["g1"]]}}"#;

fn with_package(dir: &Path) -> Vec<String> {
    vec![
        "test".into(),
        dir.display().to_string(),
        "--package".into(),
        PACKAGE.into(),
    ]
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn a_passing_suite_with_full_coverage() {
    let dir = suite(
        "pass",
        &[
            ("five.facts.json", FIVE_FACTS),
            ("five.expected.json", FIVE_EXPECTED),
            ("claim.facts.json", CLAIM_FACTS),
            ("claim.expected.json", CLAIM_EXPECTED),
        ],
    );
    let mut a = with_package(&dir);
    a.extend(["--min-coverage".into(), "100".into()]);
    let (code, out, err) = lawgen(&args(&a));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("ok     claim (blocking)\nok     five (blocking)\n"),
        "{out}"
    );
    assert!(out.contains("2 scenarios: 2 passed, 0 failed\n"), "{out}");
    assert!(
        out.contains("coverage: 2 of 2 rules concluded or defeated in 2 scenarios, 0 allowed by design: 100.0% (minimum 100%)"),
        "{out}"
    );
    // The set-aside rule is covered where its conditions held.
    let line = out
        .lines()
        .find(|l| l.starts_with("FivefoldDraws"))
        .unwrap();
    assert!(
        line.ends_with("set aside by NoFivefoldDraw; its conditions held in 1"),
        "{line}"
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("ThreefoldClaimDraws"))
        .unwrap();
    assert!(line.contains("definitely 1"), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failing_scenario_exits_1_with_its_differences() {
    // Expects the base law's fivefold draw, which the national layer set aside.
    let wrong = r#"{"definitely": {"game_drawn": [["g1"]]}, "defeasibly": {"game_drawn": [["g1"]]},
                    "supported": {"game_drawn": [["g1"]]}}"#;
    let dir = suite(
        "fail",
        &[
            ("five.facts.json", FIVE_FACTS),
            ("five.expected.json", wrong),
        ],
    );
    let (code, out, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        out,
        "FAILED five (blocking)\n    - definitely: game_drawn(g1)\n    - defeasibly: game_drawn(g1)\n    - supported: game_drawn(g1)\n\
         1 scenarios: 0 passed, 1 failed (- expected but not concluded, + concluded but not expected)\n"
    );
    assert_eq!(err, "error: 1 of 1 scenarios failed\n");
    let mut a = with_package(&dir);
    a.extend(["--format".into(), "junit".into()]);
    let (code, out, _) = lawgen(&args(&a));
    assert_eq!(code, 1);
    assert!(out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"example.national 1.0.0\" tests=\"1\" failures=\"1\">"), "{out}");
    assert!(
        out.contains("<failure message=\"3 difference(s)\">- definitely: game_drawn(g1)\n"),
        "{out}"
    );
    let mut a = with_package(&dir);
    a.extend(["--format".into(), "json".into(), "--coverage".into()]);
    let (code, out, _) = lawgen(&args(&a));
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scenarios"][0]["passed"], false);
    assert_eq!(v["scenarios"][0]["differences"][0]["kind"], "missing");
    assert_eq!(
        v["coverage"]["rules"][1]["setAside"]["by"][0],
        "NoFivefoldDraw"
    );
    assert_eq!(
        v["coverage"]["rules"][1]["setAside"]["wouldApply"][0],
        "five"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn coverage_below_the_minimum_fails_until_the_allow_list_says_why() {
    let files = [
        ("claim.facts.json", CLAIM_FACTS),
        ("claim.expected.json", CLAIM_EXPECTED),
    ];
    let dir = suite("min", &files);
    let mut a = with_package(&dir);
    a.extend(["--min-coverage".into(), "100".into()]);
    let (code, out, err) = lawgen(&args(&a));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(": 50.0% (minimum 100%)"), "{out}");
    assert_eq!(
        err,
        format!(
            "error: coverage 50.0% is below the minimum 100%: never concluded or defeated: FivefoldDraws\n  = help: add a scenario that reaches each, or list it with its reason in {}\n",
            dir.join("coverage.allow").display()
        )
    );
    std::fs::write(
        dir.join("coverage.allow"),
        "# rules this suite cannot reach\nFivefoldDraws   set aside by the national layer; shown in the five scenario elsewhere\n",
    )
    .unwrap();
    let (code, out, _) = lawgen(&args(&a));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "[allowed: set aside by the national layer; shown in the five scenario elsewhere]"
        ),
        "{out}"
    );
    // A full id holds a `#`; a comment after a blank is still a comment.
    std::fs::write(
        dir.join("coverage.allow"),
        "urn:example:base#FivefoldDraws  set aside by the national layer # not reached here\n",
    )
    .unwrap();
    let (code, out, _) = lawgen(&args(&a));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("[allowed: set aside by the national layer]"),
        "{out}"
    );
    std::fs::write(dir.join("coverage.allow"), "FivefoldDrawz  a typo\n").unwrap();
    let (code, _, err) = lawgen(&args(&a));
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error: {}: line 1: `FivefoldDrawz` is no rule of example.national\n  = help: name a rule of the package's closure by its local name or full id\n",
            dir.join("coverage.allow").display()
        )
    );
    std::fs::write(dir.join("coverage.allow"), "FivefoldDraws\n").unwrap();
    let (code, _, err) = lawgen(&args(&a));
    assert_eq!(code, 1);
    assert!(
        err.contains("line 1: `FivefoldDraws` has no reason"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_suites_are_refused_with_where_and_how() {
    // An unknown field in an expectation file.
    let dir = suite(
        "bad-field",
        &[
            ("a.facts.json", FIVE_FACTS),
            ("a.expected.json", r#"{"definitly": {}}"#),
        ],
    );
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!(
            "error: {}: unexpected field `definitly`",
            dir.join("a.expected.json").display()
        )),
        "{err}"
    );
    // Rows that are not arrays.
    std::fs::write(
        dir.join("a.expected.json"),
        r#"{"definitely": {"game_drawn": ["g1"]}}"#,
    )
    .unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert!(
        err.contains("`definitely/game_drawn` must be an array of rows (arrays)"),
        "{err}"
    );
    // A scenario without its expectation.
    std::fs::write(dir.join("b.facts.json"), FIVE_FACTS).unwrap();
    std::fs::write(dir.join("a.expected.json"), FIVE_EXPECTED).unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert!(
        err.contains("b.facts.json: no b.expected.json beside it"),
        "{err}"
    );
    // No package: neither --package nor suite.json.
    std::fs::remove_file(dir.join("b.facts.json")).unwrap();
    let (code, _, err) = lawgen(&["test", &dir.display().to_string()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("= help: pass `--package PACKAGE`, or name it in"),
        "{err}"
    );
    // suite.json names it.
    std::fs::write(
        dir.join("suite.json"),
        format!(
            r#"{{"package": "{}"}}"#,
            support::workspace().join(PACKAGE).display()
        ),
    )
    .unwrap();
    let (code, out, err) = lawgen(&["test", &dir.display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    // A facts file the package refuses: the scenario fails with the facts error.
    std::fs::write(
        dir.join("a.facts.json"),
        r#"{"facts": {"game_drawn": [["g1"]]}}"#,
    )
    .unwrap();
    let (code, out, _) = lawgen(&["test", &dir.display().to_string()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("FAILED a (blocking)\n    error[E084]"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_repository_suites_run_through_the_command() {
    for dir in [
        "tests/scenarios/chess",
        "tests/scenarios/ru",
        "tests/scenarios/chess-history",
    ] {
        let (code, out, err) = lawgen(&["test", dir, "--coverage"]);
        assert_eq!(code, 0, "{dir}:\n{out}{err}");
        assert!(out.contains(" 0 failed\n"), "{out}");
    }
}

/// The coverage tables the packages' READMEs quote are what `lawgen test
/// DIR --coverage` prints today, from its `coverage:` line on: the block
/// between the README's markers (the begin marker names the command) is
/// compared with the command's output, and `LAWGEN_BLESS=1` rewrites it.
#[test]
fn the_readme_coverage_tables_are_current() {
    const END: &str = "<!-- coverage: end -->";
    let bless = support::bless();
    let mut stale = Vec::new();
    for (dir, readme) in [
        (
            "tests/scenarios/chess",
            "packages/fide.laws.chess/README.md",
        ),
        (
            "tests/scenarios/ru",
            "packages/ru.chess.competition/README.md",
        ),
        (
            "tests/scenarios/chess-history",
            "packages/fide.laws.chess.history/README.md",
        ),
    ] {
        let (code, out, err) = lawgen(&["test", dir, "--coverage"]);
        assert_eq!(code, 0, "{dir}:\n{out}{err}");
        let at = out
            .find("\ncoverage: ")
            .unwrap_or_else(|| panic!("{dir}: no coverage report in\n{out}"));
        let want = format!("```text\n{}```\n", &out[at + 1..]);
        let path = support::workspace().join(readme);
        let text = std::fs::read_to_string(&path).unwrap();
        let begin = format!("<!-- coverage: begin (lawgen test {dir} --coverage) -->\n");
        let start = text
            .find(&begin)
            .unwrap_or_else(|| panic!("{readme}: no line `{}` before the table", begin.trim_end()))
            + begin.len();
        let end = start
            + text[start..]
                .find(END)
                .unwrap_or_else(|| panic!("{readme}: no `{END}` after the table"));
        if text[start..end] == want {
            continue;
        }
        if bless {
            std::fs::write(&path, format!("{}{want}{}", &text[..start], &text[end..])).unwrap();
            continue;
        }
        let first = text[start..end]
            .lines()
            .zip(want.lines())
            .find(|(a, b)| a != b)
            .map_or_else(
                || "one block is a prefix of the other".to_owned(),
                |(a, b)| format!("README: {a}\nnow:    {b}"),
            );
        stale.push(format!("{readme} (from {dir}), first difference:\n{first}"));
    }
    assert!(
        stale.is_empty(),
        "{}\n\nreview the change, then regenerate: LAWGEN_BLESS=1 cargo test -p lawgen-cli --test suite_cli the_readme_coverage_tables_are_current",
        stale.join("\n\n")
    );
}

/// A package and suite built to make `--coverage` report every kind of
/// outcome (`tests/coverage/`): concluded at each level, defeated under a
/// priority, discarded, blocked by a defeater, blocking, set aside by a
/// derogation of an imported rule (its conditions held, or never),
/// pending on a judgment, never applicable; a priority exercised and one
/// never exercised; a judgment seen undecided, yes and no; the allow-list's
/// reasons and its note on a covered rule. The whole text report, and the
/// whole coverage object of the JSON report.
#[test]
fn every_kind_of_outcome_is_reported() {
    let (code, out, err) = lawgen(&["test", "tests/coverage/suite", "--coverage"]);
    assert_eq!(code, 0, "{out}{err}");
    let at = out.find("\ncoverage: ").unwrap() + 1;
    assert!(
        out[..at].ends_with("10 scenarios: 10 passed, 0 failed\n"),
        "{out}"
    );
    assert_eq!(
        &out[at..],
        r#"coverage: 8 of 10 rules concluded or defeated in 10 scenarios, 2 allowed by design: 100.0%
rule              package                  strength    what happened (number of scenarios)
Over              coverage.national 1.0.0  strict      definitely 1; defeasibly 1; supported 1 [allow-listed but covered: remove it from the allow-list]
OfferDraws        coverage.national 1.0.0  defeasible  defeasibly 1; supported 2; defeated by RefusalPrevents under RefusalOverOffer 1; discarded 1
RefusalPrevents   coverage.national 1.0.0  defeasible  defeasibly 2; supported 2; discarded 1
Continues         coverage.national 1.0.0  defeasible  supported 1; blocked by DisputeStops 1
DisputeStops      coverage.national 1.0.0  defeater    blocks 1
Forfeit           coverage.national 1.0.0  strict      definitely 1; defeasibly 1; supported 1; pending on arbiter_confirms 1
LateLoses         coverage.national 1.0.0  defeasible  defeasibly 1; supported 1
ExcusedNotLost    coverage.national 1.0.0  defeasible  discarded 1; never applicable [allowed: no scenario excuses a late player, so that one rule is never applicable]
FivefoldDraws     coverage.base 1.0.0      strict      set aside by NoAutomaticDraws; its conditions held in 1
SeventyFiveDraws  coverage.base 1.0.0      strict      set aside by NoAutomaticDraws; its conditions held in 0 [allowed: set aside with FivefoldDraws; no scenario reaches 75 moves, so its conditions never hold]
priorities:
  RefusalOverOffer [coverage.national 1.0.0]: exercised in 1
  ExcusedOverLate [coverage.national 1.0.0]: never exercised
judgments:
  arbiter_confirms: undecided in 1, decided yes in 1, decided no in 1
"#
    );
    let (code, out, _) = lawgen(&[
        "test",
        "tests/coverage/suite",
        "--coverage",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["package"], "coverage.national 1.0.0");
    assert_eq!(
        v["coverage"],
        serde_json::json!({
            "judgments": [
                {
                    "name": "arbiter_confirms",
                    "no": [
                        "absent_not_confirmed"
                    ],
                    "undecided": [
                        "absent_undecided"
                    ],
                    "yes": [
                        "absent_confirmed"
                    ]
                }
            ],
            "percent": 100.0,
            "priorities": [
                {
                    "exercised": [
                        "offered_and_refused"
                    ],
                    "name": "RefusalOverOffer",
                    "package": "coverage.national 1.0.0"
                },
                {
                    "exercised": [],
                    "name": "ExcusedOverLate",
                    "package": "coverage.national 1.0.0"
                }
            ],
            "rules": [
                {
                    "allowed": "covered: listed so that the report says to remove it",
                    "applicable": [
                        "ended"
                    ],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {
                        "defeasibly": [
                            "ended"
                        ],
                        "definitely": [
                            "ended"
                        ],
                        "supported": [
                            "ended"
                        ]
                    },
                    "covered": true,
                    "defeated": [],
                    "discarded": [],
                    "id": "urn:coverage:national#Over",
                    "name": "Over",
                    "package": "coverage.national 1.0.0",
                    "pending": [],
                    "setAside": null,
                    "strength": "strict"
                },
                {
                    "allowed": null,
                    "applicable": [
                        "offered",
                        "offered_and_refused"
                    ],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {
                        "defeasibly": [
                            "offered"
                        ],
                        "supported": [
                            "offered",
                            "offered_and_refused"
                        ]
                    },
                    "covered": true,
                    "defeated": [
                        {
                            "by": "RefusalPrevents",
                            "priority": "RefusalOverOffer",
                            "scenarios": [
                                "offered_and_refused"
                            ]
                        }
                    ],
                    "discarded": [
                        "refused"
                    ],
                    "id": "urn:coverage:national#OfferDraws",
                    "name": "OfferDraws",
                    "package": "coverage.national 1.0.0",
                    "pending": [],
                    "setAside": null,
                    "strength": "defeasible"
                },
                {
                    "allowed": null,
                    "applicable": [
                        "offered_and_refused",
                        "refused"
                    ],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {
                        "defeasibly": [
                            "offered_and_refused",
                            "refused"
                        ],
                        "supported": [
                            "offered_and_refused",
                            "refused"
                        ]
                    },
                    "covered": true,
                    "defeated": [],
                    "discarded": [
                        "offered"
                    ],
                    "id": "urn:coverage:national#RefusalPrevents",
                    "name": "RefusalPrevents",
                    "package": "coverage.national 1.0.0",
                    "pending": [],
                    "setAside": null,
                    "strength": "defeasible"
                },
                {
                    "allowed": null,
                    "applicable": [
                        "disputed"
                    ],
                    "blockedBy": [
                        {
                            "defeater": "DisputeStops",
                            "scenarios": [
                                "disputed"
                            ]
                        }
                    ],
                    "blocks": [],
                    "concluded": {
                        "supported": [
                            "disputed"
                        ]
                    },
                    "covered": true,
                    "defeated": [],
                    "discarded": [],
                    "id": "urn:coverage:national#Continues",
                    "name": "Continues",
                    "package": "coverage.national 1.0.0",
                    "pending": [],
                    "setAside": null,
                    "strength": "defeasible"
                },
                {
                    "allowed": null,
                    "applicable": [
                        "disputed"
                    ],
                    "blockedBy": [],
                    "blocks": [
                        "disputed"
                    ],
                    "concluded": {},
                    "covered": true,
                    "defeated": [],
                    "discarded": [],
                    "id": "urn:coverage:national#DisputeStops",
                    "name": "DisputeStops",
                    "package": "coverage.national 1.0.0",
                    "pending": [],
                    "setAside": null,
                    "strength": "defeater"
                },
                {
                    "allowed": null,
                    "applicable": [
                        "absent_confirmed",
                        "absent_undecided"
                    ],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {
                        "defeasibly": [
                            "absent_confirmed"
                        ],
                        "definitely": [
                            "absent_confirmed"
                        ],
                        "supported": [
                            "absent_confirmed"
                        ]
                    },
                    "covered": true,
                    "defeated": [],
                    "discarded": [],
                    "id": "urn:coverage:national#Forfeit",
                    "name": "Forfeit",
                    "package": "coverage.national 1.0.0",
                    "pending": [
                        {
                            "on": "arbiter_confirms(g1)",
                            "scenarios": [
                                "absent_undecided"
                            ]
                        }
                    ],
                    "setAside": null,
                    "strength": "strict"
                },
                {
                    "allowed": null,
                    "applicable": [
                        "late"
                    ],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {
                        "defeasibly": [
                            "late"
                        ],
                        "supported": [
                            "late"
                        ]
                    },
                    "covered": true,
                    "defeated": [],
                    "discarded": [],
                    "id": "urn:coverage:national#LateLoses",
                    "name": "LateLoses",
                    "package": "coverage.national 1.0.0",
                    "pending": [],
                    "setAside": null,
                    "strength": "defeasible"
                },
                {
                    "allowed": "no scenario excuses a late player, so that one rule is never applicable",
                    "applicable": [],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {},
                    "covered": false,
                    "defeated": [],
                    "discarded": [
                        "late"
                    ],
                    "id": "urn:coverage:national#ExcusedNotLost",
                    "name": "ExcusedNotLost",
                    "package": "coverage.national 1.0.0",
                    "pending": [],
                    "setAside": null,
                    "strength": "defeasible"
                },
                {
                    "allowed": null,
                    "applicable": [],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {},
                    "covered": true,
                    "defeated": [],
                    "discarded": [],
                    "id": "urn:coverage:base#FivefoldDraws",
                    "name": "FivefoldDraws",
                    "package": "coverage.base 1.0.0",
                    "pending": [],
                    "setAside": {
                        "by": [
                            "NoAutomaticDraws"
                        ],
                        "wouldApply": [
                            "five_repetitions"
                        ]
                    },
                    "strength": "strict"
                },
                {
                    "allowed": "set aside with FivefoldDraws; no scenario reaches 75 moves, so its conditions never hold",
                    "applicable": [],
                    "blockedBy": [],
                    "blocks": [],
                    "concluded": {},
                    "covered": false,
                    "defeated": [],
                    "discarded": [],
                    "id": "urn:coverage:base#SeventyFiveDraws",
                    "name": "SeventyFiveDraws",
                    "package": "coverage.base 1.0.0",
                    "pending": [],
                    "setAside": {
                        "by": [
                            "NoAutomaticDraws"
                        ],
                        "wouldApply": []
                    },
                    "strength": "strict"
                }
            ],
            "scenarios": 10
        })
    );
}

/// A local name that names a rule in two packages of the closure names
/// none in particular: the allow-list entry is refused with the full ids
/// and how to pick one. `ThreefoldClaimCorrect` is a rule of the Russian
/// package and of the FIDE package it imports (set aside there).
#[test]
fn an_ambiguous_local_name_in_the_allow_list_is_refused_with_the_full_ids() {
    let scenario = "fivefold_repetition_no_automatic_draw";
    let read = |ext: &str| {
        std::fs::read_to_string(
            support::workspace().join(format!("tests/scenarios/ru/{scenario}.{ext}.json")),
        )
        .unwrap()
    };
    let (facts, expected) = (read("facts"), read("expected"));
    let dir = suite(
        "ambiguous",
        &[
            ("s.facts.json", &facts),
            ("s.expected.json", &expected),
            (
                "coverage.allow",
                "# a rule of both layers\nThreefoldClaimCorrect  meant: the Russian rule\n",
            ),
        ],
    );
    let a = [
        "test",
        &dir.display().to_string(),
        "--package",
        "packages/ru.chess.competition/ru.chess.competition-0.3.0.ir.json",
        "--import-path",
        "packages/fide.laws.chess",
        "--coverage",
    ]
    .map(str::to_owned);
    let (code, out, err) = lawgen(&args(&a));
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        err,
        format!(
            "error: {}: line 2: `ThreefoldClaimCorrect` names 2 rules of the closure of ru.chess.competition: \
             urn:ru:chess:competition#ThreefoldClaimCorrect (ru.chess.competition 0.3.0), \
             urn:fide:laws:clir:chess#ThreefoldClaimCorrect (fide.laws.chess 0.1.0)\n  \
             = help: write the full id of the rule meant, e.g. `urn:ru:chess:competition#ThreefoldClaimCorrect`\n",
            dir.join("coverage.allow").display()
        )
    );
    // The full id picks one: the FIDE rule, and the Russian one is left alone.
    std::fs::write(
        dir.join("coverage.allow"),
        "urn:fide:laws:clir:chess#ThreefoldClaimCorrect  meant: the FIDE rule\n",
    )
    .unwrap();
    let (code, out, err) = lawgen(&args(&a));
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("ThreefoldClaimCorrect "))
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].contains("ru.chess.competition 0.3.0") && !lines[0].contains("allow"),
        "{out}"
    );
    assert!(
        lines[1].contains("fide.laws.chess 0.1.0")
            && lines[1].ends_with("[allowed: meant: the FIDE rule]"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FIFO at `path` (`mkfifo`), and a writer that puts `bytes` zero bytes
/// into it from another thread (it ends when the reader stops reading).
#[cfg(unix)]
fn fifo_with_writer(path: &Path, bytes: usize) -> std::thread::JoinHandle<()> {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
    let path = path.to_owned();
    std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let chunk = vec![b' '; 1 << 16];
        let mut left = bytes;
        while left > 0 {
            let n = left.min(chunk.len());
            if f.write_all(&chunk[..n]).is_err() {
                return; // the reader stopped: what a bounded read does
            }
            left -= n;
        }
    })
}

#[test]
fn expectations_naming_no_institutional_predicate_are_refused() {
    let dir = suite(
        "unknown-predicate",
        &[
            ("a.facts.json", FIVE_FACTS),
            (
                "a.expected.json",
                r#"{"definitely": {"~gam_drawn": [["g1"]]}}"#,
            ),
        ],
    );
    let expected = dir.join("a.expected.json");
    let (code, out, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        err,
        format!(
            "error: {}: `definitely/~gam_drawn`: example.national and its imports declare no predicate `gam_drawn`\n  \
             = help: name a predicate of the package or its imports (its local name, such as `game_drawn`, or its full id), or remove the entry\n",
            expected.display()
        )
    );
    // A facts predicate is never concluded: expecting it can never be met.
    std::fs::write(
        &expected,
        r#"{"supported": {"position_repeated": [["g1", 5]]}}"#,
    )
    .unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error: {}: `supported/position_repeated`: `position_repeated` is not an institutional predicate\n  \
             = help: an expectation lists institutional conclusions only: remove the entry\n",
            expected.display()
        )
    );
    std::fs::write(
        &expected,
        r#"{"requests": [{"predicate": "nope", "args": ["g1"]}]}"#,
    )
    .unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!(
            "error: {}: `requests`: example.national and its imports declare no predicate `nope`\n",
            expected.display()
        )),
        "{err}"
    );
    // The review document runs the same check on its scenarios.
    let (code, _, err) = lawgen(&["doc", PACKAGE, "--scenarios", &dir.display().to_string()]);
    assert_eq!(code, 1);
    assert!(err.contains("declare no predicate `nope`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_suite_files_are_errors_not_silently_skipped() {
    let dir = suite(
        "unreadable",
        &[
            ("a.facts.json", FIVE_FACTS),
            ("a.expected.json", FIVE_EXPECTED),
        ],
    );
    // A suite.json that is a directory.
    std::fs::create_dir(dir.join("suite.json")).unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: cannot read {}: is a directory\n",
            dir.join("suite.json").display()
        )
    );
    std::fs::remove_dir(dir.join("suite.json")).unwrap();
    // One Latin-1 byte in the allow-list: an error, not an empty allow-list.
    std::fs::write(
        dir.join("coverage.allow"),
        b"# reasons\nFivefoldDraws  set aside by the national caf\xe9 rule\n",
    )
    .unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error: {}: line 2 is not valid UTF-8 (byte 0xe9)\n  = help: save the allow-list as UTF-8\n",
            dir.join("coverage.allow").display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(target_os = "linux")]
#[test]
fn a_scenario_file_with_a_non_utf8_name_is_named_truly() {
    use std::os::unix::ffi::OsStrExt;
    let dir = suite(
        "non-utf8",
        &[
            ("a.facts.json", FIVE_FACTS),
            ("a.expected.json", FIVE_EXPECTED),
        ],
    );
    let name = std::ffi::OsStr::from_bytes(b"b\xff.facts.json");
    std::fs::write(dir.join(name), FIVE_FACTS).unwrap();
    std::fs::write(
        dir.join(std::ffi::OsStr::from_bytes(b"b\xff.expected.json")),
        FIVE_EXPECTED,
    )
    .unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error: {}/b\u{fffd}.facts.json: the file name is not valid UTF-8\n  \
             = help: rename the file: a scenario's name is UTF-8 text, shown in every report\n",
            dir.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Symbolic links to devices, FIFOs and files over the limit: each suite
/// file is read only up to its limit, and refused at once.
#[cfg(unix)]
#[test]
fn suite_files_are_read_within_their_limits() {
    let dir = suite(
        "bounded",
        &[
            ("a.facts.json", FIVE_FACTS),
            ("a.expected.json", FIVE_EXPECTED),
        ],
    );
    let expected = dir.join("a.expected.json");
    // An expectation linked to /dev/zero: not JSON from its first byte.
    std::fs::remove_file(&expected).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &expected).unwrap();
    let (code, _, err) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!(
            "error: {}: not JSON: expected value at line 1 column 1\n",
            expected.display()
        )),
        "{err}"
    );
    // An expectation file over the limit: refused by its size, unread.
    std::fs::remove_file(&expected).unwrap();
    std::fs::write(&expected, FIVE_EXPECTED).unwrap();
    let mut a = with_package(&dir);
    a.extend(["--max-facts-bytes".into(), "20".into()]);
    let (code, _, err) = lawgen(&args(&a));
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error[E090]: {}: the file is {} bytes, more than the limit of 20 bytes\n  \
             = help: raise the limit with `--max-facts-bytes` (`ReadLimits::max_facts_bytes`)\n",
            expected.display(),
            FIVE_EXPECTED.len()
        )
    );
    // An expectation that is a FIFO fed 100 MB of blanks: stopped at the limit.
    std::fs::remove_file(&expected).unwrap();
    let writer = fifo_with_writer(&expected, 100 << 20);
    let mut a = with_package(&dir);
    a.extend(["--max-facts-bytes".into(), "1000".into()]);
    let (code, _, err) = lawgen(&args(&a));
    writer.join().unwrap();
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error[E090]: {}: the file is more than the limit of 1000 bytes\n  \
             = help: raise the limit with `--max-facts-bytes` (`ReadLimits::max_facts_bytes`)\n",
            expected.display()
        )
    );
    std::fs::remove_file(&expected).unwrap();
    std::fs::write(&expected, FIVE_EXPECTED).unwrap();
    // A facts file that is a FIFO fed 100 MB of blanks: the scenario fails
    // with the size error, and the others still run.
    let facts = dir.join("a.facts.json");
    std::fs::remove_file(&facts).unwrap();
    let writer = fifo_with_writer(&facts, 100 << 20);
    let mut a = with_package(&dir);
    a.extend(["--max-facts-bytes".into(), "1000".into()]);
    let (code, out, _) = lawgen(&args(&a));
    writer.join().unwrap();
    assert_eq!(code, 1);
    assert!(
        out.starts_with(
            "FAILED a (blocking)\n    error[E090]: the facts file is more than the limit of 1000 bytes\n"
        ),
        "{out}"
    );
    // A facts file linked to /dev/zero: not JSON from its first byte.
    std::fs::remove_file(&facts).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &facts).unwrap();
    let (code, out, _) = lawgen(&args(&with_package(&dir)));
    assert_eq!(code, 1);
    assert!(
        out.starts_with(
            "FAILED a (blocking)\n    error[E001]: the input is not valid JSON: expected value at line 1 column 1\n"
        ),
        "{out}"
    );
    // suite.json and the allow-list linked to /dev/zero: the package limit.
    std::fs::remove_file(&facts).unwrap();
    std::fs::write(&facts, FIVE_FACTS).unwrap();
    for file in ["suite.json", "coverage.allow"] {
        let path = dir.join(file);
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let mut a = with_package(&dir);
        a.extend(["--max-package-bytes".into(), "100000".into()]);
        let (code, _, err) = lawgen(&args(&a));
        assert_eq!(code, 1, "{file}");
        assert_eq!(
            err,
            format!(
                "error[E090]: {}: the file is more than the limit of 100000 bytes\n  \
                 = help: a suite file is held to the package size limit: raise it with `--max-package-bytes`\n",
                path.display()
            )
        );
        std::fs::remove_file(&path).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// XML 1.0 `Char` (https://www.w3.org/TR/xml/#charsets): what a
/// well-formed document may hold.
fn is_xml_char(c: char) -> bool {
    matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

#[test]
fn junit_stays_well_formed_with_noncharacters_in_names_and_entities() {
    // A scenario named with U+FFFE, expecting an entity named with U+FFFF.
    let wrong = "{\"definitely\": {\"game_drawn\": [[\"g\u{ffff}\"]]}}";
    let dir = suite(
        "junit-nonchar",
        &[
            ("five\u{fffe}.facts.json", FIVE_FACTS),
            ("five\u{fffe}.expected.json", wrong),
        ],
    );
    let mut a = with_package(&dir);
    a.extend(["--format".into(), "junit".into()]);
    let (code, out, _) = lawgen(&args(&a));
    assert_eq!(code, 1);
    if let Some(c) = out.chars().find(|&c| !is_xml_char(c)) {
        panic!("U+{:04X} is not an XML character:\n{out}", c as u32);
    }
    assert!(
        out.contains(
            "<testcase classname=\"example.national 1.0.0\" name=\"five\\u{fffe} (blocking)\">"
        ),
        "{out}"
    );
    assert!(
        out.contains("- definitely: game_drawn(g\\u{ffff})"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
