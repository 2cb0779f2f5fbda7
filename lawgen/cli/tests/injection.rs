//! Injection safety, as a property test.
//!
//! Hostile packages from `support/gen.rs` (`GenConfig::hostile`: predicate,
//! type, constant, rule, variable and parameter names and labels drawn from
//! random Unicode — non-BMP, combining marks, RTL and bidi controls —, Rust
//! keywords, `r#` forms, digits-first names, names that collide after
//! sanitizing, prelude and API names; labels, article texts and locators,
//! authorities, package name and version containing `*/`, `/*`, `"#`,
//! backticks and fences, `#[cfg(any())]`, newlines, `\r`,
//! `); std::process::exit(1); //`, HTML, links, URLs) go through the whole
//! pipeline. For each accepted package:
//!
//! 1. emitting is deterministic: a second load and emit, and an emit with
//!    the default module name, give the same bytes;
//! 2. the emitted module parses (syn) into the expected items — as many
//!    structs, impls and methods as the package's declarations call for, only
//!    `doc` and `derive` attributes, ASCII identifiers, no path
//!    `std::process::exit`, only generated names and integers in the ascent
//!    program — and every identifier is unique in its namespace (module types
//!    and values, each type's inherent methods and constants across its impl
//!    blocks, trait impls, parameters, fields, relations);
//! 3. the modules compile (a generated Cargo workspace under
//!    `target/injection/`, built where every generated crate of the tests is,
//!    `support::harness::generated_dir`: libraries of `include_package!` modules with
//!    `#![deny(warnings)]`, each with a binary that evaluates every facts file
//!    under both policies), and `Conclusions::to_json()` equals the
//!    interpreter's `canonical_json` byte for byte;
//!
//! all of it for the module of each engine: the Ascent module `pI` and the
//! Direct module `pI_direct` (whose engine module, like the ascent program,
//! may hold only generated names and integers, and doc comments in printable
//! ASCII), and the two modules are token for token the same besides
//! `mod __engine`, `fn evaluate_batch` and `const CASES_PER_RUN` (the typed
//! API, its names and doc comments, is the engines' common part);
//! 4. `cargo doc --no-deps --document-private-items` on the libraries
//!    succeeds with `RUSTDOCFLAGS="-D warnings"`;
//! 5. `cargo test --doc` on them passes and runs no doctest at all.
//!
//! rustdoc (4 and 5) reads the Direct modules of every library and the
//! Ascent modules of the first one only (`#[cfg(not(any(doc, doctest)))]`
//! on the others): package text reaches an Ascent module only where it is
//! the same as in the Direct module (2), so documenting every Ascent module
//! as well would check nothing more, at the cost of expanding every
//! `ascent!` program twice more.
//!
//! Packages the checker refuses are counted; fewer than 80% accepted fails
//! the test, and so does a full run in which some hostile category of the
//! issue occurs in no tested package (a generator regression must not make
//! the test vacuous). The minimized packages of the bugs it found,
//! `lawgen/cli/tests/injection/*.json` (facts in `<name>.facts.json`), run with
//! every seed.
//!
//! Environment:
//! - `LAWGEN_INJECTION_PACKAGES` — how many packages to generate (default 300;
//!   the long run in docs/testing.md takes thousands);
//! - `LAWGEN_INJECTION_SEED` — the run's seed (decimal or `0x…`); package `i`
//!   has seed `seed + i`, so `LAWGEN_INJECTION_SEED=<its seed>
//!   LAWGEN_INJECTION_PACKAGES=1` reruns one package alone;
//! - `LAWGEN_INJECTION_BATCH` — modules per generated library (default 25);
//! - `LAWGEN_INJECTION_CARGO=0` — only the in-process checks (1 and 2).
//!
//! A failing package is written to `target/injection/failures/<seed>/` with
//! its facts, its module and what went wrong, and reported with a one-line
//! reproduction.

use lawgen_test_support as support;

use lawgen::driver::{self, Loaded};
use lawgen::generate as emit;
use lawgen::internals::emit::{camel, snake, EmitOptions, KEYWORDS};
use lawgen::internals::model::Model;
use lawgen::Engine;
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::program::RelationKind;
use lawgen_runtime::Policy;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use support::gen::{generate, package_seed, GenConfig};
use support::harness::{
    blame_by_location, cargo_generated, env_num, generated_profile_toml, generated_target,
    modules_in_errors, remove_stale, secs, seed_lock_file, write_if_changed, RunLock,
};

const DEFAULT_PACKAGES: usize = 300;
const DEFAULT_SEED: u64 = 0x1_4ec7_0000_0000;
const DEFAULT_BATCH: usize = 25;
const FACTS_PER_PACKAGE: usize = 2;
/// Rules per package: few, so that hundreds of packages compile in minutes (the
/// hostile part is in the declarations, labels and texts, not the rules).
const RULES: (usize, usize) = (1, 3);
/// Empirical, judgment and institutional predicates per package (min, max).
const PREDICATES: [(usize, usize); 3] = [(2, 3), (0, 1), (2, 3)];
/// Percent chance of a hostile name or string wherever the generator has one.
const ODD_PCT: u64 = 60;
/// From this many packages on, every hostile category must occur.
const FULL_RUN: usize = 200;
/// The checker must accept at least this share of the generated packages.
const MIN_ACCEPTED_PCT: usize = 80;
const POLICIES: [(Policy, &str); 2] = [
    (Policy::Blocking, "blocking"),
    (Policy::Propagating, "propagating"),
];
/// Rounds of build, doc and doctest, each dropping the modules the last
/// round blamed.
const MAX_ROUNDS: usize = 6;

/// One cargo command of a round, and its environment.
struct Step {
    name: &'static str,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

/// A round: build (libraries and runners), rustdoc with warnings denied,
/// doctests.
const STEPS: [Step; 3] = [
    Step {
        name: "cargo build",
        args: &["build", "--release", "--workspace", "--keep-going"],
        env: &[],
    },
    Step {
        name: "cargo doc",
        args: &[
            "doc",
            "--release",
            "--workspace",
            "--no-deps",
            "--keep-going",
            "--document-private-items",
        ],
        env: &[("RUSTDOCFLAGS", "-D warnings")],
    },
    Step {
        name: "cargo test --doc",
        args: &[
            "test",
            "--doc",
            "--release",
            "--workspace",
            "--no-fail-fast",
        ],
        env: &[],
    },
];

/// One accepted package, its module and what the interpreter concludes.
struct Case {
    index: usize,
    origin: Origin,
    description: String,
    package: Vec<u8>,
    facts: Vec<Vec<u8>>,
    module: String,
    source: String,
    /// The module of the Direct engine (module `<module>_direct`).
    direct_source: String,
    /// `expected[facts file][policy]`.
    expected: Vec<[String; 2]>,
    /// Its hostile categories ([`categories`]).
    categories: BTreeSet<&'static str>,
}

/// A failure to report: which case, what, and extra files to save.
struct Failure {
    case: usize,
    what: String,
    files: Vec<(String, String)>,
}

/// One generated library (a workspace member) and the modules it includes.
struct Lib {
    dir: String,
    krate: String,
    bin: String,
}

/// Where a package comes from.
#[derive(Clone, Debug)]
enum Origin {
    /// Generated from this seed (`cfg_for`).
    Seed(u64),
    /// A regression input: `lawgen/cli/tests/injection/<name>.json`.
    File(String),
}

impl Origin {
    /// The name of its failure directory.
    fn dir_name(&self) -> String {
        match self {
            Origin::Seed(seed) => format!("{seed:#x}"),
            Origin::File(name) => name.clone(),
        }
    }

