//! The Direct engine: the lowered program as per-case Rust.
//!
//! The same rules the ascent engine runs (the [`Plan`]'s, after
//! [`super::unfold`] and [`super::preload`]) become plain functions over one
//! case's tables:
//!
//! - every relation the plan stores is a
//!   [`Table`](lawgen_runtime::__private::Table) of typed rows (`(u32, i64)`,
//!   …) in a `Tables` struct, one per worker thread, cleared (not freed)
//!   between cases, so the steady state allocates nothing per fact or per
//!   case;
//! - the plan's components (strongly connected over positive and negated
//!   dependencies; a stratified program never negates inside one) run in
//!   dependency order, one function each;
//! - a non-recursive component runs each of its rules once: nested loops
//!   over the body's positive atoms in [`join_order`] (bound columns first;
//!   body order in a package is not an execution plan), a filter as soon as
//!   its variables are bound, a negation as a membership test of a complete
//!   table, the head inserted (tables are sets);
//! - a recursive component runs its exit rules once, then semi-naively: each
//!   round evaluates every rule once per body atom on the component, that
//!   atom ranging over the rows added in the previous round
//!   (`rows()[lo..hi]`), atoms on the component before it over the rows
//!   before that round, atoms after it over every row up to the round's
//!   start — so a derivation is found in the round where its last row
//!   arrived, once; the loop ends when a round adds nothing.
//!
//! The code is built as tokens, each rule's loops nested by construction.
//! Rules carry their origin as a doc comment on the statement that runs them
//! (the one kind of comment a token stream holds; rustdoc reads none on a
//! statement, and the module allows the lint saying so); relations and
//! components name theirs in code spans. No package string reaches this code
//! except through [`names::comment`].

use super::plan::{out_ident, rel_ident, Component, Plan};
use super::{code, doc_attrs, names, Backend, EmitError, EngineCode};
use crate::program::{join_order, Item, RelId, Rule, Term};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The Direct engine (`Engine::Direct`).
pub(super) struct Direct;

impl Backend for Direct {
    fn engine(&self, plan: &Plan) -> Result<EngineCode, EmitError> {
        Ok(EngineCode::Tokens(engine(plan)?))
    }

