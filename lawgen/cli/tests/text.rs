//! The text form (`.law`): exact round trips with package JSON, parse errors
//! with their exact rendering, and `.law` files wherever packages are read.
//!
//! * JSON → text → JSON gives the reference package back byte for byte, and
//!   every package JSON in the repository and random packages back as the
//!   same JSON value (hashes recomputed, which changes only files whose
//!   hashes were wrong on purpose); printing is idempotent.
//! * `tests/text/*.law` are broken text files beside the exact errors
//!   `lawgen check` prints (`LAWGEN_BLESS=1` rewrites the expectations).

use lawgen_test_support as support;

use lawgen::internals::syntax::canon;
use lawgen::internals::syntax::text;
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::gen::{generate, package_seed, GenConfig};

const CHESS: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";

/// JSON value → text → JSON value, with the text.
fn round_trip(v: &Value) -> (String, Value) {
    let t = text::print(v).unwrap_or_else(|e| panic!("cannot print: {e}"));
    let back = text::parse(&t)
        .unwrap_or_else(|e| {
            panic!(
                "the printed text does not parse:\n{}\n{t}",
                e.render("printed.law")
            )
        })
        .json;
    (t, back)
}

#[test]
fn the_reference_package_round_trips_byte_for_byte() {
    let bytes = std::fs::read(support::workspace().join(CHESS)).unwrap();
    let v = canon::parse(&bytes).unwrap();
    // The seed is itself in canonical form: re-serialising gives its bytes.
    assert_eq!(canon::serialize(&v).as_bytes(), bytes.as_slice());
    let (t, back) = round_trip(&v);
    assert_eq!(canon::serialize(&back).as_bytes(), bytes.as_slice());
    assert!(
        !t.contains("\nnode "),
        "every chess node has a statement:\n{t}"
    );
    // Through the bytes-level entry point too.
    assert_eq!(
        text::to_json(t.as_bytes()).unwrap().as_bytes(),
        bytes.as_slice()
    );
}

/// Every JSON file under `dir` (skipping build output).
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if !matches!(name.as_str(), "target" | ".git" | "corpus" | "artifacts") {
                json_files(&p, out);
            }
        } else if name.ends_with(".json") {
            out.push(p);
        }
    }
}

#[test]
fn every_package_in_the_repository_round_trips() {
    let mut files = Vec::new();
    for d in ["packages", "tests", "lawgen/tests", "examples", "benches"] {
        json_files(&support::workspace().join(d), &mut files);
    }
    let mut packages = 0;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(mut v) = canon::parse(&bytes) else {
            continue; // not JSON at all (a ui test of the JSON reader)
        };
        if v.get("nodes").and_then(Value::as_array).is_none() {
            continue; // facts, outputs, expectations: not packages
        }
        packages += 1;
        let (t, back) = round_trip(&v);
        canon::rehash(&mut v);
        // A node without a hash stays without one in the text form.
        let mut back_hashed = back.clone();
        canon::rehash(&mut back_hashed);
        assert_eq!(back_hashed, v, "{} does not round-trip:\n{t}", f.display());
        let (t2, _) = round_trip(&back);
        assert_eq!(t, t2, "printing {} is not idempotent", f.display());
    }
    assert!(packages >= 40, "only {packages} packages found");
}

fn random_round_trips(cfg: &GenConfig, n: u64) -> usize {
    let mut raw = 0;
    for i in 0..n {
        let mut c = cfg.clone();
        c.seed = package_seed(cfg.seed, i);
        let g = generate(&c);
        let v: Value = serde_json::from_slice(&g.package).unwrap();
        let (t, back) = round_trip(&v);
        assert_eq!(back, v, "seed {:#x} does not round-trip:\n{t}", c.seed);
        assert_eq!(
            canon::serialize(&back),
            canon::serialize(&v),
            "seed {:#x}",
            c.seed
        );
        raw += t.matches("\nnode ").count();
    }
    raw
}

#[test]
fn random_packages_round_trip_as_the_same_json_value() {
    let raw = random_round_trips(&GenConfig::new(0x7e47), 300);
    // Generated nodes all have statements: none falls back to a raw node.
    assert_eq!(raw, 0, "{raw} raw nodes");
}

#[test]
fn hostile_packages_round_trip_as_the_same_json_value() {
    let mut cfg = GenConfig::new(0x4057);
    cfg.hostile = true;
    let raw = random_round_trips(&cfg, 150);
    assert_eq!(raw, 0, "{raw} raw nodes");
}