    /// A one-line reproduction.
    fn repro(&self) -> String {
        match self {
            Origin::Seed(seed) => format!(
                "LAWGEN_INJECTION_SEED={seed:#x} LAWGEN_INJECTION_PACKAGES=1 cargo test -p lawgen-cli --test injection -- --nocapture"
            ),
            Origin::File(name) => format!(
                "cargo test -p lawgen-cli --test injection -- --nocapture (lawgen/cli/tests/injection/{name}.json is part of every run)"
            ),
        }
    }
}

/// A package to run: its bytes, facts files and a description.
#[derive(Clone)]
struct Input {
    origin: Origin,
    package: Vec<u8>,
    facts: Vec<Vec<u8>>,
    description: String,
}

/// What [`prepare`] made of an input (or its panic, with the input).
enum Prepared {
    Done(Result<(Case, Vec<String>), Skip>),
    Panicked(Input, String),
}

/// Why a package is not run.
enum Skip {
    /// The checker refused it (its first error line).
    Refused(String),
}

/// Does a name fall in a category?
type NameTest = fn(&str) -> bool;

/// The hostile categories the test covers, and how to recognize them in a
/// package's names (here) or texts ([`TEXT_CATEGORIES`]): every one must
/// occur in a full run (else the generator has drifted and the test proves
/// less than it says).
const NAME_CATEGORIES: &[(&str, NameTest)] = &[
    ("keyword", |n| KEYWORDS.contains(&n)),
    ("`r#` form", |n| n.starts_with("r#")),
    ("digits first", |n| {
        n.starts_with(|c: char| c.is_ascii_digit())
    }),
    ("non-BMP", |n| n.chars().any(|c| c > '\u{ffff}')),
    ("combining mark", |n| {
        n.chars().any(|c| ('\u{300}'..='\u{36f}').contains(&c))
    }),
    ("RTL or bidi control", |n| {
        n.chars().any(|c| {
            matches!(c, '\u{590}'..='\u{6ff}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
    }),
    ("look-alike", |n| {
        !n.is_ascii() && lawgen::internals::check::lookalikes::skeleton(n).is_ascii()
    }),
    ("prelude name", |n| {
        [
            "Option", "Vec", "String", "Box", "Result", "Some", "None", "Ok", "Err",
        ]
        .contains(&n)
    }),
];
const TEXT_CATEGORIES: &[&str] = &[
    "*/",
    "/*",
    "\"#",
    "\"##",
    "`",
    "```",
    "#[cfg(any())]",
    "#![",
    "\n",
    "\r",
    "); std::process::exit(1); //",
    "<script>",
    "<details>",
    "[link](x)",
    "[broken intra-doc]",
    "https://",
    "\u{fffe}",
    "\u{1b}]",
    "\u{1b}[",
    "\u{9b}",
    "\u{202e}",
    "\u{200b}",
    "\"\"\"",
    "\\N",
];

/// XML 1.0 `Char` (https://www.w3.org/TR/xml/#charsets).
fn is_xml_char(c: char) -> bool {
    matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

/// The categories a package's names and texts fall in.
fn categories(m: &Model) -> BTreeSet<&'static str> {
    let mut names: Vec<&str> = Vec::new();
    names.extend(m.types.iter().map(|t| t.name.as_str()));
    names.extend(m.constants.iter().map(|c| c.local.as_str()));
    for p in &m.preds {
        names.push(&p.local);
        names.extend(p.param_names.iter().flatten().map(String::as_str));
    }
    for r in &m.rules {
        names.push(&r.local);
        names.extend(r.vars.iter().map(|v| v.0.as_str()));
    }
    let mut texts: Vec<&str> = vec![&m.name, &m.version];
    texts.extend(m.types.iter().filter_map(|t| t.label.as_deref()));
    texts.extend(m.preds.iter().filter_map(|p| p.label.as_deref()));
    texts.extend(m.rules.iter().filter_map(|r| r.label.as_deref()));
    for f in &m.fragments {
        texts.push(&f.locator);
        texts.extend(f.text.as_deref());
    }
    let mut out = BTreeSet::new();
    for (cat, test) in NAME_CATEGORIES {
        if names.iter().any(|n| test(n)) {
            out.insert(*cat);
        }
    }
    for cat in TEXT_CATEGORIES {
        if texts.iter().chain(&names).any(|t| t.contains(cat)) {
            out.insert(*cat);
        }
    }
    // Two predicates (or entity types) whose identifiers collide once
    // sanitized: `has-dash`, `has_dash`, `HasDash`, `has dash`.
    let preds: BTreeSet<String> = m.preds.iter().map(|p| snake(&p.local)).collect();
    let types: BTreeSet<String> = m.types.iter().map(|t| camel(&t.name)).collect();
    if preds.len() < m.preds.len() || types.len() < m.types.len() {
        out.insert("collision after sanitizing");
    }
    out
}

/// The regression inputs: `lawgen/cli/tests/injection/*.json`, each with its
/// `<name>.facts.json` if there is one (else an empty facts file).
fn corpus() -> Vec<Input> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/injection");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.strip_suffix(".json")?.to_owned();
            if name.ends_with(".facts") {
                return None;
            }
            let facts = std::fs::read(dir.join(format!("{name}.facts.json")))
                .map_or_else(|_| vec![br#"{"facts": {}}"#.to_vec()], |f| vec![f]);
            Some(Input {
                origin: Origin::File(name.clone()),
                package: std::fs::read(&p).unwrap(),
                facts,
                description: format!("regression input {name}.json"),
            })
        })
        .collect()
}

fn cfg_for(seed: u64) -> GenConfig {
    let mut cfg = GenConfig::new(seed);
    cfg.hostile = true;
    cfg.odd_pct = ODD_PCT;
    cfg.facts_files = FACTS_PER_PACKAGE;
    (cfg.min_rules, cfg.max_rules) = RULES;
    cfg.predicates = PREDICATES;
    cfg
}

fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(no message)".to_owned())
}

// -- the emitted source, read back with syn -----------------------------------

/// Item counts of one module that depend on the package's declarations only
/// through [`variable`]; what remains is the same for every package.
type Shape = BTreeMap<&'static str, i64>;

/// What the declarations add to each count: a struct, an inherent impl and an
/// `Entity` impl per entity type, an associated constant per package
/// constant, a typed `Facts` constructor per entity type, two `Facts` methods
/// per empirical predicate (`p`, `not_p`) and one per judgment (`decide_p`),
/// and eight `Conclusions` methods per institutional predicate (verdict,
/// `_all`, `explain_` and `explain_…_in` for `p` and `~p`).
fn variable(m: &Model) -> Shape {
    let kinds = |k: RelationKind| m.preds.iter().filter(|p| p.kind == k).count() as i64;
    let types = m.types.len() as i64;
    Shape::from([
        ("top-level structs", types),
        ("top-level impls", 2 * types),
        ("entity constants", m.constants.len() as i64),
        (
            "Facts methods",
            types + 2 * kinds(RelationKind::Empirical) + kinds(RelationKind::Judgment),
        ),
        (
            "Conclusions methods",
            8 * kinds(RelationKind::Institutional),
        ),
    ])
}

/// Names of one namespace; a second claim of a name is a problem.
#[derive(Default)]
struct Names(BTreeSet<String>);

impl Names {
    fn claim(&mut self, what: &str, name: &str, problems: &mut Vec<String>) {
        if !self.0.insert(name.to_owned()) {
            problems.push(format!("{what}: `{name}` is defined twice"));
        }
    }
}

/// Walks the parsed module: namespaces, attributes, counts.
#[derive(Default)]
struct Inspect {
    problems: Vec<String>,
    counts: Shape,
    types: Names,
    values: Names,
    /// Inherent impls: self type → its associated items (across all blocks).
    inherent: BTreeMap<String, Names>,
    engine: Option<TokenStream>,
    /// Whether `engine` is a Direct engine module (items, not a macro).
    direct: bool,
    /// The tokens of `macro_rules! __explain_fns`, the one macro a module
    /// defines: no package data in it, so the same in every module.
    explain_macro: Option<String>,
}

fn tokens_text(t: &impl quote::ToTokens) -> String {
    t.to_token_stream().to_string().replace(' ', "")
}

/// The items of a `::lawgen_runtime::__if_serde! { … }` or `__if_explain!`
/// wrapper (feature-gated items, always on in the generated crate).
fn feature_wrapper(mac: &syn::Macro) -> bool {
    let last = mac.path.segments.last().map(|s| s.ident.to_string());
    matches!(last.as_deref(), Some("__if_serde" | "__if_explain"))
}

impl Inspect {
    fn attrs<'x>(&mut self, attrs: impl IntoIterator<Item = &'x syn::Attribute>, at: &str) {
        for a in attrs {
            let path = tokens_text(a.path());
            let ok = match (&a.meta, path.as_str()) {
                (syn::Meta::NameValue(nv), "doc") => matches!(
                    &nv.value,
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(_),
                        ..
                    })
                ),
                (syn::Meta::List(l), "doc") => tokens_text(&l.tokens) == "hidden",
                (syn::Meta::List(_), "derive") => true,
                // The facts path without names: its small fact methods
                // and id conversions are inlined into the caller's loop.
                (syn::Meta::Path(_), "inline") => true,
                // Lints allowed by name only (`unused_variables`,
                // `clippy::let_unit_value`): nothing a package spells.
                (syn::Meta::List(l), "allow") => tokens_text(&l.tokens)
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | ',')),
                _ => false,
            };
            if !ok || !matches!(a.style, syn::AttrStyle::Outer) {
                self.problems
                    .push(format!("unexpected attribute `{}` on {at}", tokens_text(a)));
            }
        }
    }

    fn signature(&mut self, sig: &syn::Signature, at: &str) {
        let mut params = Names::default();
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                params.claim(
                    &format!("parameters of {at}"),
                    &tokens_text(&t.pat),
                    &mut self.problems,
                );
            }
        }
    }

    fn item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Use(u) => {
                self.attrs(&u.attrs, "a use");
                self.use_tree(&u.tree);
            }
            syn::Item::Static(s) => {
                self.attrs(&s.attrs, &format!("static {}", s.ident));
                self.values
                    .claim("module values", &s.ident.to_string(), &mut self.problems);
            }
            syn::Item::Const(c) => {
                self.attrs(&c.attrs, &format!("const {}", c.ident));
                self.values
                    .claim("module values", &c.ident.to_string(), &mut self.problems);
            }
            syn::Item::Fn(f) => {
                let name = f.sig.ident.to_string();
                self.attrs(&f.attrs, &format!("fn {name}"));
                self.signature(&f.sig, &format!("fn {name}"));
                self.values
                    .claim("module values", &name, &mut self.problems);
                *self.counts.entry("top-level fns").or_default() += 1;
            }
            syn::Item::Struct(s) => {
                let name = s.ident.to_string();
                self.attrs(&s.attrs, &format!("struct {name}"));
                self.types.claim("module types", &name, &mut self.problems);
                let mut fields = Names::default();
                for f in &s.fields {
                    self.attrs(&f.attrs, &format!("a field of {name}"));
                    if let Some(i) = &f.ident {
                        fields.claim(
                            &format!("fields of {name}"),
                            &i.to_string(),
                            &mut self.problems,
                        );
                    }
                }
                if matches!(s.fields, syn::Fields::Unnamed(_) | syn::Fields::Unit) {
                    // The constructor lives in the value namespace.
                    self.values
                        .claim("module values", &name, &mut self.problems);
                }
                *self.counts.entry("top-level structs").or_default() += 1;
            }
            syn::Item::Enum(e) => {
                let name = e.ident.to_string();
                self.attrs(&e.attrs, &format!("enum {name}"));
                self.types.claim("module types", &name, &mut self.problems);
                for v in &e.variants {
                    self.attrs(&v.attrs, &format!("a variant of {name}"));
                    for f in &v.fields {
                        self.attrs(&f.attrs, &format!("a field of {name}::{}", v.ident));
                    }
                }
                *self.counts.entry("top-level enums").or_default() += 1;
            }
            syn::Item::Type(t) => {
                self.attrs(&t.attrs, &format!("type {}", t.ident));
                self.types
                    .claim("module types", &t.ident.to_string(), &mut self.problems);
            }
            syn::Item::Mod(m) => {
                // The Direct engine allows the lint its rules' doc comments
                // draw (rustdoc reads no doc comment on a statement).
                let allowed = |a: &&syn::Attribute| {
                    m.ident == "__engine"
                        && matches!(a.style, syn::AttrStyle::Inner(_))
                        && tokens_text(a) == "#![allow(unused_doc_comments)]"
                };
                self.attrs(
                    m.attrs.iter().filter(|a| !allowed(a)),
                    &format!("mod {}", m.ident),
                );
                self.types
                    .claim("module types", &m.ident.to_string(), &mut self.problems);
                let body = m.content.as_ref().map(|(_, items)| items.as_slice());
                match (m.ident.to_string().as_str(), body) {
                    ("__engine", Some([syn::Item::Macro(mac)])) if self.engine.is_none() => {
                        self.engine = Some(mac.mac.tokens.clone());
                    }
                    // The Direct engine: its items are vetted token by token.
                    ("__engine", Some(items)) if self.engine.is_none() && !items.is_empty() => {
                        self.engine =
                            Some(items.iter().map(quote::ToTokens::to_token_stream).collect());
                        self.direct = true;
                    }
                    _ => self
                        .problems
                        .push(format!("unexpected module `{}`", m.ident)),
                }
            }
            syn::Item::Impl(i) => {
                self.attrs(&i.attrs, "an impl");
                // `impl __rt::Kept<Row> for Outputs`: one per row type of
                // the kept relations, which differ from package to package
                // beyond what the declarations say; not counted.
                let kept = (i.trait_.as_ref())
                    .is_some_and(|(path, _)| tokens_text(path).starts_with("__rt::Kept<"))
                    && tokens_text(&i.self_ty) == "Outputs";
                if !kept {
                    *self.counts.entry("top-level impls").or_default() += 1;
                }
                let ty = tokens_text(&i.self_ty);
                let at = format!("impl {}", tokens_text(&i.self_ty));
                let mut own = Names::default();
                for it in &i.items {
                    self.impl_item(it, &ty, i.trait_.is_none(), &mut own, &at);
                }
            }
            syn::Item::Macro(m)
                if m.ident.as_ref().is_some_and(|i| i == "__explain_fns")
                    && tokens_text(&m.mac.path) == "macro_rules" =>
            {
                self.attrs(&m.attrs, "macro_rules! __explain_fns");
                if self.explain_macro.is_some() {
                    self.problems
                        .push("`macro_rules! __explain_fns` is defined twice".to_owned());
                }
                self.explain_macro = Some(tokens_text(&m.mac.tokens));
            }
            syn::Item::Macro(m) if feature_wrapper(&m.mac) => {
                match syn::parse2::<syn::File>(m.mac.tokens.clone()) {
                    Ok(f) => {
                        for it in &f.items {
                            self.item(it);
                        }
                    }
                    Err(e) => self
                        .problems
                        .push(format!("a feature-gated block does not parse: {e}")),
                }
            }
            other => self
                .problems
                .push(format!("unexpected item `{}`", tokens_text(other))),
        }
    }

    fn use_tree(&mut self, t: &syn::UseTree) {
        match t {
            syn::UseTree::Path(p) => self.use_tree(&p.tree),
            syn::UseTree::Name(n) => {
                self.types
                    .claim("module types", &n.ident.to_string(), &mut self.problems)
            }
            syn::UseTree::Rename(r) => {
                self.types
                    .claim("module types", &r.rename.to_string(), &mut self.problems)
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t);
                }
            }
            syn::UseTree::Glob(_) => self.problems.push("a glob import".to_owned()),
        }
    }

    fn impl_item(
        &mut self,
        it: &syn::ImplItem,
        ty: &str,
        inherent: bool,
        own: &mut Names,
        at: &str,
    ) {
        let (name, attrs, what) = match it {
            syn::ImplItem::Fn(f) => {
                self.signature(&f.sig, &format!("{at}::{}", f.sig.ident));
                (f.sig.ident.to_string(), &f.attrs, "methods")
            }
            syn::ImplItem::Const(c) => (c.ident.to_string(), &c.attrs, "constants"),
            syn::ImplItem::Macro(m) if feature_wrapper(&m.mac) => {
                let parsed = syn::parse::Parser::parse2(
                    |input: syn::parse::ParseStream| {
                        let mut items = Vec::new();
                        while !input.is_empty() {
                            items.push(input.parse::<syn::ImplItem>()?);
                        }
                        Ok(items)
                    },
                    m.mac.tokens.clone(),
                );
                match parsed {
                    Ok(items) => {
                        for it in &items {
                            self.impl_item(it, ty, inherent, own, at);
                        }
                    }
                    Err(e) => self
                        .problems
                        .push(format!("a feature-gated block in {at} does not parse: {e}")),
                }
                return;
            }
            syn::ImplItem::Macro(m) if tokens_text(&m.mac.path) == "__explain_fns" => {
                // Two methods, `explain_*` and `explain_*_in`, named by its
                // fifth and sixth arguments.
                match syn::parse2::<ExplainFns>(m.mac.tokens.clone()) {
                    Ok(e) if ty == "Conclusions" && inherent && m.attrs.is_empty() => {
                        let mut params = Names::default();
                        for (a, _) in &e.args {
                            params.claim(
                                &format!("parameters of {at}::{}", e.explain),
                                &a.to_string(),
                                &mut self.problems,
                            );
                        }
                        let names = self.inherent.entry(ty.to_owned()).or_default();
                        for f in [&e.explain, &e.explain_in] {
                            names.claim(
                                &format!("{at} methods"),
                                &f.to_string(),
                                &mut self.problems,
                            );
                            *self.counts.entry("Conclusions methods").or_default() += 1;
                        }
                    }
                    Ok(_) => self
                        .problems
                        .push(format!("`__explain_fns!` where it does not belong: {at}")),
                    Err(e) => self.problems.push(format!(
                        "an `__explain_fns!` call in {at} does not parse: {e}"
                    )),
                }
                return;
            }
            other => {
                self.problems
                    .push(format!("unexpected item in {at}: `{}`", tokens_text(other)));
                return;
            }
        };
        self.attrs(attrs, &format!("{at}::{name}"));
        if inherent {
            let names = self.inherent.entry(ty.to_owned()).or_default();
            names.claim(&format!("{at} {what}"), &name, &mut self.problems);
            let key = match (ty, what) {
                ("Facts", "methods") => Some("Facts methods"),
                ("Conclusions", "methods") => Some("Conclusions methods"),
                (_, "constants") => Some("entity constants"),
                _ => None,
            };
            if let Some(k) = key {
                *self.counts.entry(k).or_default() += 1;
            }
        } else {
            own.claim(&format!("{at} {what}"), &name, &mut self.problems);
        }
    }
}

