//! What each lawgen fuzz target runs, in one library: the cargo-fuzz
//! binaries (`fuzz/fuzz_targets/*.rs`) are one line each over [`TARGETS`],
//! and the regression replay (`tests/regressions.rs`, part of `cargo test`)
//! feeds every saved input through the same function, so a regression input
//! exercises exactly what the fuzzer ran when it found it.
//!
//! Every function here must return normally on any input: a panic anywhere
//! below is a finding. The structure-aware package mutator
//! (`package_structured`, `emit`) is in [`mutate`].

pub mod batches;
pub mod expected;
pub mod layers;
pub mod mutate;

use lawgen::driver::{self, Loaded};
use lawgen::internals::emit::{EmitError, EmitOptions, Engine};
use lawgen_runtime::interp::Facts;
use lawgen_runtime::Policy;
use proc_macro2::{Group, Literal, TokenStream, TokenTree};
use std::sync::OnceLock;

/// The valid packages the structure-aware targets start from.
pub const SEEDS: &[(&str, &[u8])] = &[
    (
        "minimal",
        include_bytes!("../../../tests/ui/valid/minimal.json"),
    ),
    (
        "hostile_but_valid_names",
        include_bytes!("../../../tests/ui/valid/hostile_but_valid_names.json"),
    ),
    (
        "fide.laws.chess",
        include_bytes!("../../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json"),
    ),
];

/// The chess package, loaded once (the `facts` target's model).
pub fn chess() -> &'static Loaded {
    seed(2)
}

/// Seed package `i` of [`SEEDS`], loaded once.
pub fn seed(i: usize) -> &'static Loaded {
    static LOADED: [OnceLock<Loaded>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    LOADED[i].get_or_init(|| {
        driver::load_bytes(SEEDS[i].1, &Default::default()).expect("the seed packages load")
    })
}

/// Lowers and evaluates a checked package on `facts` under both policies,
/// and reads everything a user could ask for off the result: the canonical
/// output and (when `explain_limit > 0`) explanations of a few conclusions.
/// `lower::InternalError` is "never caused by user input" (lower/mod.rs):
/// on a checked package it is a lawgen bug, so it fails the run like a panic.
pub fn evaluate_all(loaded: &Loaded, facts: &Facts, explain_limit: usize) {
    for policy in [Policy::Blocking, Policy::Propagating] {
        let ev = match driver::evaluate(loaded, facts, policy) {
            Ok(ev) => ev,
            Err(e) => panic!("lowering a checked package failed: {e}"),
        };
        let json = lawgen_runtime::formats::output::canonical_json(&ev.conclusions);
        // The canonical output is JSON.
        assert!(
            serde_json::from_str::<serde_json::Value>(&json).is_ok(),
            "canonical output is not JSON: {json}"
        );
        let mut explained = 0;
        'sections: for rows in ev.conclusions.sections.values() {
            for (name, tuples) in rows {
                for row in tuples {
                    if explained >= explain_limit {
                        break 'sections;
                    }
                    let Some(lit) = loaded.catalog.lit_of(name) else {
                        continue;
                    };
                    let q = lawgen_runtime::explain::Query {
                        lit,
                        args: row.clone(),
                    };
                    let e = lawgen_runtime::explain::explain(
                        &ev.program,
                        &ev.store,
                        ev.conclusions.policy,
                        &q,
                        "en",
                    );
                    let _ = e.text();
                    let _ = e.to_json();
                    explained += 1;
                }
            }
        }
    }
}

/// Emits the module for a checked package with `engine` and checks the text
/// parses as a Rust file. `EmitError::Lower` and `EmitError::Format` are
/// lawgen bugs by their own definition, so they fail the run;
/// `EmitError::Unsupported` is a refusal with its reason (a predicate wider
/// than a compiled engine takes), which is no bug: `None`.
pub fn emit_and_parse(loaded: &Loaded, engine: Engine) -> Option<String> {
    // The engine asked for, whatever the package's size.
    let opts = EmitOptions::default()
        .engine(engine)
        .ascent_rules(usize::MAX);
    let emitted = match lawgen::generate(loaded, &opts) {
        Ok(e) => e,
        Err(EmitError::Unsupported(_)) => return None,
        Err(e) => panic!("emit failed on a checked package: {e}"),
    };
    if let Err(e) = parses(&emitted.source) {
        panic!(
            "emitted module does not parse: {e}\n----\n{}",
            emitted.source
        );
    }
    Some(emitted.source)
}

/// Does `source` parse as a Rust file? Lexed by proc-macro2 (which checks
/// every literal, escapes included), then parsed by syn with each long
/// string literal emptied first: syn decodes a literal's value again when
/// it parses it, and the module's embedded program (36 kB for a package of
/// ten nodes, 305 kB for chess) made that most of a run's time.
fn parses(source: &str) -> Result<(), String> {
    let tokens: TokenStream = source.parse().map_err(|e| format!("{e:?}"))?;
    syn::parse2::<syn::File>(without_long_strings(tokens))
        .map(|_| ())
        .map_err(|e| format!("{e} at {:?}", e.span()))
}

