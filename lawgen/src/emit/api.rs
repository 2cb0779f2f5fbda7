//! The typed API around the engine: entity types, `Facts`, batch
//! evaluation, `Conclusions` (docs/reference.md#generated-code). Built as tokens; every package
//! string is either a `Literal::string` or has gone through `names`.

use super::names::ApiNames;
use super::plan::{column_type, out_ident, Plan};
use super::{code, doc_attrs, names, EmitOptions};
use crate::model::{Lit, PredId, Ty, TypeId};
use crate::program::{default_label, Catalog, Program, RelId, Section};
use crate::syntax::{RelationKind, Strength};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// An output relation and the relation subtracted from it (for `pending`).
type OutputRel = (RelId, Option<RelId>);

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

    /// The API's items, around `evaluate_batch`, the engine's.
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
    /// expression for the interner.
    fn col_arg(t: Ty, k: usize, interner: &TokenStream) -> TokenStream {
        let idx = index(k);
        match t {
            Ty::Int => quote!(__rt::Arg::Int(t.#idx)),
            Ty::Entity(_) => quote!(__rt::entity(#interner, t.#idx)),
        }
    }

    /// The label rustdoc shows: in the module's doc language when asked
    /// for and the node has one, else `default` (English, else the first).
    fn doc_label<'l>(
        &self,
        labels: &'l [crate::syntax::Label],
        default: Option<&'l str>,
    ) -> Option<&'l str> {
        match self.doc_language {
            Some(lang) => crate::program::label_in(labels, lang),
            None => default,
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
            quote!(self.facts().rows.iter().filter(|(r, _)| *r == #rel).map(|(_, v)| #t))
        } else {
            let o = out_ident(r);
            let t = self.without_case(r);
            quote!(self.batch.out.#o.case(self.case).iter().map(|t| #t))
        }
    }

    /// The number of `self`'s rows in kept relation `r`.
    fn case_count(&self, r: RelId) -> TokenStream {
        let o = out_ident(r);
        quote!(self.batch.out.#o.case(self.case).len())
    }

    /// Does `self` have the row `cols` in kept relation `r`?
    fn case_member(&self, r: RelId, cols: &[TokenStream]) -> TokenStream {
        let o = out_ident(r);
        quote!(self.batch.out.#o.case(self.case).binary_search(&(self.case, #(#cols,)*)).is_ok())
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
        // time (no package text, no compiler).
        let program = raw_string(&self.prog.encode_lines());
        let generator = Literal::string(env!("CARGO_PKG_VERSION"));
        let doc = doc_attrs(&format!(
            "The package this module was generated from: {} {}.",
            names::doc(&self.prog.package),
            names::doc(&self.prog.version)
        ));
        let constants = &self.plan.constants.in_order;
        let consts = constants.iter().map(|c| Literal::string(c));
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
            /// (read by `Facts::from_json`, `Conclusions::to_json` and `explain*`).
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
            d.push_str(". An interned id: get one from `Facts`, or use a package constant.");
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
                impl #id { #(#consts)* }
                impl ::lawgen_runtime::Entity for #id {
                    const TYPE_NAME: &'static str = #tname;
                    fn id(self) -> u32 { self.0 }
                    fn __from_id(id: u32) -> Self { #id(id) }
                }
            });
        }
        types
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

    fn facts_items(&self) -> TokenStream {
        let m = self.cat;
        let width = self.row_width();
        let mut methods = Vec::new();
        for (i, t) in m.types.iter().enumerate() {
            let mname = &self.names.entity_methods[i];
            let ty = &self.names.types[i];
            let push = self.plan.entities_rel.get(&TypeId(i as u32)).map(|&r| {
                let row = self.row_expr(r, &[quote!(id)]);
                quote!(self.rows.push(#row);)
            });
            let doc = doc_attrs(&format!(
                "The `{}` entity named `name` (interned; declared as an entity of the input).",
                code(&t.name)
            ));
            methods.push(quote! {
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
            let args = &self.names.params[i];
            let tys: Vec<TokenStream> = p.params.iter().map(|t| self.api_type(*t)).collect();
            let cols: Vec<TokenStream> = p
                .params
                .iter()
                .zip(args)
                .map(|(t, a)| Self::to_col(*t, a))
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
                        let row = self.row_expr(r, &cols);
                        let what = if negative {
                            format!("States the explicit negation `~{}`: ", code(&p.local))
                        } else {
                            "States the fact ".to_owned()
                        };
                        let doc = doc_attrs(&format!("{what}{}", self.pred_doc(pid)));
                        methods.push(quote! {
                            #doc
                            pub fn #mn(&mut self, #(#args: #tys),*) -> &mut Self {
                                self.rows.push(#row);
                                self
                            }
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
                    let (ry, rno) = (self.row_expr(yes, &cols), self.row_expr(no, &cols));
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
                    methods.push(quote! {
                        #doc
                        pub fn #mn(&mut self, #(#args: #tys,)* holds: bool) -> &mut Self {
                            self.rows.push(if holds { #ry } else { #rno });
                            self
                        }
                    });
                }
                RelationKind::Institutional => {}
            }
        }
        // Contradictions: p and ~p for the same tuple (docs/reference.md#facts-files).
        let mut negation_arms = Vec::new();
        let mut describe_arms = Vec::new();
        for (pid, pos, neg) in self.plan.negations.iter().copied() {
            let p = m.pred(pid);
            let (pr, nr) = (pos.0, neg.0);
            negation_arms.push(quote!(#pr => #nr,));
            let local = Literal::string(&p.local);
            let decode = p.params.iter().enumerate().map(|(k, t)| match t {
                Ty::Int => quote!(__rt::Arg::Int(v[#k])),
                Ty::Entity(_) => quote!(__rt::entity(&self.interner, v[#k] as u32)),
            });
            describe_arms.push(quote! {
                #pr => __rt::Error::Contradiction { predicate: #local, args: vec![#(#decode),*] },
            });
        }
        quote! {
            /// A fact row: the input relation and its columns (entities as ids).
            type Row = (u32, [i64; #width]);

            /// The input of one evaluation (one case): entities, facts,
            /// explicit negations and decided judgments.
            #[derive(Clone, Debug)]
            pub struct Facts {
                interner: __rt::Interner,
                rows: Vec<Row>,
            }

            impl Default for Facts {
                fn default() -> Self {
                    Self::new()
                }
            }

            impl Facts {
                /// Empty facts (the package's constants are known already).
                pub fn new() -> Self {
                    Facts { interner: __rt::Interner::with_constants(CONSTANTS, constant_id), rows: Vec::with_capacity(48) }
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

                #(#methods)*

                /// Evaluates the package on these facts under `policy`.
                /// Fails only if a fact and its explicit negation were both given.
                /// For many cases, [`evaluate_many`] is much faster.
                pub fn evaluate(&self, policy: __rt::Policy) -> Result<Conclusions, __rt::Error> {
                    evaluate_batch(vec![self.clone()], policy)
                        .pop()
                        .unwrap_or_else(|| Err(__rt::Error::Internal("a batch of one gave no result".into())))
                }

                /// docs/reference.md#facts-files: facts are sets, and `p` and `~p` for the same
                /// tuple is an input error.
                fn normalize(&mut self) -> Result<(), __rt::Error> {
                    self.rows.sort_unstable();
                    self.rows.dedup();
                    for (rel, v) in &self.rows {
                        let negation = match *rel {
                            #(#negation_arms)*
                            _ => continue,
                        };
                        if self.rows.binary_search(&(negation, *v)).is_ok() {
                            return Err(self.contradiction(*rel, v));
                        }
                    }
                    Ok(())
                }

                fn contradiction(&self, rel: u32, v: &[i64; #width]) -> __rt::Error {
                    match rel {
                        #(#describe_arms)*
                        _ => __rt::Error::Internal(format!("no negation for relation {rel}")),
                    }
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
                    self.rows.push((rel as u32, v));
                }
            }

            ::lawgen_runtime::__if_serde! {
                impl Facts {
                    /// Reads a facts file (docs/reference.md#facts-files): keys are predicate names,
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
        }
    }

    fn batch_items(&self, evaluate_batch: TokenStream) -> TokenStream {
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
                facts: Vec<Facts>,
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
                __rt::run_batched(cases.into_iter(), batching, &|batch| evaluate_batch(batch, policy), &mut sink);
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
                __rt::run_indexed(n, batching, &make, &|batch| evaluate_batch(batch, policy), &map, &mut sink);
            }
        }
    }

    fn conclusions_items(&self) -> TokenStream {
        let m = self.cat;
        let outputs = self.outputs_by_lit();
        let interner = quote!(&self.facts().interner);
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
                .map(|(k, t)| Self::col_arg(*t, k, &interner));
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
            let wrap: Vec<TokenStream> = p
                .params
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let idx = index(k);
                    match t {
                        Ty::Int => quote!(t.#idx),
                        Ty::Entity(id) => {
                            let ti = &self.names.types[id.0 as usize];
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
                    Ty::Entity(_) => quote!(__rt::known_entity(&self.facts().interner, #a)?),
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
                let member = |s: Section| -> Option<TokenStream> {
                    let v = outputs.get(&(l, s))?;
                    let parts = v.iter().map(|(r, minus)| {
                        let has = self.case_member(*r, &cols);
                        match minus {
                            // `rel \ minus`, as the runtime defines a section.
                            Some(mr) => {
                                let not = self.case_member(*mr, &cols);
                                quote!(__rt::section_member(#has, || #not))
                            }
                            None => has,
                        }
                    });
                    Some(quote!(#(#parts)||*))
                };
                // Each section's membership; the runtime's `Verdict::decide`
                // ranks them, as it does for `lawgen explain`.
                let arms: Vec<TokenStream> = [
                    (Section::Definitely, quote!(Definitely)),
                    (Section::Defeasibly, quote!(Defeasibly)),
                    (Section::Pending, quote!(Pending)),
                    (Section::Supported, quote!(Supported)),
                ]
                .into_iter()
                .filter_map(|(s, name)| member(s).map(|c| quote!(__rt::Section::#name => #c,)))
                .collect();
                let requests = if outputs.contains_key(&(l, Section::Pending)) {
                    quote!(|| self.requests_on(&[#(#judgments),*]))
                } else {
                    quote!(::std::vec::Vec::new)
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
                        __rt::Verdict::decide(|__s| match __s {
                            #(#arms)*
                            #[allow(unreachable_patterns)]
                            _ => false,
                        }, #requests)
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
                            let __verdict = self.#vn(#(#args),*);
                            __rt::explain_literal(&PACKAGE, self.policy, &self.facts().interner, &|r| self.__rows(r),
                                #full_id, #negative, vec![#(#arg_values),*], Some(&__verdict), lang)
                        }
                    }
                });
            }
        }
        let ncounts = counts.len();

        // Rows of every relation the reference bridge asks for.
        let mut row_rels: BTreeSet<RelId> = self.plan.inputs.iter().copied().collect();
        row_rels.extend(self.plan.kept.iter().copied());
        // One runtime function per row type, not a closure per relation:
        // these arms were four tenths of the module's LLVM IR.
        let row_arms = row_rels.iter().map(|&r| {
            let i = r.0 as usize;
            if self.plan.is_input(r) {
                let rel = r.0;
                let arity = self.prog.relation(r).columns.len();
                quote!(#i => __rt::input_rows(&self.facts().rows, #rel, #arity),)
            } else {
                let o = out_ident(r);
                quote!(#i => __rt::case_rows(self.batch.out.#o.case(self.case)),)
            }
        });

        quote! {
            /// The result of evaluating one case: a verdict per ground literal.
            /// (Cases evaluated in one batch share their storage.)
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

                /// The facts this evaluation ran on.
                pub fn facts(&self) -> &Facts {
                    &self.batch.facts[self.case as usize]
                }

                /// The name of an entity (`None` for an id from other facts).
                pub fn name<E: ::lawgen_runtime::Entity>(&self, e: E) -> Option<&str> {
                    self.facts().interner.name_of(e.id())
                }

                /// The entity named `name` in these conclusions' facts or the package.
                pub fn get<E: ::lawgen_runtime::Entity>(&self, name: &str) -> Option<E> {
                    self.facts().interner.get(name).map(E::__from_id)
                }

                /// For each institutional literal (`p`, `~p`), how many tuples
                /// are concluded (definitely or defeasibly).
                pub fn concluded_counts(&self) -> [(&'static str, usize); #ncounts] {
                    [#(#counts),*]
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
                    /// The canonical output of docs/reference.md#the-canonical-output (what `lawgen eval` prints).
                    pub fn to_json(&self) -> Result<String, __rt::Error> {
                        __rt::canonical_json(&PACKAGE, self.policy, &self.facts().interner, &|r| self.__rows(r))
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
                        __rt::explain(&PACKAGE, self.policy, &self.facts().interner, &|r| self.__rows(r), query, lang)
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
