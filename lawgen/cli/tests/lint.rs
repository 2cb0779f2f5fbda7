//! `lawgen lint`: each lint on a small package that triggers it, beside its
//! exact rendered warnings, and on one that must not (a correct package of
//! the same shape); and the findings on the chess package.
//!
//! `tests/lint/wNNN_*.law` must produce warnings of code `WNNN` only;
//! `tests/lint/ok_*.law` must produce none. The rendering is compared with
//! `tests/lint/<name>.stdout` (`LAWGEN_BLESS=1` rewrites it).

use lawgen_test_support as support;

use lawgen::diagnostics::{Code, CodeId, Diagnostics};
use lawgen::driver;
use lawgen::driver::ReadLimits;
use std::path::Path;

/// Lints `rel`; the packages the cases import are in `tests/lint/imports`.
fn lint(rel: &Path) -> Diagnostics {
    let bytes = std::fs::read(support::workspace().join(rel)).unwrap();
    let limits = ReadLimits::default();
    let file = driver::package_json(rel, bytes, &limits).unwrap_or_else(|e| panic!("{e}"));
    let imports = [support::workspace().join("tests/lint/imports")];
    let loaded =
        driver::load_package_json(&support::workspace().join(rel), &file, &limits, &imports)
            .unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
    file.locate(lawgen::lint::warnings(&loaded))
}