fn without_long_strings(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut h = Group::new(g.delimiter(), without_long_strings(g.stream()));
                h.set_span(g.span());
                TokenTree::Group(h)
            }
            TokenTree::Literal(l) => {
                let text = l.to_string();
                if text.len() > 1024 && (text.starts_with('"') || text.starts_with('r')) {
                    TokenTree::Literal(Literal::string(""))
                } else {
                    TokenTree::Literal(l)
                }
            }
            other => other,
        })
        .collect()
}

/// Writes the bytes of a generated package to `$LAWGEN_FUZZ_DUMP`, if set:
/// how a structure-aware crash becomes a plain-JSON regression input.
pub fn dump(bytes: &[u8]) {
    if let Some(path) = std::env::var_os("LAWGEN_FUZZ_DUMP") {
        std::fs::write(&path, bytes).expect("write LAWGEN_FUZZ_DUMP");
    }
}

/// Evaluates `cases` synthetic fact sets drawn for the package's input
/// predicates (`lawgen::synth`, as `lawgen bench` draws them), under both
/// policies, explaining a few conclusions of each.
pub fn evaluate_synthetic(loaded: &Loaded, seed: u64, cases: u64) {
    let opts = lawgen::synth::SynthOptions {
        seed,
        ..Default::default()
    };
    let Ok(synth) = lawgen::synth::Synth::new(loaded, opts) else {
        return;
    };
    for i in 0..cases {
        let facts = synth.case(i);
        evaluate_all(loaded, &facts, 2);
    }
}

/// What a target runs on one input.
pub type Run = fn(&[u8]);

/// Every target: its name (the cargo-fuzz binary and the prefix of its
/// regression files) and what it runs on one input.
pub const TARGETS: &[(&str, Run)] = &[
    ("package", package),
    ("package_structured", package_structured),
    ("emit", emit),
    ("facts", facts),
    ("text", text),
    ("imports", layers::imports),
    ("arrow", batches::arrow),
    ("expected", expected::expected),
    ("analyze", analyze),
    ("doc", doc),
];

/// The function of target `name`.
pub fn target(name: &str) -> Option<Run> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Arbitrary bytes → reader + checker; a package that loads is summarised,
/// graphed, lowered and evaluated on empty facts under both policies.
pub fn package(data: &[u8]) {
    let Ok(loaded) = driver::load_bytes(data, &Default::default()) else {
        return;
    };
    let _ = lawgen::summary::render(&loaded, "en");
    let _ = lawgen::graph::dot(&loaded);
    evaluate_all(&loaded, &Default::default(), 0);
}

/// A hash of the recipe: the seed of the synthetic facts.
pub(crate) fn recipe_seed(data: &[u8]) -> u64 {
    data.iter()
        .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(b as u64))
}

fn verbose(m: &mutate::Mutant) {
    dump(&m.bytes);
    if std::env::var_os("LAWGEN_FUZZ_VERBOSE").is_some() {
        eprintln!("seed {}: {:#?}", m.seed, m.ops);
    }
}

/// A valid package, mutated structurally (ids, arities, types, nodes,
/// cycles, polarity, strength, strings, integers) and re-hashed, through
/// reader → checker → lower → interpreter (on empty facts and on synthetic
/// facts for its input predicates) and, for one input in four, → emit →
/// parse.
pub fn package_structured(data: &[u8]) {
    let Ok(m) = mutate::mutant(data, mutate::Flavour::Wild) else {
        return;
    };
    verbose(&m);
    structured(&m.bytes, recipe_seed(data));
}

/// `package_structured` after the mutation: the mutant package's bytes (a
/// dumped regression input).
pub fn package_structured_mutant(bytes: &[u8]) {
    structured(bytes, recipe_seed(bytes));
}

fn structured(bytes: &[u8], seed: u64) {
    let Ok(loaded) = driver::load_bytes(bytes, &Default::default()) else {
        return;
    };
    evaluate_all(&loaded, &Default::default(), 0);
    evaluate_synthetic(&loaded, seed, 2);
    // Emitting is the `emit` target's work and most of a run's time here:
    // one loading mutant in four is emitted, so the reader, checker,
    // lowering and interpreter see four times the mutants.
    if (seed >> 4) % 4 == 0 {
        emit_and_parse(&loaded, engine_of(seed));
    }
}

/// Both compiled engines, half of the inputs each.
fn engine_of(seed: u64) -> Engine {
    if seed % 2 == 0 {
        Engine::Ascent
    } else {
        Engine::Direct
    }
}

