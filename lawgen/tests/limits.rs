//! Resource limits and facts robustness: every limit refuses with
//! its own clear error instead of exhausting memory or the stack, and the
//! facts reader is insensitive to row order and repetition.

use lawgen::driver::load_bytes;
use lawgen::driver::ReadLimits;
use lawgen_runtime::formats::facts::{read_facts, read_facts_from};
use lawgen_test_support as support;

const MINIMAL: &str = "../tests/ui/valid/minimal.json";

fn first_error(bytes: &[u8], limits: &ReadLimits) -> String {
    let d = load_bytes(bytes, limits).expect_err("refused");
    d.render().lines().next().unwrap_or_default().to_owned()
}

#[test]
fn package_size_limit() {
    let bytes = support::read(support::CHESS);
    let limits = ReadLimits::default().max_bytes(1000);
    let e = first_error(&bytes, &limits);
    assert!(e.starts_with("error[E090]"), "{e}");
    assert!(e.contains("more than the limit of 1000 bytes"), "{e}");
}

#[test]
fn node_count_limit() {
    let bytes = support::read(support::CHESS);
    let limits = ReadLimits::default().max_nodes(10);
    let e = first_error(&bytes, &limits);
    assert!(
        e.starts_with("error[E090]") && e.contains("more than the limit of 10"),
        "{e}"
    );
}

#[test]
fn depth_limit_is_checked_before_parsing_and_is_configurable() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let e = first_error(deep.as_bytes(), &ReadLimits::default());
    assert!(
        e.starts_with("error[E002]") && e.contains("more than 64 levels"),
        "{e}"
    );
    // The chess package nests about a dozen levels: a tight limit refuses it.
    let bytes = support::read(support::CHESS);
    let limits = ReadLimits::default().max_depth(5);
    let e = first_error(&bytes, &limits);
    assert!(e.contains("more than 5 levels"), "{e}");
    assert!(load_bytes(&bytes, &ReadLimits::default()).is_ok());
}

#[test]
fn string_length_limit() {
    let bytes = support::read(support::CHESS);
    let limits = ReadLimits::default().max_string_bytes(100);
    let e = first_error(&bytes, &limits);
    assert!(
        e.starts_with("error[E090]") && e.contains("longer than the limit of 100 bytes"),
        "{e}"
    );
    // Escaped quotes do not end a string early.
    let tricky = br#"{"a": "x\"y\\", "b": "ok"}"#;
    let limits = ReadLimits::default().max_string_bytes(6);
    let e = first_error(tricky, &limits);
    assert!(!e.contains("E090"), "{e}");
}

#[test]
fn arity_limit() {
    let bytes = support::read(support::CHESS);
    let limits = ReadLimits::default().max_arity(2);
    let d = load_bytes(&bytes, &limits).expect_err("refused").render();
    assert!(
        d.contains("error[E090]") && d.contains("parameters, more than the limit of 2"),
        "{d}"
    );
}

#[test]
fn streamed_and_in_memory_facts_agree_and_row_order_does_not_matter() {
    let loaded = load_bytes(&support::read(support::CHESS), &Default::default()).unwrap();
    let a = br#"{"facts": {"player_of": [["g1","white"],["g1","black"],["g1","white"]],
        "moves_by_each_without_pawn_or_capture": [["g1", 80]]}, "entities": {"Game": ["g2"]}}"#;
    let b = br#"{"entities": {"Game": ["g2"]}, "facts": {"moves_by_each_without_pawn_or_capture": [["g1", 80]],
        "player_of": [["g1","black"],["g1","white"]]}}"#;
    let fa = read_facts(a, &loaded.catalog).unwrap();
    let fs = read_facts_from(&a[..], &loaded.catalog).unwrap();
    let fb = read_facts(b, &loaded.catalog).unwrap();
    assert_eq!(fa.rows, fs.rows);
    assert_eq!(fa.rows, fb.rows);
    assert_eq!(fa.entities, fb.entities);
    assert_eq!(
        fa.duplicates, 1,
        "the repeated row is counted, and kept once"
    );
    let out = |f| {
        let ev = lawgen::driver::evaluate(&loaded, f, lawgen_runtime::Policy::Blocking).unwrap();
        lawgen_runtime::formats::output::canonical_json(&ev.conclusions)
    };
    assert_eq!(out(&fa), out(&fb));
    assert_eq!(out(&fa), out(&fa), "evaluating twice gives the same bytes");
}

