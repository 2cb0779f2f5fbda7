//! The typed API around the engine: entity types, `Facts`, batch
//! evaluation, `Conclusions` (docs/reference.md#generated-code). Built as tokens; every package
//! string is either a `Literal::string` or has gone through `names`.

use super::names::ApiNames;
use super::plan::{column_type, out_ident, Plan};
use super::split;
use super::{code, doc_attrs, names, EmitOptions};
use crate::program::{default_label, Catalog, Program, RelId, Role, Section};
use crate::program::{Lit, PredId, Ty, TypeId};
use crate::program::{RelationKind, Strength};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// An output relation and the relation subtracted from it (for `pending`).
type OutputRel = (RelId, Option<RelId>);

/// A method of the typed input (`Case`, `Facts`) and `Columns` field.
struct InputMethod {
    name: Ident,
    doc: String,
    /// Its typed arguments (a decision's `holds` comes after them).
    params: Vec<(Ident, Ty)>,
    kind: InputKind,
}

/// The rows an input method states.
#[derive(Clone, Copy, PartialEq, Eq)]
enum InputKind {
    /// A row of an input literal's facts relation.
    Fact(RelId),
    /// A judgment's decision: a row of the first if it holds, else the second.
    Decide(RelId, RelId),
    /// A row of a type's entities relation (a declared entity).
    Entity(RelId),
    /// A type with no entities relation (no rule needs its domain): a
    /// declaration states no row.
    Nothing,
}

fn index(k: usize) -> syn::Index {
    syn::Index::from(k)
}

/// The typed API's items: those before `mod __engine` and those after it.
pub(super) struct Items {
    pub before: TokenStream,
    pub after: TokenStream,
}

/// Writes the typed API of one module.
pub(super) struct Api<'a> {
    plan: &'a Plan<'a>,
    /// The lowered program, and its catalog: every name the module uses.
    prog: &'a Program,
    cat: &'a Catalog,
    names: &'a ApiNames,
    /// Judgments in the dependency past of each predicate, whose requests a
    /// pending verdict names.
    judgments_before: Vec<BTreeSet<PredId>>,
    /// See [`EmitOptions::doc_language`].
    doc_language: Option<&'a str>,
}

impl<'a> Api<'a> {
    pub(super) fn new(plan: &'a Plan<'a>, names: &'a ApiNames, opts: &'a EmitOptions) -> Self {
        let prog = plan.program;
        // Lowering records the judgments on the pending sections.
        let mut judgments_before = vec![BTreeSet::new(); prog.catalog.preds.len()];
        for o in &prog.outputs {
            judgments_before[o.lit.pred.0 as usize].extend(o.on.iter().copied());
        }
        Api {
            plan,
            prog,
            cat: &prog.catalog,
            names,
            judgments_before,
            doc_language: opts.doc_language.as_deref(),
        }
    }

    /// The API's items, around `evaluate_batch` and `CASES_PER_RUN`, the
    /// engine's.
    pub(super) fn items(&self, evaluate_batch: TokenStream) -> Items {
        let header = self.package_items();
        let types = self.entity_types();
        let facts = self.facts_items();
        let batch = self.batch_items(evaluate_batch);
        let conclusions = self.conclusions_items();
        Items {
            before: quote! {
                #header
                #(#types)*
            },
            after: quote! {
                #facts
                #batch
                #conclusions
            },
        }
    }

    // -- shared helpers -----------------------------------------------------

