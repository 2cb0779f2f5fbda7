//! Package text shown to people and written into Python (docs/security.md,
//! "Names and text a reviewer can trust").
//!
//! - Every rendering for a terminal or a human-readable text — `check`,
//!   `lint`, `lower`, `explain` (en, ru), `verdicts`, `analyze`, `bench`,
//!   `doc` — shows a package's control characters (ESC, OSC and CSI
//!   sequences, C1 controls, newlines) and format characters (bidi controls,
//!   zero-width characters) visibly, on the valid ui package
//!   `tests/ui/valid/scripts_and_hidden_characters.json`, whose labels,
//!   locator, article text, name and version hold them all; and the
//!   lowered program and every explanation (both languages) of random
//!   hostile packages (`GenConfig::hostile`) do too.
//! - The `.pyi` stub `build --python` writes for those packages is Python
//!   (`ast.parse`), holds no call and no statement but docstrings at its top
//!   level, and its docstrings read back as exactly the text lawgen meant
//!   (a version `1"""; import os; …` or a `\N` stays a string).
//!
//! `LAWGEN_HOSTILE_TEXT_PACKAGES` (default 40) and `LAWGEN_HOSTILE_TEXT_SEED`
//! choose the random packages. Needs `python3` on the PATH.

use lawgen_test_support as support;

use lawgen::driver::{self, Loaded};
use lawgen::generate as emit;
use lawgen::EmitOptions;
use lawgen_runtime::explain;
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::program::Section;
use lawgen_runtime::text::{escape_for_display, is_hidden};
use lawgen_runtime::Policy;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::gen::{generate, package_seed, GenConfig};
use support::harness::env_num;

