//! The ascent backend: a checked package → one Rust module (source text).
//!
//! The module holds (SPEC §5):
//! - one typed id per entity type (`Game(u32)`), package constants as
//!   associated constants with fixed ids;
//! - `Facts`: interns entity names, one method per input literal (`p`, `not_p`)
//!   and a `decide_j` per judgment;
//! - `Facts::evaluate(policy)`: runs the lowered program (the same
//!   [`Program`] the reference interpreter runs) as an `ascent!` program;
//! - `Conclusions`: one verdict function per institutional literal, an
//!   iterator of its concluded tuples, the judgment requests, and (with the
//!   runtime's features) `explain_*`, `to_json` and `Facts::from_json`.
//!
//! Output is deterministic: the same package gives the same bytes. Items are
//! built as tokens (quote) and formatted by prettyplease; the ascent program
//! is written as text beside them so each rule can carry a comment naming the
//! package rule it comes from (token streams cannot carry comments).

mod names;

use crate::check::strata::dependency_edges;
use crate::driver::Loaded;
use crate::model::{Lit, Model, PredId, Ty, TypeId, Value};
use crate::program::{join_order, Item, Program, RelId, Role, Section, Term};
use crate::syntax::{CmpOp, RelationKind};
use names::Namespace;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

pub use names::{camel, snake};

/// Options of [`emit`].
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    /// The module name; by default the package name in snake case
    /// (`fide.laws.chess` → `fide_laws_chess`).
    pub module_name: Option<String>,
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
}

#[derive(Debug)]
pub enum EmitError {
    /// Lowering violated one of its invariants (a lawgen bug).
    Lower(crate::lower::InternalError),
    /// The generated tokens did not parse back (a lawgen bug).
    Format(String),
}

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmitError::Lower(e) => write!(f, "{e}"),
            EmitError::Format(e) => write!(
                f,
                "internal error: generated code does not parse ({e}); please report it with the package"
            ),
        }
    }
}

impl std::error::Error for EmitError {}

/// Generates the module for a checked package.
pub fn emit(loaded: &Loaded, opts: &EmitOptions) -> Result<Emitted, EmitError> {
    let program = crate::lower::lower(&loaded.model).map_err(EmitError::Lower)?;
    let module_name = match &opts.module_name {
        Some(m) => snake(m),
        None => snake(&loaded.model.name),
    };
    let g = Gen::new(loaded, &program);
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
    let source = format!(
        "{}\n{}",
        g.header(),
        formatted.replacen(placeholder, &g.engine(), 1)
    );
    Ok(Emitted {
        module_name,
        source,
        relations: program.relations.len(),
        rules: program.rules.len(),
    })
}

/// Names and lookups shared by the parts of one module.
struct Gen<'a> {
    loaded: &'a Loaded,
    m: &'a Model,
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
    verdict_methods: HashMap<Lit, (Ident, Ident, Ident)>,
    arg_idents: Vec<Vec<Ident>>,
    /// The facts relation of each input literal, the entities relation of each type.
    facts_rel: HashMap<Lit, RelId>,
    entities_rel: HashMap<TypeId, RelId>,
    policy_rel: Option<RelId>,
    /// Judgment predicates in the dependency past of each predicate.
    judgments_before: Vec<BTreeSet<PredId>>,
}