/// The arguments of one `__explain_fns!` call: the literal's text and its
/// predicate's id (string literals), whether it is negative, its verdict
/// method, the two methods it defines, and the arguments with their types
/// (each a plain type name: an entity type or `i64`).
struct ExplainFns {
    explain: syn::Ident,
    explain_in: syn::Ident,
    args: Vec<(syn::Ident, syn::Ident)>,
}

impl syn::parse::Parse for ExplainFns {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        input.parse::<syn::LitStr>()?;
        input.parse::<syn::Token![,]>()?;
        input.parse::<syn::LitStr>()?;
        input.parse::<syn::Token![,]>()?;
        input.parse::<syn::LitBool>()?;
        input.parse::<syn::Token![,]>()?;
        input.parse::<syn::Ident>()?;
        input.parse::<syn::Token![,]>()?;
        let explain = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let explain_in = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let mut args = Vec::new();
        while !input.is_empty() {
            let a = input.parse()?;
            input.parse::<syn::Token![:]>()?;
            let t = input.parse()?;
            args.push((a, t));
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(ExplainFns {
            explain,
            explain_in,
            args,
        })
    }
}

fn numbered(s: &str, prefixes: &[char]) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| prefixes.contains(&c))
        && s.len() > 1
        && cs.all(|c| c.is_ascii_digit())
}