const PACKAGE: &str = "tests/ui/valid/scripts_and_hidden_characters.json";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tempdir(name: &str) -> PathBuf {
    let d = workspace().join("target/hostile-text").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The first character of `text` a terminal would act on or hide: a
/// control character but the line break, or a format character.
fn first_hidden(text: &str) -> Option<(usize, char)> {
    text.char_indices()
        .find(|&(_, c)| is_hidden(c) && c != '\n')
}

fn assert_shown(what: &str, text: &str) {
    if let Some((i, c)) = first_hidden(text) {
        let from = text[..i].char_indices().rev().nth(60).map_or(0, |(j, _)| j);
        panic!(
            "{what}: U+{:04X} comes out raw, after: {}",
            c as u32,
            escape_for_display(&text[from..i])
        );
    }
}

/// Runs `lawgen ARGS` from the workspace root; stdout and stderr together.
fn lawgen(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .args(args)
        .current_dir(workspace())
        .output()
        .unwrap();
    let mut s = String::from_utf8(out.stdout).expect("lawgen writes UTF-8");
    s.push_str(&String::from_utf8(out.stderr).expect("lawgen writes UTF-8"));
    (out.status.success(), s)
}

#[test]
fn every_rendering_shows_hidden_characters_visibly() {
    let dir = tempdir("cli");
    let facts = dir.join("case.facts.json");
    std::fs::write(
        &facts,
        r#"{"facts": {"resigned": [["White"]], "player_of": [["g1", "White"]], "move_count": [["g1", 80]], "touched": [["Black"]]}}"#,
    )
    .unwrap();
    let facts = facts.to_str().unwrap();
    let doc = dir.join("review.html");
    let runs: Vec<Vec<&str>> = vec![
        vec!["check", PACKAGE],
        vec!["lint", PACKAGE],
        vec!["lower", PACKAGE],
        vec!["explain", PACKAGE, "--facts", facts, "ничья(g1)"],
        vec![
            "explain",
            PACKAGE,
            "--facts",
            facts,
            "ничья(g1)",
            "--lang",
            "ru",
        ],
        vec![
            "explain",
            PACKAGE,
            "--facts",
            facts,
            "ηττα(g1, White)",
            "--lang",
            "ru",
        ],
        vec!["verdicts", PACKAGE, "--facts", facts],
        vec!["verdicts", PACKAGE, "--facts", facts, "--lang", "ru"],
        vec!["analyze", PACKAGE, "--goal", "ничья(g)"],
        vec![
            "analyze",
            PACKAGE,
            "--reachable",
            "TouchMove",
            "--lang",
            "ru",
        ],
        vec![
            "bench",
            PACKAGE,
            "--backend",
            "interp",
            "--cases",
            "10",
            "--repeat",
            "1",
        ],
        vec!["doc", PACKAGE, "--format", "text"],
        vec!["doc", PACKAGE, "--format", "markdown", "--lang", "ru"],
    ];
    for args in &runs {
        let (ok, out) = lawgen(args);
        let what = format!("lawgen {}", args.join(" "));
        assert!(ok, "{what} failed:\n{}", escape_for_display(&out));
        assert_shown(&what, &out);
        // What was hidden is there to see: the bidi override of the
        // package's version or of its labels (`lint`'s warnings quote
        // neither; Markdown escapes the angle brackets).
        assert!(
            args[0] == "lint" || out.contains("U+202E"),
            "{what} shows neither the package's version nor a label:\n{out}"
        );
    }
    // An error quoting what it was given (every error goes through the
    // escaping, whatever it quotes).
    let (ok, out) = lawgen(&[
        "explain",
        PACKAGE,
        "--facts",
        facts,
        "ничья\u{1b}]0;x\u{7}(g1)",
    ]);
    assert!(!ok);
    assert_shown("lawgen explain of an unknown literal", &out);
    assert!(
        out.contains(r"\u{1b}]0;x\u{7}"),
        "{}",
        escape_for_display(&out)
    );
    let (ok, out) = lawgen(&[
        "doc",
        PACKAGE,
        "--format",
        "html",
        "--out",
        doc.to_str().unwrap(),
    ]);
    assert!(ok, "{}", escape_for_display(&out));
    let html = std::fs::read_to_string(&doc).unwrap();
    assert_shown("lawgen doc --format html", &html);
    assert!(html.contains("&lt;U+202E&gt;eud_enif&lt;U+202C&gt;"));
}

/// Random hostile packages: the checker's accepted ones, with their facts.
fn hostile_packages() -> Vec<(String, Loaded, Vec<Vec<u8>>)> {
    let wanted = env_num("LAWGEN_HOSTILE_TEXT_PACKAGES").map_or(40, |n| n as usize);
    let base = env_num("LAWGEN_HOSTILE_TEXT_SEED").unwrap_or(0x7e47);
    let mut out = Vec::new();
    let mut tried = 0u64;
    while out.len() < wanted {
        assert!(
            tried < 3 * wanted as u64 + 20,
            "the checker refused most hostile packages"
        );
        let seed = package_seed(base, tried);
        tried += 1;
        let mut cfg = GenConfig::new(seed);
        cfg.hostile = true;
        let g = generate(&cfg);
        if let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) {
            out.push((format!("seed {seed:#x}"), loaded, g.facts));
        }
    }
    out
}