#[test]
fn a_flood_of_bad_rows_gives_a_bounded_error_list() {
    let loaded = load_bytes(&std::fs::read(MINIMAL).unwrap(), &Default::default()).unwrap();
    let rows = vec!["[1, 2, 3, 4, 5]"; 5000].join(",");
    let facts = format!(r#"{{"facts": {{"player_of": [{rows}]}}}}"#);
    let d = read_facts(facts.as_bytes(), &loaded.catalog).err().unwrap();
    assert_eq!(d.len(), 1000, "diagnostics kept");
    // The count tells how many errors there are, not how many were kept.
    assert_eq!(d.not_shown(), 4000);
    assert!(
        d.render()
            .ends_with("\n\nerror: 5000 errors found, only the first 1000 shown\n"),
        "{}",
        d.render()
    );
}

#[test]
fn facts_errors_name_key_and_row() {
    let loaded = load_bytes(&support::read(support::CHESS), &Default::default()).unwrap();
    let cases: &[(&str, &str)] = &[
        (r#"[1]"#, "error[E080]: a facts file must be a JSON object"),
        (r#"{"facts": {"nope": [["x"]]}}"#, "error[E081]: unknown predicate `nope`"),
        (
            r#"{"facts": {"player_of": [["g1"]]}}"#,
            "error[E082]: `player_of` takes 2 value(s), this row has 1",
        ),
        (
            r#"{"facts": {"moves_by_each_without_pawn_or_capture": [["g1", 9223372036854775808]]}}"#,
            "error[E083]: value 2 of `moves_by_each_without_pawn_or_capture` must be an integer in the i64 range",
        ),
        (
            r#"{"facts": {"game_drawn": [["g1"]]}}"#,
            "error[E084]: `game_drawn` is institutional",
        ),
        (
            r#"{"facts": {"stalemate_arisen": [["g1"]], "~stalemate_arisen": [["g1"]]}}"#,
            "error[E085]: both `stalemate_arisen(g1)` and `~stalemate_arisen(g1)` are given",
        ),
        (r#"{"facts": {"player_of": [["g1", "w"]]"#, "error[E001]: the JSON ends early"),
        // Lone surrogates, leading and trailing: named as such, not as an
        // "end of hex escape" or a "leading" surrogate.
        (
            r#"{"facts": {"player_of": [["g\ud800", "w"]]}}"#,
            "error[E001]: the input is not valid JSON: a `\\u` escape near line 1, column 35 is half of a UTF-16 surrogate pair (U+D800 to U+DFFF) without its other half, which is no character\n  \
             --> the document root\n  \
             = help: write the character itself, or both halves of its pair (`\\ud83d\\ude00` for U+1F600)\n",
        ),
        (
            r#"{"facts": {"player_of": [["g\udc00", "w"]]}}"#,
            "error[E001]: the input is not valid JSON: a `\\u` escape near line 1, column",
        ),
        (
            r#"{"facts": {"player_of": [["g\ud800\u0041", "w"]]}}"#,
            "error[E001]: the input is not valid JSON: a `\\u` escape near line 1, column",
        ),
    ];
    for (facts, want) in cases {
        let d = read_facts(facts.as_bytes(), &loaded.catalog)
            .expect_err(facts)
            .render();
        assert!(d.starts_with(want), "{facts}:\n{d}");
    }
    let d = read_facts(
        br#"{"facts": {"player_of": [["g1", "w"], ["g1", 7]]}}"#,
        &loaded.catalog,
    )
    .err()
    .unwrap()
    .render();
    assert!(d.contains("at /facts/player_of/1/1"), "{d}");
    let bad_utf8 = b"{\"facts\": {\"player_of\": [[\"g1\", \"\xff\"]]}}";
    let d = read_facts(bad_utf8, &loaded.catalog)
        .err()
        .unwrap()
        .render();
    assert!(d.starts_with("error[E001]"), "{d}");
}

/// A package over one entity type `T`: `e/1` empirical, `q/1` institutional,
/// `j/1` a judgment, and the given rules (`(id, strength, head polarity,
/// body predicates)`, every atom over the variable `x`) and priorities.
fn package(rules: &[(String, &str, &str, Vec<&str>)], priorities: &[(String, String)]) -> Vec<u8> {
    use serde_json::{json, Value as J};
    let hashed = |mut n: J| {
        let h = lawgen::internals::syntax::hash::node_hash(n.as_object().unwrap());
        n["contentHash"] = J::from(h);
        n
    };
    let t = json!({"name": "urn:s#T"});
    let pred = |name: &str, kind: &str| {
        hashed(
            json!({"id": format!("urn:s#{name}"), "kind": "symbol_decl", "symbolKind": "relation",
            "name": name, "relationKind": kind, "parameters": [{"name": "a", "type": t}], "labels": []}),
        )
    };
    let lit = |p: &str, pol: &str| {
        json!({"kind": "literal", "predicate": format!("urn:s#{p}"), "polarity": pol,
            "args": [{"kind": "var", "var": "x"}]})
    };
    let mut nodes = vec![
        hashed(
            json!({"id": "urn:s#T", "kind": "type_decl", "name": "T", "typeKind": "entity", "labels": []}),
        ),
        pred("e", "empirical"),
        pred("q", "institutional"),
        pred("j", "judgment"),
        hashed(
            json!({"id": "urn:s#j/external", "kind": "external_decl", "symbol": "urn:s#j",
            "authority": {"kind": "const_ref", "id": "urn:s#court"}, "capability": "decide",
            "effect": "judgment"}),
        ),
    ];
    for (id, strength, pol, body) in rules {
        let items: Vec<J> = body
            .iter()
            .map(|p| json!({"kind": "status", "status": "established", "formula": lit(p, "positive")}))
            .collect();
        nodes.push(hashed(
            json!({"id": format!("urn:s#{id}"), "kind": "rule", "strength": strength,
            "head": lit("q", pol), "body": {"kind": "and", "items": items},
            "variables": [{"id": "x", "type": t}], "anchors": [], "labels": [],
            "scope": {"kind": "boolean", "value": true}}),
        ));
    }
    for (i, (hi, lo)) in priorities.iter().enumerate() {
        nodes.push(hashed(
            json!({"id": format!("urn:s#pr{i}"), "kind": "priority_rule",
            "priorityKind": "direct", "higher": {"kind": "const_ref", "id": format!("urn:s#{hi}")},
            "lower": {"kind": "const_ref", "id": format!("urn:s#{lo}")},
            "condition": {"kind": "boolean", "value": true}, "labels": []}),
        ));
    }
    serde_json::to_vec(&json!({"schemaVersion": "law.core.ir/0.2",
        "package": {"name": "stress", "namespace": "urn:s", "version": "0.0.1"},
        "imports": [], "strata": [], "nodes": nodes}))
    .unwrap()
}

#[test]
fn a_long_rule_body_is_refused_with_the_rule_named() {
    let rules = [("big".to_owned(), "strict", "positive", vec!["e"; 300])];
    let bytes = package(&rules, &[]);
    let d = load_bytes(&bytes, &ReadLimits::default())
        .expect_err("refused")
        .render();
    assert!(
        d.contains("error[E090]: rule `big` has 300 body items, more than the limit of 120"),
        "{d}"
    );
    assert!(
        d.contains("urn:s#big") && d.contains("--max-rule-body"),
        "{d}"
    );
    // Raised, the package loads and evaluates (the interpreter recurses once
    // per body item: 300 is far from its stack's end).
    let limits = ReadLimits::default().max_rule_body(300);
    let loaded = load_bytes(&bytes, &limits).expect("accepted under a raised limit");
    let facts = read_facts(br#"{"facts": {"e": [["a"]]}}"#, &loaded.catalog).unwrap();
    let ev = lawgen::driver::evaluate(&loaded, &facts, lawgen_runtime::Policy::Blocking).unwrap();
    let out = lawgen_runtime::formats::output::canonical_json(&ev.conclusions);
    assert!(out.contains(r#""q": ["#), "{out}");
    // No setting lets a body deep enough to overflow the interpreter's stack in.
    let rules = [("huge".to_owned(), "strict", "positive", vec!["e"; 20_000])];
    let limits = ReadLimits::default().max_rule_body(usize::MAX);
    let d = load_bytes(&package(&rules, &[]), &limits)
        .expect_err("refused")
        .render();
    assert!(
        d.contains("rule `huge` has 20000 body items, more than the limit of 2000"),
        "{d}"
    );
}

#[test]
fn a_literal_with_too_many_attackers_is_refused_with_its_attackers_named() {
    // 300 defeasible rules for q, 300 for ~q, each pair ordered: the +∂ rule
    // of q would need an atom per attacker, and checking "every attacker is
    // defeated" pairwise used to make lowering cubic.
    let mut rules = Vec::new();
    let mut prios = Vec::new();
    for i in 0..300 {
        rules.push((format!("p{i}"), "defeasible", "positive", vec!["e"]));
        rules.push((format!("n{i}"), "defeasible", "negative", vec!["e"]));
        prios.push((format!("p{i}"), format!("n{i}")));
    }
    let bytes = package(&rules, &prios);
    let d = load_bytes(&bytes, &ReadLimits::default())
        .expect_err("refused")
        .render();
    assert!(
        d.contains(
            "`q` is attacked by 300 rules for `~q` (`n0`, `n1`, `n2`, `n3`, `n4`, … (295 more)): \
             its +∂ rule would have 302 body items, more than the limit of 120"
        ),
        "{d}"
    );
    assert!(d.contains("`~q` is attacked by 300 rules for `q`"), "{d}");
    // Under the limit the same shape loads, lowers and decides by priority.
    let (rules, prios) = (&rules[..200], &prios[..50]);
    let loaded = load_bytes(&package(rules, prios), &ReadLimits::default()).unwrap();
    let facts = read_facts(br#"{"facts": {"e": [["a"]]}}"#, &loaded.catalog).unwrap();
    let ev = lawgen::driver::evaluate(&loaded, &facts, lawgen_runtime::Policy::Blocking).unwrap();
    let out = lawgen_runtime::formats::output::canonical_json(&ev.conclusions);
    // p0..p49 beat n0..n49, but n50..n99 stay undefeated (and attack every
    // p), so neither side is concluded defeasibly; both are supported.
    assert!(!out.contains(r#""defeasibly": {"q""#), "{out}");
}

#[test]
fn quadratic_pending_requests_are_refused_with_the_largest_rule_named() {
    // Every judgment atom gets its own request rule as long as the rule:
    // 100 judgment atoms make 100 × 101 items.
    let mut body = vec!["j"; 100];
    body.push("e");
    let rules = [
        ("wide".to_owned(), "strict", "positive", body),
        ("small".to_owned(), "strict", "positive", vec!["e", "j"]),
    ];
    let bytes = package(&rules, &[]);
    let limits = ReadLimits::default().max_program_size(5_000);
    let d = load_bytes(&bytes, &limits).expect_err("refused").render();
    assert!(
        d.contains("error[E090]: lowering would produce a program of up to")
            && d.contains("more than the limit of 5000; the largest parts: rule `wide` (101 body items, 100 of them judgments"),
        "{d}"
    );
    assert!(
        d.contains("urn:s#wide") && d.contains("--max-program-size"),
        "{d}"
    );
    assert!(load_bytes(&bytes, &ReadLimits::default()).is_ok());
}

#[test]
fn a_package_too_large_for_native_code_is_refused_before_emitting_and_pointed_to_the_interpreter() {
    // Rules of 100 judgment atoms, about 10,700 program items each: enough
    // of them to pass the native limit, while every reading limit accepts
    // the package.
    let max = lawgen::internals::check::size::MAX_NATIVE_PROGRAM_SIZE;
    let n = (max / 10_000 + 1) as usize;
    let mut body = vec!["j"; 100];
    body.push("e");
    let rules: Vec<_> = (0..n)
        .map(|i| (format!("wide{i}"), "strict", "positive", body.clone()))
        .collect();
    let bytes = package(&rules, &[]);
    let loaded =
        load_bytes(&bytes, &ReadLimits::default()).expect("every reading limit accepts it");
    let bound = lawgen::internals::check::size::program_size_bound(loaded.model());
    assert!(
        bound > lawgen::internals::check::size::MAX_NATIVE_PROGRAM_SIZE,
        "{bound}"
    );
    for engine in [lawgen::Engine::Ascent, lawgen::Engine::Direct] {
        let opts = lawgen::EmitOptions::default().engine(engine);
        let e = lawgen::generate(&loaded, &opts)
            .expect_err("refused")
            .to_string();
        assert_eq!(
            e,
            format!(
                "the package is too large to compile to native code: its {n} rules lower to a \
                 program of up to {bound} body items, more than the limit of {max} for generated \
                 Rust (`check::size::MAX_NATIVE_PROGRAM_SIZE`); evaluate it with the interpreter, \
                 which needs no build (`lawgen eval PACKAGE --facts FILE --backend interp`), or \
                 split the package"
            )
        );
    }
    // The interpreter takes it.
    lawgen::driver::lower(&loaded).expect("lowers");
    // A fifth of them are within the limit.
    let rules: Vec<_> = rules.into_iter().take(n / 5).collect();
    let loaded = load_bytes(&package(&rules, &[]), &ReadLimits::default()).expect("loads");
    assert_eq!(
        lawgen::internals::check::size::native(loaded.model()),
        Ok(())
    );
}

#[test]
fn a_program_above_the_straight_line_limit_is_evaluated_from_the_embedded_program() {
    let loaded = load_bytes(&support::read(support::CHESS), &ReadLimits::default()).expect("loads");
    let mut sources = Vec::new();
    for engine in [lawgen::Engine::Ascent, lawgen::Engine::Direct] {
        let at = |limit| {
            let opts = lawgen::EmitOptions::default()
                .engine(engine)
                .straight_line_rules(limit);
            lawgen::generate(&loaded, &opts).expect("emits")
        };
        // At the limit, generated engine code; one rule over it, none.
        let code = at(usize::MAX);
        let rules = code.rules;
        assert!(!code.from_program);
        assert!(!at(rules).from_program);
        let e = at(rules - 1);
        assert!(e.from_program, "{engine}");
        let line = format!(
            "// engine: the embedded program, evaluated by the runtime ({rules} rules, more than \
             the straight-line limit of {})\n",
            rules - 1
        );
        assert!(e.source.contains(&line), "{engine}: no header line {line}");
        assert!(e.source.contains("mod __engine {}"), "{engine}: an engine");
        assert!(e.source.contains("__rt::evaluate_case("), "{engine}");
        assert!(
            e.source.len() < code.source.len(),
            "{engine}: {} bytes from the program, {} as code",
            e.source.len(),
            code.source.len()
        );
        sources.push(e.source);
    }
    // Whichever the engine asked for, the module is the same.
    assert_eq!(sources[0], sources[1]);
}