/// Every token of the module: identifiers are ASCII and not raw, and no path
/// `std::process::exit` exists as code (doc strings and literals are single
/// tokens, comments none).
fn check_tokens(ts: TokenStream, problems: &mut Vec<String>) {
    let mut flat: Vec<String> = Vec::new();
    fn walk(ts: TokenStream, flat: &mut Vec<String>, problems: &mut Vec<String>) {
        for t in ts {
            match t {
                TokenTree::Group(g) => {
                    flat.push(String::new());
                    walk(g.stream(), flat, problems);
                    flat.push(String::new());
                }
                TokenTree::Ident(i) => {
                    let s = i.to_string();
                    if !s.is_ascii() || s.starts_with("r#") {
                        problems.push(format!("identifier `{s}` is not plain ASCII"));
                    }
                    flat.push(s);
                }
                TokenTree::Punct(p) => flat.push(p.as_char().to_string()),
                TokenTree::Literal(_) => flat.push(String::new()),
            }
        }
    }
    walk(ts, &mut flat, problems);
    let exit = ["std", ":", ":", "process", ":", ":", "exit"];
    if flat.windows(exit.len()).any(|w| w == exit) {
        problems.push("the path `std::process::exit` occurs as code".to_owned());
    }
}

/// The ascent program: generated relation names, declared once, variables
/// and integers only — no string from the package. Identifiers besides
/// `r<N>`, `v<N>`, `w<N>` must be among `words` (those of the plain
/// packages' programs; `None` while collecting them). Returns those seen.
/// With `direct`, the same of a Direct engine module, whose numbered names
/// are also loop indices `i<N>`, round bounds `l<N>`, `h<N>`, components
/// `c<N>`, row columns `x<N>`, nullary relations stored as flags `f<N>`,
/// unary ones stored as bits `U<N>` and fresh columns `d<N>`, and whose only
/// strings are doc comments (`#[doc = "…"]`: rule origins, relation names)
/// in printable ASCII, as `names::comment` writes them.
fn check_engine(
    ts: TokenStream,
    words: Option<&BTreeSet<String>>,
    direct: bool,
    problems: &mut Vec<String>,
) -> BTreeSet<String> {
    let prefixes: &[char] = if direct {
        &['r', 'v', 'w', 'i', 'l', 'h', 'c', 'x', 'f', 'U', 'd']
    } else {
        &['r', 'v', 'w']
    };
    let mut seen = BTreeSet::new();
    let mut relations = Names::default();
    let mut prev_relation = false;
    // The two tokens before this one in its group: `doc`, `=` before a doc
    // comment's string.
    let mut before: [String; 2] = Default::default();
    let mut stack = vec![ts.into_iter()];
    while let Some(top) = stack.last_mut() {
        let Some(t) = top.next() else {
            stack.pop();
            continue;
        };
        let text = match &t {
            TokenTree::Group(_) => String::new(),
            other => other.to_string(),
        };
        let doc_value = before[0] == "doc" && before[1] == "=";
        before = [std::mem::take(&mut before[1]), text];
        match t {
            TokenTree::Group(g) => {
                before = Default::default();
                stack.push(g.stream().into_iter())
            }
            TokenTree::Literal(l) if direct && doc_value => {
                let s = l.to_string();
                // A `///` comment lexes as a raw string.
                let string = s.starts_with('"') || s.starts_with("r\"") || s.starts_with("r#");
                if !(string && s.chars().all(|c| (' '..='~').contains(&c))) {
                    problems.push(format!(
                        "a doc comment {s} of the engine is not printable ASCII"
                    ));
                }
            }
            TokenTree::Ident(i) => {
                let s = i.to_string();
                if !numbered(&s, prefixes) {
                    if words.is_some_and(|w| !w.contains(&s)) {
                        problems.push(format!("unexpected identifier `{s}` in the ascent program"));
                    }
                    seen.insert(s.clone());
                }
                if prev_relation {
                    relations.claim("ascent relations", &s, problems);
                }
                prev_relation = s == "relation";
            }
            TokenTree::Literal(l) => {
                let s = l.to_string();
                if !s.starts_with(|c: char| c.is_ascii_digit()) {
                    problems.push(format!("unexpected literal {s} in the ascent program"));
                }
                prev_relation = false;
            }
            TokenTree::Punct(_) => prev_relation = false,
        }
    }
    seen
}

