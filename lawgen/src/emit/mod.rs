//! The ascent backend: a checked package → one Rust module (source text).
//!
//! The module holds (docs/reference.md#generated-code):
//! - one typed id per entity type (`Game(u32)`), package constants as
//!   associated constants with fixed ids;
//! - `Facts`: interns entity names, one method per input literal (`p`, `not_p`)
//!   and a `decide_j` per judgment;
//! - `Facts::evaluate(policy)`: runs the lowered program (the same
//!   [`Program`] the reference interpreter runs) as an `ascent!` program,
//!   once [`unfold`] has folded away its intermediate relations and
//!   [`preload`] has taken out the rules that only project what a batch
//!   loads (applied while loading);
//! - `Conclusions`: one verdict function per institutional literal, an
//!   iterator of its concluded tuples, the judgment requests, and (with the
//!   runtime's features) `explain_*`, `to_json` and `Facts::from_json`.
//!
//! Output is deterministic: the same package gives the same bytes. Items are
//! built as tokens (quote) and formatted by prettyplease; the ascent program
//! is written as text beside them so each rule can carry a comment naming the
//! package rule it comes from (token streams cannot carry comments).

mod api;
mod direct;
mod engine;
mod names;
pub mod preload;
pub mod unfold;

use crate::model::{local_name, Lit, PredId, Ty, TypeId, Value};
use crate::program::{Catalog, Program, RelId, Role, Term};
use crate::syntax::RelationKind;
use names::Namespace;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use names::{camel, snake};

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

/// Options of [`emit`].
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    /// The module name; by default the package name in snake case
    /// (`fide.laws.chess` → `fide_laws_chess`).
    pub module_name: Option<String>,
    /// The engine behind the generated API (default [`Engine::Ascent`]).
    pub engine: Engine,
    /// The language of the rustdoc taken from labels and article texts
    /// (`en`, `ru`, …): a label in that language where the node has one,
    /// otherwise its first. `None`: English where present, else the first.
    pub doc_language: Option<String>,
    /// The SHA-256 of the package file (or closure bundle) the program was
    /// lowered from, for the module's header; `None` leaves the line out.
    pub source_sha256: Option<String>,
}

/// A generated module.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// A valid Rust identifier.
    pub module_name: String,
    /// Formatted Rust items, to be included as a module body (no inner
    /// attributes; see `lawgen_runtime::include_package!`).
    pub source: String,
    /// Counts for progress reports.
    pub relations: usize,
    pub rules: usize,
    /// Per entity type of the package, in order: the `Facts` method that
    /// interns an entity of that type (`game` for `Game`).
    pub entity_methods: Vec<String>,
}

#[derive(Debug)]
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
    // Both engines keep rows as Rust tuples (with the case column, for
    // ascent), and Rust implements comparison and hashing for tuples of at
    // most 12 fields: a wider predicate would be a rustc error inside the
    // generated code. Refuse it here, naming the predicate.
    if let Some(p) = program
        .catalog
        .preds
        .iter()
        .find(|p| p.params.len() > MAX_COMPILED_ARITY)
    {
        return Err(EmitError::Unsupported(format!(
            "predicate `{}` has {} parameters, and compiled engines support at most {MAX_COMPILED_ARITY} \
             (a case's rows are Rust tuples): split it into narrower predicates, or evaluate the \
             package with the reference evaluator (`lawgen eval`)",
            names::comment(&p.local),
            p.params.len()
        )));
    }
    let module_name = match &opts.module_name {
        Some(m) => snake(m),
        None => snake(&program.package),
    };
    let mut g = Gen::new(program, opts.engine);
    g.doc_language = opts.doc_language.clone();
    g.source_sha256 = opts.source_sha256.clone();
    let items = g.items();
    let file: syn::File =
        syn::parse2(items).map_err(|e| EmitError::Format(format!("{e} at {:?}", e.span())))?;
    let formatted = prettyplease::unparse(&file);
    let placeholder = "    __lawgen_engine!();\n";
    if !formatted.contains(placeholder) {
        return Err(EmitError::Format(
            "the engine placeholder went missing".into(),
        ));
    }
    let engine = match opts.engine {
        Engine::Ascent => g.engine(),
        Engine::Direct => g.direct_engine().map_err(EmitError::Format)?,
    };
    let source = format!(
        "{}\n{}",
        g.header(),
        formatted.replacen(placeholder, &engine, 1)
    );
    // The engine text was spliced in after the parse above: in debug builds
    // (every test) the whole module must parse again, so a splice that
    // breaks it is a lawgen error here, never a rustc error in a user crate.
    if cfg!(debug_assertions) {
        syn::parse_file(&source).map_err(|e| {
            EmitError::Format(format!("the module with its engine: {e} at {:?}", e.span()))
        })?;
    }
    Ok(Emitted {
        module_name,
        source,
        relations: program.relations.len(),
        rules: program.rules.len(),
        entity_methods: g.entity_methods.iter().map(Ident::to_string).collect(),
    })
}