/// Mutants that tend to stay valid (hostile names by consistent renames,
/// flipped polarity and strength, new priorities, duplicated rules, swapped
/// heads), through lower → interpreter and lower → emit (either engine):
/// no panic, the module parses as Rust, and emitting twice gives the same
/// bytes.
pub fn emit(data: &[u8]) {
    let Ok(m) = mutate::mutant(data, mutate::Flavour::Valid) else {
        return;
    };
    verbose(&m);
    emit_checked(&m.bytes, recipe_seed(data));
}

/// `emit` after the mutation: the mutant package's bytes (a dumped
/// regression input).
pub fn emit_mutant(bytes: &[u8]) {
    emit_checked(bytes, recipe_seed(bytes));
}

fn emit_checked(bytes: &[u8], seed: u64) {
    let Ok(loaded) = driver::load_bytes(bytes, &Default::default()) else {
        return;
    };
    evaluate_synthetic(&loaded, seed, 1);
    let engine = engine_of(seed);
    let Some(first) = emit_and_parse(&loaded, engine) else {
        return;
    };
    // Emitting again must give the same bytes. Checked on one input in
    // eight: a second emit doubled the cost of every run, and what could
    // make it differ (the iteration order of a hash map, seeded anew for
    // each map) differs on most runs when it differs at all.
    if (seed >> 1) % 8 == 0 {
        let opts = EmitOptions::default()
            .engine(engine)
            .ascent_rules(usize::MAX);
        if let Ok(again) = lawgen::generate(&loaded, &opts) {
            assert!(first == again.source, "emit is not deterministic");
        }
    }
}

/// Arbitrary bytes → the facts reader for the chess package (the streaming
/// and in-memory readers must agree); facts that read are evaluated under
/// both policies and a few conclusions explained.
pub fn facts(data: &[u8]) {
    let chess = chess();
    let slice = lawgen_runtime::formats::facts::read_facts(data, &chess.catalog);
    let stream = lawgen_runtime::formats::facts::read_facts_from(data, &chess.catalog);
    assert_eq!(
        slice.is_ok(),
        stream.is_ok(),
        "read_facts and read_facts_from disagree: {:?} vs {:?}",
        slice.as_ref().err().map(|d| d.render()),
        stream.as_ref().err().map(|d| d.render()),
    );
    if let (Ok(a), Ok(b)) = (&slice, &stream) {
        assert_eq!(
            a.rows, b.rows,
            "read_facts and read_facts_from read different rows"
        );
    }
    let Ok(facts) = slice else {
        return;
    };
    evaluate_all(chess, &facts, 3);
}

/// Arbitrary bytes → the text-form reader (`.law`). On success the JSON it
/// produced prints back as text that reads as the same JSON (the round trip
/// every `lawgen convert` relies on), printing that again gives the same
/// text, and the package goes through reader + checker like any other.
pub fn text(data: &[u8]) {
    use lawgen::internals::syntax::text;
    let Ok(src) = std::str::from_utf8(data) else {
        // The byte-level entry point must refuse it without panicking too.
        assert!(text::to_json(data).is_err());
        return;
    };
    let parsed = match text::parse(src) {
        Ok(p) => p,
        Err(e) => {
            // Rendering slices the source at the spans: it must not panic.
            let _ = e.render("fuzz.law");
            return;
        }
    };
    let printed = text::print(&parsed.json).expect("parsed text always has nodes");
    let again = text::parse(&printed).unwrap_or_else(|e| {
        panic!(
            "printed text does not parse:\n{}\n{printed}",
            e.render("printed.law")
        )
    });
    assert_eq!(
        again.json, parsed.json,
        "print → parse changed the package:\n{printed}"
    );
    let reprinted = text::print(&again.json).expect("parsed text always has nodes");
    assert_eq!(reprinted, printed, "printing is not idempotent");
    let json = lawgen::internals::syntax::canon::serialize(&parsed.json);
    if let Ok(loaded) = driver::load_bytes(json.as_bytes(), &Default::default()) {
        let _ = lawgen::summary::render(&loaded, "en");
    }
}