    fn col_type(t: Ty) -> TokenStream {
        let t = format_ident!("{}", column_type(t));
        quote!(#t)
    }

    /// `(t.1, t.2, …)`: an engine tuple without its case id.
    fn without_case(&self, r: RelId) -> TokenStream {
        let cols = (1..=self.prog.relation(r).columns.len()).map(|k| {
            let i = index(k);
            quote!(t.#i)
        });
        quote!((#(#cols,)*))
    }

    /// The Rust type of a predicate column in the typed API.
    fn api_type(&self, t: Ty) -> TokenStream {
        match t {
            Ty::Int => quote!(i64),
            Ty::Entity(id) => {
                let i = &self.names.types[id.0 as usize];
                quote!(#i)
            }
        }
    }

    /// Expression turning a typed-API argument into an engine column.
    fn to_col(t: Ty, arg: &Ident) -> TokenStream {
        match t {
            Ty::Int => quote!(#arg),
            Ty::Entity(_) => quote!(#arg.0),
        }
    }

    /// Expression decoding column `k` of tuple `t` into an `Arg`, given an
    /// expression for the case's names.
    fn col_arg(&self, t: Ty, k: usize, names: &TokenStream) -> TokenStream {
        let idx = index(k);
        match t {
            Ty::Int => quote!(__rt::Arg::Int(t.#idx)),
            Ty::Entity(id) => {
                let n = Literal::string(&self.cat.types[id.0 as usize].name);
                quote!(__rt::entity(#names, #n, t.#idx))
            }
        }
    }

    /// The label rustdoc shows: in the module's doc language when asked
    /// for and the node has one, else `default` (English, else the first).
    fn doc_label<'l>(
        &self,
        labels: &'l [crate::program::Label],
        default: Option<&'l str>,
    ) -> Option<&'l str> {
        match self.doc_language {
            Some(lang) => crate::program::label_in(labels, lang),
            None => default,
        }
    }

    /// What an input deprecation of the package says of `p`
    /// (docs/reference.md#deprecated-inputs), as a sentence to append to
    /// its method's doc; empty for an input no deprecation names.
    fn deprecation_doc(&self, p: PredId) -> String {
        let Some(d) = self.cat.deprecations.iter().find(|d| d.pred == p) else {
            return String::new();
        };
        let instead: Vec<String> = d
            .replaced_by
            .iter()
            .map(|q| format!("`{}`", code(&self.cat.pred(*q).local)))
            .collect();
        match d.one_per {
            None => format!(" Deprecated: state {} instead.", instead.join(", ")),
            Some(t) => format!(
                " Valid for one `{}` per case: in a case holding several, state {} instead.",
                code(self.cat.type_name(Ty::Entity(t))),
                instead.join(", ")
            ),
        }
    }

    fn pred_doc(&self, p: PredId) -> String {
        let pred = self.cat.pred(p);
        let sig: Vec<String> = pred
            .params
            .iter()
            .map(|t| self.cat.type_name(*t).to_owned())
            .collect();
        let mut d = format!("`{}({})`", code(&pred.local), code(&sig.join(", ")));
        if let Some(l) = self.doc_label(&pred.labels, default_label(&pred.labels)) {
            d.push_str(" — ");
            d.push_str(&names::doc(l));
        }
        d
    }

    /// Rule docs for an institutional literal: label, strength, anchors.
    fn rules_doc(&self, l: Lit) -> String {
        let mut d = String::new();
        for (_, rule) in self.cat.rules_for(l) {
            let strength = match rule.strength {
                Strength::Strict => "strict",
                Strength::Defeasible => "defeasible",
                Strength::Defeater => "defeater",
            };
            let _ = write!(d, "\n\n- rule `{}` ({strength})", code(&rule.local));
            let label = self.doc_label(&rule.labels, default_label(&rule.labels));
            if let Some(label) = label {
                let _ = write!(d, ": {}", names::doc(label));
            }
            for frag in &rule.anchors {
                let _ = write!(d, "\n\n  anchor {}", names::doc(&frag.locator));
                if let Some(t) = self.doc_label(&frag.texts, default_label(&frag.texts)) {
                    let q = crate::explain::anchor_quote(t, label);
                    let _ = write!(d, ": “{}”", names::doc(&q.replace('\n', " ")));
                }
            }
        }
        d
    }

    /// `self`'s rows of relation `r`, as tuples without the case column.
    fn case_rows(&self, r: RelId) -> TokenStream {
        if self.plan.is_input(r) {
            let rel = r.0;
            let cols = self.plan.fact_columns(r);
            let t = quote!((#(#cols,)*));
            quote!(self.batch.input.rows(self.case as usize).iter().filter(|(r, _)| *r == #rel).map(|(_, v)| #t))
        } else {
            let o = out_ident(r);
            let t = self.without_case(r);
            quote!(self.batch.out.#o.case(self.case).iter().map(|t| #t))
        }
    }

    /// The number of `self`'s rows in kept relation `r`.
    fn case_count(&self, r: RelId) -> TokenStream {
        let o = out_ident(r);
        quote!(self.batch.out.#o.count(self.case))
    }

    fn outputs_by_lit(&self) -> BTreeMap<(Lit, Section), Vec<OutputRel>> {
        let mut outputs: BTreeMap<(Lit, Section), Vec<OutputRel>> = BTreeMap::new();
        for o in &self.prog.outputs {
            outputs
                .entry((o.lit, o.section))
                .or_default()
                .push((o.rel, o.minus));
        }
        outputs
    }

    // -- items ----------------------------------------------------------------

    fn package_items(&self) -> TokenStream {
        let m = self.cat;
        let name = Literal::string(&self.prog.package);
        let version = Literal::string(&self.prog.version);
        let hash = Literal::string(m.semantic_hash.as_deref().unwrap_or(""));
        // The lowered program the engine was generated from, as data: what
        // facts files, the canonical output and explanations read at run
        // time (no package text, no compiler), deflated.
        let program = raw_string(&self.prog.embed());
        let generator = Literal::string(env!("CARGO_PKG_VERSION"));
        let doc = doc_attrs(&format!(
            "The package this module was generated from: {} {}.",
            names::doc(&self.prog.package),
            names::doc(&self.prog.version)
        ));
        let constants = &self.plan.constants.in_order;
        let consts = constants.iter().map(|c| Literal::string(c));
        let first = constants.len() as u32;
        let const_names: Vec<&str> = constants.iter().map(String::as_str).collect();
        let type_names: Vec<&str> = self.cat.types.iter().map(|t| t.name.as_str()).collect();
        let separator = Literal::string(&lawgen_runtime::__private::Nameless::separator(
            &const_names,
            &type_names,
        ));
        let const_arms = constants.iter().enumerate().map(|(i, c)| {
            let lit = Literal::string(c);
            let id = i as u32;
            quote!(#lit => Some(#id),)
        });
        quote! {
            use ::lawgen_runtime::__private as __rt;
            pub use ::lawgen_runtime::{Arg, Batching, Error, Policy, Request, Verdict};

            #doc
            pub static PACKAGE: __rt::Embedded = __rt::Embedded::new(#name, #version, #hash, #generator, PROGRAM);

            /// The lowered program this module runs, encoded by `lawgen-runtime`
            /// (its JSON deflated, in base64; read by `Facts::from_json`,
            /// `Conclusions::to_json` and `explain*`).
            const PROGRAM: &str = #program;

            /// The package's name.
            pub const PACKAGE_NAME: &str = #name;

            /// The package's version.
            pub const PACKAGE_VERSION: &str = #version;

            /// Entity names with fixed ids: the package's constants.
            static CONSTANTS: &[&str] = &[#(#consts),*];

            /// The fixed id of a constant's name.
            fn constant_id(name: &str) -> Option<u32> {
                match name {
                    #(#const_arms)*
                    _ => None,
                }
            }

            /// The id of a case's first own entity: the constants' ids come
            /// before it.
            const FIRST_ID: u32 = #first;

            /// How conclusions name the entities of a nameless case: a
            /// constant by its name, every other entity `Type#index`.
            static NAMELESS: __rt::Nameless = __rt::Nameless::new(CONSTANTS, constant_id, #separator);
        }
    }

    fn entity_types(&self) -> Vec<TokenStream> {
        let m = self.cat;
        let mut types = Vec::new();
        for (i, t) in m.types.iter().enumerate() {
            let id = &self.names.types[i];
            let mut d = format!("Entity type `{}`", code(&t.name));
            if let Some(l) = self.doc_label(&t.labels, default_label(&t.labels)) {
                d.push_str(" — ");
                d.push_str(&names::doc(l));
            }
            d.push_str(
                ". An entity id: from `Facts` (which names it), from `from_index` (a \
                 nameless `Case`), or a package constant.",
            );
            let doc = doc_attrs(&d);
            let consts = self.names.type_consts[i].iter().map(|(n, c)| {
                let v = self.plan.constants.id(n);
                let doc = doc_attrs(&format!("The package constant `{}`.", code(n)));
                quote!(#doc pub const #c: #id = #id(#v);)
            });
            let tname = Literal::string(&t.name);
            types.push(quote! {
                #doc
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
                pub struct #id(u32);
                impl #id {
                    #(#consts)*

                    /// The entity with index `index` of a nameless case
                    /// ([`Case`], [`Columns`]): the caller numbers each type's
                    /// entities of a case densely from 0, and conclusions call
                    /// this one `Type#index`. An index too large for a case to
                    /// hold gives an id with which the case fails to evaluate.
                    #[inline]
                    pub const fn from_index(index: u32) -> Self {
                        #id(__rt::id_of_index(FIRST_ID, index))
                    }

                    /// The entity's index in its case (`None` for a package
                    /// constant). In a `Facts`, the order it was named in
                    /// among all types.
                    #[inline]
                    pub const fn index(self) -> Option<u32> {
                        __rt::index_of_id(FIRST_ID, self.0)
                    }
                }
                impl ::lawgen_runtime::Entity for #id {
                    const TYPE_NAME: &'static str = #tname;
                    fn id(self) -> u32 { self.0 }
                    fn __from_id(id: u32) -> Self { #id(id) }
                }
            });
        }
        types
    }

    /// The package's dated law (docs/reference.md#as-of-evaluation), built
    /// once from tables, and the in-force inputs a case's date sets.
    fn law_items(&self) -> TokenStream {
        let law = &self.cat.law;
        let works = law.works.iter().map(|w| {
            let (id, local, req) = (
                Literal::string(&w.id),
                Literal::string(&w.local),
                w.required,
            );
            quote!((#id, #local, #req))
        });
        let editions = law.editions.iter().map(|e| {
            let (id, local, work) = (Literal::string(&e.id), Literal::string(&e.local), e.work);
            let inf = e.in_force.iter().map(|d| Literal::u32_unsuffixed(d.0));
            let rep = e.repealed.iter().map(|d| Literal::u32_unsuffixed(d.0));
            quote!((#id, #local, #work, &[#(#inf),*], &[#(#rep),*]))
        });
        let gates = law.gates.iter().map(|g| {
            let any = g.any.iter();
            let none = g.none.iter().map(|s| {
                let s = s.iter();
                quote!(&[#(#s),*])
            });
            quote!((&[#(#any),*], &[#(#none),*]))
        });
        let mut in_force = vec![0u32; law.gates.len()];
        let mut as_of = None;
        for (i, r) in self.prog.relations.iter().enumerate() {
            match r.role {
                Role::InForce(k) => in_force[k as usize] = i as u32,
                Role::AsOf => as_of = Some(i as u32),
                _ => {}
            }
        }
        let as_of = match as_of {
            Some(r) => quote!(Some(#r)),
            None => quote!(None),
        };
        let width = self.row_width();
        quote! {
            /// The works with dated editions: id, local name, whether a rule is anchored to one.
            static LAW_WORKS: &[__rt::WorkRow] = &[#(#works),*];
            /// The dated editions: id, local name, work, in force and repeal dates.
            static LAW_EDITIONS: &[__rt::EditionRow] = &[#(#editions),*];
            /// The conditions of the in-force inputs.
            static LAW_GATES: &[__rt::GateRow] = &[#(#gates),*];
            /// The input relation of each condition.
            static IN_FORCE_RELS: &[u32] = &[#(#in_force),*];
            /// The input relation of a case's date, if the package dates anything.
            const AS_OF_REL: Option<u32> = #as_of;

            /// The package's dated law, built on first use.
            fn law() -> &'static __rt::Law {
                static LAW: ::std::sync::OnceLock<__rt::Law> = ::std::sync::OnceLock::new();
                LAW.get_or_init(|| __rt::Law::from_tables(LAW_WORKS, LAW_EDITIONS, LAW_GATES))
            }

            /// Is `r` a relation a case's date sets?
            fn is_date_rel(r: u32) -> bool {
                AS_OF_REL == Some(r) || IN_FORCE_RELS.contains(&r)
            }

            /// The in-force inputs of the package's current date (what a
            /// case without a date starts with; none for a package with one
            /// edition per work).
            fn default_in_force() -> &'static [Row] {
                static ROWS: ::std::sync::OnceLock<Vec<Row>> = ::std::sync::OnceLock::new();
                ROWS.get_or_init(|| match law().on(None) {
                    Ok(f) => f.gates.iter().zip(IN_FORCE_RELS).filter(|(on, _)| **on).map(|(_, &r)| (r, [0; #width])).collect(),
                    Err(_) => Vec::new(),
                })
            }
        }
    }

    /// Width of a `Facts` row: the largest input arity (at least 1).
    fn row_width(&self) -> usize {
        self.plan
            .inputs
            .iter()
            .map(|&r| self.prog.relation(r).columns.len())
            .max()
            .unwrap_or(0)
            .max(1)
    }

    /// `(R, [c0, c1, 0, …])`: a `Facts` row of input relation `r`.
    fn row_expr(&self, r: RelId, cols: &[TokenStream]) -> TokenStream {
        let rel = r.0;
        let types = &self.prog.relation(r).columns;
        let mut vals: Vec<TokenStream> = cols
            .iter()
            .zip(types)
            .map(|(c, t)| match t {
                Ty::Int => quote!(#c),
                Ty::Entity(_) => quote!(i64::from(#c)),
            })
            .collect();
        vals.resize(self.row_width(), quote!(0));
        quote!((#rel, [#(#vals),*]))
    }

    /// Every method of the typed input: per entity type with an entities
    /// relation its declaration, per input literal its fact method, per
    /// judgment its `decide_` method; in the order `Facts` has always
    /// listed them.
    fn input_methods(&self) -> Vec<InputMethod> {
        let m = self.cat;
        let mut out = Vec::new();
        for (i, t) in m.types.iter().enumerate() {
            let ty = TypeId(i as u32);
            out.push(InputMethod {
                name: self.names.entity_methods[i].clone(),
                doc: format!(
                    "Declares the `{}` entity `entity` (it counts for the domains of undecided judgments even if no fact names it).",
                    code(&t.name)
                ),
                params: vec![(format_ident!("entity"), Ty::Entity(ty))],
                kind: match self.plan.entities_rel.get(&ty) {
                    Some(&r) => InputKind::Entity(r),
                    None => InputKind::Nothing,
                },
            });
        }
        for (i, p) in m.preds.iter().enumerate() {
            let pid = PredId(i as u32);
            let params: Vec<(Ident, Ty)> = self.names.params[i]
                .iter()
                .cloned()
                .zip(p.params.iter().copied())
                .collect();
            match p.kind {
                RelationKind::Empirical => {
                    for negative in [false, true] {
                        let l = Lit {
                            pred: pid,
                            negative,
                        };
                        let (Some(mn), Some(&r)) = (
                            self.names.facts_methods.get(&l),
                            self.plan.facts_rel.get(&l),
                        ) else {
                            continue;
                        };
                        let what = if negative {
                            format!("States the explicit negation `~{}`: ", code(&p.local))
                        } else {
                            "States the fact ".to_owned()
                        };
                        out.push(InputMethod {
                            name: mn.clone(),
                            doc: format!(
                                "{what}{}{}",
                                self.pred_doc(pid),
                                self.deprecation_doc(pid)
                            ),
                            params: params.clone(),
                            kind: InputKind::Fact(r),
                        });
                    }
                }
                RelationKind::Judgment => {
                    let mn = &self.names.decide_methods[&pid];
                    let lit = |negative| Lit {
                        pred: pid,
                        negative,
                    };
                    let (Some(&yes), Some(&no)) = (
                        self.plan.facts_rel.get(&lit(false)),
                        self.plan.facts_rel.get(&lit(true)),
                    ) else {
                        continue;
                    };
                    let auth = p
                        .external
                        .as_ref()
                        .map(|e| e.authority.clone())
                        .unwrap_or_default();
                    out.push(InputMethod {
                        name: mn.clone(),
                        doc: format!(
                            "Records the decision of {} on the judgment {}: `holds` = decided yes, `false` = decided no. Undecided judgments are requested (see `Verdict::Pending`).{}",
                            names::doc(&auth),
                            self.pred_doc(pid),
                            self.deprecation_doc(pid)
                        ),
                        params,
                        kind: InputKind::Decide(yes, no),
                    });
                }
                RelationKind::Institutional => {}
            }
        }
        out
    }

    /// The statements of a `Case` method: its row pushed, and each entity
    /// argument counted in `hi` (one past the case's largest id).
    fn case_body(&self, im: &InputMethod) -> TokenStream {
        let cols: Vec<TokenStream> = im.params.iter().map(|(a, t)| Self::to_col(*t, a)).collect();
        let seen = im.params.iter().filter_map(|(a, t)| match t {
            Ty::Entity(_) => Some(quote!(self.hi = __rt::seen(self.hi, #a.0);)),
            Ty::Int => None,
        });
        let push = match im.kind {
            InputKind::Entity(r) | InputKind::Fact(r) => {
                let row = self.row_expr(r, &cols);
                quote!(self.rows.push(#row);)
            }
            InputKind::Decide(yes, no) => {
                let (ry, rn) = (self.row_expr(yes, &cols), self.row_expr(no, &cols));
                quote!(self.rows.push(if holds { #ry } else { #rn });)
            }
            InputKind::Nothing => quote!(),
        };
        quote!(#push #(#seen)*)
    }

    /// The typed arguments of a method, `holds` last for a decision.
    fn method_args(&self, im: &InputMethod) -> (Vec<TokenStream>, Vec<Ident>) {
        let mut decl: Vec<TokenStream> = im
            .params
            .iter()
            .map(|(a, t)| {
                let ty = self.api_type(*t);
                quote!(#a: #ty)
            })
            .collect();
        let mut names: Vec<Ident> = im.params.iter().map(|(a, _)| a.clone()).collect();
        if matches!(im.kind, InputKind::Decide(..)) {
            decl.push(quote!(holds: bool));
            names.push(format_ident!("holds"));
        }
        (decl, names)
    }

    fn facts_items(&self) -> TokenStream {
        let m = self.cat;
        let width = self.row_width();
        let methods = self.input_methods();

        // `Case`: one method per input literal, judgment and declared type.
        let case_methods = methods.iter().map(|im| {
            let name = &im.name;
            let (decl, _) = self.method_args(im);
            let body = self.case_body(im);
            let doc = doc_attrs(&im.doc);
            quote! {
                #doc
                #[inline]
                pub fn #name(&mut self, #(#decl),*) -> &mut Self {
                    #body
                    self
                }
            }
        });

        // `Facts`: the same methods over its `Case`, and entity names.
        let facts_methods = methods.iter().map(|im| {
            let name = &im.name;
            let (decl, args) = self.method_args(im);
            match im.kind {
                InputKind::Entity(_) | InputKind::Nothing => {
                    let Ty::Entity(t) = im.params[0].1 else {
                        unreachable!("a declaration's parameter is an entity")
                    };
                    let ty = &self.names.types[t.0 as usize];
                    let declare = (im.kind != InputKind::Nothing).then(|| quote!(self.case.#name(#ty(id));));
                    let doc = doc_attrs(&format!(
                        "The `{}` entity named `name` (interned; declared as an entity of the input).",
                        code(&m.types[t.0 as usize].name)
                    ));
                    quote! {
                        #doc
                        pub fn #name(&mut self, name: &str) -> #ty {
                            let id = self.interner.intern(name);
                            #declare
                            #ty(id)
                        }
                    }
                }
                _ => {
                    let doc = doc_attrs(&im.doc);
                    quote! {
                        #doc
                        #[inline]
                        pub fn #name(&mut self, #(#decl),*) -> &mut Self {
                            self.case.#name(#(#args),*);
                            self
                        }
                    }
                }
            }
        });

        // What messages about a bad id say of each input relation.
        let mut rels: Vec<(RelId, String)> = Vec::new();
        for im in &methods {
            match im.kind {
                InputKind::Entity(r) | InputKind::Fact(r) => rels.push((r, im.name.to_string())),
                InputKind::Decide(y, n) => {
                    rels.push((y, im.name.to_string()));
                    rels.push((n, im.name.to_string()));
                }
                InputKind::Nothing => {}
            }
        }
        rels.sort();
        let input_rels = rels.iter().map(|(r, method)| {
            let rel = r.0;
            let method = Literal::string(method);
            let cols = self.prog.relation(*r).columns.iter().map(|t| match t {
                Ty::Int => quote!(None),
                Ty::Entity(id) => {
                    let n = Literal::string(&m.types[id.0 as usize].name);
                    quote!(Some(#n))
                }
            });
            quote!(__rt::InputRel { rel: #rel, method: #method, columns: &[#(#cols),*] })
        });

        // Contradictions: p and ~p for the same tuple (docs/reference.md#facts-files).
        let mut negations = std::collections::BTreeMap::new();
        let mut describe_arms = Vec::new();
        for (pid, pos, neg) in self.plan.negations.iter().copied() {
            let p = m.pred(pid);
            let (pr, nr) = (pos.0, neg.0);
            negations.insert(pr, nr);
            let local = Literal::string(&p.local);
            let decode = p.params.iter().enumerate().map(|(k, t)| match t {
                Ty::Int => quote!(__rt::Arg::Int(v[#k])),
                Ty::Entity(id) => {
                    let n = Literal::string(&m.types[id.0 as usize].name);
                    quote!(__rt::entity(names, #n, v[#k] as u32))
                }
            });
            describe_arms.push((
                u64::from(pr),
                quote!(#pr),
                quote!(__rt::Error::Contradiction { predicate: #local, args: vec![#(#decode),*] }),
            ));
        }
        let describe = split::split_match(
            self.plan.split_above,
            &quote!(*rel),
            describe_arms,
            &quote!(__rt::Error::Internal(format!(
                "no negation for relation {rel}"
            ))),
            "__describe_contradiction",
            &|f| quote!(fn #f(rel: &u32, v: &[i64; #width], names: __rt::CaseNames<'_>) -> __rt::Error),
            &|f| quote!(#f(rel, v, names)),
        );
        let (describe, describe_fns) = (describe.body, describe.fns);
        let negation_len = negations.keys().next_back().map_or(0, |&p| p as usize + 1);
        let negation_table = (0..negation_len).map(|r| match negations.get(&(r as u32)) {
            Some(&n) => {
                let n = Literal::u32_unsuffixed(n);
                quote!(#n)
            }
            None => quote!(u32::MAX),
        });
        let columns = self.columns_items(&methods);
        let law = self.law_items();
        quote! {
            /// A fact row: the input relation and its columns (entities as ids).
            type Row = (u32, [i64; #width]);

            #law

            /// What a message about a bad id says of each input relation.
            static INPUT_RELS: &[__rt::InputRel] = &[#(#input_rels),*];

            /// The input of one evaluation without names: entities are ids
            /// the caller chooses (`Game::from_index(0)`, …, dense per case,
            /// each type counted from 0, and the package's constants), facts
            /// are rows of ids. Conclusions call such an entity `Game#0`.
            ///
            /// Cost: a method pushes one row; nothing is interned, hashed or
            /// sorted. A `Case` of its own (`Case::new`) owns one buffer;
            /// the `Case` that [`evaluate_cases`] hands to its `fill` writes
            /// into its batch's buffer, which the worker thread reuses batch
            /// after batch, so many cases allocate nothing per case.
            #[derive(Clone, Debug)]
            pub struct Case {
                rows: Vec<Row>,
                /// Where this case's rows start in `rows` (in a batch, after
                /// the earlier cases').
                start: usize,
                /// One past the largest entity id of the case (0: none).
                hi: u32,
                /// The batch that handed this case to `fill` (0: none).
                tag: u64,
            }

            impl Default for Case {
                fn default() -> Self {
                    Self::new()
                }
            }

            impl Case {
                /// An empty case (the package's constants are known
                /// already), as of the package's current date.
                pub fn new() -> Self {
                    Case { rows: default_in_force().to_vec(), start: 0, hi: 0, tag: 0 }
                }

                /// Judges this case as of `date` (docs/reference.md#as-of-evaluation):
                /// the law in force on it applies (without a date: the
                /// package's current date). Fails, changing nothing, when
                /// no edition of a work some rule is anchored to is in
                /// force on `date`; the error names the work and the dates
                /// it has an edition in force.
                pub fn as_of(&mut self, date: __rt::Date) -> Result<&mut Self, __rt::Error> {
                    let f = law().on(Some(date)).map_err(|e| __rt::Error::Facts(e.to_string()))?;
                    let start = self.start.min(self.rows.len());
                    let mut k = start;
                    for i in start..self.rows.len() {
                        let r = self.rows[i];
                        if !is_date_rel(r.0) {
                            self.rows[k] = r;
                            k += 1;
                        }
                    }
                    self.rows.truncate(k);
                    for (g, &on) in f.gates.iter().enumerate() {
                        if on {
                            self.rows.push((IN_FORCE_RELS[g], [0; #width]));
                        }
                    }
                    if let (Some(r), Some(d)) = (AS_OF_REL, f.date) {
                        let mut v = [0i64; #width];
                        v[0] = i64::from(d.0);
                        self.rows.push((r, v));
                    }
                    Ok(self)
                }

                #(#case_methods)*

                /// Evaluates the package on this case under `policy`. Fails
                /// if a fact and its explicit negation were both given, or an
                /// entity id is out of range (`from_index` past its last
                /// index); the error names the method and which of its facts.
                /// For many cases, [`evaluate_cases`] is much faster.
                pub fn evaluate(&self, policy: __rt::Policy) -> Result<Conclusions, __rt::Error> {
                    let mut rows = __rt::CaseRows::new();
                    rows.push_case(self.rows.get(self.start..).unwrap_or(&[]), self.hi);
                    evaluate_batch(Input::Nameless(rows), policy)
                        .pop()
                        .unwrap_or_else(|| Err(__rt::Error::Internal("a batch of one gave no result".into())))
                }
            }

            /// The input of one evaluation (one case): entities by name,
            /// facts, explicit negations and decided judgments.
            ///
            /// Cost: every name is interned (hashed and looked up among the
            /// case's names and the package's constants), and each `Facts`
            /// owns its buffers (taken from, and given back to, the buffers
            /// of `Facts` its thread dropped); the rows are then those of a
            /// [`Case`]. Without names, [`Case`], [`evaluate_cases`] and
            /// [`evaluate_columns`] skip both.
            #[derive(Clone, Debug)]
            pub struct Facts {
                interner: __rt::Interner,
                case: Case,
            }

            impl Default for Facts {
                fn default() -> Self {
                    Self::new()
                }
            }

            /// The buffers of this thread's dropped `Facts`, for its next ones.
            fn spare_facts() -> &'static ::std::thread::LocalKey<__rt::SparePool<Row>> {
                ::std::thread_local! {
                    static SPARE: __rt::SparePool<Row> = const { ::std::cell::RefCell::new(Vec::new()) };
                }
                &SPARE
            }

            impl Drop for Facts {
                fn drop(&mut self) {
                    self.interner.recycle(::std::mem::take(&mut self.case.rows), spare_facts());
                }
            }

            impl Facts {
                /// Empty facts (the package's constants are known already).
                /// Reuses the buffers of a `Facts` this thread dropped.
                pub fn new() -> Self {
                    let (interner, mut rows) = __rt::Interner::reuse(CONSTANTS, constant_id, spare_facts(), 48);
                    rows.extend_from_slice(default_in_force());
                    Facts { interner, case: Case { rows, start: 0, hi: 0, tag: 0 } }
                }

                /// Judges these facts as of `date` ([`Case::as_of`]).
                pub fn as_of(&mut self, date: __rt::Date) -> Result<&mut Self, __rt::Error> {
                    self.case.as_of(date)?;
                    Ok(self)
                }

                /// The name of an entity of these facts (`None` for an id from elsewhere).
                pub fn name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<&str> {
                    self.interner.name_of(e.id())
                }

                /// The entity named `name`, if these facts or the package
                /// know it (unlike the typed constructors, this declares nothing).
                pub fn get<E: ::lawgen_runtime::Entity>(&self, name: &str) -> Option<E> {
                    self.interner.get(name).map(E::__from_id)
                }

                #(#facts_methods)*

                /// Evaluates the package on these facts under `policy`.
                /// Fails if a fact and its explicit negation were both given,
                /// or a method got an entity id these facts did not issue.
                /// For many cases, [`evaluate_many`] is much faster.
                pub fn evaluate(&self, policy: __rt::Policy) -> Result<Conclusions, __rt::Error> {
                    evaluate_batch(Input::Named(vec![self.clone()]), policy)
                        .pop()
                        .unwrap_or_else(|| Err(__rt::Error::Internal("a batch of one gave no result".into())))
                }

                /// Interns a name without declaring it (bench and bridge code).
                #[doc(hidden)]
                pub fn __intern(&mut self, name: &str) -> u32 {
                    self.interner.intern(name)
                }

                #[doc(hidden)]
                pub fn __push(&mut self, rel: usize, row: &[i64]) {
                    let mut v = [0i64; #width];
                    for (slot, x) in v.iter_mut().zip(row) {
                        *slot = *x;
                    }
                    self.case.rows.push((rel as u32, v));
                }
            }

            ::lawgen_runtime::__if_serde! {
                impl Facts {
                    /// Reads a facts file (docs/reference.md#facts-files): keys are predicate names,
                    /// `~p` states an explicit negation; errors name the key and row.
                    pub fn from_json(bytes: &[u8]) -> Result<Facts, __rt::Error> {
                        let mut facts = Facts::new();
                        let mut rows: Vec<(usize, Vec<i64>)> = Vec::new();
                        let date = __rt::read_facts_json(&PACKAGE, bytes, &mut facts.interner, &mut |r, row| rows.push((r, row.to_vec())))?;
                        for (r, row) in rows {
                            facts.__push(r, &row);
                        }
                        if let Some(d) = date {
                            facts.as_of(d)?;
                        }
                        Ok(facts)
                    }
                }
            }

            /// A batch's input: named facts, or the rows of nameless cases
            /// in one buffer.
            #[derive(Debug)]
            enum Input {
                Named(Vec<Facts>),
                Nameless(__rt::CaseRows<Row>),
            }

            impl Input {
                /// How many cases.
                fn len(&self) -> usize {
                    match self {
                        Input::Named(v) => v.len(),
                        Input::Nameless(r) => r.len(),
                    }
                }

                /// Case `c`'s rows, in the order they were given.
                #[inline]
                fn rows(&self, c: usize) -> &[Row] {
                    match self {
                        Input::Named(v) => v.get(c).map_or(&[], |f| &f.case.rows[..]),
                        Input::Nameless(r) => r.rows(c),
                    }
                }

                /// How case `c`'s entities are named.
                fn names(&self, c: usize) -> __rt::CaseNames<'_> {
                    match self {
                        Input::Named(v) => match v.get(c) {
                            Some(f) => __rt::CaseNames::Named(&f.interner),
                            None => __rt::CaseNames::Nameless(&NAMELESS),
                        },
                        Input::Nameless(_) => __rt::CaseNames::Nameless(&NAMELESS),
                    }
                }

                /// Every entity id of case `c` can be named: issued by its
                /// `Facts`, or an index in range. The error names the method,
                /// which of its facts and the value.
                fn check(&self, c: usize) -> Result<(), __rt::Error> {
                    match self {
                        Input::Named(v) => {
                            let Some(f) = v.get(c) else { return Ok(()) };
                            let len = f.interner.len();
                            if f.case.hi as usize <= len {
                                return Ok(());
                            }
                            Err(__rt::bad_id(&f.case.rows, INPUT_RELS, |id| (id as usize) < len, __rt::not_issued(len))
                                .unwrap_or_else(|| __rt::Error::Internal("an entity id out of range that no row holds".into())))
                        }
                        Input::Nameless(r) => {
                            if let Some(e) = r.failure() {
                                return Err(e.clone());
                            }
                            if r.hi(c) <= __rt::MAX_ID + 1 {
                                return Ok(());
                            }
                            Err(__rt::bad_id(r.rows(c), INPUT_RELS, |id| id <= __rt::MAX_ID, __rt::out_of_range(FIRST_ID))
                                .unwrap_or_else(|| __rt::Error::Internal("an entity id out of range that no row holds".into())))
                        }
                    }
                }

                /// Sorts case `c`'s rows and finds the first fact given with
                /// its explicit negation (docs/reference.md#facts-files), so
                /// that every engine names the same one.
                fn contradiction(&mut self, c: usize) -> Option<__rt::Error> {
                    match self {
                        Input::Named(v) => {
                            let f = v.get_mut(c)?;
                            f.case.rows.sort_unstable();
                            first_contradiction(&f.case.rows, __rt::CaseNames::Named(&f.interner))
                        }
                        Input::Nameless(r) => {
                            r.rows_mut(c).sort_unstable();
                            first_contradiction(r.rows(c), __rt::CaseNames::Nameless(&NAMELESS))
                        }
                    }
                }

                /// Case `c`'s rows as a set (sorted, each once), or why the
                /// case cannot be evaluated.
                fn normalize(&mut self, c: usize) -> Result<&[Row], __rt::Error> {
                    self.check(c)?;
                    // Most cases are a set already, with no fact given with
                    // its negation: one hash probe per row shows it, and
                    // their rows need no sort.
                    if __rt::plain_set(self.rows(c), &NEGATION) {
                        return Ok(self.rows(c));
                    }
                    if let Some(e) = self.contradiction(c) {
                        return Err(e);
                    }
                    let rows: &mut [Row] = match self {
                        Input::Named(v) => v.get_mut(c).map_or(&mut [], |f| &mut f.case.rows[..]),
                        Input::Nameless(r) => r.rows_mut(c),
                    };
                    let k = __rt::dedup_sorted(rows);
                    Ok(&rows[..k])
                }
            }

            /// By input relation, the relation stating its facts' explicit
            /// negations (`u32::MAX`: none).
            static NEGATION: [u32; #negation_len] = [#(#negation_table),*];

            /// The first row of sorted `rows` whose explicit negation is also
            /// there, as the error every engine reports.
            /// (A cold path: a case `plain_set` could not vouch for, or
            /// whose tables met in the Direct engine.)
            fn first_contradiction(rows: &[Row], names: __rt::CaseNames<'_>) -> Option<__rt::Error> {
                for (rel, v) in rows {
                    let negation = match NEGATION.get(*rel as usize) {
                        Some(&n) if n != u32::MAX => n,
                        _ => continue,
                    };
                    if rows.binary_search(&(negation, *v)).is_ok() {
                        return Some(#describe);
                    }
                }
                None
            }

            #describe_fns

            #columns
        }
    }

    /// `Columns`: many nameless cases' facts at once, one slice per column.
    fn columns_items(&self, methods: &[InputMethod]) -> TokenStream {
        // Only a package whose rules depend on the date has in-force inputs
        // for a case to start with.
        let each_in_force =
            (!self.cat.law.gates.is_empty()).then(|| quote!(g.each(default_in_force());));
        let mut fields = Vec::new();
        let mut empties = Vec::new();
        let mut checks = Vec::new();
        let mut counts = Vec::new();
        let mut places = Vec::new();
        // A large package's closures go through one `&dyn Fn` copy of
        // `Gather::place`, not one copy each.
        let placing = methods
            .iter()
            .filter(|im| im.kind != InputKind::Nothing)
            .count();
        let dyn_row = split::splits(self.plan.split_above, placing);
        for (k, im) in methods.iter().enumerate() {
            let name = &im.name;
            let name_lit = Literal::string(&name.to_string());
            let doc = doc_attrs(&format!(
                "`{name}`, one row per fact: the case column (each row's case, below the batch's number of cases), then one column per argument{}.",
                if matches!(im.kind, InputKind::Decide(..)) { " and `holds`" } else { "" }
            ));
            let mut tys = vec![quote!(&'a [u32])];
            let mut vars = vec![format_ident!("cases")];
            let mut lens = vec![quote!(("the case column", cases.len()))];
            let mut id_checks = Vec::new();
            for (j, (a, t)) in im.params.iter().enumerate() {
                let ty = self.api_type(*t);
                tys.push(quote!(&'a [#ty]));
                let v = format_ident!("c{j}");
                let label = Literal::string(&format!("`{a}`"));
                lens.push(quote!((#label, #v.len())));
                if let Ty::Entity(id) = t {
                    let tn = Literal::string(&self.cat.types[id.0 as usize].name);
                    id_checks.push(quote!(__rt::column_ids(#name_lit, #tn, FIRST_ID, #v.iter().map(|e| e.0))?;));
                }
                vars.push(v);
            }
            if matches!(im.kind, InputKind::Decide(..)) {
                tys.push(quote!(&'a [bool]));
                let v = format_ident!("holds");
                lens.push(quote!(("`holds`", #v.len())));
                vars.push(v);
            }
            fields.push(quote!(#doc pub #name: (#(#tys,)*)));
            let empty = tys.iter().map(|_| quote!(&[]));
            empties.push(quote!(#name: (#(#empty,)*)));
            checks.push(quote! {
                {
                    let (#(#vars,)*) = columns.#name;
                    __rt::same_lengths(#name_lit, &[#(#lens),*])?;
                    #(#id_checks)*
                    order.push(__rt::case_order(#name_lit, cases, n)?);
                }
            });
            if im.kind == InputKind::Nothing {
                // Checked, but there is no relation to load.
                continue;
            }
            counts.push(quote!(g.count(columns.#name.0, order[#k].as_deref());));
            // Row `i` of the columns, with one past its largest id.
            let cols: Vec<TokenStream> = im
                .params
                .iter()
                .enumerate()
                .map(|(j, (_, t))| {
                    let v = format_ident!("c{j}");
                    match t {
                        Ty::Int => quote!(#v[i]),
                        Ty::Entity(_) => quote!(#v[i].0),
                    }
                })
                .collect();
            let mut hi = quote!(0u32);
            for (j, (_, t)) in im.params.iter().enumerate() {
                if let Ty::Entity(_) = t {
                    let v = format_ident!("c{j}");
                    hi = quote!(__rt::seen(#hi, #v[i].0));
                }
            }
            let row = match im.kind {
                InputKind::Entity(r) | InputKind::Fact(r) => self.row_expr(r, &cols),
                InputKind::Decide(yes, no) => {
                    let (ry, rn) = (self.row_expr(yes, &cols), self.row_expr(no, &cols));
                    quote!(if holds[i] { #ry } else { #rn })
                }
                InputKind::Nothing => unreachable!("skipped above"),
            };
            let place = if dyn_row {
                quote! {
                    let row: &dyn Fn(usize) -> (Row, u32) = &|i| (#row, #hi);
                    g.place(cases, order[#k].as_deref(), row);
                }
            } else {
                quote!(g.place(cases, order[#k].as_deref(), |i| (#row, #hi));)
            };
            places.push(quote! {
                {
                    let (#(#vars,)*) = columns.#name;
                    #place
                }
            });
        }
        let nrel = checks.len();
        let width = self.row_width();
        let checks = split::split_seq(
            self.plan.split_above,
            checks,
            "__columns_order",
            &|f| quote!(fn #f(columns: &Columns<'_>, n: usize, order: &mut Vec<Option<Vec<u32>>>) -> Result<(), __rt::Error>),
            &|f| quote!(#f(columns, n, &mut order)?;),
            &quote!(Ok(())),
        );
        let (checks, check_fns) = (checks.body, checks.fns);
        let counts = split::split_seq(
            self.plan.split_above,
            counts,
            "__gather_counts",
            &|f| quote!(fn #f(g: &mut __rt::Gather<Row>, columns: &Columns<'_>, order: &[Option<Vec<u32>>])),
            &|f| quote!(#f(&mut g, columns, order);),
            &TokenStream::new(),
        );
        let (counts, count_fns) = (counts.body, counts.fns);
        let places = split::split_seq(
            self.plan.split_above,
            places,
            "__gather_places",
            &|f| quote!(fn #f(g: &mut __rt::Gather<Row>, columns: &Columns<'_>, order: &[Option<Vec<u32>>])),
            &|f| quote!(#f(&mut g, columns, order);),
            &TokenStream::new(),
        );
        let (places, place_fns) = (places.body, places.fns);
        quote! {
            /// The facts of many nameless cases at once, column-wise: per
            /// input method of [`Case`], one slice per column, the first
            /// saying which case each row belongs to (rows of a case may be
            /// anywhere; in case order they are grouped without sorting).
            /// Fields left out are empty (`..Columns::default()`).
            /// Evaluated by [`evaluate_columns`].
            #[derive(Clone, Copy, Debug)]
            pub struct Columns<'a> {
                /// The date of each case (`as_of[i]` of case `i`): each is
                /// judged by the law in force on its date
                /// (docs/reference.md#as-of-evaluation). Empty: every case
                /// as of the package's current date.
                pub as_of: &'a [__rt::Date],
                #(#fields,)*
            }

            impl Default for Columns<'_> {
                fn default() -> Self {
                    Columns { as_of: &[], #(#empties,)* }
                }
            }

            /// The dates of `columns`, checked (one per case, each a
            /// calendar day on which the law is in force): per case, which
            /// of the sets of in-force rows it starts with, one set per
            /// distinct date. `None`: no dates.
            fn columns_dates(columns: &Columns<'_>, n: usize) -> Result<Option<(Vec<u32>, Vec<Vec<Row>>)>, __rt::Error> {
                if columns.as_of.is_empty() {
                    return Ok(None);
                }
                if columns.as_of.len() != n {
                    return Err(__rt::Error::Facts(format!(
                        "`Columns::as_of` holds {} dates and the batch {n} cases: give one date per case, or none",
                        columns.as_of.len()
                    )));
                }
                let mut at: ::std::collections::HashMap<__rt::Date, u32> = ::std::collections::HashMap::new();
                let mut sets: Vec<Vec<Row>> = Vec::new();
                let mut of = Vec::with_capacity(n);
                for (i, &d) in columns.as_of.iter().enumerate() {
                    if let Some(&k) = at.get(&d) {
                        of.push(k);
                        continue;
                    }
                    if __rt::Date::parse(&d.to_string()) != Some(d) {
                        return Err(__rt::Error::Facts(format!(
                            "`Columns::as_of`, case {i}: `{d}` is not a date: give a real calendar day (`Date::parse(\"2024-05-01\")`)"
                        )));
                    }
                    let f = law().on(Some(d)).map_err(|e| __rt::Error::Facts(format!("`Columns::as_of`, case {i}: {e}")))?;
                    let mut rows: Vec<Row> = f.gates.iter().zip(IN_FORCE_RELS).filter(|(on, _)| **on).map(|(_, &r)| (r, [0; #width])).collect();
                    if let (Some(r), Some(d)) = (AS_OF_REL, f.date) {
                        let mut v = [0i64; #width];
                        v[0] = i64::from(d.0);
                        rows.push((r, v));
                    }
                    let k = sets.len() as u32;
                    sets.push(rows);
                    at.insert(d, k);
                    of.push(k);
                }
                Ok(Some((of, sets)))
            }

            /// Checks every column of `columns` for `n` cases; returns, per
            /// field, the order of its rows by case when they are not in it.
            #[allow(unused_variables, clippy::let_unit_value)]
            fn columns_order(columns: &Columns<'_>, n: usize) -> Result<Vec<Option<Vec<u32>>>, __rt::Error> {
                let mut order = Vec::with_capacity(#nrel);
                #checks
                Ok(order)
            }

            #check_fns

            /// The nameless cases `range` of checked `columns`, grouped by
            /// case, each with the in-force rows of its date (`dates`, from
            /// [`columns_dates`]).
            #[allow(unused_variables, unused_mut)]
            fn gather_columns(columns: &Columns<'_>, order: &[Option<Vec<u32>>], dates: Option<&(Vec<u32>, Vec<Vec<Row>>)>, range: ::std::ops::Range<usize>) -> Input {
                let mut g = __rt::Gather::new(range.clone());
                #counts
                match dates {
                    Some((of, sets)) => g.each_of(&of[range], sets),
                    None => { #each_in_force }
                }
                g.start_placing();
                #places
                Input::Nameless(g.finish())
            }

            #count_fns
            #place_fns
        }
    }

    fn batch_items(&self, evaluate_batch: TokenStream) -> TokenStream {
        // A case starts with the in-force inputs of the current date (only
        // where some rule depends on the date: nothing to do otherwise).
        let start_in_force = (!self.cat.law.gates.is_empty())
            .then(|| quote!(case.rows.extend_from_slice(default_in_force());));
        let kept = &self.plan.kept;
        let out_fields = kept.iter().map(|&r| {
            let o = out_ident(r);
            let mut cols = vec![quote!(u32)];
            cols.extend(
                self.prog
                    .relation(r)
                    .columns
                    .iter()
                    .map(|c| Self::col_type(*c)),
            );
            quote!(#o: __rt::ByCase<(#(#cols,)*)>)
        });
        quote! {
            /// The derived relations a batch's conclusions read, with the
            /// case column, sorted: a case's rows are one contiguous range.
            #[doc(hidden)]
            #[derive(Debug, Default)]
            pub struct Outputs {
                #(#out_fields,)*
            }

            /// What the conclusions of one batch share.
            #[derive(Debug)]
            struct Batch {
                input: Input,
                out: Outputs,
            }

            // The one engine-specific item of the API: how a batch is run.
            #evaluate_batch

            /// Evaluates many independent cases (one `Facts` each) in bounded
            /// batches on `batching.threads` threads, streaming: `sink`
            /// receives each case's index and result, in no particular order,
            /// on the calling thread. Memory stays bounded by the batches in
            /// flight (and the conclusions `sink` keeps), however many cases
            /// the iterator yields.
            pub fn evaluate_many<I>(
                cases: I,
                policy: __rt::Policy,
                batching: &__rt::Batching,
                mut sink: impl FnMut(usize, Result<Conclusions, __rt::Error>),
            ) where
                I: IntoIterator<Item = Facts>,
            {
                __rt::run_batched(cases.into_iter(), batching, &|batch| evaluate_batch(Input::Named(batch), policy), &mut sink);
            }

            /// The throughput form of [`evaluate_many`]: cases `0..n` are
            /// built by `make` and their conclusions digested by `map` on the
            /// worker threads (so neither crosses threads); `sink` receives
            /// each case's index and `map`'s value on the calling thread.
            pub fn evaluate_indexed<T: Send>(
                n: usize,
                policy: __rt::Policy,
                batching: &__rt::Batching,
                make: impl Fn(usize) -> Facts + Sync,
                map: impl Fn(usize, Result<Conclusions, __rt::Error>) -> T + Sync,
                mut sink: impl FnMut(usize, T),
            ) {
                __rt::run_indexed(n, batching, CASES_PER_RUN, &make, &|batch| evaluate_batch(Input::Named(batch), policy), &map, &mut sink);
            }

            /// The fast form of [`evaluate_indexed`], for cases without names:
            /// cases `0..n` are stated by `fill` into a [`Case`] (ids from
            /// `from_index` and the package's constants) and digested by
            /// `map`, both on the worker threads; `sink` receives each case's
            /// index and `map`'s value on the calling thread.
            ///
            /// Cost: no name is interned, and each worker reuses its batch's
            /// buffers, so a case allocates nothing.
            pub fn evaluate_cases<T: Send>(
                n: usize,
                policy: __rt::Policy,
                batching: &__rt::Batching,
                fill: impl Fn(usize, &mut Case) + Sync,
                map: impl Fn(usize, Result<Conclusions, __rt::Error>) -> T + Sync,
                mut sink: impl FnMut(usize, T),
            ) {
                __rt::run_ranges(n, batching, CASES_PER_RUN, &|range| evaluate_batch(fill_cases(range, &fill), policy), &map, &mut sink);
            }

            /// Cases `range`, each stated by `fill` into one buffer.
            fn fill_cases(range: ::std::ops::Range<usize>, fill: &dyn Fn(usize, &mut Case)) -> Input {
                let mut input = __rt::CaseRows::new();
                let tag = __rt::next_tag();
                let mut case = Case { rows: input.take_rows(), start: 0, hi: 0, tag };
                for i in range.clone() {
                    let start = case.rows.len();
                    case.start = start;
                    case.hi = 0;
                    #start_in_force
                    fill(i, &mut case);
                    // A `Case` swapped in from elsewhere holds other rows:
                    // nothing of this batch can be evaluated.
                    if case.tag != tag || case.start != start || case.rows.len() < start {
                        return Input::Nameless(__rt::CaseRows::failed(range.len(), __rt::Error::Facts(format!(
                            "the `Case` that `fill` got for case {i} was replaced by another one (cases {} to {} \
                             were not evaluated): state a case's facts through the methods of the `Case` given",
                            range.start, range.end - 1
                        ))));
                    }
                    input.end_at(case.rows.len(), case.hi);
                }
                input.put_rows(case.rows);
                Input::Nameless(input)
            }

            /// Evaluates `cases` nameless cases given column-wise, in batches
            /// of `batching.batch_size` cases on `batching.threads` threads;
            /// `map` digests each case's result on the worker threads, and
            /// `sink` receives each case's index and `map`'s value.
            ///
            /// Every column is checked first: a field whose columns differ in
            /// length, a case index not below `cases`, an id out of range,
            /// or a date (`as_of`) that is no calendar day or has no law in
            /// force is an error naming the field and the row (or case), and
            /// then no case is evaluated. Cost: the rows are grouped by case once per batch
            /// (a counting pass; a field not in case order is sorted by case
            /// once), nothing is interned, and no case allocates.
            pub fn evaluate_columns<T: Send>(
                cases: usize,
                columns: &Columns<'_>,
                policy: __rt::Policy,
                batching: &__rt::Batching,
                map: impl Fn(usize, Result<Conclusions, __rt::Error>) -> T + Sync,
                mut sink: impl FnMut(usize, T),
            ) -> Result<(), __rt::Error> {
                let order = columns_order(columns, cases)?;
                let dates = columns_dates(columns, cases)?;
                __rt::run_ranges(cases, batching, CASES_PER_RUN, &|range| evaluate_batch(gather_columns(columns, &order, dates.as_ref(), range), policy), &map, &mut sink);
                Ok(())
            }
        }
    }

    fn conclusions_items(&self) -> TokenStream {
        let m = self.cat;
        let outputs = self.outputs_by_lit();
        let names = quote!(self.batch.input.names(self.case as usize));
        let mut request_decodes = Vec::new();
        for rv in &self.prog.requests {
            let v = self.case_rows(rv.rel);
            let local = Literal::string(&m.pred(rv.lit.pred).local);
            let auth = Literal::string(&rv.authority);
            let cap = Literal::string(&rv.capability);
            let decode = self
                .prog
                .relation(rv.rel)
                .columns
                .iter()
                .enumerate()
                .map(|(k, t)| self.col_arg(*t, k, &names));
            request_decodes.push(quote! {
                for t in #v {
                    out.push(__rt::Request { predicate: #local.to_owned(), args: vec![#(#decode),*], authority: #auth.to_owned(), capability: #cap.to_owned() });
                }
            });
        }

        let mut verdicts = Vec::new();
        let mut counts = Vec::new();
        for (i, p) in m.preds.iter().enumerate() {
            if p.kind != RelationKind::Institutional {
                continue;
            }
            let pid = PredId(i as u32);
            let args = &self.names.params[i];
            let tys: Vec<TokenStream> = p.params.iter().map(|t| self.api_type(*t)).collect();
            let cols: Vec<TokenStream> = p
                .params
                .iter()
                .zip(args)
                .map(|(t, a)| Self::to_col(*t, a))
                .collect();
            // A tuple's columns from `first` on, typed: the typed tuple of
            // a row without its case column (an output row's column 0 is
            // the case; `case_rows` drops it from an input row).
            let wrap = |first: usize| -> Vec<TokenStream> {
                p.params
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let idx = index(first + k);
                        match t {
                            Ty::Int => quote!(t.#idx),
                            Ty::Entity(id) => {
                                let ti = &self.names.types[id.0 as usize];
                                quote!(#ti(t.#idx))
                            }
                        }
                    })
                    .collect()
            };
            let (wrap, wrap_row) = (wrap(0), wrap(1));
            let arg_values: Vec<TokenStream> = p
                .params
                .iter()
                .zip(args)
                .map(|(t, a)| match t {
                    Ty::Int => quote!(__rt::Arg::Int(#a)),
                    Ty::Entity(_) => quote!(self.__entity(#a)?),
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
                let (vn, alln, exn, exn_in) = &self.names.verdict_methods[&l];
                // Each section's relations (`rel \ minus`), in the order
                // the runtime's `verdict` ranks them, as `lawgen explain`
                // does: one call compiled once per row type.
                let sections: Vec<TokenStream> = [
                    Section::Definitely,
                    Section::Defeasibly,
                    Section::Pending,
                    Section::Supported,
                ]
                .into_iter()
                .map(|s| {
                    let rels = outputs
                        .get(&(l, s))
                        .into_iter()
                        .flatten()
                        .map(|(r, minus)| {
                            let o = out_ident(*r);
                            let minus = match minus {
                                Some(mr) => {
                                    let mo = out_ident(*mr);
                                    quote!(Some(&self.batch.out.#mo))
                                }
                                None => quote!(None),
                            };
                            quote!((&self.batch.out.#o, #minus))
                        });
                    quote!(&[#(#rels),*])
                })
                .collect();
                let concluded_ever = [
                    Section::Definitely,
                    Section::Defeasibly,
                    Section::Pending,
                    Section::Supported,
                ]
                .iter()
                .any(|s| outputs.contains_key(&(l, *s)));
                let judgments: &[Literal] = if outputs.contains_key(&(l, Section::Pending)) {
                    &judgments
                } else {
                    &[]
                };
                let verdict_body = if concluded_ever {
                    quote!(self.__verdict(&(self.case, #(#cols,)*), [#(#sections),*], &[#(#judgments),*]))
                } else {
                    // No section of this literal is kept: never concluded.
                    quote! {
                        let _ = (#(#args,)*);
                        __rt::Verdict::NotConcluded
                    }
                };
                let lit_text = m.lit_name(l);
                let lit_name = code(&lit_text);
                let doc = doc_attrs(&format!(
                    "The verdict on `{lit_name}`: {}{}",
                    self.pred_doc(pid),
                    self.rules_doc(l)
                ));
                let all_doc = doc_attrs(&format!(
                    "Every tuple for which `{lit_name}` is concluded (definitely or defeasibly), sorted by id."
                ));
                let ex_doc = doc_attrs(&format!(
                    "Explains the verdict on `{lit_name}` for these arguments (the same tree as `lawgen explain`)."
                ));
                let ex_in_doc = doc_attrs(&format!(
                    "Explains the verdict on `{lit_name}` in language `lang` (`en`, `ru`): labels, article texts and lawgen's own words."
                ));
                let dfs = outputs
                    .get(&(l, Section::Defeasibly))
                    .and_then(|v| v.first())
                    .map(|(r, _)| *r);
                let (all_body, count) = match dfs {
                    Some(r) if !self.plan.is_input(r) => {
                        // The row without its case column, typed, in one map.
                        let o = out_ident(r);
                        let count = self.case_count(r);
                        (
                            quote!(self.batch.out.#o.case(self.case).iter().map(|t| (#(#wrap_row,)*))),
                            count,
                        )
                    }
                    Some(r) => {
                        let rows = self.case_rows(r);
                        let count = self.case_count(r);
                        (quote!(#rows.map(|t| (#(#wrap,)*))), count)
                    }
                    None => (quote!(::std::iter::empty()), quote!(0)),
                };
                let lit_lit = Literal::string(&lit_text);
                counts.push(quote!((#lit_lit, #count)));
                let full_id = Literal::string(&p.id);
                verdicts.push(quote! {
                    #doc
                    pub fn #vn(&self, #(#args: #tys),*) -> __rt::Verdict {
                        #verdict_body
                    }
                    #all_doc
                    pub fn #alln(&self) -> impl Iterator<Item = (#(#tys,)*)> + '_ {
                        #all_body
                    }
                    ::lawgen_runtime::__if_explain! {
                        #ex_doc
                        pub fn #exn(&self, #(#args: #tys),*) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                            self.#exn_in(#(#args,)* "en")
                        }
                        #ex_in_doc
                        pub fn #exn_in(&self, #(#args: #tys,)* lang: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                            self.__explain(#full_id, #negative, vec![#(#arg_values),*], &self.#vn(#(#args),*), lang)
                        }
                    }
                });
            }
        }
        let ncounts = counts.len();
        // Above the split threshold, written into the array in functions
        // of their own.
        let counts = if split::splits(self.plan.split_above, ncounts) {
            let stmts = counts
                .iter()
                .enumerate()
                .map(|(j, c)| quote!(a[#j] = #c;))
                .collect();
            let split = split::split_seq(
                self.plan.split_above,
                stmts,
                "__concluded_counts",
                &|f| quote!(fn #f(&self, a: &mut [(&'static str, usize); #ncounts])),
                &|f| quote!(self.#f(&mut a);),
                &TokenStream::new(),
            );
            let (body, fns) = (split.body, split.fns);
            (
                quote! {
                    let mut a = [("", 0); #ncounts];
                    #body
                    a
                },
                fns,
            )
        } else {
            (quote!([#(#counts),*]), TokenStream::new())
        };
        let (counts, count_fns) = counts;

        // Rows of every relation the reference bridge asks for.
        let mut row_rels: BTreeSet<RelId> = self.plan.inputs.iter().copied().collect();
        row_rels.extend(self.plan.kept.iter().copied());
        // One runtime function per row type, not a closure per relation:
        // these arms were four tenths of the module's LLVM IR.
        let row_arms = row_rels.iter().map(|&r| {
            let i = r.0 as usize;
            let rows = if self.plan.is_input(r) {
                let rel = r.0;
                let arity = self.prog.relation(r).columns.len();
                quote!(__rt::input_rows(self.batch.input.rows(self.case as usize), #rel, #arity))
            } else {
                let o = out_ident(r);
                quote!(__rt::case_rows(self.batch.out.#o.case(self.case)))
            };
            (u64::from(r.0), quote!(#i), rows)
        });
        let rows = split::split_match(
            self.plan.split_above,
            &quote!(rel),
            row_arms.collect(),
            &quote!(Vec::new()),
            "__rows",
            &|f| quote!(fn #f(&self, rel: usize) -> Vec<Vec<i64>>),
            &|f| quote!(self.#f(rel)),
        );
        let (rows, row_fns) = (rows.body, rows.fns);

        quote! {
            /// The result of evaluating one case: a verdict per ground literal.
            /// (The cases of one engine run share their storage; see
            /// `Batching::batch_size`.)
            #[derive(Clone, Debug)]
            pub struct Conclusions {
                batch: ::std::sync::Arc<Batch>,
                case: u32,
                policy: __rt::Policy,
                /// Decoded on first use: most callers read verdicts or
                /// counts, and a request owns its names.
                requests: ::std::sync::OnceLock<Vec<__rt::Request>>,
            }

            impl Conclusions {
                fn new(batch: ::std::sync::Arc<Batch>, case: u32, policy: __rt::Policy) -> Self {
                    Conclusions { batch, case, policy, requests: ::std::sync::OnceLock::new() }
                }

                fn collect_requests(&self) -> Vec<__rt::Request> {
                    let mut out = Vec::new();
                    #(#request_decodes)*
                    out
                }

                fn requests_on(&self, judgments: &[&str]) -> Vec<__rt::Request> {
                    self.requests().iter().filter(|r| judgments.contains(&r.predicate.as_str())).cloned().collect()
                }

                /// The verdict on one row: what every verdict method calls,
                /// compiled once per row type.
                #[allow(dead_code)]
                fn __verdict<T: Ord + Copy>(&self, row: &T, sections: [&[__rt::SectionRel<'_, T>]; 4], judgments: &[&str]) -> __rt::Verdict {
                    __rt::verdict(self.case, row, sections, || self.requests_on(judgments))
                }

                /// The conflict policy this evaluation used.
                pub fn policy(&self) -> __rt::Policy {
                    self.policy
                }

                /// Every judgment the authorities are asked to decide, sorted.
                pub fn requests(&self) -> &[__rt::Request] {
                    self.requests.get_or_init(|| {
                        let mut requests = self.collect_requests();
                        requests.sort();
                        requests.dedup();
                        requests
                    })
                }

                /// The facts this evaluation ran on (`None` for a nameless
                /// case: a [`Case`] or [`Columns`]).
                pub fn facts(&self) -> Option<&Facts> {
                    match &self.batch.input {
                        Input::Named(v) => v.get(self.case as usize),
                        Input::Nameless(_) => None,
                    }
                }

                /// The name an entity was given (`None` for an id from other
                /// facts, and for a nameless case's own entities: see
                /// [`Conclusions::entity_name`]).
                pub fn name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<&str> {
                    #names.given(e.id())
                }

                /// The entity called `name` in these conclusions: by its name
                /// in the facts or the package, or `Type#index` in a nameless
                /// case.
                pub fn get<E: ::lawgen_runtime::Entity>(&self, name: &str) -> Option<E> {
                    #names.id(E::TYPE_NAME, name).map(E::__from_id)
                }

                /// What `to_json`, explanations and requests call an entity:
                /// its name, or `Type#index` for a nameless case's own
                /// (`Game#0`; never a constant's name). `None` for an id
                /// these conclusions cannot hold.
                pub fn entity_name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<String> {
                    #names.name(E::TYPE_NAME, e.id()).map(|n| n.into_owned())
                }

                /// For each institutional literal (`p`, `~p`), how many tuples
                /// are concluded (definitely or defeasibly).
                pub fn concluded_counts(&self) -> [(&'static str, usize); #ncounts] {
                    #counts
                }

                #count_fns

                #(#verdicts)*

                #[doc(hidden)]
                pub fn __rows(&self, rel: usize) -> Vec<Vec<i64>> {
                    #rows
                }

                #row_fns
            }

            ::lawgen_runtime::__if_serde! {
                impl Conclusions {
                    /// The canonical output of docs/reference.md#the-canonical-output (what `lawgen eval` prints).
                    pub fn to_json(&self) -> Result<String, __rt::Error> {
                        __rt::canonical_json(&PACKAGE, self.policy, #names, &|r| self.__rows(r))
                    }

                    /// The canonical output, typed: per section, per literal
                    /// (`game_drawn`, `~game_drawn`), its rows of values, with the
                    /// open requests, the date and the editions in force; what
                    /// `to_json` prints, without a JSON reader.
                    pub fn to_canonical(&self) -> Result<::lawgen_runtime::interp::Conclusions, __rt::Error> {
                        __rt::canonical(&PACKAGE, self.policy, #names, &|r| self.__rows(r))
                    }
                }
            }

            ::lawgen_runtime::__if_explain! {
                impl Conclusions {
                    /// Explains a literal given as text: `game_drawn(g1)`,
                    /// `~castling_legal(g1, white, "king side")`.
                    pub fn explain(&self, query: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                        self.explain_in(query, "en")
                    }

                    /// [`Conclusions::explain`] with labels, article texts and lawgen's own
                    /// words in language `lang` (`en`, `ru`; others get English words).
                    pub fn explain_in(&self, query: &str, lang: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                        __rt::explain(&PACKAGE, self.policy, #names, &|r| self.__rows(r), query, lang)
                    }

                    /// The explanation of one literal, with the verdict this
                    /// module computed for it: what every `explain_*_in`
                    /// calls, compiled once.
                    #[allow(dead_code)]
                    fn __explain(&self, predicate: &str, negative: bool, args: Vec<__rt::Arg>, verdict: &__rt::Verdict, lang: &str) -> Result<::lawgen_runtime::Explanation, __rt::Error> {
                        __rt::explain_literal(&PACKAGE, self.policy, #names, &|r| self.__rows(r), predicate, negative, args, Some(verdict), lang)
                    }

                    /// An entity argument of an explanation, by its name in
                    /// these conclusions (an error for an id they cannot hold).
                    #[allow(dead_code)]
                    fn __entity<E: ::lawgen_runtime::Entity>(&self, e: E) -> Result<__rt::Arg, __rt::Error> {
                        __rt::known_entity(#names, e)
                    }
                }
            }
        }
    }
}

/// A raw string literal holding `text` verbatim (newlines included), with as
/// many `#` as it takes that no `"#…` inside ends it early.
fn raw_string(text: &str) -> Literal {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{text}\"{h}")
        .parse()
        .expect("a raw string literal always lexes")
}