/// What every module must look like, learnt from plain packages.
struct Calibration {
    /// Item counts minus what the declarations add ([`variable`]).
    shape: Shape,
    /// Identifiers of the ascent program besides numbered ones.
    engine_words: BTreeSet<String>,
    /// Identifiers of the Direct engine module besides numbered ones.
    direct_words: BTreeSet<String>,
    /// The tokens of `macro_rules! __explain_fns`, the same in every module
    /// that has an institutional literal.
    explain_macro: String,
}

/// An emitted module read back.
#[derive(Default)]
struct Reading {
    problems: Vec<String>,
    /// The item counts minus what the declarations add.
    shape: Shape,
    /// The engine module's words besides numbered names.
    words: BTreeSet<String>,
    /// The tokens of every item but `mod __engine`, `fn evaluate_batch` and
    /// `const CASES_PER_RUN` (the typed API, which must be the same for
    /// both engines).
    api: Vec<String>,
    /// The tokens of `macro_rules! __explain_fns`.
    explain_macro: Option<String>,
}

/// Reads an emitted module back.
fn inspect(source: &str, model: &Model, words: Option<&BTreeSet<String>>) -> Reading {
    let file = match syn::parse_file(source) {
        Ok(f) => f,
        Err(e) => {
            return Reading {
                problems: vec![format!("the module does not parse: {e}")],
                ..Reading::default()
            }
        }
    };
    let mut ins = Inspect::default();
    if !file.attrs.is_empty() {
        ins.problems
            .push("the module has inner attributes".to_owned());
    }
    for it in &file.items {
        ins.item(it);
    }
    check_tokens(quote::ToTokens::to_token_stream(&file), &mut ins.problems);
    let direct = ins.direct;
    let engine_words = match ins.engine.take() {
        Some(e) => check_engine(e, words, direct, &mut ins.problems),
        None => {
            ins.problems.push("no engine module".to_owned());
            BTreeSet::new()
        }
    };
    let mut shape = ins.counts;
    for (k, v) in variable(model) {
        *shape.entry(k).or_default() -= v;
    }
    let api = file
        .items
        .iter()
        .filter(|it| match it {
            syn::Item::Mod(m) => m.ident != "__engine",
            syn::Item::Fn(f) => f.sig.ident != "evaluate_batch",
            syn::Item::Const(c) => c.ident != "CASES_PER_RUN",
            _ => true,
        })
        .map(|it| quote::ToTokens::to_token_stream(it).to_string())
        .collect();
    Reading {
        problems: ins.problems,
        shape,
        words: engine_words,
        api,
        explain_macro: ins.explain_macro,
    }
}

/// The modules of the golden packages (plain names, all node kinds): the
/// shape and words every hostile module must have.
fn calibrate() -> Calibration {
    let mut shapes = Vec::new();
    // `i64::MIN` and `i64::MAX` (how the extreme integers are written) occur in no golden.
    let mut engine_words: BTreeSet<String> = ["i64", "MIN", "MAX"].map(String::from).into();
    let mut direct_words = engine_words.clone();
    let mut explain_macros = BTreeSet::new();
    // Words of the Direct engine that only some packages' modules hold, so
    // the calibration packages need not show them: the unread tables of a
    // program without components (`_s`), the emptiness test of a relation
    // stored as bits, and setting a relation stored as a flag.
    direct_words.extend(["_s", "is_empty", "true"].map(String::from));
    for path in [
        "tests/ui/valid/minimal.json",
        "tests/ui/valid/hostile_but_valid_names.json",
        support::CHESS,
    ] {
        let bytes = support::read(path);
        let loaded = driver::load_bytes(&bytes, &Default::default()).unwrap();
        let e = emit(&loaded, &EmitOptions::default()).unwrap();
        let Reading {
            problems,
            shape,
            words,
            explain_macro,
            ..
        } = inspect(&e.source, loaded.model(), None);
        assert!(
            problems.is_empty(),
            "{path} (a calibration package): {problems:#?}"
        );
        explain_macros.extend(explain_macro);
        shapes.push((path, shape));
        engine_words.extend(words);
        let opts = EmitOptions::default().engine(Engine::Direct);
        let e = emit(&loaded, &opts).unwrap();
        let Reading {
            problems,
            shape,
            words,
            ..
        } = inspect(&e.source, loaded.model(), None);
        assert!(
            problems.is_empty(),
            "{path} (a calibration package, Direct): {problems:#?}"
        );
        shapes.push((path, shape));
        direct_words.extend(words);
    }
    for (path, s) in &shapes[1..] {
        assert_eq!(
            s, &shapes[0].1,
            "{path} and {} differ beyond their declarations: the expected item counts are wrong",
            shapes[0].0
        );
    }
    assert_eq!(
        explain_macros.len(),
        1,
        "the calibration modules define `__explain_fns` alike"
    );
    Calibration {
        shape: shapes.swap_remove(0).1,
        engine_words,
        direct_words,
        explain_macro: explain_macros.pop_first().unwrap(),
    }
}

// -- the pipeline, in the test process ---------------------------------------

/// Check → interpret → emit (twice) → inspect: the case and the problems
/// found.
fn prepare(index: usize, g: Input, calibration: &Calibration) -> Result<(Case, Vec<String>), Skip> {
    let loaded = driver::load_bytes(&g.package, &Default::default()).map_err(|d| {
        Skip::Refused(
            d.render()
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or("error")
                .to_owned(),
        )
    })?;
    let mut problems = Vec::new();
    let mut expected = Vec::new();
    for (k, f) in g.facts.iter().enumerate() {
        let facts = read_facts(f, &loaded.catalog).unwrap_or_else(|d| {
            panic!("the generator wrote a bad facts file {k}:\n{}", d.render())
        });
        let mut both: [String; 2] = Default::default();
        for (slot, (policy, _)) in both.iter_mut().zip(POLICIES) {
            let c = driver::evaluate(&loaded, &facts, policy)
                .expect("lowering a checked package")
                .conclusions;
            *slot = canonical_json(&c);
        }
        expected.push(both);
    }
    let module = format!("p{index}");
    let mut sources: [String; 2] = Default::default();
    let mut apis: [Vec<String>; 2] = Default::default();
    for ((slot, api), engine) in sources
        .iter_mut()
        .zip(&mut apis)
        .zip([Engine::Ascent, Engine::Direct])
    {
        let words = match engine {
            Engine::Direct => &calibration.direct_words,
            _ => &calibration.engine_words,
        };
        let (source, found, items) =
            emit_and_inspect(&g.package, &loaded, &module, engine, words, calibration);
        problems.extend(found.into_iter().map(|p| format!("{engine}: {p}")));
        *slot = source;
        *api = items;
    }
    let [source, direct_source] = sources;
    // A CI report names the package by its name and version: JUnit must
    // stay XML whatever they hold.
    let m = loaded.model();
    let junit = lawgen_cli::test::render_junit(&format!("{} {}", m.name, m.version), &[]);
    if let Some(c) = junit.chars().find(|&c| !is_xml_char(c)) {
        problems.push(format!(
            "the JUnit report carries U+{:04X}, which XML 1.0 cannot",
            c as u32
        ));
    }
    if problems.is_empty() {
        problems.extend(engines_differ_beyond_the_engine(&apis[0], &apis[1]));
    }
    let case = Case {
        index,
        origin: g.origin,
        description: g.description,
        package: g.package,
        facts: g.facts,
        module,
        source,
        direct_source,
        expected,
        categories: categories(loaded.model()),
    };
    Ok((case, problems))
}