/// The `analyze` target: byte 0 picks the mode, the rest is its input.
/// Even bytes 0: a properties file (bit 1 clear: JSON, set: the text form)
/// read, resolved against the chess package and, for the first few
/// properties, answered at a bound of one entity per type. Odd: a facts file
/// for the chess package whose rows within that bound are fixed as the
/// input of the encoding, and the solver's model checked atom by atom
/// against the reference evaluator. A refused file is an error value; an
/// internal error (exit code 3) is a finding, like a panic.
pub fn analyze(data: &[u8]) {
    use lawgen_cli::analyze::{self, domain::Bound};
    use std::cell::{Cell, RefCell};
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    static PROGRAM: OnceLock<lawgen_runtime::program::Program> = OnceLock::new();
    let prog =
        PROGRAM.get_or_init(|| lawgen::internals::lower::lower(chess().model()).expect("lowers"));
    let opts = |symmetry| analyze::Options {
        bound: Bound {
            entities: 1,
            spread: 0,
        },
        symmetry,
        ..Default::default()
    };
    // The solver is not `Send`; a fuzz run is one thread. Each query adds
    // its gates to the solver, so the analyses are built afresh now and then.
    thread_local! {
        static ANALYSES: RefCell<Vec<analyze::Analysis<'static>>> = const { RefCell::new(Vec::new()) };
        static USES: Cell<u32> = const { Cell::new(0) };
    }
    let uses = USES.with(|u| {
        u.set(u.get().wrapping_add(1));
        u.get()
    });
    ANALYSES.with(|cell| {
        let mut ans = cell.borrow_mut();
        if ans.is_empty() || uses % 256 == 0 {
            ans.clear();
            let named = Default::default();
            for s in [false, true] {
                ans.push(
                    analyze::Analysis::new(&[prog], opts(s), &named)
                        .expect("the chess package grounds"),
                );
            }
        }
        run_analyze(prog, &mut ans, mode, rest);
    });
}

fn run_analyze(
    prog: &'static lawgen_runtime::program::Program,
    ans: &mut [lawgen_cli::analyze::Analysis<'static>],
    mode: u8,
    rest: &[u8],
) {
    use lawgen_cli::analyze::{self, encode::InputKey, properties};
    let internal = |e: &analyze::Error| assert_ne!(e.code, 3, "{e}");
    if mode & 1 == 0 {
        let Ok(specs) = properties::read(rest, mode & 2 == 0, "fuzz") else {
            return;
        };
        let an = &mut ans[1];
        for s in specs.iter().take(3) {
            if let Ok(p) = properties::resolve(s, &prog.catalog, "fuzz") {
                if let Err(e) = an.goal(&p.goal) {
                    internal(&e);
                }
            }
        }
        return;
    }
    let Ok(facts) = lawgen_runtime::formats::facts::read_facts(rest, &chess().catalog) else {
        return;
    };
    let an = &mut ans[0];
    // Each value outside the bound is mapped onto one inside it (by a hash
    // of the value), so every row of the file becomes an input.
    let pick = |an: &analyze::Analysis,
                ty: lawgen_runtime::program::Ty,
                v: &lawgen_runtime::program::Value|
     -> Option<u32> {
        if let Some(id) = an.dom.values.get(v) {
            if an.dom.members(&prog.catalog, ty).contains(&id) {
                return Some(id);
            }
        }
        let members = an.dom.members(&prog.catalog, ty);
        let h = v
            .to_string()
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
        members
            .get((h % members.len().max(1) as u64) as usize)
            .copied()
    };
    let mut chosen: Vec<InputKey> = Vec::new();
    for (lit, rows) in &facts.rows {
        let decl = prog.catalog.pred(lit.pred);
        for row in rows {
            let args: Option<Box<[u32]>> = row
                .iter()
                .zip(&decl.params)
                .map(|(v, t)| pick(an, *t, v))
                .collect();
            let Some(args) = args else { continue };
            let key = InputKey::Fact {
                pred: decl.id.clone(),
                negative: lit.negative,
                args: args.clone(),
            };
            let other = InputKey::Fact {
                pred: decl.id.clone(),
                negative: !lit.negative,
                args,
            };
            if an.enc.input_value(&key).is_some()
                && !chosen.contains(&key)
                && !chosen.contains(&other)
            {
                chosen.push(key);
            }
        }
    }
    if let Err(e) = an.check_inputs(&chosen) {
        internal(&e);
    }
}

/// The `doc` target: arbitrary bytes → reader + checker; for a package that
/// loads (a closure bundle brings its imports), `lawgen doc` in both
/// languages and every format must neither panic nor fail: a document that
/// is not total is an error of `doc::render`, so any error here is a bug.
/// The page makes no request and holds no control character but line
/// breaks (package strings are escaped), and the same package gives the
/// same bytes twice.
pub fn doc(data: &[u8]) {
    use lawgen::doc::{render, Format, Lang, Options};
    let Ok(loaded) = lawgen::driver::load_bytes(data, &Default::default()) else {
        return;
    };
    for lang in [Lang::Ru, Lang::En] {
        for format in [Format::Text, Format::Markdown, Format::Html] {
            let options = Options::new(lang, format);
            let out = render(&loaded, &options).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(out, render(&loaded, &options).unwrap(), "not deterministic");
            assert!(
                !out.chars().any(|c| c.is_control() && c != '\n'),
                "a control character in the document"
            );
            if format == Format::Html {
                assert!(!out.contains("<script") && !out.contains(" src="));
            }
        }
    }
}