/// Names and lookups shared by the parts of one module.
struct Gen<'a> {
    /// Every name the module uses: the program's catalog.
    cat: &'a Catalog,
    prog: &'a Program,
    /// Entity constants (by name) → their fixed interned id.
    constant_ids: BTreeMap<String, u32>,
    constants_in_order: Vec<String>,
    type_idents: Vec<Ident>,
    /// Per type: (constant name, associated const ident).
    type_consts: Vec<Vec<(String, Ident)>>,
    facts_methods: HashMap<Lit, Ident>,
    entity_methods: Vec<Ident>,
    decide_methods: HashMap<PredId, Ident>,
    /// Per institutional literal: the verdict function, its `_all`
    /// iterator, `explain_*` and `explain_*_in`.
    verdict_methods: HashMap<Lit, (Ident, Ident, Ident, Ident)>,
    arg_idents: Vec<Vec<Ident>>,
    /// The facts relation of each input literal, the entities relation of each type.
    facts_rel: HashMap<Lit, RelId>,
    entities_rel: HashMap<TypeId, RelId>,
    policy_rel: Option<RelId>,
    /// Judgment predicates in the dependency past of each predicate.
    judgments_before: Vec<BTreeSet<PredId>>,
    /// The rules the `ascent!` program runs (`prog` unfolded, without the
    /// rules applied while loading) and the rules applied while loading.
    engine: Program,
    preload: Vec<preload::LoadRule>,
    /// Which engine's code `evaluate_batch` and `mod __engine` hold.
    engine_kind: Engine,
    /// See [`EmitOptions::doc_language`].
    doc_language: Option<String>,
    /// See [`EmitOptions::source_sha256`].
    source_sha256: Option<String>,
}

/// A package string inside backticks in generated docs: backticks and line
/// breaks removed (inside a code span nothing else is markdown).
fn code(s: &str) -> String {
    names::comment(s).replace('`', "'")
}

