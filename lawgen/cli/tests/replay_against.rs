//! `lawgen replay --against`: a decision log made by the real service on
//! one version of a package, compared with the next version. The fixture
//! (`tests/fixtures/replay/`, its README) is a small club regulation in two
//! versions whose differences are known from their text; the changes this
//! test expects were written from that text before it was first run. The
//! text and JSON reports are pinned whole (`LAWGEN_BLESS=1` rewrites them),
//! and each refusal of a bad line, word for word.

use lawgen_test_support as support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const LAWGEN: &str = env!("CARGO_BIN_EXE_lawgen");
const DIR: &str = "tests/fixtures/replay";
const CASES: [&str; 6] = [
    "a_flag_falls",
    "b_flag_falls_mate_impossible",
    "c_agreed_draw",
    "d_nothing_concluded",
    "e_absent_at_start",
    "f_dated_2025",
];

fn v1() -> PathBuf {
    support::path(&format!("{DIR}/club.rules-1.0.0.law"))
}

fn v2() -> PathBuf {
    support::path(&format!("{DIR}/club.rules-2.0.0.law"))
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("replay-against-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A running `lawgen serve`, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Serves 1.0.0 with a decision log in `dir`, posts every case, and
/// returns the log's lines: one receipt per case, in their order.
fn decision_log(dir: &Path) -> Vec<String> {
    let cases: Vec<PathBuf> = CASES
        .iter()
        .map(|c| support::path(&format!("{DIR}/cases/{c}.facts.json")))
        .collect();
    let (lines, refused) = serve_and_post(dir, &v1(), &[], "club.rules", &cases);
    assert_eq!((lines.len(), refused), (CASES.len(), 0));
    lines
}

/// Serves `package` with a decision log `dir/decisions.jsonl`, posts each
/// facts file in turn, and returns the log's lines and how many posts the
/// service refused with `invalid_facts`.
fn serve_and_post(
    dir: &Path,
    package: &Path,
    import_path: &[PathBuf],
    name: &str,
    facts: &[PathBuf],
) -> (Vec<String>, usize) {
    let log = dir.join("decisions.jsonl");
    let mut cmd = Command::new(LAWGEN);
    cmd.arg("serve").arg("--package").arg(package);
    for d in import_path {
        cmd.arg("--import-path").arg(d);
    }
    let mut child = cmd
        // The interpreter: nothing to build, and receipts hold the
        // canonical output, the same on every engine.
        .args([
            "--engine",
            "interp",
            "--listen",
            "127.0.0.1:0",
            "--decision-log",
        ])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("lawgen serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let server = Server(child);
    let base = line
        .trim()
        .strip_prefix("lawgen serve: listening on ")
        .unwrap_or_else(|| panic!("unexpected first line of lawgen serve: {line:?}"))
        .to_owned();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut refused = 0;
    for f in facts {
        let mut r = agent
            .post(&format!("{base}/v1/packages/{name}/evaluate"))
            .header("Content-Type", "application/json")
            .send(&std::fs::read(f).unwrap()[..])
            .unwrap();
        match r.status().as_u16() {
            200 => {}
            422 => {
                let body = r.body_mut().read_to_string().unwrap();
                assert!(body.contains(r#""code":"invalid_facts""#), "{body}");
                refused += 1;
            }
            s => panic!("{}: {s}", f.display()),
        }
    }
    drop(server);
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    (lines, refused)
}

/// `lawgen replay decisions.jsonl --package 1.0.0 ARGS…` run in `dir` (so
/// the report names the log `decisions.jsonl`): exit code, stdout, stderr.
fn replay(dir: &Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = Command::new(LAWGEN)
        .current_dir(dir)
        .args(["replay", "decisions.jsonl", "--package"])
        .arg(v1())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn write_log(dir: &Path, lines: &[String]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("decisions.jsonl"), text).unwrap();
}

/// Compares `actual` with the committed file, or rewrites it when blessing.
fn pinned(relative: &str, actual: &str) {
    let path = support::path(relative);
    if support::bless() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (LAWGEN_BLESS=1 writes it)",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{relative} differs from the output (LAWGEN_BLESS=1 rewrites it):\n{actual}"
    );
}

/// The changes the fixture's text makes, found in the text and the JSON
/// report; every bad line refused with its reason; both reports pinned.
#[test]
fn replay_against_lists_the_changes_the_text_makes() {
    let dir = scratch("changes");
    let mut lines = decision_log(&dir);
    let a: Value = serde_json::from_str(&lines[0]).unwrap();
    let c: Value = serde_json::from_str(&lines[2]).unwrap();
    // Lines 7 to 10: not JSON, not a receipt, a receipt of another package,
    // a receipt whose facts were changed after it was made.
    lines.push("this is not a receipt".into());
    lines.push(r#"{"format": "other/1"}"#.into());
    let mut other = a.clone();
    other["package"]["name"] = "other.rules".into();
    lines.push(other.to_string());
    let mut changed = a.clone();
    changed["facts"] = c["facts"].clone();
    lines.push(changed.to_string());
    write_log(&dir, &lines);

    let (code, text, err) = replay(&dir, &["--against".as_ref(), v2().as_os_str()]);
    assert_eq!(code, Some(1), "{text}{err}");
    assert_eq!(
        err,
        "error: 5 receipt(s) of decisions.jsonl could not be compared with the candidate\n"
    );
    // Case a: the loss on time is now defeasible, and the game over.
    for expected in [
        "decisions.jsonl:1: club.rules 1.0.0 → club.rules 2.0.0: 2 verdict(s) change\n\
         \x20 editions in force: before none; now ClubRules: Club2026\n",
        "  lost(g1, p1): definitely → defeasibly\n",
        "    before: rule [club.rules 1.0.0] FlagLoses (strict; article/1, edition Club2025) concludes it definitely\n",
        "    now: rule [club.rules 2.0.0] FlagLoses (defeasible; article/1, edition Club2025; article/1, edition Club2026) concludes it defeasibly\n",
        "  game_over(g1): not concluded → defeasibly\n",
        "    before: club.rules 1.0.0 does not declare the predicate\n",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    // Case b: the exception, by its priority; the draw.
    for expected in [
        "decisions.jsonl:2: club.rules 1.0.0 → club.rules 2.0.0: 4 verdict(s) change\n",
        "  drawn(g1): not concluded → definitely\n",
        "    now: rule [club.rules 2.0.0] MateImpossibleDraws (strict; article/1, edition Club2026) concludes it definitely\n",
        "  lost(g1, p1): definitely → supported\n",
        "    now: the attacker rule [club.rules 2.0.0] MateImpossibleNoLoss (defeasible; article/1, edition Club2026) prevails, over FlagLoses by priority [club.rules 2.0.0] ExceptionOverFlag (lex_specialis)\n",
        "  ~lost(g1, p1): not concluded → defeasibly\n",
        "    now: priority [club.rules 2.0.0] ExceptionOverFlag (lex_specialis) puts [club.rules 2.0.0] MateImpossibleNoLoss above the attacker rule [club.rules 2.0.0] FlagLoses (defeasible; article/1, edition Club2025; article/1, edition Club2026)\n",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    // Case c: article 2 repealed; case d unchanged; case e refused; case
    // f decided by the 2025 edition.
    for expected in [
        "decisions.jsonl:3: club.rules 1.0.0 → club.rules 2.0.0: 1 verdict(s) change\n",
        "  drawn(g1): definitely → not concluded\n",
        "    before: rule [club.rules 1.0.0] AgreementDraws (strict; article/2, edition Club2025) concludes it definitely\n",
        "    now: rule [club.rules 2.0.0] AgreementDraws (strict; article/2, edition Club2025) is not in force on 2026-01-01 (edition Club2025 in force 2025-01-01 to 2025-12-31)\n",
        "decisions.jsonl:6: club.rules 1.0.0 → club.rules 2.0.0: 1 verdict(s) change\n\
         \x20 editions in force: before none; now ClubRules: Club2025\n\
         \x20 lost(g1, p1): definitely → defeasibly\n",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    assert!(!text.contains("decisions.jsonl:4:"), "{text}");
    // Each refusal, word for word.
    for expected in [
        "decisions.jsonl:5: not compared: the candidate club.rules 2.0.0 refuses the receipt's facts:\n\
         error[E081]: unknown predicate `absent_at_start`\n\
         \x20 --> node `absent_at_start` at /facts/absent_at_start\n\
         \x20 = help: use a predicate's local name (the part of its id after `#`) or its full id; `~` before it states the explicit negation\n\
         \n\
         error: 1 error found\n",
        "decisions.jsonl:7: not compared: the line is not JSON: expected ident at line 1 column 2\n",
        "decisions.jsonl:8: not compared: not a receipt of format `lawgen.receipt/0.1` (its `format` is \"other/1\")\n",
        "decisions.jsonl:9: not compared: the receipt's package `other.rules` is not among the packages given\n",
        "decisions.jsonl:10: not compared: the receipt's facts do not hash to its `factsSha256`\n",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    assert!(
        text.ends_with(
            "read 10 receipt(s): 4 with a verdict that changes (4 of a literal both versions declare), 1 unchanged, 5 not compared\n\
             | literal | verdicts changed | before → after (verdicts) |\n\
             |---|---|---|\n\
             | `drawn` | 2 | definitely → not concluded: 1; not concluded → definitely: 1 |\n\
             | `game_over` (new in the candidate) | 2 | not concluded → defeasibly: 1; not concluded → definitely: 1 |\n\
             | `lost` | 3 | definitely → defeasibly: 2; definitely → supported: 1 |\n\
             | `~lost` | 1 | not concluded → defeasibly: 1 |\n"
        ),
        "{text}"
    );
    pinned(&format!("{DIR}/impact.txt"), &text);
    // docs/service.md quotes part of this report: every line it quotes is in it.
    let page = String::from_utf8(support::read("docs/service.md")).unwrap();
    let example = page
        .split("### Replay against a candidate")
        .nth(1)
        .and_then(|p| p.split("```text\n").nth(1))
        .and_then(|p| p.split("```").next())
        .expect("docs/service.md's example of replay --against");
    let report: std::collections::HashSet<&str> = text.lines().collect();
    for l in example.lines().filter(|l| !l.trim_start().starts_with('…')) {
        assert!(
            report.contains(l),
            "docs/service.md quotes a line the report does not print: {l}"
        );
    }

    let (code, json, _) = replay(
        &dir,
        &[
            "--against".as_ref(),
            v2().as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
        ],
    );
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["format"], "lawgen.impact/0.1");
    assert_eq!(v["summary"]["casesRead"], 10);
    assert_eq!(v["summary"]["casesChanged"], 4);
    assert_eq!(v["summary"]["casesNotCompared"], 5);
    let b = &v["cases"][1];
    assert_eq!(b["line"], 2);
    let lost = b["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["literal"] == "~lost(g1, p1)")
        .unwrap();
    assert_eq!(lost["before"]["verdict"], "not_concluded");
    assert_eq!(lost["after"]["verdict"], "defeasibly");
    assert_eq!(lost["after"]["decidedBy"][1]["kind"], "beats");
    assert_eq!(
        lost["after"]["decidedBy"][1]["priority"]["name"],
        "ExceptionOverFlag"
    );
    // The explanation each side carries is `lawgen explain`'s.
    let explained = Command::new(LAWGEN)
        .args(["explain".as_ref(), v2().as_os_str(), "--facts".as_ref()])
        .arg(support::path(&format!(
            "{DIR}/cases/b_flag_falls_mate_impossible.facts.json"
        )))
        .args(["~lost(g1, p1)", "--format", "json"])
        .output()
        .unwrap();
    assert!(explained.status.success());
    assert_eq!(
        lost["after"]["explanation"],
        serde_json::from_slice::<Value>(&explained.stdout).unwrap()
    );
    assert_eq!(
        v["cases"][3],
        serde_json::json!({"line": 4, "package": "club.rules 1.0.0", "candidate": "club.rules 2.0.0",
            "editions": {"before": [], "after": ["ClubRules: Club2026"]}, "changes": []})
    );
    let repealed = &v["cases"][2]["changes"][0]["after"]["decidedBy"][0];
    assert_eq!(repealed["kind"], "not_in_force");
    assert_eq!(
        repealed["editions"],
        serde_json::json!([{"edition": "Club2025", "from": "2025-01-01", "to": "2025-12-31"}])
    );
    assert_eq!(
        v["cases"][6],
        serde_json::json!({"line": 7, "error": "the line is not JSON: expected ident at line 1 column 2"})
    );
    pinned(&format!("{DIR}/impact.json"), &json);

    // The good receipts alone: every one compared, exit 0.
    lines.remove(4);
    write_log(&dir, &lines[..5]);
    let (code, text, err) = replay(&dir, &["--against".as_ref(), v2().as_os_str()]);
    assert_eq!((code, err.as_str()), (Some(0), ""), "{text}");
    assert!(text.contains(
        "read 5 receipt(s): 4 with a verdict that changes (4 of a literal both versions declare), 1 unchanged, 0 not compared\n"
    ));
}

/// A candidate that does not check stops the replay before any line is
/// compared; a candidate of another name compares no line; `--format`
/// belongs to `--against`.
#[test]
fn bad_candidates_are_refused_with_the_reason() {
    let dir = scratch("candidates");
    let lines = decision_log(&dir);
    write_log(&dir, &lines[..1]);

    let broken = dir.join("broken.law");
    std::fs::write(
        &broken,
        std::fs::read_to_string(v2())
            .unwrap()
            .replace("rule OverWhenLost strict", "rule OverWhenLost sometimes"),
    )
    .unwrap();
    let (code, out, err) = replay(&dir, &["--against".as_ref(), broken.as_os_str()]);
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert_eq!(
        err,
        format!(
            "error[E006]: unknown rule strength `sometimes`\n\
             \x20 --> node `urn:example:club#OverWhenLost` at /nodes/14/strength (line 56, column 1)\n\
             \x20 = help: use `strict`, `defeasible` or `defeater`\n\
             \n\
             error: 1 error found\n\
             error: {} is not a valid rule package\n\
             error: a candidate package (`--against`) cannot be loaded; nothing was compared\n",
            broken.display()
        )
    );

    let chess = support::path(support::CHESS);
    let (code, out, err) = replay(&dir, &["--against".as_ref(), chess.as_os_str()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        "decisions.jsonl:1: not compared: no candidate package is named `club.rules` (the candidates are fide.laws.chess); give its new version with `--against FILE`\n\
         read 1 receipt(s): 0 with a verdict that changes (0 of a literal both versions declare), 0 unchanged, 1 not compared\n"
    );
    assert_eq!(
        err,
        "error: 1 receipt(s) of decisions.jsonl could not be compared with the candidate\n"
    );

    let (code, _, err) = replay(&dir, &["--format".as_ref(), "json".as_ref()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--against <FILE>"), "{err}");
}

/// The Russian package's README quotes a replay of the Russian scenarios
/// decided by 0.1.0 against 0.2.0 (`scripts/ru-replay-against.sh`): the
/// log made the same way, by the real service, its summary compared with
/// the README's block (`LAWGEN_BLESS=1` rewrites it), and every line of the
/// README's explained changes found in the report.
#[test]
fn the_russian_readme_quotes_the_replay_of_0_1_0_against_0_2_0() {
    const README: &str = "packages/ru.chess.competition/README.md";
    const BEGIN: &str = "<!-- replay summary: begin -->\n";
    const END: &str = "<!-- replay summary: end -->";
    let dir = scratch("ru");
    let mut facts: Vec<PathBuf> = std::fs::read_dir(support::path(support::RU_SCENARIOS))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    facts.sort();
    let old = support::path(support::RU_0_1_0);
    let imports = [support::path(support::CHESS_DIR)];
    let (lines, refused) = serve_and_post(&dir, &old, &imports, "ru.chess.competition", &facts);
    assert_eq!(
        (facts.len(), lines.len(), refused),
        (116, 48, 68),
        "scenarios, answered, refused: {README} states these numbers; update its replay section"
    );
    let (code, text, err) = {
        let out = Command::new(LAWGEN)
            .current_dir(&dir)
            .args(["replay", "decisions.jsonl", "--package"])
            .arg(&old)
            .arg("--import-path")
            .arg(&imports[0])
            .arg("--against")
            .arg(support::path(support::RU_0_2_0))
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    assert_eq!((code, err.as_str()), (Some(0), ""), "{text}");
    let summary = &text[text.find("read 48 receipt(s)").expect("the summary")..];
    let block = format!("```text\n{summary}```\n");
    let readme = String::from_utf8(support::read(README)).unwrap();
    let (Some(b), Some(e)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("{README} has no `{BEGIN}` … `{END}` block");
    };
    let quoted = &readme[b + BEGIN.len()..e];
    if support::bless() {
        let mut new = readme.clone();
        new.replace_range(b + BEGIN.len()..e, &block);
        std::fs::write(support::path(README), new).unwrap();
    } else {
        assert!(
            quoted == block,
            "the replay summary in {README} differs from the command's (LAWGEN_BLESS=1 rewrites it):\n{block}"
        );
    }
    let examples = readme
        .split("<!-- replay examples: begin -->")
        .nth(1)
        .and_then(|r| r.split("<!-- replay examples: end -->").next())
        .expect("the README's replay examples");
    let report: std::collections::HashSet<&str> = text.lines().collect();
    let mut quoted = 0;
    for l in examples
        .lines()
        .filter(|l| !l.starts_with("```") && !l.is_empty())
    {
        assert!(
            report.contains(l),
            "{README} quotes a line the report does not print: {l}"
        );
        quoted += 1;
    }
    assert!(quoted >= 10, "{quoted}");
}
