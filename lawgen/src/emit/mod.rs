//! Code generation: a lowered [`Program`] → one Rust module (source text),
//! its rules run by either engine ([`Engine`]: Ascent or Direct) behind the
//! same typed API.
//!
//! The module holds (docs/reference.md#generated-code):
//! - one typed id per entity type (`Game(u32)`), package constants as
//!   associated constants with fixed ids;
//! - `Facts`: interns entity names, one method per input literal (`p`, `not_p`)
//!   and a `decide_j` per judgment;
//! - `Facts::evaluate(policy)`: runs the lowered program (the same
//!   [`Program`] the reference interpreter runs) with the module's engine
//!   (one `ascent!` program per batch, or the Direct engine's per-case
//!   loops), once [`unfold`] has folded away its intermediate relations, [`cse`]
//!   has merged the relations with the same definition and [`preload`]
//!   has taken out the rules that only project what a batch loads
//!   (applied while loading);
//! - `Conclusions`: one verdict function per institutional literal, an
//!   iterator of its concluded tuples, the judgment requests, and (with the
//!   runtime's features) `explain_*`, `to_json` and `Facts::from_json`.
//!
//! [`emit`] is the whole path, one named step after the other: unfold →
//! cse → preload → plan → engine → API → module. Output is deterministic: the same
//! program gives the same bytes. Everything is built as tokens (quote) and
//! formatted by prettyplease, except the `ascent!` program, which is written
//! as text so that each rule carries a comment naming the package rule it
//! comes from (a token stream holds no comments; see [`Backend`]).

mod api;
mod ascent;
pub mod cse;
mod direct;
mod names;
mod plan;
pub mod preload;
mod split;
pub mod unfold;

use crate::program::Program;
use names::ApiNames;
use plan::Plan;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

pub use names::snake;
// The naming rules, for lawgen's own tests (`lawgen::internals::emit`).
#[cfg(feature = "internals")]
pub use names::{camel, Scope, KEYWORDS, RESERVED};

/// Which compiled engine runs a package's rules. The generated API —
/// `Facts`, `evaluate`, `evaluate_many`, `evaluate_indexed`, `Conclusions`
/// and every verdict function — is the same for every engine, and so are
/// its results; only the code behind `evaluate_batch` differs.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Every rule of the lowered program runs as one `ascent!` program over
    /// a batch of cases (the design's engine; the default).
    #[default]
    Ascent,
    /// Per-case Rust: small typed tables per relation, nested loops per rule
    /// in a join order chosen from the bodies, a semi-naive loop per
    /// recursive component, one scratch arena per worker thread.
    Direct,
}

impl Engine {
    /// The name the CLI uses (`ascent`, `direct`).
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Ascent => "ascent",
            Engine::Direct => "direct",
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ascent" => Ok(Engine::Ascent),
            "direct" => Ok(Engine::Direct),
            other => Err(format!(
                "unknown engine `{other}`: expected `ascent` or `direct`"
            )),
        }
    }
}

/// The widest predicate a compiled engine takes: 11 columns and the case
/// make the 12 fields Rust's tuple traits go up to.
pub const MAX_COMPILED_ARITY: usize = 11;