/// Relations whose rows come from a case's `Facts` (filled by `evaluate_batch`).
fn is_input_role(role: &Role) -> bool {
    matches!(role, Role::Facts(_) | Role::Entities(Ty::Entity(_)))
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
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

impl<'a> Gen<'a> {
    fn new(prog: &'a Program, engine_kind: Engine) -> Self {
        let m = &prog.catalog;
        // Constant ids: the package's constants, then any other entity named
        // in a rule, in first-appearance order.
        let mut constants_in_order: Vec<String> = Vec::new();
        let mut constant_ids = BTreeMap::new();
        let mut add = |n: &str| {
            if !constant_ids.contains_key(n) {
                constant_ids.insert(n.to_owned(), constants_in_order.len() as u32);
                constants_in_order.push(n.to_owned());
            }
        };
        for c in &m.constants {
            add(&c.local);
        }
        for r in &prog.rules {
            for t in r
                .head
                .args
                .iter()
                .chain(r.body.iter().flat_map(|i| i.terms()))
            {
                if let Term::Value(Value::Entity(e)) = t {
                    add(e);
                }
            }
        }
        let mut types_ns = Namespace::with_reserved(&[
            // The std prelude: generated code names these unqualified, and a
            // package type called `Vec` must not shadow them (found by the
            // differential tests).
            "Vec",
            "Option",
            "Some",
            "None",
            "Result",
            "Ok",
            "Err",
            "String",
            "Box",
            "Default",
            "Clone",
            "Copy",
            "Debug",
            "Hash",
            "Eq",
            "PartialEq",
            "Ord",
            "PartialOrd",
            "Send",
            "Sync",
            "Sized",
            "Fn",
            "FnMut",
            "FnOnce",
            "Drop",
            "Iterator",
            "IntoIterator",
            "Extend",
            "ToString",
            "ToOwned",
            "From",
            "Into",
            "TryFrom",
            "TryInto",
            "AsRef",
            "AsMut",
            "Unpin",
            "DoubleEndedIterator",
            "ExactSizeIterator",
            "FromIterator",
            "Batch",
            "Facts",
            "Conclusions",
            "Verdict",
            "Request",
            "Policy",
            "Error",
            "Arg",
            "Explanation",
            "Entity",
            "PACKAGE",
            "PROGRAM",
            "PACKAGE_NAME",
            "PACKAGE_VERSION",
            "CONSTANTS",
            "Outputs",
            "Batching",
            "evaluate_many",
            "evaluate_batch",
            "evaluate_indexed",
            "Row",
        ]);
        let type_idents: Vec<Ident> = m
            .types
            .iter()
            .map(|t| ident(&types_ns.claim(camel(&t.name))))
            .collect();
        let mut type_consts = vec![Vec::new(); m.types.len()];
        let mut const_ns: Vec<Namespace> =
            (0..m.types.len()).map(|_| Namespace::default()).collect();
        for c in &m.constants {
            let t = c.ty.0 as usize;
            // Typed API names are local names (docs/reference.md#imports), made unique by the namespace.
            let id = ident(&const_ns[t].claim(names::screaming(local_name(&c.id))));
            type_consts[t].push((c.local.clone(), id));
        }

        let mut facts_rel = HashMap::new();
        let mut entities_rel = HashMap::new();
        let mut policy_rel = None;
        for (i, r) in prog.relations.iter().enumerate() {
            let id = RelId(i as u32);
            match &r.role {
                Role::Facts(l) => {
                    facts_rel.insert(*l, id);
                }
                Role::Entities(Ty::Entity(t)) => {
                    entities_rel.insert(*t, id);
                }
                Role::PolicyPropagating => policy_rel = Some(id),
                Role::Entities(Ty::Int) | Role::Derived => {}
            }
        }

        let mut facts_ns = Namespace::with_reserved(&[
            "new",
            "evaluate",
            "from_json",
            "name",
            "default",
            "clone",
            "fmt",
            "normalize",
            "contradiction",
            "get",
            "__intern",
            "__push",
        ]);
        let entity_methods = m
            .types
            .iter()
            .map(|t| ident(&facts_ns.claim(snake(&t.name))))
            .collect();
        let mut facts_methods = HashMap::new();
        let mut decide_methods = HashMap::new();
        let mut concl_ns = Namespace::with_reserved(&[
            "policy",
            "requests",
            "name",
            "explain",
            "explain_in",
            "to_json",
            "clone",
            "fmt",
            "facts",
            "concluded_counts",
            "get",
            // Private helpers of `Conclusions`.
            "new",
            "collect_requests",
            "requests_on",
            "__rows",
        ]);
        let mut verdict_methods = HashMap::new();
        let mut arg_idents = Vec::new();
        for (i, p) in m.preds.iter().enumerate() {
            let pid = PredId(i as u32);
            // The local name even where two packages share it (then `local`
            // is the full id): the namespace makes the second one unique.
            let base = snake(local_name(&p.id));
            match p.kind {
                RelationKind::Empirical => {
                    for negative in [false, true] {
                        let l = Lit {
                            pred: pid,
                            negative,
                        };
                        if facts_rel.contains_key(&l) {
                            let n = if negative {
                                format!("not_{base}")
                            } else {
                                base.clone()
                            };
                            facts_methods.insert(l, ident(&facts_ns.claim(n)));
                        }
                    }
                }
                RelationKind::Judgment => {
                    decide_methods.insert(pid, ident(&facts_ns.claim(format!("decide_{base}"))));
                }
                RelationKind::Institutional => {
                    for negative in [false, true] {
                        let l = Lit {
                            pred: pid,
                            negative,
                        };
                        let b = if negative {
                            format!("not_{base}")
                        } else {
                            base.clone()
                        };
                        let v = ident(&concl_ns.claim(b.clone()));
                        let all = ident(&concl_ns.claim(format!("{b}_all")));
                        let ex = ident(&concl_ns.claim(format!("explain_{b}")));
                        let ex_in = ident(&concl_ns.claim(format!("explain_{b}_in")));
                        verdict_methods.insert(l, (v, all, ex, ex_in));
                    }
                }
            }
            let mut args_ns =
                Namespace::with_reserved(&["self", "holds", "t", "args", "verdict", "__verdict"]);
            arg_idents.push(
                p.params
                    .iter()
                    .enumerate()
                    .map(|(k, _)| {
                        let n = p
                            .param_names
                            .get(k)
                            .cloned()
                            .flatten()
                            .unwrap_or_else(|| format!("a{k}"));
                        ident(&args_ns.claim(snake(&n)))
                    })
                    .collect(),
            );
        }

        // Judgments in each predicate's past, whose requests a pending
        // verdict names: lowering records them on the pending sections.
        let mut judgments_before = vec![BTreeSet::new(); m.preds.len()];
        for o in &prog.outputs {
            judgments_before[o.lit.pred.0 as usize].extend(o.on.iter().copied());
        }

        // Loaded by `evaluate_batch`: the inputs and the policy flag.
        let (engine, preload) = preload::split(unfold::unfold(prog), |r| {
            let role = &prog.relation(r).role;
            is_input_role(role) || *role == Role::PolicyPropagating
        });
        Gen {
            cat: m,
            prog,
            constant_ids,
            constants_in_order,
            type_idents,
            type_consts,
            facts_methods,
            entity_methods,
            decide_methods,
            verdict_methods,
            arg_idents,
            facts_rel,
            entities_rel,
            policy_rel,
            judgments_before,
            engine,
            preload,
            engine_kind,
            doc_language: None,
            source_sha256: None,
        }
    }

    fn header(&self) -> String {
        let cat = self.cat;
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
        let source = match &self.source_sha256 {
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
            names::comment(&self.prog.package),
            names::comment(&self.prog.version),
            names::comment(&cat.namespace),
            hash(cat.semantic_hash.as_deref()),
            self.prog.relations.len(),
            self.prog.rules.len(),
            self.prog.strata.len(),
            // The default engine's modules keep the header they always had.
            match self.engine_kind {
                Engine::Ascent => String::new(),
                other => format!("// engine: {other}\n"),
            },
        );
        head + &imports
    }
}