/// Where the Ascent and the Direct module of a package differ other than in
/// what the engine decides: `mod __engine` (whose tokens [`check_engine`]
/// vets), `fn evaluate_batch` and `const CASES_PER_RUN` (how many cases
/// the engine takes per run). Everything else — every item, name,
/// signature and doc comment of the typed API — must be token for token
/// the same, which is what lets the test document and doctest the Direct
/// modules alone (and the Ascent modules of one library). `a` and `d` are
/// the Ascent and the Direct module's [`Reading::api`].
fn engines_differ_beyond_the_engine(a: &[String], d: &[String]) -> Option<String> {
    if a.len() != d.len() {
        return Some(format!(
            "the Ascent module has {} items besides its engine, the Direct module {}",
            a.len(),
            d.len()
        ));
    }
    let (i, (a, d)) = a.iter().zip(d).enumerate().find(|(_, (a, d))| a != d)?;
    let head = |s: &str| s.chars().take(200).collect::<String>();
    Some(format!(
        "the Ascent and the Direct module differ beyond their engine, at item {i}:\n  ascent: {}\n  direct: {}",
        head(a),
        head(d)
    ))
}

/// Emits `loaded` for `engine` as `module`, checks determinism and reads
/// the module back: the source and the problems found.
fn emit_and_inspect(
    package: &[u8],
    loaded: &Loaded,
    module: &str,
    engine: Engine,
    words: &BTreeSet<String>,
    calibration: &Calibration,
) -> (String, Vec<String>, Vec<String>) {
    let mut problems = Vec::new();
    let mut api = Vec::new();
    // The engine asked for, whatever the package's size.
    let opts = EmitOptions::default()
        .module_name(module)
        .engine(engine)
        .ascent_rules(usize::MAX);
    let source = match emit(loaded, &opts) {
        Ok(e) => {
            assert_eq!(e.module_name, module, "the module name option was not kept");
            e.source
        }
        Err(e) => {
            problems.push(format!("emit failed: {e}"));
            String::new()
        }
    };
    if !source.is_empty() {
        // Determinism: a fresh load (fresh hash maps), and the default module
        // name (a sanitized package name; it must not change the module).
        let again: Loaded = driver::load_bytes(package, &Default::default()).unwrap();
        let default_name = EmitOptions::default()
            .engine(engine)
            .ascent_rules(usize::MAX);
        match emit(&again, &default_name) {
            Ok(e) => {
                if e.source != source {
                    problems.push("emitting the package again gave different code".to_owned());
                }
                if syn::parse_str::<syn::Ident>(&e.module_name).is_err()
                    || !e.module_name.is_ascii()
                {
                    problems.push(format!(
                        "the default module name `{}` is not an identifier",
                        e.module_name
                    ));
                }
            }
            Err(e) => problems.push(format!("emitting again failed: {e}")),
        }
        let reading = inspect(&source, loaded.model(), Some(words));
        problems.extend(reading.problems);
        if reading
            .explain_macro
            .is_some_and(|m| m != calibration.explain_macro)
        {
            problems.push("`macro_rules! __explain_fns` is not the one lawgen writes".to_owned());
        }
        api = reading.api;
        let got = reading.shape;
        let shape = &calibration.shape;
        if problems.is_empty() && &got != shape {
            let diff: Vec<String> = shape
                .keys()
                .chain(got.keys())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .filter(|k| shape.get(*k) != got.get(*k))
                .map(|k| {
                    format!(
                        "{k}: {} more than the declarations call for, expected {}",
                        got.get(k).copied().unwrap_or(0),
                        shape.get(k).copied().unwrap_or(0)
                    )
                })
                .collect();
            problems.push(format!("unexpected items: {}", diff.join("; ")));
        }
    }
    (source, problems, api)
}

// -- the generated workspace -------------------------------------------------

const RUNNER: &str = r#"// Generated by lawgen/cli/tests/injection.rs.
use std::io::Write as _;

trait Out { fn out(self) -> String; }
impl Out for String { fn out(self) -> String { self } }
impl<E: std::fmt::Display> Out for Result<String, E> {
    fn out(self) -> String { match self { Ok(s) => s, Err(e) => format!("ERROR to_json: {e}\n") } }
}

macro_rules! case {
    ($m:ident, $files:expr) => {{
        let mut out = std::io::stdout().lock();
        for k in 0..$files {
            let path = format!("{}/data/{}/facts{k}.json", env!("CARGO_MANIFEST_DIR"), stringify!($m));
            let bytes = std::fs::read(&path).unwrap();
            for (policy, pname) in [(lawgen_runtime::Policy::Blocking, "blocking"), (lawgen_runtime::Policy::Propagating, "propagating")] {
                let text = match $m::Facts::from_json(&bytes) {
                    Ok(f) => match f.evaluate(policy) {
                        Ok(c) => c.to_json().out(),
                        Err(e) => format!("ERROR evaluate: {e}\n"),
                    },
                    Err(e) => format!("ERROR from_json: {e}\n"),
                };
                write!(out, "\u{1e}{} {k} {pname}\n{text}", stringify!($m)).unwrap();
            }
        }
    }};
}

"#;

/// Writes the workspace: library `b<k>/` holds cases `k * batch..` (those
/// not excluded; so excluding a case rebuilds only its library), with its
/// runner binary and facts files.
fn write_workspace(
    dir: &Path,
    cases: &[Case],
    excluded: &BTreeSet<usize>,
    batch: usize,
) -> Vec<Lib> {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../lawgen-runtime")
        .canonicalize()
        .unwrap();
    let mut libs: Vec<Lib> = Vec::new();
    let mut chunks: Vec<Vec<&Case>> = Vec::new();
    for (k, chunk) in cases.chunks(batch).enumerate() {
        let live: Vec<&Case> = chunk
            .iter()
            .enumerate()
            .filter(|(i, _)| !excluded.contains(&(k * batch + i)))
            .map(|(_, c)| c)
            .collect();
        if !live.is_empty() {
            libs.push(Lib {
                dir: format!("b{k}"),
                krate: format!("inj_b{k}"),
                bin: format!("run-b{k}"),
            });
            chunks.push(live);
        }
    }
    let members: Vec<String> = libs.iter().map(|l| format!("{:?}", l.dir)).collect();
    let manifest = format!(
        "# Generated by lawgen/cli/tests/injection.rs; rewritten on every run.\n\
         [workspace]\nresolver = \"2\"\nmembers = [{}]\n\n{}",
        members.join(", "),
        generated_profile_toml()
    );
    let mut keep = BTreeSet::new();
    let mut put = |path: PathBuf, bytes: &[u8]| {
        write_if_changed(&path, bytes);
        keep.insert(path);
    };
    put(dir.join("Cargo.toml"), manifest.as_bytes());
    seed_lock_file(dir);
    for (k, (lib, chunk)) in libs.iter().zip(&chunks).enumerate() {
        let root = dir.join(&lib.dir);
        // rustdoc reads the Ascent modules of the first library only: what
        // the engines' modules do not share holds no package text, and the
        // rest is the same for both (`engines_differ_beyond_the_engine`).
        let ascent_cfg = if k == 0 {
            ""
        } else {
            "#[cfg(not(any(doc, doctest)))]\n"
        };
        let manifest = format!(
            "[package]\nname = \"inj-{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\
             autobins = false\nautotests = false\nautoexamples = false\nautobenches = false\n\n\
             [lib]\npath = \"src/lib.rs\"\n\n\
             [[bin]]\nname = \"{}\"\npath = \"src/main.rs\"\ndoc = false\ntest = false\n\n\
             [dependencies]\nlawgen-runtime = {{ path = {:?} }}\n\
             ascent = {{ version = \"=0.8.1\", default-features = false }}\n",
            lib.dir,
            lib.bin,
            runtime.display().to_string()
        );
        put(root.join("Cargo.toml"), manifest.as_bytes());
        let mut lib_rs = String::from(
            "//! Generated by lawgen/cli/tests/injection.rs: hostile packages, one module each.\n\
             #![deny(warnings)]\n\n",
        );
        let mut main = String::from(RUNNER);
        let mods: Vec<String> = chunk
            .iter()
            .flat_map(|c| [c.module.clone(), format!("{}_direct", c.module)])
            .collect();
        let _ = writeln!(main, "use {}::{{{}}};\n", lib.krate, mods.join(", "));
        main.push_str("fn main() {\n");
        for c in chunk.iter() {
            let _ = writeln!(
                lib_rs,
                "{ascent_cfg}lawgen_runtime::include_package!({}, \"gen/{}.rs\");",
                c.module, c.module
            );
            // The Direct module under `direct/gen/`, so that an error in it
            // names `gen/p<N>.rs` as well.
            let _ = writeln!(
                lib_rs,
                "lawgen_runtime::include_package!({}_direct, \"direct/gen/{}.rs\");",
                c.module, c.module
            );
            let _ = writeln!(main, "    case!({}, {});", c.module, c.facts.len());
            let _ = writeln!(main, "    case!({}_direct, {});", c.module, c.facts.len());
            put(
                root.join(format!("src/gen/{}.rs", c.module)),
                c.source.as_bytes(),
            );
            put(
                root.join(format!("src/direct/gen/{}.rs", c.module)),
                c.direct_source.as_bytes(),
            );
            for (k, f) in c.facts.iter().enumerate() {
                put(root.join(format!("data/{}/facts{k}.json", c.module)), f);
                put(
                    root.join(format!("data/{}_direct/facts{k}.json", c.module)),
                    f,
                );
            }
        }
        main.push_str("}\n");
        put(root.join("src/lib.rs"), lib_rs.as_bytes());
        put(root.join("src/main.rs"), main.as_bytes());
    }
    // Libraries of an earlier, larger run go entirely.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('b') && !libs.iter().any(|l| l.dir == name) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    for l in &libs {
        remove_stale(&dir.join(&l.dir).join("src"), &keep);
        remove_stale(&dir.join(&l.dir).join("data"), &keep);
    }
    libs
}