#[test]
fn each_lint_fires_on_its_case_and_not_on_the_correct_one() {
    let dir = support::workspace().join("tests/lint");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".law"))
        .collect();
    names.sort();
    let mut codes = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for name in &names {
        let rel = Path::new("tests/lint").join(name);
        let d = lint(&rel);
        let got = d.render();
        if let Some(rest) = name.strip_prefix("ok_") {
            assert!(d.is_empty(), "{name} must not warn:\n{got}");
            codes.insert(format!("ok {}", &rest[..4]));
            continue;
        }
        let code = name[..4].to_uppercase();
        assert!(!d.is_empty(), "{name} must warn");
        for w in d.iter() {
            assert!(w.code.is_warning());
            assert_eq!(w.code.as_str(), code, "{name}:\n{got}");
            assert!(w.location.line.is_some(), "{name}: no line");
        }
        codes.insert(code);
        let expected_path = dir.join(name.replace(".law", ".stdout"));
        if support::bless() {
            std::fs::write(&expected_path, &got).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if got != expected {
            failures.push(format!("{name}:\n--- expected\n{expected}--- got\n{got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every lint has both cases.
    for n in 1..=8 {
        assert!(codes.contains(&format!("W00{n}")), "no case for W00{n}");
        assert!(
            codes.contains(&format!("ok w00{n}")),
            "no correct case for W00{n}"
        );
    }
}

/// The findings the chess package must show: resignations, draw claims and
/// illegal-move counts keyed by the player alone, and the touched piece rule
/// that drops the game. Nothing else is reported but the castling rule,
/// whose castling-side and piece facts are keyed without the game as well.
#[test]
fn the_chess_package_reports_its_cross_case_leaks_and_the_dropped_game() {
    let d = lint(Path::new(
        "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json",
    ));
    let found: Vec<(CodeId, String)> = d
        .iter()
        .map(|w| {
            (
                w.code,
                w.location
                    .node
                    .clone()
                    .unwrap()
                    .trim_start_matches("urn:fide:laws:clir:chess#")
                    .to_owned(),
            )
        })
        .collect();
    let leak = |r: &str| (Code::CrossCaseLeak.id(), r.to_owned());
    assert_eq!(
        found,
        vec![
            leak("CastlingLegal"),
            leak("FiftyMoveClaimCorrect"),
            (
                Code::HeadDropsCase.id(),
                "MustMoveFirstTouchedPiece".to_owned()
            ),
            leak("ResignationDrawnIfMateImpossible"),
            leak("ResignationEndsTheGame"),
            leak("ResignationLoses"),
            leak("SecondIllegalMoveDrawnIfMateImpossible"),
            leak("SecondIllegalMoveEndsTheGame"),
            leak("SecondIllegalMoveLoses"),
            leak("ThreefoldClaimCorrect"),
        ]
    );
    let text = d.render();
    for (rule, pred) in [
        ("ResignationLoses", "player_resigned(v1)"),
        ("ResignationEndsTheGame", "player_resigned(v1)"),
        ("FiftyMoveClaimCorrect", "draw_claimed(v1)"),
        ("ThreefoldClaimCorrect", "draw_claimed(v1)"),
        (
            "SecondIllegalMoveLoses",
            "completed_illegal_move_count(v1, v2)",
        ),
        (
            "SecondIllegalMoveEndsTheGame",
            "completed_illegal_move_count(v1, v2)",
        ),
    ] {
        let w = d
            .iter()
            .find(|w| {
                w.location
                    .node
                    .as_deref()
                    .unwrap()
                    .ends_with(&format!("#{rule}"))
            })
            .unwrap();
        assert!(
            w.message.contains(&format!("`{pred}`")),
            "{rule}: {}",
            w.message
        );
    }
    assert!(text.ends_with("warning: 10 warnings found\n"), "{text}");
}

/// The lints read a checked package and never panic: all random packages.
#[test]
fn lint_runs_on_random_packages() {
    use support::gen;
    for i in 0..200 {
        let g = gen::generate(&gen::GenConfig::new(0x11a7 + i));
        if let Ok(loaded) = driver::load_bytes(&g.package, &ReadLimits::default()) {
            for w in lawgen::lint::warnings(&loaded).iter() {
                assert!(w.code.is_warning());
                assert!(!w.location.pointer.is_empty(), "{w}");
            }
        }
    }
}

/// W003 on comparisons, decided exactly: `check(body, fires)`.
#[test]
fn contradictory_comparisons_are_decided_exactly() {
    let check = |body: &str, fires: bool| {
        let src = format!(
            r#"schema "law.core.ir/0.2"
package "p" namespace "urn:p" version "1"
type Thing
constant A: Thing
constant B: Thing
relation empirical e(x: Thing, y: Thing, n: Integer, m: Integer)
relation institutional q(x: Thing)
rule R strict
  q(x) :- e(x, y, n, m), {body}
  vars [x: Thing, y: Thing, n: Integer, m: Integer]
"#
        );
        let json = lawgen::internals::syntax::text::to_json(src.as_bytes())
            .unwrap_or_else(|e| panic!("{}", e.render("t.law")));
        let loaded = driver::load_bytes(json.as_bytes(), &ReadLimits::default())
            .unwrap_or_else(|d| panic!("{body}: {}", d.render()));
        let w = lawgen::lint::warnings(&loaded);
        let got = w.iter().any(|d| d.code == Code::NeverFires);
        assert_eq!(got, fires, "{body}: {}", w.render());
    };
    check("n >= 5, n <= 5", false);
    check("n > 5, n < 6", true); // no integer strictly between
    check("n > 5, n < 7", false);
    check("n = 3, n = 4", true);
    check("n = 3, n != 4", false);
    check("n < m, m < n", true);
    check("n <= m, m <= n", false);
    check("n < m, m < 3, n > 1", true);
    check("n < m, m < 4, n > 1", false);
    check("n != n", true);
    check("n <= n", false);
    check("3 > 5", true);
    check("x = A, x = B", true);
    check("x = A, x != B", false);
    check("x = y, x != y", true);
    check("x = A, y = A, x != y", true);
    check("n >= -9223372036854775808, n <= 9223372036854775807", false);
}

/// docs/lints.md quotes the real outputs and the real example packages.
#[test]
fn the_lint_doc_quotes_real_warnings() {
    let doc = std::fs::read_to_string(support::workspace().join("docs/lints.md")).unwrap();
    let mut outputs = String::new();
    let mut sources = String::new();
    for e in std::fs::read_dir(support::workspace().join("tests/lint")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            continue;
        }
        let s = std::fs::read_to_string(&p).unwrap();
        match p.extension().and_then(|x| x.to_str()) {
            Some("stdout") => outputs.push_str(&s),
            Some("law") => sources.push_str(&s),
            _ => {}
        }
    }
    let blocks = |fence: &str| -> Vec<String> {
        doc.split(fence)
            .skip(1)
            .map(|b| b.split("```").next().unwrap().to_owned())
            .collect()
    };
    let warnings: Vec<String> = blocks("```text\n")
        .into_iter()
        .filter(|b| b.starts_with("warning["))
        .collect();
    assert!(warnings.len() >= 8);
    for w in &warnings {
        assert!(outputs.contains(w.as_str()), "not a real warning:\n{w}");
    }
    let examples = blocks("```law\n");
    assert!(examples.len() >= 8);
    for x in &examples {
        assert!(sources.contains(x.as_str()), "not a tested package:\n{x}");
    }
}

#[test]
fn lint_on_the_command_line_json_and_deny() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lawgen"))
            .current_dir(support::workspace())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let chess = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";
    let (code, out, _) = run(&["lint", chess]);
    assert_eq!(code, 0);
    assert!(
        out.contains("warning[W002]: `MustMoveFirstTouchedPiece`"),
        "{out}"
    );
    let (code, _, err) = run(&["lint", chess, "--deny", "warnings"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("10 warning(s) and warnings are denied"),
        "{err}"
    );
    let (code, out, _) = run(&["lint", chess, "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 10);
    assert_eq!(list[2]["code"], "W002");
    assert_eq!(list[2]["severity"], "warning");
    assert_eq!(list[2]["pointer"], "/nodes/63/body/items/3", "{}", list[2]);
    assert!(list[2]["line"].is_null());
    let (code, out, _) = run(&[
        "lint",
        "tests/lint/w005_priority_over_a_strict_rule.law",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["line"], 18);
    assert_eq!(v[0]["column"], 1);
    let (code, out, _) = run(&[
        "lint",
        "tests/lint/ok_w005_priority_over_a_defeasible_rule.law",
        "--deny",
        "warnings",
    ]);
    assert_eq!(code, 0);
    assert!(out.ends_with(": no warnings\n"), "{out}");
    // check stays errors-only.
    let (code, out, err) = run(&["check", "tests/lint/w005_priority_over_a_strict_rule.law"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("warning") && !err.contains("warning"),
        "{out}{err}"
    );
}