/// Options of code generation ([`crate::generate`]). `#[non_exhaustive]`:
/// outside lawgen, start from `EmitOptions::default()` and chain the
/// setters of the same names as the fields:
///
/// ```
/// let opts = lawgen::EmitOptions::default()
///     .engine(lawgen::Engine::Direct)
///     .module_name("chess_direct");
/// assert_eq!(opts.engine, lawgen::Engine::Direct);
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct EmitOptions {
    /// The module name; by default the package name in snake case
    /// (`fide.laws.chess` → `fide_laws_chess`).
    pub module_name: Option<String>,
    /// The engine behind the generated API (default [`Engine::Ascent`];
    /// see [`EmitOptions::ascent_rules`] and
    /// [`EmitOptions::straight_line_rules`] for when another is used).
    pub engine: Engine,
    /// The language of the rustdoc taken from labels and article texts
    /// (`en`, `ru`, …): a label in that language where the node has one,
    /// otherwise its first. `None`: English where present, else the first.
    pub doc_language: Option<String>,
    /// The SHA-256 of the package file (or closure bundle) the program was
    /// lowered from, for the module's header; `None` leaves the line out.
    pub source_sha256: Option<String>,
    /// The most rules a lowered program may have for its engine to be
    /// generated as code (`None`: the environment's
    /// `LAWGEN_STRAIGHT_LINE_RULES`, else [`STRAIGHT_LINE_RULES`]). A larger one,
    /// whichever the engine, keeps the same typed API but evaluates each
    /// case from the program the module embeds, by the runtime's reference
    /// evaluator: no code per rule, so rustc's time and memory follow the
    /// package's predicates, at the cost of throughput per case
    /// ([`Emitted::from_program`]; docs/performance.md, "Large packages").
    pub straight_line_rules: Option<usize>,
    /// The most rules a lowered program may have for the Ascent engine,
    /// when it is asked for (`None`: [`ASCENT_RULES`]); a larger one gets
    /// the Direct engine's code instead ([`Emitted::engine`]), whose build
    /// costs rustc a fraction of the `ascent!` program's.
    pub ascent_rules: Option<usize>,
    /// Above how many arms or statements a function of the typed API with
    /// one per relation is split into functions of at most 64 (or of this
    /// many, if fewer; `None`: 128). Only lawgen's tests set it, so that
    /// small random packages take the split path too.
    #[doc(hidden)]
    pub split_above: Option<usize>,
}

impl EmitOptions {
    /// Sets the field `module_name`: names the module.
    pub fn module_name(mut self, name: impl Into<String>) -> EmitOptions {
        self.module_name = Some(name.into());
        self
    }

    /// Sets the field `engine`.
    pub fn engine(mut self, engine: Engine) -> EmitOptions {
        self.engine = engine;
        self
    }

    /// Sets the field `doc_language`: the language of the rustdoc.
    pub fn doc_language(mut self, lang: impl Into<String>) -> EmitOptions {
        self.doc_language = Some(lang.into());
        self
    }

    /// Sets the field `straight_line_rules`: above this many lowered rules
    /// the module evaluates its rules from the program it embeds.
    pub fn straight_line_rules(mut self, rules: usize) -> EmitOptions {
        self.straight_line_rules = Some(rules);
        self
    }

    /// Sets the field `ascent_rules`: above this many lowered rules a
    /// module asked for the Ascent engine gets the Direct engine.
    pub fn ascent_rules(mut self, rules: usize) -> EmitOptions {
        self.ascent_rules = Some(rules);
        self
    }

    /// Sets the field `split_above` (lawgen's tests).
    #[doc(hidden)]
    pub fn split_above(mut self, arms: usize) -> EmitOptions {
        self.split_above = Some(arms);
        self
    }
}

/// The default of [`EmitOptions::straight_line_rules`]: above this many
/// lowered rules (about 1,400 rules of the law shape docs/performance.md
/// measures, at about 8.7 lowered rules each; the chess package has 225,
/// the Russian competition rules with their import 753), straight-line code
/// would take rustc past 3 GiB on its way to the 4 GiB the native limit
/// allows, and a package's rules are evaluated from the embedded program
/// instead. Below it, straight-line code is kept whatever it costs to build:
/// the embedded program runs a case 100 to 250 times slower, a price a
/// package pays only when asked (a lower limit) or when it must.
pub const STRAIGHT_LINE_RULES: usize = 12_000;

/// The default of [`EmitOptions::ascent_rules`]: above this many lowered
/// rules, the `ascent!` program of a package (every rule expanded by the
/// macro into one program) costs rustc more than three times what the
/// Direct engine's code costs, and a module asked for Ascent gets the
/// Direct engine. Measured on law-shaped packages (docs/performance.md,
/// "Large packages"): 3.5× the Direct engine's CPU time at 260 lowered
/// rules, 3.9× at 415, 12.8× at 650, 16× at 858. The FIDE packages (225 to
/// 261 lowered rules) keep Ascent, whose throughput the benchmarks measure;
/// the Russian competition rules with their import (753) get Direct, as
/// the chess example already built them.
pub const ASCENT_RULES: usize = 300;