    /// Each case loaded into this thread's tables, run, and its kept
    /// relations appended (sorted) to the batch's outputs.
    ///
    /// A case's facts are not sorted first (`Facts::normalize`, a quarter of
    /// the instructions per chess game): the tables are sets, and a fact
    /// given with its explicit negation is found by testing each pair of
    /// tables, which are nearly always empty on one side. Only then is the
    /// case normalized, so that the error names the same tuple as the other
    /// engines' do.
    fn evaluate_batch(&self, plan: &Plan) -> TokenStream {
        let kept = &plan.kept;
        let store = |r, cols: Vec<TokenStream>| {
            let f = rel_ident(r);
            quote!(s.#f.insert((#(#cols,)*));)
        };
        let constants = plan.load_constants(&store);
        let load = plan.load_facts(&store);
        let policy = plan.load_policy(&store);
        let init = kept.iter().map(|&r| {
            let o = out_ident(r);
            quote!(#o: __rt::ByCase::with_cases(n))
        });
        let take = kept.iter().map(|&r| {
            let f = rel_ident(r);
            let o = out_ident(r);
            // Most kept tables of a case are empty: no sort, no extend.
            quote! {
                if s.#f.is_empty() {
                    out.#o.push_empty();
                } else {
                    s.#f.sort();
                    out.#o.push_rows(c, s.#f.rows());
                }
            }
        });
        let conflicts = plan.negations.iter().map(|&(_, p, n)| {
            let (p, n) = (rel_ident(p), rel_ident(n));
            quote!(s.#p.meets(&s.#n))
        });
        let conflict = quote!(false #(|| #conflicts)*);
        let none = kept.iter().map(|&r| {
            let o = out_ident(r);
            quote!(out.#o.push_empty();)
        });
        let case = if kept.is_empty() {
            quote!(_)
        } else {
            quote!(c)
        };
        quote! {
            /// Evaluates independent cases one after the other on this
            /// thread's tables (no allocation per case once they have grown).
            fn evaluate_batch(cases: Vec<Facts>, policy: __rt::Policy) -> Vec<Result<Conclusions, __rt::Error>> {
                let n = cases.len();
                let mut out = Outputs { #(#init,)* };
                let mut facts = Vec::with_capacity(n);
                let mut errors = Vec::with_capacity(n);
                __engine::with_tables(|s| {
                    for (#case, mut f) in (0u32..).zip(cases) {
                        s.clear();
                        #(#constants)*
                        #load
                        let contradiction = if #conflict { f.normalize().err() } else { None };
                        match contradiction {
                            None => {
                                #policy
                                s.run();
                                #(#take)*
                                errors.push(None);
                            }
                            Some(e) => {
                                #(#none)*
                                errors.push(Some(e));
                            }
                        }
                        facts.push(f);
                    }
                });
                let batch = ::std::sync::Arc::new(Batch { facts, out });
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
    }
}

/// What a positive body atom ranges over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Range {
    /// Every row (a relation complete before this component runs).
    All,
    /// Rows before the previous round: `0..l`.
    Old(RelId),
    /// Rows added in the previous round: `l..h`.
    Delta(RelId),
    /// Rows up to this round's start: `0..h`.
    Known(RelId),
}

/// The column sets rules look tables up by: (relation, column mask).
type Wants = BTreeSet<(RelId, u32)>;

/// The items of `mod __engine`.
fn engine(plan: &Plan) -> Result<TokenStream, EmitError> {
    let fields = plan.storage.iter().map(|&r| {
        let f = rel_ident(r);
        let row = plan.row_type(r);
        let doc = doc_attrs(&format!("`{}`", code(&plan.program.relation(r).name)));
        quote!(#doc pub(super) #f: ::lawgen_runtime::__private::Table<#row>)
    });
    let clears = plan.storage.iter().map(|&r| {
        let f = rel_ident(r);
        quote!(self.#f.clear();)
    });
    let comps = plan.components()?;
    let calls = (0..comps.len()).map(|k| {
        let c = format_ident!("c{k}");
        quote!(#c(self);)
    });
    let mut wants = Wants::new();
    let comp_fns: Vec<TokenStream> = comps
        .iter()
        .enumerate()
        .map(|(k, comp)| component(plan, k, comp, &mut wants))
        .collect();
    let wants = wants.iter().map(|&(r, mask)| {
        let f = rel_ident(r);
        let mask = Literal::u32_unsuffixed(mask);
        quote!(t.#f.want(#mask);)
    });
    Ok(quote! {
        // Each rule's origin is a doc comment on the statement that runs it.
        #![allow(unused_doc_comments)]

        /// One case's relations, typed rows each; reused case after case.
        #[derive(Default)]
        pub(super) struct Tables {
            #(#fields,)*
        }

        impl Tables {
            /// Empties every table (keeping its allocation) for the next case.
            pub(super) fn clear(&mut self) {
                #(#clears)*
            }

            /// Runs every rule on the loaded case, component by component.
            pub(super) fn run(&mut self) {
                #(#calls)*
            }
        }

        // (No doc comment inside: prettyplease writes a macro's body as
        // tokens, and a doc comment as an attribute.)
        ::std::thread_local! {
            static TABLES: ::std::cell::RefCell<Tables> = ::std::cell::RefCell::new(Tables::new());
        }

        /// Runs `f` on this worker thread's tables, `TABLES` (fresh ones if
        /// they are in use).
        pub(super) fn with_tables<T>(f: impl FnOnce(&mut Tables) -> T) -> T {
            TABLES.with(|t| match t.try_borrow_mut() {
                Ok(mut t) => f(&mut t),
                Err(_) => f(&mut Tables::new()),
            })
        }

        #(#comp_fns)*

        impl Tables {
            /// Fresh tables, told the column sets the rules look them up by.
            pub(super) fn new() -> Self {
                #[allow(unused_mut)]
                let mut t = Tables::default();
                #(#wants)*
                t
            }
        }
    })
}

/// Component `k` as the function `c{k}`.
fn component(plan: &Plan, k: usize, comp: &Component, wants: &mut Wants) -> TokenStream {
    let rels = &comp.rels;
    let relations: Vec<String> = rels
        .iter()
        .map(|r| format!("`r{} {}`", r.0, code(&plan.program.relation(*r).name)))
        .collect();
    let doc = doc_attrs(&format!(
        "component {k}{}: {}",
        if comp.recursive { " (recursive)" } else { "" },
        relations.join(", ")
    ));
    let name = format_ident!("c{k}");
    let rules: Vec<&Rule> = comp
        .rules
        .iter()
        .map(|&ri| &plan.engine.rules[ri])
        .collect();
    let all = |_: usize, _: RelId| Range::All;
    let body = if !comp.recursive {
        let rules = rules
            .iter()
            .map(|rule| rule_code(plan, rule, None, &all, wants));
        quote!(#(#rules)*)
    } else {
        let on = |rule: &Rule| -> Vec<usize> {
            rule.body
                .iter()
                .enumerate()
                .filter(|(_, it)| matches!(it, Item::Pos(a) if rels.contains(&a.rel)))
                .map(|(i, _)| i)
                .collect()
        };
        // Exit rules: nothing of the component in the body.
        let exits: Vec<TokenStream> = rules
            .iter()
            .filter(|r| on(r).is_empty())
            .map(|rule| rule_code(plan, rule, None, &all, wants))
            .collect();
        let mut rounds = Vec::new();
        for rule in &rules {
            for d in on(rule) {
                let range = |pos: usize, rel: RelId| -> Range {
                    if !rels.contains(&rel) {
                        Range::All
                    } else if pos == d {
                        Range::Delta(rel)
                    } else if pos < d {
                        Range::Old(rel)
                    } else {
                        Range::Known(rel)
                    }
                };
                rounds.push(rule_code(plan, rule, Some(d), &range, wants));
            }
        }
        // Per relation of the component: its table, and the bounds of the
        // rows added in the previous round, `l..h`.
        let f: Vec<Ident> = rels.iter().map(|r| rel_ident(*r)).collect();
        let l: Vec<Ident> = rels.iter().map(|r| format_ident!("l{}", r.0)).collect();
        let h: Vec<Ident> = rels.iter().map(|r| format_ident!("h{}", r.0)).collect();
        quote! {
            #(#exits)*
            #(let (mut #l, mut #h) = (0, s.#f.len());)*
            while #(#l < #h)||* {
                #(#rounds)*
                #((#l, #h) = (#h, s.#f.len());)*
            }
        }
    };
    quote! {
        #doc
        fn #name(s: &mut Tables) {
            #body
        }
    }
}

/// A scope one body item opens around the rest of a rule.
enum Nest {
    /// `if cond { … }`: a membership test, a negation, a comparison or the
    /// equalities of an atom's bound columns.
    If(TokenStream),
    /// `for &pat in rows { … }`.
    For(TokenStream, TokenStream),
    /// `for i in lo..hi { let pat = s.r.rows()[i]; … }`: a range of a
    /// table's rows by position (semi-naive rounds).
    Positions {
        index: Ident,
        lo: TokenStream,
        hi: TokenStream,
        pat: TokenStream,
        table: Ident,
    },
}

/// `()`, `(a,)`, `(a, b)`.
fn tuple(items: &[TokenStream]) -> TokenStream {
    quote!((#(#items,)*))
}

/// One rule as nested loops, its origin as the statement's doc comment.
fn rule_code(
    plan: &Plan,
    rule: &Rule,
    delta: Option<usize>,
    range: &dyn Fn(usize, RelId) -> Range,
    wants: &mut Wants,
) -> TokenStream {
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
    let value = |t: &Term| -> TokenStream {
        match t {
            Term::Var(v) => format_ident!("v{v}").into_token_stream(),
            Term::Value(x) => plan.value(x).into_token_stream(),
        }
    };
    let mut scopes: Vec<Nest> = Vec::new();
    let mut bound: HashSet<u32> = HashSet::new();
    let (mut fresh, mut loops) = (0usize, 0usize);
    for i in join_order(&rule.body, delta) {
        match &rule.body[i] {
            // Every column bound: a membership test, not a scan.
            Item::Pos(a)
                if range(i, a.rel) == Range::All
                    && a.args.iter().all(|t| match t {
                        Term::Var(v) => bound.contains(v),
                        Term::Value(_) => true,
                    }) =>
            {
                let f = rel_ident(a.rel);
                let row = tuple(&a.args.iter().map(value).collect::<Vec<_>>());
                scopes.push(Nest::If(quote!(s.#f.contains(&#row))));
            }
            Item::Pos(a) => {
                let mut pats = Vec::with_capacity(a.args.len());
                let mut checks = Vec::new();
                // The columns bound before the loop, and their values.
                let (mut mask, mut key) = (0u32, Vec::new());
                for (k, t) in a.args.iter().enumerate() {
                    match t {
                        Term::Var(v) if !bound.contains(v) => {}
                        _ => {
                            mask |= 1 << k;
                            key.push(value(t));
                        }
                    }
                }
                for t in &a.args {
                    match t {
                        Term::Var(v) if bound.contains(v) => {
                            let w = format_ident!("w{fresh}");
                            let v = value(t);
                            checks.push(quote!(#w == #v));
                            pats.push(w.into_token_stream());
                            fresh += 1;
                        }
                        Term::Var(v) if uses[v] == 1 => pats.push(quote!(_)),
                        Term::Var(v) => {
                            bound.insert(*v);
                            pats.push(value(t));
                        }
                        Term::Value(_) => {
                            let w = format_ident!("w{fresh}");
                            let v = value(t);
                            checks.push(quote!(#w == #v));
                            pats.push(w.into_token_stream());
                            fresh += 1;
                        }
                    }
                }
                let pat = tuple(&pats);
                let table = rel_ident(a.rel);
                scopes.push(match range(i, a.rel) {
                    // Looked up by some columns: by an index, once the
                    // table is large (`Table::matching`).
                    Range::All if mask != 0 => {
                        wants.insert((a.rel, mask));
                        let m = Literal::u32_unsuffixed(mask);
                        Nest::For(pat, quote!(s.#table.matching(#m, &[#(i64::from(#key)),*])))
                    }
                    Range::All => Nest::For(pat, quote!(s.#table.rows())),
                    other => {
                        let (l, h) = (format_ident!("l{}", a.rel.0), format_ident!("h{}", a.rel.0));
                        let (lo, hi) = match other {
                            Range::Old(_) => (quote!(0), quote!(#l)),
                            Range::Delta(_) => (quote!(#l), quote!(#h)),
                            _ => (quote!(0), quote!(#h)),
                        };
                        let index = format_ident!("i{loops}");
                        loops += 1;
                        Nest::Positions {
                            index,
                            lo,
                            hi,
                            pat,
                            table,
                        }
                    }
                });
                if !checks.is_empty() {
                    scopes.push(Nest::If(quote!(#(#checks)&&*)));
                }
            }
            Item::Neg(a) => {
                let f = rel_ident(a.rel);
                let row = tuple(&a.args.iter().map(value).collect::<Vec<_>>());
                scopes.push(Nest::If(quote!(!s.#f.contains(&#row))));
            }
            Item::Cmp(a, op, b) => {
                let (a, b) = (value(a), value(b));
                let op = super::plan::operator_tokens(*op);
                scopes.push(Nest::If(quote!(#a #op #b)));
            }
        }
    }
    let head = rel_ident(rule.head.rel);
    let row = tuple(&rule.head.args.iter().map(value).collect::<Vec<_>>());
    let mut code = quote!(s.#head.insert(#row););
    for scope in scopes.into_iter().rev() {
        code = match scope {
            Nest::If(cond) => quote!(if #cond { #code }),
            Nest::For(pat, rows) => quote!(for &#pat in #rows { #code }),
            Nest::Positions {
                index,
                lo,
                hi,
                pat,
                table,
            } => quote! {
                for #index in #lo..#hi {
                    let #pat = s.#table.rows()[#index];
                    #code
                }
            },
        };
    }
    let origin = Literal::string(&format!(" {}", names::comment(&rule.origin)));
    quote!(#[doc = #origin] #code)
}