/// The doctest counts `cargo test --doc` reports (`running N tests`, one
/// line per library).
fn doctest_counts(stdout: &str) -> Vec<usize> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("running "))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect()
}

fn save_failure(dir: &Path, c: &Case, what: &str, files: &[(String, String)]) -> PathBuf {
    let dir = dir.join(c.origin.dir_name());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.json"), &c.package).unwrap();
    for (k, f) in c.facts.iter().enumerate() {
        std::fs::write(dir.join(format!("facts{k}.json")), f).unwrap();
    }
    std::fs::write(dir.join(format!("{}.rs", c.module)), &c.source).unwrap();
    std::fs::write(
        dir.join(format!("{}_direct.rs", c.module)),
        &c.direct_source,
    )
    .unwrap();
    let readme = format!(
        "package {} of an injection run ({})\n\n{what}\n\nreproduce with\n{}\n\n\
         the interpreter side: cargo run -p lawgen-cli -- eval {}/package.json --facts {}/facts0.json\n",
        c.index,
        c.description,
        c.origin.repro(),
        dir.display(),
        dir.display(),
    );
    std::fs::write(dir.join("README.txt"), readme).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

#[test]
fn hostile_packages_compile_document_and_agree() {
    let wanted = env_num("LAWGEN_INJECTION_PACKAGES").map_or(DEFAULT_PACKAGES, |n| n as usize);
    let base = env_num("LAWGEN_INJECTION_SEED").unwrap_or(DEFAULT_SEED);
    let batch = env_num("LAWGEN_INJECTION_BATCH").map_or(DEFAULT_BATCH, |n| n.max(1) as usize);
    assert!(wanted > 0, "LAWGEN_INJECTION_PACKAGES must be positive");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the workspace root")
        .join("target/injection");
    let target = generated_target();
    let failures_dir = dir.join("failures");
    std::fs::create_dir_all(&dir).unwrap();
    let run_cargo = env_num("LAWGEN_INJECTION_CARGO") != Some(0);
    let _lock = RunLock::acquire(&dir.join(".lock"), "injection");
    let _ = std::fs::remove_dir_all(&failures_dir);

    // 1. Generate, check, interpret, emit, read the modules back.
    let t0 = Instant::now();
    let calibration = calibrate();
    let mut cases: Vec<Case> = Vec::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut refusals: BTreeMap<String, usize> = BTreeMap::new();
    let generated = (0..wanted).map(|i| {
        let seed = package_seed(base, i as u64);
        // Generation panicking is a generator bug: let it fail the test.
        let g = generate(&cfg_for(seed));
        Input {
            origin: Origin::Seed(seed),
            package: g.package,
            facts: g.facts,
            description: g.description,
        }
    });
    let inputs: Vec<Input> = generated.chain(corpus()).collect();
    let total = inputs.len();
    // In parallel (debug-built emit and syn are slow), results in input order.
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Input>>> =
        inputs.into_iter().map(|i| Mutex::new(Some(i))).collect();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let mut results: Vec<(usize, Prepared)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(slot) = slots.get(index) else {
                            break out;
                        };
                        let input = slot.lock().unwrap().take().unwrap();
                        let keep = input.clone();
                        let r =
                            catch_unwind(AssertUnwindSafe(|| prepare(index, input, &calibration)));
                        out.push((
                            index,
                            match r {
                                Ok(r) => Prepared::Done(r),
                                Err(e) => Prepared::Panicked(keep, panic_text(&*e)),
                            },
                        ));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker thread"))
            .collect()
    });
    results.sort_by_key(|r| r.0);
    for (index, result) in results {
        match result {
            Prepared::Done(Ok((case, problems))) => {
                if !problems.is_empty() {
                    failures.push(Failure {
                        case: cases.len(),
                        what: problems.join("\n"),
                        files: Vec::new(),
                    });
                }
                cases.push(case);
            }
            Prepared::Done(Err(Skip::Refused(refusal))) => {
                let code = refusal.split(':').next().unwrap_or_default().to_owned();
                *refusals.entry(code).or_default() += 1;
            }
            Prepared::Panicked(input, message) => {
                failures.push(Failure {
                    case: cases.len(),
                    what: format!("panicked: {message}"),
                    files: Vec::new(),
                });
                cases.push(Case {
                    index,
                    origin: input.origin,
                    description: input.description,
                    package: input.package,
                    facts: input.facts,
                    module: format!("p{index}"),
                    source: String::new(),
                    direct_source: String::new(),
                    expected: Vec::new(),
                    categories: BTreeSet::new(),
                });
            }
        }
    }
    let accepted = cases.len();
    let rejected: usize = refusals.values().sum();
    let t_prepare = t0.elapsed();
    eprintln!(
        "injection: {wanted} hostile packages generated (and {} regression inputs); {} accepted \
         by the checker ({rejected} refused: {refusals:?}); \
         {accepted} interpreted, emitted and read back in {}",
        total - wanted,
        total - rejected,
        secs(t_prepare)
    );
    assert!(
        (total - rejected) * 100 >= total * MIN_ACCEPTED_PCT,
        "the checker refused {rejected} of {total} hostile packages ({refusals:?}): the \
         generator has drifted, and the test would be vacuous"
    );
    if !run_cargo {
        eprintln!("injection: LAWGEN_INJECTION_CARGO=0: no generated crate is built");
    }

    // 2. Build, document and doctest the modules that passed so far; drop the
    //    ones a round blames (each a failure) and go again.
    let t1 = Instant::now();
    let mut excluded: BTreeSet<usize> = failures.iter().map(|f| f.case).collect();
    let mut rounds = 0;
    let mut timings: Vec<String> = Vec::new();
    let (libs, doctest_libs) = loop {
        let live = cases.len() - excluded.len();
        if !run_cargo || live == 0 {
            break (Vec::new(), Vec::new());
        }
        rounds += 1;
        let libs = write_workspace(&dir, &cases, &excluded, batch);
        eprintln!(
            "injection: round {rounds}: {live} modules in {} libraries ({})",
            libs.len(),
            dir.display()
        );
        let mut blamed: BTreeMap<usize, (String, String)> = BTreeMap::new();
        let mut doctests = Vec::new();
        for &Step {
            name: step,
            args,
            env,
        } in &STEPS
        {
            let t = Instant::now();
            let out = cargo_generated(&dir, args, env);
            timings.push(format!("{step} {}", secs(t.elapsed())));
            let text = format!("{}\n{}", out.stderr, out.stdout);
            let mut found: BTreeMap<usize, String> = blame_by_location(&text);
            if step == "cargo test --doc" {
                doctests = doctest_counts(&out.stdout);
                // Any doctest at all is a label that opened a code block.
                for line in out.stdout.lines().filter(|l| l.starts_with("test ")) {
                    for m in modules_in_errors(line) {
                        found
                            .entry(m)
                            .or_insert_with(|| format!("a doctest exists: {line}"));
                    }
                }
            }
            if out.success && found.is_empty() {
                continue;
            }
            if found.is_empty() {
                panic!(
                    "{step} failed on the generated workspace {} and no generated module is to blame:\n{}",
                    dir.display(),
                    support::harness::tail(&text, 200)
                );
            }
            for (m, head) in found {
                blamed
                    .entry(m)
                    .or_insert((format!("{step}: {head}"), text.clone()));
            }
            break;
        }
        if blamed.is_empty() {
            break (libs, doctests);
        }
        let mut newly = Vec::new();
        for (m, (what, text)) in blamed {
            let Some(i) = cases.iter().position(|c| c.index == m) else {
                continue;
            };
            if excluded.insert(i) {
                newly.push(cases[i].module.clone());
                failures.push(Failure {
                    case: i,
                    what,
                    files: vec![("cargo-output.txt".to_owned(), text)],
                });
            }
        }
        assert!(
            !newly.is_empty() && rounds < MAX_ROUNDS,
            "round {rounds} blamed no new module (or too many rounds); see {}",
            failures_dir.display()
        );
        eprintln!(
            "injection: {} module(s) fail ({}); going again without them",
            newly.len(),
            newly.join(", ")
        );
    };
    let t_cargo = t1.elapsed();
    assert_eq!(
        doctest_libs.len(),
        libs.len(),
        "`cargo test --doc` reported {} doctest runs for {} libraries",
        doctest_libs.len(),
        libs.len()
    );
    assert!(
        doctest_libs.iter().all(|&n| n == 0),
        "doctests ran: {doctest_libs:?}"
    );

    // 3. Run the binaries and compare with the interpreter.
    let t2 = Instant::now();
    let mut actual: BTreeMap<(String, usize, String), String> = BTreeMap::new();
    for l in &libs {
        actual.extend(support::harness::run_results(
            &target.join("release").join(&l.bin),
        ));
    }
    let t_run = t2.elapsed();
    let mut compared = 0;
    for (i, c) in cases.iter().enumerate() {
        if excluded.contains(&i) || !run_cargo {
            continue;
        }
        let mut files = Vec::new();
        let mut what = String::new();
        for (engine, module) in [
            (Engine::Ascent, c.module.clone()),
            (Engine::Direct, format!("{}_direct", c.module)),
        ] {
            for (k, both) in c.expected.iter().enumerate() {
                for (want, (_, pname)) in both.iter().zip(POLICIES) {
                    let key = (module.clone(), k, pname.to_owned());
                    let got = actual
                        .get(&key)
                        .unwrap_or_else(|| panic!("no output for {module} facts{k} {pname}"));
                    compared += 1;
                    if got != want {
                        let _ = writeln!(
                            what,
                            "facts{k}.json, policy {pname}: the {engine} module's output differs from the interpreter's"
                        );
                        files.push((format!("expected-facts{k}-{pname}.json"), want.clone()));
                        files.push((
                            format!("actual-facts{k}-{pname}-{engine}.json"),
                            got.clone(),
                        ));
                    }
                }
            }
        }
        if !files.is_empty() {
            failures.push(Failure {
                case: i,
                what,
                files,
            });
        }
    }

    // Which hostile categories the tested packages covered.
    let mut coverage: BTreeMap<&str, usize> = NAME_CATEGORIES
        .iter()
        .map(|c| c.0)
        .chain(TEXT_CATEGORIES.iter().copied())
        .chain(["collision after sanitizing"])
        .map(|c| (c, 0))
        .collect();
    for (i, c) in cases.iter().enumerate() {
        if !excluded.contains(&i) {
            for cat in &c.categories {
                *coverage.get_mut(cat).unwrap() += 1;
            }
        }
    }
    let missing: Vec<&str> = coverage
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(c, _)| *c)
        .collect();

    let mut report = Vec::new();
    for f in &failures {
        let c = &cases[f.case];
        let saved = save_failure(&failures_dir, c, &f.what, &f.files);
        report.push(format!(
            "  package {} ({}): {}\n    saved in {}\n    reproduce: {}",
            c.index,
            c.description,
            f.what.trim_end().replace('\n', "; "),
            saved.display(),
            c.origin.repro()
        ));
    }
    support::harness::report(&format!(
        "injection: seed {base:#x}; {total} hostile packages ({wanted} generated), {rejected} refused \
         by the checker, {accepted} tested; {compared} outputs compared; \
         {} doctests; {} failures\n  \
         timings: prepare {}, cargo {} ({rounds} round(s), {} libraries of {batch} modules: {}), run {}",
        doctest_libs.iter().sum::<usize>(),
        failures.len(),
        secs(t_prepare),
        secs(t_cargo),
        libs.len(),
        timings.join(", "),
        secs(t_run),
    ));
    support::harness::report(&format!(
        "  tested packages per hostile category: {coverage:?}"
    ));
    assert!(
        wanted < FULL_RUN || missing.is_empty(),
        "no tested package has {missing:?}: the generator no longer produces them"
    );
    assert!(
        failures.is_empty(),
        "{} hostile package(s) fail:\n{}",
        failures.len(),
        report.join("\n")
    );
    if run_cargo {
        let outputs: usize = cases
            .iter()
            .enumerate()
            .filter(|(i, _)| !excluded.contains(i))
            .map(|(_, c)| c.facts.len() * POLICIES.len() * 2)
            .sum();
        assert_eq!(compared, outputs, "outputs compared");
    }
}