/// A generated module.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// A valid Rust identifier.
    pub module_name: String,
    /// Formatted Rust items, to be included as a module body (no inner
    /// attributes; see `lawgen_runtime::include_package!`).
    pub source: String,
    /// How many relations the lowered program has (before the engine
    /// folds intermediate ones away), for progress reports such as
    /// `lawgen build`'s.
    pub relations: usize,
    /// How many rules the lowered program has, counted the same way.
    pub rules: usize,
    /// Whether the module evaluates its rules from the program it embeds
    /// (the lowered program has more rules than
    /// [`EmitOptions::straight_line_rules`]) instead of generated engine
    /// code; its header says so too.
    pub from_program: bool,
    /// The engine whose code the module has: the one asked for, or Direct
    /// for a program above [`EmitOptions::ascent_rules`] asked for Ascent
    /// (its header says so). Meaningless where `from_program` holds.
    pub engine: Engine,
    /// Per entity type of the package, in order: the `Facts` method that
    /// interns an entity of that type (`game` for `Game`).
    pub entity_methods: Vec<String>,
}

/// Why no Rust could be generated for a checked package.
#[derive(Debug)]
#[non_exhaustive]
pub enum EmitError {
    /// Lowering violated one of its invariants (a lawgen bug).
    Lower(crate::lower::InternalError),
    /// The generated tokens did not parse back (a lawgen bug).
    Format(String),
    /// The package uses something the compiled engines cannot represent
    /// (the message names it and what to do instead).
    Unsupported(String),
}

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmitError::Lower(e) => write!(f, "{e}"),
            EmitError::Format(e) => write!(
                f,
                "internal error: generated code does not parse ({e}); please report it with the package"
            ),
            EmitError::Unsupported(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for EmitError {}

/// Generates the module for a lowered program: every name comes from its
/// catalog, every rule from the program (`crate::generate` lowers a checked
/// package and calls this).
pub fn emit(program: &Program, opts: &EmitOptions) -> Result<Emitted, EmitError> {
    refuse_wide_predicates(program)?;
    // The engine's rules: the intermediate relations nothing outside the
    // engine reads folded into the rules that read them ...
    let unfolded = unfold::unfold(program);
    // ... relations with the same definition computed once ...
    let merged = cse::merge(&unfolded);
    // ... and the rules that read only what a batch loads taken out, to be
    // applied while loading.
    let (rules, preloaded) =
        preload::split(merged, |r| plan::is_loaded_role(&program.relation(r).role));
    // What both engines store, load and evaluate.
    let mut plan = Plan::new(program, rules, preloaded);
    plan.split_above = opts.split_above.unwrap_or(split::SPLIT_ABOVE);
    // The engine: `mod __engine`, and `evaluate_batch`, which runs it.
    let limit = straight_line_rules(opts)?;
    let from_program = program.rules.len() > limit;
    // Ascent asked for above its limit: the Direct engine, and the limit
    // for the header.
    let ascent_limit = opts.ascent_rules.unwrap_or(ASCENT_RULES);
    let over_ascent_limit = (opts.engine == Engine::Ascent && program.rules.len() > ascent_limit)
        .then_some(ascent_limit);
    let engine_used = match over_ascent_limit {
        Some(_) => Engine::Direct,
        None => opts.engine,
    };
    let backend: &dyn Backend = match engine_used {
        _ if from_program => &direct::FromProgram,
        Engine::Ascent => &ascent::Ascent,
        Engine::Direct => &direct::Direct,
    };
    let engine = backend.engine(&plan)?;
    let run = match backend.cases_per_run() {
        Some(k) => quote::quote!(#k),
        None => quote::quote!(usize::MAX),
    };
    let evaluate_batch = backend.evaluate_batch(&plan);
    let evaluate_batch = quote::quote! {
        /// At most how many cases of a batch a worker builds and
        /// evaluates before `map` digests their conclusions.
        const CASES_PER_RUN: usize = #run;
        #evaluate_batch
    };
    // The typed API around it, every name claimed from the catalog.
    let names = ApiNames::new(&program.catalog, |l| plan.facts_rel.contains_key(&l));
    let api = api::Api::new(&plan, &names, opts).items(evaluate_batch);
    // The module: the header, the API with the engine inside, formatted.
    let source = module(
        header(
            program,
            opts,
            from_program.then_some(limit),
            over_ascent_limit,
        ),
        api,
        engine,
    )?;
    Ok(Emitted {
        module_name: snake(opts.module_name.as_deref().unwrap_or(&program.package)),
        source,
        relations: program.relations.len(),
        rules: program.rules.len(),
        from_program,
        engine: engine_used,
        entity_methods: names.entity_methods.iter().map(|m| m.to_string()).collect(),
    })
}

/// The end of every engine's `evaluate_batch`: the batch's input and
/// outputs shared by its `Conclusions`, one per case, or the case's error
/// (`errors` and `out` bound by the engine's code before it).
fn batch_conclusions() -> TokenStream {
    quote! {
        let batch = ::std::sync::Arc::new(Batch { input, out });
        errors
            .into_iter()
            .enumerate()
            .map(|(i, e)| match e {
                Some(e) => Err(e),
                None => Ok(Conclusions::new(::std::sync::Arc::clone(&batch), i as u32, policy)),
            })
            .collect()
    }
}

/// The straight-line limit `opts` asks for: its own, else the environment's
/// `LAWGEN_STRAIGHT_LINE_RULES` (how `lawgen bench` and `lawgen build` are
/// measured on either side of it; docs/performance.md), else
/// [`STRAIGHT_LINE_RULES`].
fn straight_line_rules(opts: &EmitOptions) -> Result<usize, EmitError> {
    if let Some(n) = opts.straight_line_rules {
        return Ok(n);
    }
    match std::env::var("LAWGEN_STRAIGHT_LINE_RULES") {
        Ok(v) => v.trim().parse().map_err(|_| {
            EmitError::Unsupported(format!(
                "LAWGEN_STRAIGHT_LINE_RULES is `{v}`, not a number of rules: set it to one \
                 (e.g. 2500), or unset it for the default of {STRAIGHT_LINE_RULES}"
            ))
        }),
        Err(_) => Ok(STRAIGHT_LINE_RULES),
    }
}

/// An engine behind the generated API. The API is the same for every
/// engine; a backend supplies what runs behind it, reading everything it
/// needs of the program from the [`Plan`].
trait Backend {
    /// The contents of `mod __engine`.
    fn engine(&self, plan: &Plan) -> Result<EngineCode, EmitError>;
    /// `fn evaluate_batch(cases: Vec<Facts>, policy) -> Vec<Result<Conclusions, Error>>`:
    /// loads each case (the plan's batch loader), runs the engine and fills
    /// the batch's `Outputs` with the kept relations.
    fn evaluate_batch(&self, plan: &Plan) -> TokenStream;
    /// At most how many cases of a batch a worker builds and evaluates
    /// before their conclusions are digested (`None`: the whole batch at
    /// once); see `lawgen_runtime`'s `run_ranges`.
    fn cases_per_run(&self) -> Option<usize>;
}

/// The contents of `mod __engine`.
enum EngineCode {
    /// Items, formatted with the rest of the module.
    Tokens(TokenStream),
    /// Formatted text, written as it is: the `ascent!` program, whose rules
    /// each carry a comment naming the package rule they come from. A token
    /// stream holds no `//` comment (a doc comment would not do inside a
    /// macro: prettyplease writes an unknown macro's body as a run of
    /// tokens), so this is the one part of the module that is not tokens.
    /// The module parses as a whole in debug builds ([`module`]).
    Text(String),
}

/// Both engines keep rows as Rust tuples (with the case column, for ascent),
/// and Rust implements comparison and hashing for tuples of at most 12
/// fields: a wider predicate would be a rustc error inside the generated
/// code. Refuse it here, naming the predicate.
fn refuse_wide_predicates(program: &Program) -> Result<(), EmitError> {
    match program
        .catalog
        .preds
        .iter()
        .find(|p| p.params.len() > MAX_COMPILED_ARITY)
    {
        Some(p) => Err(EmitError::Unsupported(format!(
            "predicate `{}` has {} parameters, and compiled engines support at most {MAX_COMPILED_ARITY} \
             (a case's rows are Rust tuples): split it into narrower predicates, or evaluate the \
             package with the reference evaluator (`lawgen eval`)",
            names::comment(&p.local),
            p.params.len()
        ))),
        None => Ok(()),
    }
}

/// The module's source: `header`, then the API's items with `mod __engine`
/// between those before and after it, formatted by prettyplease.
fn module(header: String, api: api::Items, engine: EngineCode) -> Result<String, EmitError> {
    let format = |items: TokenStream| -> Result<String, EmitError> {
        let file: syn::File =
            syn::parse2(items).map_err(|e| EmitError::Format(format!("{e} at {:?}", e.span())))?;
        Ok(prettyplease::unparse(&file))
    };
    let api::Items { before, after } = api;
    // `mod __engine` is private: ascent gives `Engine` public methods
    // nothing calls (`scc_times_summary`, `relation_sizes_summary`, ...).
    // Unexported, rustc does not compile them (a quarter of the chess
    // engine's unoptimized LLVM IR). The `dead_code` lint this draws is
    // allowed by the wrappers the module is included through
    // (`include_package!`, `lawgen build`).
    let source = match engine {
        EngineCode::Tokens(engine) => format!(
            "{header}\n{}",
            format(quote!(#before mod __engine { #engine } #after))?
        ),
        // prettyplease writes items one after the other, each from the
        // start of a line, so formatting the items before and after the
        // engine apart gives the bytes it gives for the whole.
        EngineCode::Text(engine) => format!(
            "{header}\n{}mod __engine {{\n{engine}}}\n{}",
            format(before)?,
            format(after)?
        ),
    };
    // In debug builds (every test) the whole module must parse, so that a
    // mistake in the engine's text is a lawgen error here, never a rustc
    // error in a user crate.
    if cfg!(debug_assertions) {
        syn::parse_file(&source).map_err(|e| {
            EmitError::Format(format!("the module with its engine: {e} at {:?}", e.span()))
        })?;
    }
    Ok(source)
}

/// A package string inside backticks in generated docs: backticks and line
/// breaks removed (inside a code span nothing else is markdown).
fn code(s: &str) -> String {
    names::comment(s).replace('`', "'")
}

/// `#[doc]` attributes for text built by the emitter; every string from the
/// package inside it must have gone through [`names::doc`].
fn doc_attrs(text: &str) -> TokenStream {
    let lines: Vec<TokenStream> = text
        .lines()
        .map(|l| {
            let l = Literal::string(&format!(" {l}"));
            quote!(#[doc = #l])
        })
        .collect();
    quote!(#(#lines)*)
}

/// The comment lines the module starts with: generator, package, hashes,
/// the size of the lowered program and, for a non-default engine, which.
fn header(
    program: &Program,
    opts: &EmitOptions,
    from_program: Option<usize>,
    over_ascent_limit: Option<usize>,
) -> String {
    let cat = &program.catalog;
    let hash = |h: Option<&str>| names::comment(h.unwrap_or("(none given)"));
    // A package with imports: the module covers each of them (docs/reference.md#imports).
    let mut imports = String::new();
    for (i, p) in cat.packages.iter().enumerate().skip(1) {
        imports.push_str(&format!(
            "// imports: {} (semantic hash {})\n",
            names::comment(p),
            hash(cat.semantic_hashes.get(i).and_then(Option::as_deref)),
        ));
    }
    let source = match &opts.source_sha256 {
        Some(h) => format!("// source sha256: {h}\n"),
        None => String::new(),
    };
    let head = format!(
        "// @generated by lawgen {} — do not edit; regenerate from the package instead.\n\
         // package: {} {} (namespace {})\n\
         // semantic hash: {}\n\
         {source}\
         // lowered program: {} relations, {} rules, {} strata\n{}",
        env!("CARGO_PKG_VERSION"),
        names::comment(&program.package),
        names::comment(&program.version),
        names::comment(&cat.namespace),
        hash(cat.semantic_hash.as_deref()),
        program.relations.len(),
        program.rules.len(),
        program.strata.len(),
        // The default engine's modules keep the header they always had.
        match (from_program, over_ascent_limit, opts.engine) {
            (Some(limit), ..) => format!(
                "// engine: the embedded program, evaluated by the runtime ({} rules, more than \
                 the straight-line limit of {limit})\n",
                program.rules.len(),
            ),
            (None, Some(limit), _) => format!(
                "// engine: direct ({} rules, more than the Ascent limit of {limit})\n",
                program.rules.len(),
            ),
            (None, None, Engine::Ascent) => String::new(),
            (None, None, other) => format!("// engine: {other}\n"),
        },
    );
    head + &imports
}