#[test]
fn lowered_programs_and_explanations_of_hostile_packages_show_hidden_characters() {
    let (mut explained, mut hidden_in_labels) = (0usize, 0usize);
    for (what, loaded, facts) in hostile_packages() {
        let program = lawgen::internals::lower::lower(loaded.model()).unwrap();
        assert_shown(&format!("{what}: lower"), &program.to_string());
        let m = loaded.model();
        hidden_in_labels += m
            .rules
            .iter()
            .filter_map(|r| r.label.as_deref())
            .filter(|l| first_hidden(l).is_some())
            .count();
        for f in &facts {
            let facts = read_facts(f, &loaded.catalog).expect("the generator writes valid facts");
            let ev = driver::evaluate(&loaded, &facts, Policy::Blocking).unwrap();
            let c = &ev.conclusions;
            for sec in [Section::Defeasibly, Section::Pending, Section::Supported] {
                for (lit, rows) in &c.sections[&sec] {
                    let Some(l) = loaded.catalog.lit_of(lit) else {
                        continue;
                    };
                    for row in rows {
                        let q = explain::Query {
                            lit: l,
                            args: row.clone(),
                        };
                        for lang in ["en", "ru"] {
                            let e = explain::explain(&ev.program, &ev.store, c.policy, &q, lang);
                            assert_shown(&format!("{what}: explain {lit} ({lang})"), &e.text());
                            explained += 1;
                        }
                    }
                }
            }
        }
    }
    // Not vacuous: labels with hidden characters, and explanations.
    assert!(
        hidden_in_labels > 0,
        "no rule label held a hidden character"
    );
    assert!(explained > 50, "only {explained} explanations");
}

/// Python that checks each stub named on the command line and prints, per
/// stub, a JSON list: the module docstring, then the docstrings of
/// `PACKAGE` and `VERSION`.
const CHECK_STUBS: &str = r#"
import ast, json, sys
out = []
for path in sys.argv[1:]:
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert not calls, f"{path}: a call at line {calls[0].lineno}"
    for s in tree.body:
        if isinstance(s, ast.Expr):
            assert isinstance(s.value, ast.Constant) and isinstance(s.value.value, str), \
                f"{path}: a statement at line {s.lineno} is not a docstring"
        else:
            assert isinstance(s, (ast.ImportFrom, ast.Import, ast.AnnAssign, ast.Assign,
                                  ast.ClassDef, ast.FunctionDef)), \
                f"{path}: unexpected {type(s).__name__} at line {s.lineno}"
    docs = {}
    for a, b in zip(tree.body, tree.body[1:]):
        if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr):
            docs[a.target.id] = b.value.value
    out.append([ast.get_docstring(tree, clean=False), docs["PACKAGE"], docs["VERSION"]])
print(json.dumps(out))
"#;

#[test]
fn python_stubs_of_hostile_packages_are_python_and_say_what_lawgen_meant() {
    let dir = tempdir("stubs");
    let mut packages = hostile_packages();
    let bytes = std::fs::read(workspace().join(PACKAGE)).unwrap();
    let ui = driver::load_bytes(&bytes, &Default::default())
        .unwrap_or_else(|e| panic!("{PACKAGE}: {}", e.render()));
    packages.push((PACKAGE.to_owned(), ui, Vec::new()));
    let mut files = Vec::new();
    let mut expected = Vec::new();
    for (i, (what, loaded, _)) in packages.iter().enumerate() {
        let module = format!("p{i}");
        let emitted = emit(loaded, &EmitOptions::default().module_name(&module))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let stub = lawgen_cli::build::python::stub(loaded, &emitted);
        let path = dir.join(format!("{module}.pyi"));
        std::fs::write(&path, &stub).unwrap();
        files.push(path);
        expected.push(serde_json::json!([
            lawgen::python::module_doc(loaded, &module),
            format!(
                "The package's name ({}).",
                escape_for_display(loaded.name())
            ),
            format!(
                "The package's version ({}).",
                escape_for_display(loaded.version())
            ),
        ]));
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(CHECK_STUBS)
        .args(&files)
        .output()
        .expect("python3 runs (this test checks generated Python with it)");
    assert!(
        out.status.success(),
        "a stub is not the Python lawgen meant:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = got.as_array().unwrap();
    assert_eq!(got.len(), expected.len());
    for ((g, e), (what, _, _)) in got.iter().zip(&expected).zip(&packages) {
        assert_eq!(
            g, e,
            "{what}: the stub's docstrings differ from what lawgen wrote"
        );
    }
    // Not vacuous: the ui package's version is a Python injection.
    assert!(expected.last().unwrap()[2]
        .as_str()
        .unwrap()
        .contains("\"\"\"; import os;"));
}