/// A package string inside backticks in generated docs: backticks and line
/// breaks removed (inside a code span nothing else is markdown).
fn code(s: &str) -> String {
    names::comment(s).replace('`', "'")
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// An output relation and the relation subtracted from it (SPEC §3 pending).
type OutputRel = (RelId, Option<RelId>);

fn rel_ident(r: RelId) -> Ident {
    format_ident!("r{}", r.0)
}

fn set_ident(r: RelId) -> Ident {
    format_ident!("s{}", r.0)
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
    fn new(loaded: &'a Loaded, prog: &'a Program) -> Self {
        let m = &loaded.model;
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
            "SOURCE",
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
            let id = ident(&const_ns[t].claim(names::screaming(&c.local)));
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
        ]);
        let entity_methods = m
            .types
            .iter()
            .map(|t| ident(&facts_ns.claim(snake(&t.name))))
            .collect();
        let mut facts_methods = HashMap::new();
        let mut decide_methods = HashMap::new();
        let mut concl_ns = Namespace::with_reserved(&[
            "policy", "requests", "name", "explain", "to_json", "clone", "fmt",
        ]);
        let mut verdict_methods = HashMap::new();
        let mut arg_idents = Vec::new();
        for (i, p) in m.preds.iter().enumerate() {
            let pid = PredId(i as u32);
            let base = snake(&p.local);
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
                        verdict_methods.insert(l, (v, all, ex));
                    }
                }
            }
            let mut args_ns = Namespace::with_reserved(&["self", "holds", "t", "args"]);
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

        // Judgments in each predicate's past (for the requests of a pending verdict).
        let edges = dependency_edges(m);
        let mut judgments_before = vec![BTreeSet::new(); m.preds.len()];
        for (i, jb) in judgments_before.iter_mut().enumerate() {
            let mut seen = BTreeSet::from([PredId(i as u32)]);
            let mut stack = vec![PredId(i as u32)];
            while let Some(p) = stack.pop() {
                if m.pred(p).kind == RelationKind::Judgment {
                    jb.insert(p);
                }
                for e in edges.iter().filter(|e| e.to == p) {
                    if seen.insert(e.from) {
                        stack.push(e.from);
                    }
                }
            }
        }

        Gen {
            loaded,
            m,
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
        }
    }

    fn header(&self) -> String {
        let m = self.m;
        format!(
            "// @generated by lawgen {} — do not edit; regenerate from the package instead.\n\
             // package: {} {} (namespace {})\n\
             // semantic hash: {}\n\
             // source sha256: {}\n\
             // lowered program: {} relations, {} rules, {} strata\n",
            env!("CARGO_PKG_VERSION"),
            names::comment(&m.name),
            names::comment(&m.version),
            names::comment(&m.namespace),
            names::comment(m.semantic_hash.as_deref().unwrap_or("(none given)")),
            crate::syntax::hash::sha256_hex(self.loaded.source.as_bytes()),
            self.prog.relations.len(),
            self.prog.rules.len(),
            self.prog.strata.len(),
        )
    }

    fn col_type(t: Ty) -> TokenStream {
        match t {
            Ty::Int => quote!(i64),
            Ty::Entity(_) => quote!(u32),
        }
    }

    fn tuple_type(&self, r: RelId) -> TokenStream {
        let cols: Vec<TokenStream> = self
            .prog
            .relation(r)
            .columns
            .iter()
            .map(|c| Self::col_type(*c))
            .collect();
        quote!((#(#cols,)*))
    }

    /// The Rust type of a predicate column in the typed API.
    fn api_type(&self, t: Ty) -> TokenStream {
        match t {
            Ty::Int => quote!(i64),
            Ty::Entity(id) => {
                let i = &self.type_idents[id.0 as usize];
                quote!(#i)
            }
        }
    }

    /// `ascent!` relation declarations and rules, as text.
    fn engine(&self) -> String {
        let mut s = String::new();
        s.push_str("    ::ascent::ascent! {\n        pub struct Engine;\n");
        s.push_str("        relation __unit();\n        __unit();\n");
        for (i, r) in self.prog.relations.iter().enumerate() {
            let cols: Vec<&str> = r
                .columns
                .iter()
                .map(|c| match c {
                    Ty::Int => "i64",
                    Ty::Entity(_) => "u32",
                })
                .collect();
            let cols = if cols.len() == 1 {
                cols[0].to_owned()
            } else {
                cols.join(", ")
            };
            let _ = writeln!(
                s,
                "        relation r{i}({cols}); // {}",
                names::comment(&r.name)
            );
        }
        for (si, stratum) in self.prog.strata.iter().enumerate() {
            let _ = writeln!(s, "\n        // stratum {si}");
            for &ri in stratum {
                let rule = &self.prog.rules[ri];
                let _ = writeln!(s, "        // {}", names::comment(&rule.origin));
                let _ = writeln!(s, "        {}", self.rule_text(rule));
            }
        }
        s.push_str("    }\n");
        s
    }

    fn rule_text(&self, rule: &crate::program::Rule) -> String {
        // Variables used once in the whole rule are `_`.
        let mut uses: HashMap<u32, usize> = HashMap::new();
        for t in rule
            .head
            .args
            .iter()
            .chain(rule.body.iter().flat_map(|i| i.terms()))
        {
            if let Term::Var(v) = t {
                *uses.entry(*v).or_default() += 1;
            }
        }
        let term = |t: &Term, in_cmp: bool| -> String {
            match t {
                Term::Var(v) if uses[v] == 1 && !in_cmp => "_".to_owned(),
                Term::Var(v) if in_cmp => format!("*v{v}"),
                Term::Var(v) => format!("v{v}"),
                Term::Value(Value::Int(i)) if *i == i64::MIN => "i64::MIN".to_owned(),
                Term::Value(Value::Int(i)) => format!("{i}i64"),
                Term::Value(Value::Entity(e)) => format!("{}u32", self.constant_ids[e]),
            }
        };
        let atom = |a: &crate::program::Atom| -> String {
            let args: Vec<String> = a.args.iter().map(|t| term(t, false)).collect();
            format!("r{}({})", a.rel.0, args.join(", "))
        };
        let head = atom(&rule.head);
        if rule.body.is_empty() {
            return format!("{head};");
        }
        let order = join_order(&rule.body, None);
        let mut items: Vec<String> = Vec::new();
        // ascent needs a positive clause first to drive the rule.
        if !matches!(rule.body[order[0]], Item::Pos(_)) {
            items.push("__unit()".to_owned());
        }
        for &i in &order {
            items.push(match &rule.body[i] {
                Item::Pos(a) => atom(a),
                Item::Neg(a) => format!("!{}", atom(a)),
                Item::Cmp(a, op, b) => {
                    let op = match op {
                        CmpOp::Eq => "==",
                        CmpOp::Ne => "!=",
                        CmpOp::Lt => "<",
                        CmpOp::Le => "<=",
                        CmpOp::Gt => ">",
                        CmpOp::Ge => ">=",
                    };
                    format!("if {} {op} {}", term(a, true), term(b, true))
                }
            });
        }
        format!("{head} <-- {};", items.join(", "))
    }

    /// Expression turning a typed-API argument into an engine column.
    fn to_col(&self, t: Ty, arg: &Ident) -> TokenStream {
        match t {
            Ty::Int => quote!(#arg),
            Ty::Entity(_) => quote!(#arg.0),
        }
    }

    /// Expression decoding engine column `k` of tuple `t` into an [`Arg`].
    fn col_arg(t: Ty, k: usize) -> TokenStream {
        let idx = syn::Index::from(k);
        match t {
            Ty::Int => quote!(__rt::Arg::Int(t.#idx)),
            Ty::Entity(_) => quote!(__rt::entity(&self.interner, t.#idx)),
        }
    }

    fn pred_doc(&self, p: PredId) -> String {
        let pred = self.m.pred(p);
        let sig: Vec<String> = pred
            .params
            .iter()
            .map(|t| self.m.type_name(*t).to_owned())
            .collect();
        let mut d = format!("`{}({})`", code(&pred.local), code(&sig.join(", ")));
        if let Some(l) = &pred.label {
            d.push_str(" — ");
            d.push_str(&names::doc(l));
        }
        d
    }

    /// Rule docs for an institutional literal: label, strength, anchors.
    fn rules_doc(&self, l: Lit) -> String {
        let mut d = String::new();
        for r in self.m.rules_for(l) {
            let rule = self.m.rule(r);
            let strength = match rule.strength {
                crate::syntax::Strength::Strict => "strict",
                crate::syntax::Strength::Defeasible => "defeasible",
                crate::syntax::Strength::Defeater => "defeater",
            };
            let _ = write!(d, "\n\n- rule `{}` ({strength})", code(&rule.local));
            if let Some(label) = &rule.label {
                let _ = write!(d, ": {}", names::doc(label));
            }
            for f in &rule.anchors {
                let frag = &self.m.fragments[f.0 as usize];
                let _ = write!(d, "\n\n  anchor {}", names::doc(&frag.locator));
                if let Some(t) = &frag.text {
                    let q = crate::explain::anchor_quote(t, rule.label.as_deref());
                    let _ = write!(d, ": “{}”", names::doc(&q.replace('\n', " ")));
                }
            }
        }
        d
    }

    fn items(&self) -> TokenStream {
        let m = self.m;
        let name = Literal::string(&m.name);
        let version = Literal::string(&m.version);
        let hash = Literal::string(m.semantic_hash.as_deref().unwrap_or(""));
        let source = Literal::string(&self.loaded.source);
        let nrel = self.prog.relations.len();
        let nrules = self.prog.rules.len();
        let package_doc = doc_attrs(&format!(
            "The package this module was generated from: {} {}.",
            names::doc(&m.name),
            names::doc(&m.version)
        ));

        // Entity types.
        let mut types = Vec::new();
        for (i, t) in m.types.iter().enumerate() {
            let id = &self.type_idents[i];
            let mut d = format!("Entity type `{}`", code(&t.name));
            if let Some(l) = &t.label {
                d.push_str(" — ");
                d.push_str(&names::doc(l));
            }
            d.push_str(". An interned id: get one from `Facts`, or use a package constant.");
            let doc = doc_attrs(&d);
            let consts = self.type_consts[i].iter().map(|(n, c)| {
                let v = self.constant_ids[n];
                let doc = doc_attrs(&format!("The package constant `{}`.", code(n)));
                quote!(#doc pub const #c: #id = #id(#v);)
            });
            let tname = Literal::string(&t.name);
            types.push(quote! {
                #doc
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
                pub struct #id(u32);
                impl #id { #(#consts)* }
                impl ::lawgen_runtime::Entity for #id {
                    const TYPE_NAME: &'static str = #tname;
                    fn id(self) -> u32 { self.0 }
                }
            });
        }

        // Facts: fields for input relations.
        let inputs: Vec<RelId> = self
            .prog
            .relations
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r.role, Role::Facts(_) | Role::Entities(Ty::Entity(_))))
            .map(|(i, _)| RelId(i as u32))
            .collect();
        let input_fields = inputs.iter().map(|&r| {
            let f = rel_ident(r);
            let t = self.tuple_type(r);
            quote!(#f: Vec<#t>)
        });
        let input_inits = inputs.iter().map(|&r| {
            let f = rel_ident(r);
            quote!(#f: Vec::new())
        });
        let consts: Vec<Literal> = self
            .constants_in_order
            .iter()
            .map(|c| Literal::string(c))
            .collect();

        let mut facts_methods = Vec::new();
        for (i, t) in m.types.iter().enumerate() {
            let mname = &self.entity_methods[i];
            let ty = &self.type_idents[i];
            let push = self.entities_rel.get(&TypeId(i as u32)).map(|&r| {
                let f = rel_ident(r);
                quote!(self.#f.push((id,));)
            });
            let doc = doc_attrs(&format!(
                "The `{}` entity named `name` (interned; declared as an entity of the input).",
                code(&t.name)
            ));
            facts_methods.push(quote! {
                #doc
                pub fn #mname(&mut self, name: &str) -> #ty {
                    let id = self.interner.intern(name);
                    #push
                    #ty(id)
                }
            });
        }
        for (i, p) in m.preds.iter().enumerate() {
            let pid = PredId(i as u32);
            let args = &self.arg_idents[i];
            let tys: Vec<TokenStream> = p.params.iter().map(|t| self.api_type(*t)).collect();
            let cols: Vec<TokenStream> = p
                .params
                .iter()
                .zip(args)
                .map(|(t, a)| self.to_col(*t, a))
                .collect();
            match p.kind {
                RelationKind::Empirical => {
                    for negative in [false, true] {
                        let l = Lit {
                            pred: pid,
                            negative,
                        };
                        let (Some(mn), Some(&r)) =
                            (self.facts_methods.get(&l), self.facts_rel.get(&l))
                        else {
                            continue;
                        };
                        let f = rel_ident(r);
                        let what = if negative {
                            format!("States the explicit negation `~{}`: ", code(&p.local))
                        } else {
                            "States the fact ".to_owned()
                        };
                        let doc = doc_attrs(&format!("{what}{}", self.pred_doc(pid)));
                        facts_methods.push(quote! {
                            #doc
                            pub fn #mn(&mut self, #(#args: #tys),*) -> &mut Self {
                                self.#f.push((#(#cols,)*));
                                self
                            }
                        });
                    }
                }
                RelationKind::Judgment => {
                    let mn = &self.decide_methods[&pid];
                    let yes = self.facts_rel.get(&Lit {
                        pred: pid,
                        negative: false,
                    });
                    let no = self.facts_rel.get(&Lit {
                        pred: pid,
                        negative: true,
                    });
                    let (Some(&yes), Some(&no)) = (yes, no) else {
                        continue;
                    };
                    let (fy, fno) = (rel_ident(yes), rel_ident(no));
                    let auth = p
                        .external
                        .as_ref()
                        .map(|e| e.authority.clone())
                        .unwrap_or_default();
                    let doc = doc_attrs(&format!(
                        "Records the decision of {} on the judgment {}: `holds` = decided yes, `false` = decided no. Undecided judgments are requested (see `Verdict::Pending`).",
                        names::doc(&auth),
                        self.pred_doc(pid)
                    ));
                    facts_methods.push(quote! {
                        #doc
                        pub fn #mn(&mut self, #(#args: #tys,)* holds: bool) -> &mut Self {
                            if holds { self.#fy.push((#(#cols,)*)); } else { self.#fno.push((#(#cols,)*)); }
                            self
                        }
                    });
                }
                RelationKind::Institutional => {}
            }
        }

        // evaluate(): inputs into the engine, contradiction checks.
        let moves = inputs.iter().map(|&r| {
            let f = rel_ident(r);
            quote!(engine.#f = __rt::set(self.#f.clone());)
        });
        let mut contradiction_checks = Vec::new();
        for (i, p) in m.preds.iter().enumerate() {
            let pid = PredId(i as u32);
            let (Some(&pos), Some(&neg)) = (
                self.facts_rel.get(&Lit {
                    pred: pid,
                    negative: false,
                }),
                self.facts_rel.get(&Lit {
                    pred: pid,
                    negative: true,
                }),
            ) else {
                continue;
            };
            let (fp, fnn) = (rel_ident(pos), rel_ident(neg));
            let local = Literal::string(&p.local);
            let decode: Vec<TokenStream> = p
                .params
                .iter()
                .enumerate()
                .map(|(k, t)| Self::col_arg(*t, k))
                .collect();
            contradiction_checks.push(quote! {
                if let Some(t) = __rt::common(&engine.#fp, &engine.#fnn) {
                    return Err(__rt::Error::Contradiction { predicate: #local, args: vec![#(#decode),*] });
                }
            });
        }
        let set_policy = self.policy_rel.map(|r| {
            let f = rel_ident(r);
            quote!(if policy == __rt::Policy::Propagating { engine.#f = vec![()]; })
        });
        let push_arms = inputs.iter().map(|&r| {
            let f = rel_ident(r);
            let i = r.0 as usize;
            let cols = self
                .prog
                .relation(r)
                .columns
                .iter()
                .enumerate()
                .map(|(k, c)| match c {
                    Ty::Int => quote!(row[#k]),
                    Ty::Entity(_) => quote!(row[#k] as u32),
                });
            quote!(#i => self.#f.push((#(#cols,)*)),)
        });

        // Conclusions: sets of output relations, verdicts.
        let mut outputs: BTreeMap<(Lit, Section), Vec<OutputRel>> = BTreeMap::new();
        for o in &self.prog.outputs {
            outputs
                .entry((o.lit, o.section))
                .or_default()
                .push((o.rel, o.minus));
        }
        let mut set_rels: BTreeSet<RelId> = BTreeSet::new();
        for ((l, _), v) in &outputs {
            if m.pred(l.pred).kind == RelationKind::Institutional {
                for (r, minus) in v {
                    set_rels.insert(*r);
                    set_rels.extend(*minus);
                }
            }
        }
        let set_fields = set_rels.iter().map(|&r| {
            let s = set_ident(r);
            let t = self.tuple_type(r);
            quote!(#s: ::std::collections::HashSet<#t>)
        });
        let set_inits = set_rels.iter().map(|&r| {
            let s = set_ident(r);
            let f = rel_ident(r);
            quote!(#s: engine.#f.iter().cloned().collect())
        });
        let mut request_decodes = Vec::new();
        for rv in &self.prog.requests {
            let f = rel_ident(rv.rel);
            let p = m.pred(rv.lit.pred);
            let local = Literal::string(&p.local);
            let auth = Literal::string(&rv.authority);
            let cap = Literal::string(&rv.capability);
            let decode: Vec<TokenStream> = self
                .prog
                .relation(rv.rel)
                .columns
                .iter()
                .enumerate()
                .map(|(k, t)| Self::col_arg(*t, k))
                .collect();
            request_decodes.push(quote! {
                for t in &self.engine.#f {
                    out.push(__rt::Request { predicate: #local, args: vec![#(#decode),*], authority: #auth, capability: #cap });
                }
            });
        }

        let mut verdicts = Vec::new();
        for (i, p) in m.preds.iter().enumerate() {
            if p.kind != RelationKind::Institutional {
                continue;
            }
            let pid = PredId(i as u32);
            let args = &self.arg_idents[i];
            let tys: Vec<TokenStream> = p.params.iter().map(|t| self.api_type(*t)).collect();
            let cols: Vec<TokenStream> = p
                .params
                .iter()
                .zip(args)
                .map(|(t, a)| self.to_col(*t, a))
                .collect();
            let wrap: Vec<TokenStream> = p
                .params
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let idx = syn::Index::from(k);
                    match t {
                        Ty::Int => quote!(t.#idx),
                        Ty::Entity(id) => {
                            let ti = &self.type_idents[id.0 as usize];
                            quote!(#ti(t.#idx))
                        }
                    }
                })
                .collect();
            let arg_values: Vec<TokenStream> = p
                .params
                .iter()
                .zip(args)
                .map(|(t, a)| match t {
                    Ty::Int => quote!(__rt::Arg::Int(#a)),
                    Ty::Entity(_) => quote!(__rt::entity(&self.interner, #a.0)),
                })
                .collect();
            let judgments: Vec<Literal> = self.judgments_before[i]
                .iter()
                .map(|j| Literal::string(&m.pred(*j).local))
                .collect();
            for negative in [false, true] {
                let l = Lit {
                    pred: pid,
                    negative,
                };
                let (vn, alln, exn) = &self.verdict_methods[&l];
                let member = |s: Section| -> Option<TokenStream> {
                    let v = outputs.get(&(l, s))?;
                    let parts = v.iter().map(|(r, minus)| {
                        let s = set_ident(*r);
                        match minus {
                            Some(mr) => {
                                let ms = set_ident(*mr);
                                quote!((self.#s.contains(&t) && !self.#ms.contains(&t)))
                            }
                            None => quote!(self.#s.contains(&t)),
                        }
                    });
                    Some(quote!(#(#parts)||*))
                };
                // Strongest first, as `lawgen explain` ranks them.
                let branches: Vec<TokenStream> = [
                    (Section::Definitely, quote!(__rt::Verdict::Definitely)),
                    (Section::Defeasibly, quote!(__rt::Verdict::Defeasibly)),
                    (
                        Section::Pending,
                        quote!(__rt::Verdict::Pending(self.requests_on(&[#(#judgments),*]))),
                    ),
                    (Section::Supported, quote!(__rt::Verdict::SupportedOnly)),
                ]
                .into_iter()
                .filter_map(|(s, v)| member(s).map(|c| quote!(if #c { return #v; })))
                .collect();
                let lit_name = code(&m.lit_name(l));
                let doc = doc_attrs(&format!(
                    "The verdict on `{lit_name}`: {}{}",
                    self.pred_doc(pid),
                    self.rules_doc(l)
                ));
                let all_doc = doc_attrs(&format!(
                    "Every tuple for which `{lit_name}` is concluded (definitely or defeasibly), in no particular order."
                ));
                let ex_doc = doc_attrs(&format!(
                    "Explains the verdict on `{lit_name}` for these arguments (the same tree as `lawgen explain`)."
                ));
                let dfs_rel = outputs
                    .get(&(l, Section::Defeasibly))
                    .and_then(|v| v.first())
                    .map(|(r, _)| rel_ident(*r));
                let all_body = match dfs_rel {
                    Some(f) => quote!(self.engine.#f.iter().map(|t| (#(#wrap,)*))),
                    None => quote!(::std::iter::empty()),
                };
                let full_id = Literal::string(&p.id);
                verdicts.push(quote! {
                    #doc
                    pub fn #vn(&self, #(#args: #tys),*) -> __rt::Verdict {
                        let t = (#(#cols,)*);
                        #(#branches)*
                        __rt::Verdict::NotConcluded
                    }
                    #all_doc
                    pub fn #alln(&self) -> impl Iterator<Item = (#(#tys,)*)> + '_ {
                        #all_body
                    }
                    ::lawgen_runtime::__if_explain! {
                        #ex_doc
                        pub fn #exn(&self, #(#args: #tys),*) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                            let verdict = self.#vn(#(#args),*);
                            __rt::explain_literal(&PACKAGE, self.policy, &self.interner, &|r| self.__rows(r),
                                #full_id, #negative, vec![#(#arg_values),*], Some(verdict.as_str()))
                        }
                    }
                });
            }
        }

        // Rows of every relation the reference bridge asks for.
        let mut row_rels: BTreeSet<RelId> = inputs.iter().copied().collect();
        for o in &self.prog.outputs {
            row_rels.insert(o.rel);
            row_rels.extend(o.minus);
        }
        for rv in &self.prog.requests {
            row_rels.insert(rv.rel);
        }
        let row_arms = row_rels.iter().map(|&r| {
            let f = rel_ident(r);
            let i = r.0 as usize;
            let cols = self
                .prog
                .relation(r)
                .columns
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let idx = syn::Index::from(k);
                    match c {
                        Ty::Int => quote!(t.#idx),
                        Ty::Entity(_) => quote!(i64::from(t.#idx)),
                    }
                });
            quote!(#i => self.engine.#f.iter().map(|t| vec![#(#cols),*]).collect(),)
        });

        quote! {
            use ::lawgen_runtime::__private as __rt;
            pub use ::lawgen_runtime::{Arg, Error, Policy, Request, Verdict};

            #package_doc
            pub static PACKAGE: __rt::Embedded = __rt::Embedded::new(#name, #version, #hash, #nrel, #nrules, SOURCE);

            /// The package file this module was generated from, verbatim.
            pub const SOURCE: &str = #source;

            #(#types)*

            #[doc(hidden)]
            pub mod __engine {
                __lawgen_engine!();
            }

            /// The input of one evaluation: entities, facts, explicit
            /// negations and decided judgments.
            #[derive(Clone, Debug)]
            pub struct Facts {
                interner: __rt::Interner,
                #(#input_fields,)*
            }

            impl Default for Facts {
                fn default() -> Self {
                    Self::new()
                }
            }

            impl Facts {
                /// Empty facts (the package's constants are known already).
                pub fn new() -> Self {
                    Facts { interner: __rt::Interner::with_constants(&[#(#consts),*]), #(#input_inits,)* }
                }

                /// The name of an entity of these facts (`None` for an id from elsewhere).
                pub fn name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<&str> {
                    self.interner.name_of(e.id())
                }

                #(#facts_methods)*

                /// Evaluates the package on these facts under `policy`.
                /// Fails only if a fact and its explicit negation were both given.
                pub fn evaluate(&self, policy: __rt::Policy) -> Result<Conclusions, __rt::Error> {
                    let mut engine = __engine::Engine::default();
                    #(#moves)*
                    #(#contradiction_checks)*
                    #set_policy
                    engine.run();
                    Ok(Conclusions::new(engine, self.interner.clone(), policy))
                }

                #[doc(hidden)]
                pub fn __push(&mut self, rel: usize, row: &[i64]) {
                    match rel {
                        #(#push_arms)*
                        _ => {}
                    }
                }
            }

            ::lawgen_runtime::__if_serde! {
                impl Facts {
                    /// Reads a facts file (SPEC §2): keys are predicate names,
                    /// `~p` states an explicit negation; errors name the key and row.
                    pub fn from_json(bytes: &[u8]) -> Result<Facts, __rt::Error> {
                        let mut facts = Facts::new();
                        let mut rows: Vec<(usize, Vec<i64>)> = Vec::new();
                        __rt::read_facts_json(&PACKAGE, bytes, &mut facts.interner, &mut |r, row| rows.push((r, row.to_vec())))?;
                        for (r, row) in rows {
                            facts.__push(r, &row);
                        }
                        Ok(facts)
                    }
                }
            }

            /// The result of one evaluation: a verdict per ground literal.
            pub struct Conclusions {
                engine: __engine::Engine,
                interner: __rt::Interner,
                policy: __rt::Policy,
                requests: Vec<__rt::Request>,
                #(#set_fields,)*
            }

            impl Conclusions {
                fn new(engine: __engine::Engine, interner: __rt::Interner, policy: __rt::Policy) -> Self {
                    let mut c = Conclusions {
                        #(#set_inits,)*
                        engine,
                        interner,
                        policy,
                        requests: Vec::new(),
                    };
                    let mut out = Vec::new();
                    {
                        let this = &c;
                        this.collect_requests(&mut out);
                    }
                    out.sort();
                    out.dedup();
                    c.requests = out;
                    c
                }

                fn collect_requests(&self, out: &mut Vec<__rt::Request>) {
                    #(#request_decodes)*
                }

                fn requests_on(&self, judgments: &[&str]) -> Vec<__rt::Request> {
                    self.requests.iter().filter(|r| judgments.contains(&r.predicate)).cloned().collect()
                }

                /// The conflict policy this evaluation used.
                pub fn policy(&self) -> __rt::Policy {
                    self.policy
                }

                /// Every judgment the authorities are asked to decide, sorted.
                pub fn requests(&self) -> &[__rt::Request] {
                    &self.requests
                }

                /// The name of an entity (`None` for an id from other facts).
                pub fn name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<&str> {
                    self.interner.name_of(e.id())
                }

                #(#verdicts)*

                #[doc(hidden)]
                pub fn __rows(&self, rel: usize) -> Vec<Vec<i64>> {
                    match rel {
                        #(#row_arms)*
                        _ => Vec::new(),
                    }
                }
            }

            ::lawgen_runtime::__if_serde! {
                impl Conclusions {
                    /// The canonical output of SPEC §3 (what `lawgen eval` prints).
                    pub fn to_json(&self) -> Result<String, __rt::Error> {
                        __rt::canonical_json(&PACKAGE, self.policy, &self.interner, &|r| self.__rows(r))
                    }
                }
            }

            ::lawgen_runtime::__if_explain! {
                impl Conclusions {
                    /// Explains a literal given as text: `game_drawn(g1)`,
                    /// `~castling_legal(g1, white, "king side")`.
                    pub fn explain(&self, query: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                        __rt::explain(&PACKAGE, self.policy, &self.interner, &|r| self.__rows(r), query, None)
                    }
                }
            }
        }
    }
}