#[test]
fn an_error_blames_the_module_of_its_primary_location() {
    let stderr = "\
error[E0277]: the trait bound `Verdict: lawgen_runtime::Entity` is not satisfied
   --> b20/src/gen/p502.rs:374:20
    |
help: the following other types implement trait `lawgen_runtime::Entity`
   --> b20/src/gen/p501.rs:36:1
    | ^^^ `p501::Thing`
error: comparison is useless due to type limits
   --> b20/src/gen/p501.rs:202:63
error: could not compile `inj-b20` (lib) due to 2 previous errors
";
    let blamed = blame_by_location(stderr);
    assert_eq!(blamed.keys().copied().collect::<Vec<_>>(), [501, 502]);
    assert!(blamed[&502].starts_with("error[E0277]"));
    assert!(blamed[&501].starts_with("error: comparison is useless"));
    let doctests = "running 0 tests\n\ntest result: ok.\nrunning 2 tests\n";
    assert_eq!(doctest_counts(doctests), [0, 2]);
}

/// The two engines' modules are compared beyond their engine: the same
/// package's modules agree, and a doc comment changed in one is reported.
#[test]
fn the_engines_typed_apis_are_compared_token_for_token() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ui/valid/minimal.json");
    let loaded = driver::load_bytes(&std::fs::read(path).unwrap(), &Default::default()).unwrap();
    let read = |engine: Engine, edit: &dyn Fn(String) -> String| {
        let opts = EmitOptions::default().engine(engine);
        let source = edit(emit(&loaded, &opts).unwrap().source);
        inspect(&source, loaded.model(), None).api
    };
    let ascent = read(Engine::Ascent, &|s| s);
    let direct = read(Engine::Direct, &|s| s);
    assert!(ascent.len() > 10, "{} items", ascent.len());
    assert_eq!(engines_differ_beyond_the_engine(&ascent, &direct), None);
    let edited = read(Engine::Direct, &|s| s.replacen("/// ", "/// [x](y) ", 1));
    let found = engines_differ_beyond_the_engine(&ascent, &edited).expect("a difference");
    assert!(
        found.starts_with("the Ascent and the Direct module differ beyond their engine, at item"),
        "{found}"
    );
}
