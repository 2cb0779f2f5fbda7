//! Deprecated inputs (docs/reference.md#deprecated-inputs): the warnings a
//! facts file of a deprecated input gets from `lawgen eval` and `lawgen
//! test`, pinned byte for byte beside the fixture (`tests/ui/deprecations/`,
//! written by its `gen.py`; `LAWGEN_BLESS=1` rewrites the `.stderr` files).
//! The errors of deprecations that do not check (E130–E133) and the refusal
//! under `--deny-deprecated` (E134) are cases of `tests/ui/imports/`
//! (`lawgen/cli/tests/imports.rs`).

use lawgen_test_support as support;
use std::process::Command;

const DIR: &str = "tests/ui/deprecations";

fn lawgen(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn pinned(name: &str, actual: &str) {
    let path = support::workspace().join(DIR).join(name);
    if support::bless() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with LAWGEN_BLESS=1)", path.display()));
    assert_eq!(actual, want, "{} differs", path.display());
}

#[test]
fn a_file_of_two_games_gets_a_warning_per_deprecated_input_and_is_still_evaluated() {
    let root = format!("{DIR}/root.json");
    let facts = format!("{DIR}/two_games.facts.json");
    let (code, stdout, stderr) = lawgen(&["eval", &root, "--facts", &facts]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("\"lost\""), "{stdout}");
    assert!(stderr.starts_with("warning[W012]"), "{stderr}");
    assert!(stderr.contains("warning[W013]"), "{stderr}");
    pinned("two_games.stderr", &stderr);
    // The refusal names the same predicates and what to state instead.
    let (code, stdout, refused) = lawgen(&["eval", &root, "--facts", &facts, "--deny-deprecated"]);
    assert_eq!(code, Some(1));
    assert!(stdout.is_empty(), "{stdout}");
    for p in ["`conceded`", "`resigned`", "`resigned_in`"] {
        assert!(refused.contains(p), "{p} not named:\n{refused}");
    }
}

#[test]
fn a_one_game_file_may_state_a_one_per_file_input() {
    let root = format!("{DIR}/root.json");
    let facts = format!("{DIR}/one_game.facts.json");
    for deny in [false, true] {
        let mut args = vec!["eval", root.as_str(), "--facts", facts.as_str()];
        if deny {
            args.push("--deny-deprecated");
        }
        let (code, _, stderr) = lawgen(&args);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(stderr, "", "no warning for one game");
    }
}

#[test]
fn lawgen_test_warns_per_scenario_and_fails_them_under_deny() {
    let dir = std::env::temp_dir().join(format!("lawgen-deprecated-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ws = support::workspace();
    std::fs::copy(
        ws.join(DIR).join("two_games.facts.json"),
        dir.join("two_games.facts.json"),
    )
    .unwrap();
    let (_, out, _) = lawgen(&[
        "eval",
        &format!("{DIR}/root.json"),
        "--facts",
        &format!("{DIR}/two_games.facts.json"),
    ]);
    let mut expected: serde_json::Value = serde_json::from_str(&out).unwrap();
    let o = expected.as_object_mut().unwrap();
    // What an expectation file holds: the sections and requests, not the
    // output's header (package, version, date, editions).
    for k in ["package", "version", "asOf", "editions"] {
        o.remove(k);
    }
    for s in ["definitely", "defeasibly", "supported", "pending"] {
        if let Some(sec) = o.get_mut(s).and_then(|v| v.as_object_mut()) {
            sec.retain(|k, _| k == "lost");
        }
    }
    std::fs::write(dir.join("two_games.expected.json"), expected.to_string()).unwrap();
    let root = ws.join(DIR).join("root.json");
    let (d, r) = (dir.to_string_lossy(), root.to_string_lossy());
    let (code, stdout, stderr) = lawgen(&["test", &d, "--package", &r]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stderr.starts_with("in scenario two_games:\nwarning[W012]"),
        "{stderr}"
    );
    let (code, stdout, _) = lawgen(&["test", &d, "--package", &r, "--deny-deprecated"]);
    assert_eq!(code, Some(1));
    assert!(stdout.contains("error[E134]"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