/// What `lawgen check tests/text/<name>.law` prints on stderr, run from the
/// workspace root.
fn check_rendered(rel: &Path) -> Option<String> {
    let bytes = std::fs::read(support::workspace().join(rel)).unwrap();
    let limits = lawgen::driver::ReadLimits::default();
    let err = match lawgen::driver::package_json(rel, bytes, &limits) {
        Err(e) => e,
        Ok(file) => match lawgen::driver::load_bytes(&file.json, &limits) {
            Ok(_) => return None,
            Err(d) => lawgen::driver::LoadError::Invalid {
                path: rel.to_owned(),
                diagnostics: file.locate(d),
            },
        },
    };
    Some(format!("{err}\n"))
}

#[test]
fn broken_text_files_are_refused_with_their_exact_errors() {
    let dir = support::workspace().join("tests/text");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".law"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    let mut failures = Vec::new();
    for name in names {
        let rel = Path::new("tests/text").join(&name);
        let code = name.split('_').next().unwrap().to_uppercase();
        let Some(got) = check_rendered(&rel) else {
            failures.push(format!("{name}: accepted"));
            continue;
        };
        assert!(
            got.starts_with(&format!("error[{code}]")),
            "{name}: the first error is not {code}:\n{got}"
        );
        let expected_path = dir.join(name.replace(".law", ".stderr"));
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
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lawgen-text-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The chess package in the text form, as `lawgen convert` writes it.
fn chess_law(dir: &Path) -> PathBuf {
    let json = support::workspace().join(CHESS);
    let law = dir.join("fide.laws.chess-0.1.0.law");
    let r = lawgen::format::convert(&json, &std::fs::read(&json).unwrap(), &law).unwrap();
    assert!(r.changes.is_empty(), "the seed's hashes are right");
    std::fs::write(&law, r.output).unwrap();
    law
}

/// What `build.rs` of `examples/chess-arbiter` generates, from either form:
/// the Builder reads the `.law` file and writes the same module, byte for
/// byte (the module embeds the package JSON, which is the seed's bytes).
#[test]
fn the_builder_generates_the_same_module_from_the_text_form() {
    let dir = temp_dir("builder");
    let law = chess_law(&dir);
    let build = |package: &Path, out: &str| {
        let out = dir.join(out);
        let files = lawgen::Builder::new()
            .package(package)
            .out_dir(&out)
            .emit_rerun_if_changed(false)
            .compile()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files.len(), 1);
        std::fs::read_to_string(&files[0]).unwrap()
    };
    let from_json = build(&support::workspace().join(CHESS), "json");
    let from_text = build(&law, "text");
    assert!(from_json.contains("pub fn game_drawn"));
    assert!(from_json == from_text, "the modules differ");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every command loads a `.law` file as it loads the JSON: same model.
#[test]
fn a_text_form_package_loads_like_its_json() {
    let dir = temp_dir("load");
    let law = chess_law(&dir);
    let limits = lawgen::driver::ReadLimits::default();
    let a = lawgen::driver::load_file(&support::workspace().join(CHESS), &limits).unwrap();
    let b = lawgen::driver::load_file(&law, &limits).unwrap();
    assert_eq!(a.source, b.source);
    assert_eq!(
        lawgen::summary::render(&a, "en"),
        lawgen::summary::render(&b, "en")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_text_form_expresses_imports() {
    let src = r#"schema "law.core.ir/0.2"
package "fide.laws.chess.blitz" namespace "urn:fide:laws:clir:blitz" version "0.1.0"
import "fide.laws.chess" version "0.1.0" namespace "urn:fide:laws:clir:chess" semantic_hash "sha256:4c92"
import "other" version "1.0.0"
  with optional = true
"#;
    let p = text::parse(src).unwrap_or_else(|e| panic!("{}", e.render("x.law")));
    assert_eq!(
        p.json["imports"],
        serde_json::json!([
            {"name": "fide.laws.chess", "version": "0.1.0", "namespace": "urn:fide:laws:clir:chess", "semanticHash": "sha256:4c92"},
            {"name": "other", "version": "1.0.0", "optional": true}
        ])
    );
    let (t, back) = round_trip(&p.json);
    assert_eq!(back, p.json);
    assert!(t.contains("\nimport \"fide.laws.chess\""), "{t}");
}

/// Unknown fields are carried, at the top, in nodes, and in whole unknown nodes.
#[test]
fn the_text_form_expresses_derogations() {
    let src = r#"schema "law.core.ir/0.2"
package "club" version "1.0.0" namespace "urn:club"
import "base" version "1.0.0" namespace "urn:base" semantic_hash "sha256:00"
default package "urn:club"
fragment Rule7
  locator "rule/7"
  text "Rule 7. No game is drawn by the number of moves alone."
derogation NoMoveCountDraw: ["urn:base#SeventyFiveMoves", "urn:base#FiftyMoves"]
  anchors [Rule7]
  label "Rule 7 replaces the move-count draws"
"#;
    let parsed = text::parse(src).unwrap_or_else(|e| panic!("{}", e.render("club.law")));
    let nodes = parsed.json["nodes"].as_array().unwrap();
    let d = nodes.iter().find(|n| n["kind"] == "derogation").unwrap();
    assert_eq!(
        d["rules"],
        serde_json::json!([{"kind": "rule_ref", "id": "urn:base#SeventyFiveMoves"},
                           {"kind": "rule_ref", "id": "urn:base#FiftyMoves"}])
    );
    assert_eq!(d["anchors"], serde_json::json!(["urn:club#Rule7"]));
    let (printed, again) = round_trip(&parsed.json);
    assert!(
        printed.contains("derogation NoMoveCountDraw: ["),
        "{printed}"
    );
    assert_eq!(again, parsed.json);
}

#[test]
fn extension_fields_and_unknown_nodes_are_carried() {
    let v = serde_json::json!({
        "schemaVersion": "law.core.ir/0.2",
        "package": {"name": "x", "namespace": "urn:x", "version": "1", "vendor": {"a": [1, 2.5]}},
        "x-extension": {"k": null},
        "nodes": [
            {"id": "urn:x#T", "kind": "type_decl", "name": "T", "typeKind": "entity", "x-note": "kept"},
            {"id": "urn:x#W", "kind": "widget", "parts": [1, "two"]},
            ["not", "an", "object"],
            7,
            {"id": "urn:x#r", "kind": "rule", "strength": "strict",
             "head": {"kind": "literal", "predicate": "urn:x#p", "polarity": "positive", "args": []},
             "body": {"kind": "status", "status": "established", "formula":
                {"kind": "literal", "predicate": "urn:x#q", "polarity": "positive", "args": [], "x-extra": 1}}}
        ]
    });
    let (t, back) = round_trip(&v);
    let mut expected = v.clone();
    canon::rehash(&mut expected);
    let mut got = back.clone();
    canon::rehash(&mut got);
    assert_eq!(got, expected, "{t}");
    assert!(t.contains("with \"x-note\" = \"kept\""), "{t}");
    assert!(t.contains("node {\"id\":\"urn:x#W\""), "{t}");
    assert!(t.contains("set \"x-extension\""), "{t}");
}

/// The reader never panics, and whatever it accepts prints back as text
/// that reads as the same package: 2,000 mutants of the chess text form
/// (bytes flipped, deleted, duplicated, keywords and punctuation inserted,
/// truncations). The fuzz target `text` does the same without bounds.
#[test]
fn mutated_text_never_panics_and_what_parses_round_trips() {
    let dir = temp_dir("mutants");
    let law = std::fs::read_to_string(chess_law(&dir)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    // A slice of it (a whole number of statements) keeps a debug run short.
    let mut end = 20_000;
    while !law.is_char_boundary(end) {
        end -= 1;
    }
    let cut = law[..end].rfind("\nrule ").unwrap();
    let law = &law.as_bytes()[..cut];
    let inserts: &[&[u8]] = &[
        b"(",
        b")",
        b"[",
        b"]",
        b",",
        b":-",
        b"~",
        b"?",
        b"\"",
        b"\"\"\"\n",
        b"{",
        b"}",
        b"//",
        b"rule ",
        b"node ",
        b"with x = ",
        b"not ",
        b"supported ",
        b"value(",
        b"\n",
        b"\xff",
        b"-9",
        b"99999999999999999999",
        b"\"\\u",
        b"package ",
        b"default label ",
        b"text ",
        b"unhashed ",
    ];
    let mut rng = support::gen::Rng::new(0x1a3);
    let (mut parsed, mut refused) = (0, 0);
    for _ in 0..2000 {
        let mut m = law.to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(m.len() + 1);
            match rng.below(5) {
                0 if at < m.len() => m[at] = (rng.next() & 0xff) as u8,
                1 if at < m.len() => {
                    let n = (1 + rng.below(40)).min(m.len() - at);
                    m.drain(at..at + n);
                }
                2 => {
                    let ins = *rng.pick(inserts);
                    m.splice(at..at, ins.iter().copied());
                }
                3 => m.truncate(at),
                _ => {
                    let n = (1 + rng.below(80)).min(m.len() - at.min(m.len()));
                    let copy = m[at.min(m.len())..at.min(m.len()) + n].to_vec();
                    m.splice(at..at, copy);
                }
            }
        }
        let src = match std::str::from_utf8(&m) {
            Ok(s) => s,
            Err(_) => {
                assert!(text::to_json(&m).is_err());
                refused += 1;
                continue;
            }
        };
        match text::parse(src) {
            Ok(p) => {
                parsed += 1;
                let printed = text::print(&p.json).unwrap();
                let again = text::parse(&printed)
                    .unwrap_or_else(|e| panic!("{}\n{printed}", e.render("printed.law")));
                assert_eq!(again.json, p.json);
            }
            Err(e) => {
                refused += 1;
                let r = e.render("m.law");
                assert!(r.contains("error[E110]"), "{r}");
            }
        }
    }
    assert!(
        parsed > 100 && refused > 100,
        "{parsed} parsed, {refused} refused"
    );
}

/// `tests/text/valid/*.law` check, are in canonical layout, and round-trip.
#[test]
fn valid_text_files_check_and_are_canonical() {
    let dir = support::workspace().join("tests/text/valid");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "law") {
            continue;
        }
        n += 1;
        let loaded =
            lawgen::driver::load_file(&p, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
        let src = std::fs::read(&p).unwrap();
        let f = lawgen::format::canonical(&p, &src).unwrap();
        assert_eq!(
            f.output.as_bytes(),
            src.as_slice(),
            "{} is not canonical",
            p.display()
        );
        let (_, back) = round_trip(
            &text::parse(std::str::from_utf8(&src).unwrap())
                .unwrap()
                .json,
        );
        assert_eq!(canon::serialize(&back), loaded.source);
    }
    assert!(n >= 1);
}

/// docs/text-form.md: the worked example is `tests/text/valid/blitz.law`,
/// every `law` block parses, and the quoted errors are the real ones.
#[test]
fn the_reference_doc_shows_real_text_and_real_errors() {
    let doc = std::fs::read_to_string(support::workspace().join("docs/text-form.md")).unwrap();
    let blocks: Vec<&str> = doc
        .split("```law\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert!(blocks.len() >= 2);
    let example =
        std::fs::read_to_string(support::workspace().join("tests/text/valid/blitz.law")).unwrap();
    assert_eq!(blocks[0], example);
    for b in &blocks {
        text::parse(b).unwrap_or_else(|e| panic!("{}", e.render("doc.law")));
    }
    let quoted: Vec<&str> = doc
        .split("```text\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .filter(|b| b.starts_with("error["))
        .collect();
    assert_eq!(quoted.len(), 2);
    let outputs: String = std::fs::read_dir(support::workspace().join("tests/text"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "stderr"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for q in quoted {
        assert!(outputs.contains(q), "not a real error:\n{q}");
    }
}

/// JSON numbers other than integers survive the trip (values of `value`
/// terms and extension fields are JSON, read back by the JSON parser).
#[test]
fn numbers_round_trip_exactly() {
    let nums = "[0.1, 1e-7, 1.7976931348623157e308, 5e-324, 123456.789, -0.0, 2.5e-300, 9007199254740993, 18446744073709551615, -9223372036854775808]";
    let v: Value = serde_json::from_str(&format!(
        r#"{{"package": {{"name": "n", "namespace": "urn:n", "version": "1"}}, "x-numbers": {nums}, "nodes": [
            {{"id": "urn:n#r", "kind": "rule", "strength": "strict", "x": {nums},
              "head": {{"kind": "literal", "predicate": "urn:n#p", "polarity": "positive", "args": []}},
              "body": {{"kind": "comparison", "op": "eq",
                 "left": {{"kind": "value", "type": {{"name": "urn:law:std#Integer"}}, "value": 1.5}},
                 "right": {{"kind": "value", "type": {{"name": "urn:law:std#Integer"}}, "value": 18446744073709551615}}}}}}]}}"#
    ))
    .unwrap();
    let (t, back) = round_trip(&v);
    let mut expected = v.clone();
    canon::rehash(&mut expected);
    let mut got = back;
    canon::rehash(&mut got);
    assert_eq!(got, expected, "{t}");
    assert_eq!(canon::serialize(&got), canon::serialize(&expected));
}
