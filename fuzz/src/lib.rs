//! Shared code of the lawgen fuzz targets: the pipeline each target drives,
//! and the structure-aware package mutator (`package_structured`, `emit`).
//!
//! Every function here must return normally on any input: a panic anywhere
//! below is a finding. The targets only decide which pieces run.

pub mod mutate;

use lawgen::driver::{self, Loaded};
use lawgen::interp::Policy;
use lawgen::syntax::facts::Facts;
use std::sync::OnceLock;

/// The valid packages the structure-aware targets start from.
pub const SEEDS: &[(&str, &[u8])] = &[
    (
        "minimal",
        include_bytes!("../../tests/ui/valid/minimal.json"),
    ),
    (
        "hostile_but_valid_names",
        include_bytes!("../../tests/ui/valid/hostile_but_valid_names.json"),
    ),
    (
        "fide.laws.chess",
        include_bytes!("../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json"),
    ),
];

/// The chess package, loaded once (the `facts` target's model).
pub fn chess() -> &'static Loaded {
    static CHESS: OnceLock<Loaded> = OnceLock::new();
    CHESS.get_or_init(|| {
        driver::load_bytes(SEEDS[2].1, &Default::default()).expect("the chess package loads")
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
        let json = lawgen::syntax::output::canonical_json(&ev.conclusions);
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
                    let q = lawgen::explain::Query {
                        lit,
                        args: row.clone(),
                    };
                    let e = lawgen::explain::explain(
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

/// Emits the module for a checked package and checks the text parses as a
/// Rust file. Every `Err` of `emit` is a lawgen bug by its own definition
/// (`EmitError::Lower` / `EmitError::Format`), so it fails the run too.
pub fn emit_and_parse(loaded: &Loaded) -> String {
    let emitted = match lawgen::generate(loaded, &Default::default()) {
        Ok(e) => e,
        Err(e) => panic!("emit failed on a checked package: {e}"),
    };
    if let Err(e) = syn::parse_file(&emitted.source) {
        panic!(
            "emitted module does not parse: {e} at {:?}\n----\n{}",
            e.span(),
            emitted.source
        );
    }
    emitted.source
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
    let Ok(synth) = lawgen::synth::Synth::new(&loaded.model, opts) else {
        return;
    };
    for i in 0..cases {
        let facts = synth.case(i);
        evaluate_all(loaded, &facts, 2);
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
    use lawgen::cli::analyze::{self, domain::Bound};
    use std::cell::{Cell, RefCell};
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    static PROGRAM: OnceLock<lawgen::program::Program> = OnceLock::new();
    let prog = PROGRAM.get_or_init(|| lawgen::lower::lower(&chess().model).expect("lowers"));
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
    prog: &'static lawgen::program::Program,
    ans: &mut [lawgen::cli::analyze::Analysis<'static>],
    mode: u8,
    rest: &[u8],
) {
    use lawgen::cli::analyze::{self, encode::InputKey, properties};
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
    let Ok(facts) = lawgen::syntax::facts::read_facts(rest, &chess().catalog) else {
        return;
    };
    let an = &mut ans[0];
    // Each value outside the bound is mapped onto one inside it (by a hash
    // of the value), so every row of the file becomes an input.
    let pick = |an: &analyze::Analysis,
                ty: lawgen::program::Ty,
                v: &lawgen::program::Value|
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
