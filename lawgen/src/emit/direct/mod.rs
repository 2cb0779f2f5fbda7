//! The Direct engine: the lowered program as per-case Rust.
//!
//! The same rules the ascent engine runs (the [`Plan`]'s, after
//! [`super::unfold`], [`super::cse`] and [`super::preload`]) become plain
//! code over one case's relations, kept in a `Tables` struct, one per
//! worker thread, cleared (not freed) between cases, so the steady state
//! allocates nothing per fact or per case. A case has a few entities, so
//! each relation is stored the cheapest way its shape allows ([`Layout`]):
//!
//! - a nullary relation (the policy flag, a nullary predicate) is a `bool`;
//! - a unary relation over entities is a word of bits in one
//!   [`Sets`](lawgen_runtime::__private::Sets) (id `i` is bit `i`; ids of
//!   64 or more, in a case with many entities, spill to a table), cleared
//!   with the others by one `memset`;
//! - every other relation, and every relation of a recursive component, is
//!   a [`Table`](lawgen_runtime::__private::Table) of typed rows (`(u32,
//!   i64)`, …): a scan up to 16 rows, a hash set beyond, and for the column
//!   sets rules look it up by, an index once it is that large.
//!
//! The plan's components (strongly connected over positive and negated
//! dependencies; a stratified program never negates inside one) run in
//! dependency order as one straight-line function:
//!
//! - a non-recursive component runs each of its rules once: nested loops
//!   over the body's positive atoms in [`join_order`] (bound columns first;
//!   body order in a package is not an execution plan), a filter as soon as
//!   its variables are bound, a negation as a membership test of a complete
//!   relation, the head inserted (relations are sets);
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

mod from_program;

use super::plan::{rel_ident, Component, Plan};
use super::{code, doc_attrs, names, Backend, EmitError, EngineCode};
use crate::program::Ty;
use crate::program::{join_order, Item, RelId, Rule, Term};
pub(super) use from_program::FromProgram;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// How many cases a worker builds and evaluates before their conclusions
/// are digested (measured on chess games: 128 and 256 alike, 512 slower,
/// 1024 slower still).
const CASES_PER_RUN: usize = 256;

/// At most how many rules one function of the engine runs (unless one
/// component has more): components of up to this many rules share one.
const RULES_PER_FN: usize = 64;

/// At most how many kept relations one function writes to the outputs.
const OUTPUTS_PER_FN: usize = 64;

/// Above this many engine rules, the rules test and add rows by calls
/// (`Table::insert_call`, …) compiled once per row type, instead of a copy
/// of the search at each test: most of rustc's time on a large package is
/// LLVM optimizing those copies, while a small program (the chess package's
/// engine has about 100 rules) keeps the inline code its throughput was
/// measured with.
const OUTLINED_ABOVE: usize = 400;

/// A function of a large program's engine is compiled once, on its own; a
/// small program's few are inlined where they are called, as one function.
fn inline_attr(outlined: bool) -> TokenStream {
    if outlined {
        quote!(#[inline(never)])
    } else {
        quote!(#[inline])
    }
}

/// Whether the program is large enough to call its tables' operations
/// ([`OUTLINED_ABOVE`]) and split its engine into functions.
fn outlined(plan: &Plan) -> bool {
    plan.engine.rules.len() > OUTLINED_ABOVE
}

/// The Direct engine (`Engine::Direct`).
pub(super) struct Direct;

impl Backend for Direct {
    fn engine(&self, plan: &Plan) -> Result<EngineCode, EmitError> {
        Ok(EngineCode::Tokens(engine(plan)?))
    }

    /// Each case loaded into this thread's tables, run, and its kept
    /// relations appended (sorted) to the batch's outputs (a case with an
    /// error, like an empty relation, appends nothing).
    ///
    /// A case's facts are not sorted first (that was a quarter of the
    /// instructions per chess game): the tables are sets, and a fact given
    /// with its explicit negation is found by testing each pair of tables,
    /// which are nearly always empty on one side. Only then are the case's
    /// rows sorted (`Input::contradiction`), so that the error names the
    /// same tuple as the other engines' do. A case whose ids cannot be
    /// named (`Input::check`) is not run.
    fn evaluate_batch(&self, plan: &Plan) -> TokenStream {
        // `engine` reported an unstratified program already.
        let layout = Layout::new(plan, &plan.components().unwrap_or_default());
        let at = Access {
            layout: &layout,
            path: quote!(__engine::),
            outlined: outlined(plan),
        };
        let kept = &plan.kept;
        let store = |r, cols: Vec<TokenStream>| at.insert(r, &cols);
        let constants = plan.load_constants(&store);
        let load = plan.load_facts(&store, quote!(input.rows(i)));
        let policy = plan.load_policy(&store);
        // A kept relation that is empty in a case (most are) costs a test:
        // the outputs need no call for a case with no rows.
        let take = kept.iter().map(|&r| {
            let f = rel_ident(r);
            let o = plan.outputs.place(r);
            match layout.kind(r) {
                Kind::Flag => {
                    let f = flag_ident(r);
                    quote! {
                        if s.#f {
                            out.#o.push_case(c, [(c,)]);
                        }
                    }
                }
                Kind::Bits(_) => {
                    let k = at.bits(r);
                    quote! {
                        if !s.u.is_empty(#k) {
                            s.u.push_to(#k, c, &mut out.#o);
                        }
                    }
                }
                Kind::Table => quote! {
                    if !s.#f.is_empty() {
                        s.#f.sort();
                        out.#o.push_rows(c, s.#f.rows());
                    }
                },
            }
        });
        // A fact given with its explicit negation: the pairs of relations
        // stored as bits in one test of their words.
        let mut word_pairs = Vec::new();
        let mut conflicts = Vec::new();
        for &(_, p, n) in &plan.negations {
            match (layout.kind(p), layout.kind(n)) {
                (Kind::Flag, Kind::Flag) => {
                    let (p, n) = (flag_ident(p), flag_ident(n));
                    conflicts.push(quote!((s.#p && s.#n)));
                }
                (Kind::Bits(_), Kind::Bits(_)) => {
                    let (p, n) = (at.bits(p), at.bits(n));
                    word_pairs.push(quote!((#p, #n)));
                }
                _ => {
                    let (p, n) = (rel_ident(p), rel_ident(n));
                    conflicts.push(quote!(s.#p.meets(&s.#n)));
                }
            }
        }
        if !word_pairs.is_empty() {
            conflicts.insert(0, quote!(s.u.meets_any(&[#(#word_pairs),*])));
        }
        let conflict = if conflicts.is_empty() {
            quote!(false)
        } else {
            quote!(#(#conflicts)||*)
        };
        let (case, out) = if kept.is_empty() {
            (quote!(_), quote!(out))
        } else {
            (quote!(c), quote!(mut out))
        };
        // Loading, and writing the outputs, are functions of their own (the
        // latter a few relations at a time): per relation they are a few
        // lines, and rustc's time grows faster than a function's length.
        let take: Vec<TokenStream> = take.collect();
        let inline = inline_attr(at.outlined);
        let take_fns: Vec<Ident> = (0..take.len().div_ceil(OUTPUTS_PER_FN))
            .map(|k| format_ident!("take_{k}"))
            .collect();
        let take_items = take.chunks(OUTPUTS_PER_FN).zip(&take_fns).map(|(code, f)| {
            quote! {
                /// Appends this case's rows of some kept relations to the batch's outputs.
                #inline
                fn #f(s: &mut __engine::Tables, out: &mut Outputs, c: u32) {
                    #(#code)*
                }
            }
        });
        let conclusions = crate::emit::batch_conclusions();
        quote! {
            /// Evaluates independent cases one after the other on this
            /// thread's tables (no allocation per case once they have grown).
            fn evaluate_batch(mut input: Input, policy: __rt::Policy) -> Vec<Result<Conclusions, __rt::Error>> {
                /// Loads case `i` of `input` into the cleared tables: whether a
                /// fact is given with its explicit negation.
                #inline
                fn load_case(s: &mut __engine::Tables, input: &Input, i: usize) -> bool {
                    #(#constants)*
                    #load
                    #conflict
                }

                #(#take_items)*

                let n = input.len();
                let mut errors = Vec::with_capacity(n);
                let out = __engine::with_tables(|s| {
                    // Each output starts at its size in this thread's
                    // previous batch.
                    let #out = Outputs::with_capacity(n, |k| s.sizes.capacity(k, n));
                    for (#case, i) in (0u32..).zip(0..n) {
                        // A case with an id it cannot name is not run.
                        let mut failed = input.check(i).err();
                        if failed.is_none() {
                            s.clear();
                            if load_case(s, &input, i) {
                                failed = input.contradiction(i);
                            }
                        }
                        match failed {
                            None => {
                                #policy
                                s.run();
                                #(#take_fns(s, &mut out, c);)*
                                errors.push(None);
                            }
                            // Its outputs get no rows.
                            Some(e) => errors.push(Some(e)),
                        }
                    }
                    s.sizes.record(n, ::std::array::from_fn(|k| out.len(k)));
                    out
                });
                #conclusions
            }
        }
    }

    /// Cases are evaluated one at a time, so building a batch's cases far
    /// ahead of their evaluation only pushes them out of cache: 256 chess
    /// games' facts, tables and conclusions fit a core's cache, 1024 did not.
    fn cases_per_run(&self) -> Option<usize> {
        Some(CASES_PER_RUN)
    }
}

/// How the engine stores one relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A nullary relation: a `bool` field `f{r}`.
    Flag,
    /// A unary relation over entities, outside recursive components: word
    /// `k` of the sets `u`.
    Bits(usize),
    /// A `Table` field `r{r}`.
    Table,
}

/// How each relation the plan stores is kept.
struct Layout {
    kinds: BTreeMap<RelId, Kind>,
    /// The relations stored as bits, by their index in the sets.
    bits: Vec<RelId>,
}

impl Layout {
    /// Relations of recursive components stay tables: a semi-naive round
    /// names the rows added since the previous one by position.
    fn new(plan: &Plan, comps: &[Component]) -> Self {
        let recursive: BTreeSet<RelId> = comps
            .iter()
            .filter(|c| c.recursive)
            .flat_map(|c| c.rels.iter().copied())
            .collect();
        let mut kinds = BTreeMap::new();
        let mut bits = Vec::new();
        for &r in &plan.storage {
            let columns = &plan.program.relation(r).columns;
            let kind = if recursive.contains(&r) {
                Kind::Table
            } else {
                match columns.as_slice() {
                    [] => Kind::Flag,
                    [Ty::Entity(_)] => {
                        bits.push(r);
                        Kind::Bits(bits.len() - 1)
                    }
                    _ => Kind::Table,
                }
            };
            kinds.insert(r, kind);
        }
        Layout { kinds, bits }
    }

    fn kind(&self, r: RelId) -> Kind {
        self.kinds.get(&r).copied().unwrap_or(Kind::Table)
    }
}

/// The field of nullary relation `r`.
fn flag_ident(r: RelId) -> Ident {
    format_ident!("f{}", r.0)
}

/// The constant naming relation `r`'s word in the sets.
fn bits_ident(r: RelId) -> Ident {
    format_ident!("U{}", r.0)
}

/// Reading and writing relations as code, from inside `mod __engine`
/// (`path` empty) or from the module around it (`path` is `__engine::`).
struct Access<'a> {
    layout: &'a Layout,
    path: TokenStream,
    /// A large program's tables are tested, added to and cleared by calls
    /// (`Table::contains_call`, …), a small one's inline ([`OUTLINED_ABOVE`]).
    outlined: bool,
}

impl Access<'_> {
    /// The index of a relation stored as bits.
    fn bits(&self, r: RelId) -> TokenStream {
        let path = &self.path;
        let k = bits_ident(r);
        quote!(#path #k)
    }

    /// A statement adding the row `cols` to `r`.
    fn insert(&self, r: RelId, cols: &[TokenStream]) -> TokenStream {
        match self.layout.kind(r) {
            Kind::Flag => {
                let f = flag_ident(r);
                quote!(s.#f = true;)
            }
            Kind::Bits(_) => {
                let k = self.bits(r);
                let v = &cols[0];
                quote!(s.u.insert(#k, #v);)
            }
            Kind::Table => {
                let f = rel_ident(r);
                if self.outlined {
                    quote!(s.#f.insert_call((#(#cols,)*));)
                } else {
                    quote!(s.#f.insert((#(#cols,)*));)
                }
            }
        }
    }

    /// What testing a row of `r` costs.
    fn cost(&self, r: RelId) -> Cost {
        match self.layout.kind(r) {
            Kind::Flag => Cost::Value,
            Kind::Bits(_) => Cost::Word,
            Kind::Table => Cost::Table,
        }
    }

    /// Whether `r` holds the row `cols`.
    fn contains(&self, r: RelId, cols: &[TokenStream]) -> TokenStream {
        match self.layout.kind(r) {
            Kind::Flag => {
                let f = flag_ident(r);
                quote!(s.#f)
            }
            Kind::Bits(_) => {
                let k = self.bits(r);
                let v = &cols[0];
                quote!(s.u.contains(#k, #v))
            }
            Kind::Table => {
                let f = rel_ident(r);
                if self.outlined {
                    quote!(s.#f.contains_call(&(#(#cols,)*)))
                } else {
                    quote!(s.#f.contains(&(#(#cols,)*)))
                }
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
    let comps = plan.components()?;
    let layout = Layout::new(plan, &comps);
    let outlined = outlined(plan);
    let at = Access {
        layout: &layout,
        path: TokenStream::new(),
        outlined,
    };
    let describe = |r: RelId| code(&plan.program.relation(r).name);
    let mut fields = Vec::new();
    let mut clears = Vec::new();
    let mut consts = Vec::new();
    if !layout.bits.is_empty() {
        let n = layout.bits.len();
        fields.push(quote! {
            /// The unary relations over entities (`U<n>` names each one's index).
            pub(super) u: ::lawgen_runtime::__private::Sets<#n>
        });
        clears.push(quote!(self.u.clear();));
    }
    for (&r, &kind) in &layout.kinds {
        let doc = doc_attrs(&format!("`{}`", describe(r)));
        match kind {
            Kind::Flag => {
                let f = flag_ident(r);
                fields.push(quote!(#doc pub(super) #f: bool));
                clears.push(quote!(self.#f = false;));
            }
            Kind::Bits(k) => {
                let c = bits_ident(r);
                let k = Literal::usize_unsuffixed(k);
                consts.push(quote!(#doc pub(super) const #c: usize = #k;));
            }
            Kind::Table => {
                let f = rel_ident(r);
                let row = plan.row_type(r);
                fields.push(quote!(#doc pub(super) #f: ::lawgen_runtime::__private::Table<#row>));
                clears.push(if outlined {
                    quote!(self.#f.clear_call();)
                } else {
                    quote!(self.#f.clear();)
                });
            }
        }
    }
    // Not cleared between cases: it carries the output sizes from one
    // batch to the next (`evaluate_batch`).
    let kept = plan.kept.len();
    fields.push(quote! {
        /// The rows each kept relation had in this thread's previous batch.
        pub(super) sizes: ::lawgen_runtime::__private::OutputSizes<#kept>
    });
    let mut wants = Wants::new();
    // Components in order, a few at a time: one function per run of
    // components of at most `RULES_PER_FN` rules (a larger component is a
    // function of its own). rustc's time grows faster than the size of a
    // function; it grows linearly with their number.
    let mut parts: Vec<Vec<TokenStream>> = Vec::new();
    let mut rules_in_last = usize::MAX;
    for (k, comp) in comps.iter().enumerate() {
        let code = component(plan, &at, k, comp, &mut wants);
        let n = comp.rules.len();
        // A small program stays one function (the chess package's
        // throughput was measured so).
        if parts.is_empty() || outlined && rules_in_last.saturating_add(n) > RULES_PER_FN {
            parts.push(Vec::new());
            rules_in_last = 0;
        }
        rules_in_last += n;
        parts.last_mut().expect("a part was pushed").push(code);
    }
    let run_fns: Vec<Ident> = (0..parts.len()).map(|k| format_ident!("run_{k}")).collect();
    let inline = inline_attr(outlined);
    let part_fns = parts.iter().zip(&run_fns).map(|(code, f)| {
        quote! {
            #inline
            fn #f(s: &mut Tables) {
                #(#code)*
            }
        }
    });
    let wants = wants.iter().map(|&(r, mask)| {
        let f = rel_ident(r);
        let mask = Literal::u32_unsuffixed(mask);
        quote!(t.#f.want(#mask);)
    });
    Ok(quote! {
        // Each rule's origin is a doc comment on the statement that runs it.
        #![allow(unused_doc_comments)]

        #(#consts)*

        /// One case's relations; reused case after case.
        #[derive(Default)]
        pub(super) struct Tables {
            #(#fields,)*
        }

        impl Tables {
            /// Empties every relation (keeping its allocation) for the next case.
            pub(super) fn clear(&mut self) {
                #(#clears)*
            }

            /// Runs every rule on the loaded case, component by component
            /// in dependency order.
            pub(super) fn run(&mut self) {
                #(#run_fns(self);)*
            }
        }

        #(#part_fns)*

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

/// Component `k` as a block of `run`.
fn component(
    plan: &Plan,
    at: &Access,
    k: usize,
    comp: &Component,
    wants: &mut Wants,
) -> TokenStream {
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
    let rules: Vec<&Rule> = comp
        .rules
        .iter()
        .map(|&ri| &plan.engine.rules[ri])
        .collect();
    let all = |_: usize, _: RelId| Range::All;
    let body = if !comp.recursive {
        rules_code(
            rules
                .iter()
                .map(|rule| rule_code(plan, at, rule, None, &all, wants))
                .collect(),
        )
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
        let exits = rules_code(
            rules
                .iter()
                .filter(|r| on(r).is_empty())
                .map(|rule| rule_code(plan, at, rule, None, &all, wants))
                .collect(),
        );
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
                rounds.push(rule_code(plan, at, rule, Some(d), &range, wants));
            }
        }
        let rounds = rules_code(rounds);
        // Per relation of the component: its table, and the bounds of the
        // rows added in the previous round, `l..h`.
        let f: Vec<Ident> = rels.iter().map(|r| rel_ident(*r)).collect();
        let l: Vec<Ident> = rels.iter().map(|r| format_ident!("l{}", r.0)).collect();
        let h: Vec<Ident> = rels.iter().map(|r| format_ident!("h{}", r.0)).collect();
        quote! {
            #exits
            #(let (mut #l, mut #h) = (0, s.#f.len());)*
            while #(#l < #h)||* {
                #rounds
                #((#l, #h) = (#h, s.#f.len());)*
            }
        }
    };
    quote! {
        #doc
        {
            #body
        }
    }
}

/// What a test costs, cheapest first: consecutive tests of a rule run in
/// this order (they bind nothing, so any order is the same rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Cost {
    /// A comparison of bound values, or a flag.
    Value,
    /// A bit of a word.
    Word,
    /// A table's membership test.
    Table,
}

/// A scope one body item opens around the rest of a rule.
enum Nest {
    /// `if cond { … }`: a membership test, a negation, a comparison or the
    /// equalities of an atom's bound columns.
    If(TokenStream, Cost),
    /// `for &pat in rows { … }` (the pattern a tuple of `arity`).
    For(TokenStream, usize, TokenStream),
    /// `for i in lo..hi { let pat = s.r.rows()[i]; … }`: a range of a
    /// table's rows by position (semi-naive rounds).
    Positions {
        index: Ident,
        lo: TokenStream,
        hi: TokenStream,
        pat: TokenStream,
        table: Ident,
    },
    /// `let mut c = s.u.cursor(k); while let Some(v) = c.next(&s.u) { … }`:
    /// the ids of a relation stored as bits.
    Ids {
        cursor: Ident,
        k: TokenStream,
        var: Ident,
    },
}

/// `()`, `(a,)`, `(a, b)`.
fn tuple(items: &[TokenStream]) -> TokenStream {
    quote!((#(#items,)*))
}

/// A rule over one entity, all of whose atoms are unary relations stored
/// as bits (or nullary ones), as word operations: `h(x) :- a(x), !b(x),
/// f()` is `if s.f { s.u.derive(h, &[a], &[b]) }`. `None` for any other
/// rule.
fn word_rule(at: &Access, rule: &Rule) -> Option<TokenStream> {
    let bits = |a: &crate::program::Atom| matches!(at.layout.kind(a.rel), Kind::Bits(_));
    let [x @ Term::Var(_)] = rule.head.args.as_slice() else {
        return None;
    };
    if !bits(&rule.head) {
        return None;
    }
    let (mut pos, mut neg, mut flags) = (Vec::new(), Vec::new(), Vec::new());
    for it in &rule.body {
        match it {
            Item::Pos(a) | Item::Neg(a) if at.layout.kind(a.rel) == Kind::Flag => {
                let test = at.contains(a.rel, &[]);
                flags.push(match it {
                    Item::Pos(_) => test,
                    _ => quote!(!#test),
                });
            }
            Item::Pos(a) if bits(a) && a.args.as_slice() == [x.clone()] => pos.push(at.bits(a.rel)),
            Item::Neg(a) if bits(a) && a.args.as_slice() == [x.clone()] => neg.push(at.bits(a.rel)),
            _ => return None,
        }
    }
    if pos.is_empty() {
        return None;
    }
    let h = at.bits(rule.head.rel);
    let code = quote!(s.u.derive(#h, &[#(#pos),*], &[#(#neg),*]););
    Some(if flags.is_empty() {
        code
    } else {
        quote!(if #(#flags)&&* { #code })
    })
}

/// For `item` a positive atom of a unary relation stored as bits whose
/// variable is not in `bound`: the relation's index and the variable.
fn bits_scan(at: &Access, item: &Item, bound: &HashSet<u32>) -> Option<(TokenStream, u32)> {
    let Item::Pos(a) = item else {
        return None;
    };
    match (at.layout.kind(a.rel), a.args.as_slice()) {
        (Kind::Bits(_), [Term::Var(v)]) if !bound.contains(v) => Some((at.bits(a.rel), *v)),
        _ => None,
    }
}

/// One rule as nested loops, its origin as the statement's doc comment.
fn rule_code(
    plan: &Plan,
    at: &Access,
    rule: &Rule,
    delta: Option<usize>,
    range: &dyn Fn(usize, RelId) -> Range,
    wants: &mut Wants,
) -> RuleCode {
    let origin = Literal::string(&format!(" {}", names::comment(&rule.origin)));
    let origin = quote!(#[doc = #origin]);
    if let Some(code) = word_rule(at, rule) {
        return RuleCode {
            origin,
            scopes: Vec::new(),
            sink: code,
        };
    }
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
        // A unary relation stored as bits, its variable not bound yet: its
        // ids, or, for a variable used nowhere else, whether it has any.
        if let Some((k, v)) = bits_scan(at, &rule.body[i], &bound) {
            if uses[&v] == 1 {
                scopes.push(Nest::If(quote!(!s.u.is_empty(#k)), Cost::Word));
            } else {
                bound.insert(v);
                scopes.push(Nest::Ids {
                    cursor: format_ident!("c{loops}"),
                    k,
                    var: format_ident!("v{v}"),
                });
                loops += 1;
            }
            continue;
        }
        match &rule.body[i] {
            // Every column bound: a membership test, not a scan.
            Item::Pos(a)
                if range(i, a.rel) == Range::All
                    && a.args.iter().all(|t| match t {
                        Term::Var(v) => bound.contains(v),
                        Term::Value(_) => true,
                    }) =>
            {
                let row: Vec<TokenStream> = a.args.iter().map(value).collect();
                scopes.push(Nest::If(at.contains(a.rel, &row), at.cost(a.rel)));
            }
            Item::Pos(a) => {
                let mut pats = Vec::with_capacity(a.args.len());
                let mut checks = Vec::new();
                // The columns bound before the loop, and their values.
                let (mut mask, mut key) = (0u32, Vec::new());
                let constant_key = a.args.iter().all(|t| match t {
                    Term::Var(v) => !bound.contains(v),
                    Term::Value(_) => true,
                });
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
                let (pat, arity) = (tuple(&pats), pats.len());
                let table = rel_ident(a.rel);
                // The outermost loop, looked up by constants only: it runs
                // once, so scanning every row is linear too, and rules
                // scanning the same table fuse into one loop.
                let outermost = !scopes.iter().any(|n| !matches!(n, Nest::If(..)));
                let scan = outermost && constant_key;
                scopes.push(match range(i, a.rel) {
                    // Looked up by some columns: by an index, once the
                    // table is large (`Table::matching`).
                    Range::All if mask != 0 && !scan => {
                        wants.insert((a.rel, mask));
                        let m = Literal::u32_unsuffixed(mask);
                        Nest::For(
                            pat,
                            arity,
                            quote!(s.#table.matching(#m, &[#(i64::from(#key)),*])),
                        )
                    }
                    Range::All => Nest::For(pat, arity, quote!(s.#table.rows())),
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
                    scopes.push(Nest::If(quote!(#(#checks)&&*), Cost::Value));
                }
            }
            Item::Neg(a) => {
                let row: Vec<TokenStream> = a.args.iter().map(value).collect();
                let test = at.contains(a.rel, &row);
                scopes.push(Nest::If(quote!(!#test), at.cost(a.rel)));
            }
            Item::Cmp(a, op, b) => {
                let (a, b) = (value(a), value(b));
                let op = super::plan::operator_tokens(*op);
                scopes.push(Nest::If(quote!(#a #op #b), Cost::Value));
            }
        }
    }
    let row: Vec<TokenStream> = rule.head.args.iter().map(value).collect();
    RuleCode {
        origin,
        scopes,
        sink: at.insert(rule.head.rel, &row),
    }
}

/// One rule's code: the scopes its body opens, outermost first, around the
/// statement that adds its head (or, for a rule of word operations, that
/// statement alone).
struct RuleCode {
    /// The rule's origin as a doc comment.
    origin: TokenStream,
    scopes: Vec<Nest>,
    sink: TokenStream,
}

/// A level of the tree a component's rules are merged into (see
/// [`rules_code`]).
enum Level {
    /// A scope of one or more rules.
    Scope(Nest),
    /// An outermost loop over fresh variables `d…` (`for &(d0, d1) in
    /// rows`, `let d = rows()[i]`, or a cursor's `d`).
    Driver(Nest),
    /// A rule's own names for the driver's fresh variables.
    Bind(TokenStream),
}

impl Level {
    /// Levels with equal keys open the same scope.
    fn key(&self) -> String {
        match self {
            Level::Scope(n) | Level::Driver(n) => {
                let d = matches!(self, Level::Driver(_));
                match n {
                    Nest::If(cond, _) => format!("if {cond}"),
                    Nest::For(pat, _, rows) if d => format!("driver for {rows}"),
                    Nest::For(pat, _, rows) => format!("for {pat} in {rows}"),
                    Nest::Positions {
                        index,
                        lo,
                        hi,
                        pat,
                        table,
                    } if !d => format!("at {index} {lo} {hi} {pat} {table}"),
                    Nest::Positions { lo, hi, table, .. } => format!("driver at {table} {lo} {hi}"),
                    Nest::Ids { cursor, k, var } if !d => format!("ids {cursor} {k} {var}"),
                    Nest::Ids { k, .. } => format!("driver ids {k}"),
                }
            }
            Level::Bind(b) => format!("bind {b}"),
        }
    }
}

/// The rules below one level: the levels that follow, shared by the rules
/// that open them alike, and the rules that end here.
#[derive(Default)]
struct Tree {
    children: Vec<(String, Level, Tree)>,
    /// Origin and head statement of each rule ending here.
    sinks: Vec<(TokenStream, TokenStream)>,
}

impl Tree {
    fn insert(
        &mut self,
        mut levels: std::vec::IntoIter<Level>,
        origin: TokenStream,
        sink: TokenStream,
    ) {
        match levels.next() {
            None => self.sinks.push((origin, sink)),
            Some(level) => {
                let key = level.key();
                let at = match self.children.iter().position(|(k, _, _)| *k == key) {
                    Some(at) => at,
                    None => {
                        self.children.push((key, level, Tree::default()));
                        self.children.len() - 1
                    }
                };
                self.children[at].2.insert(levels, origin, sink);
            }
        }
    }

    fn rules(&self) -> usize {
        self.sinks.len()
            + self
                .children
                .iter()
                .map(|(_, _, t)| t.rules())
                .sum::<usize>()
    }

    /// The code: a subtree of one rule carries that rule's origin at its
    /// top (`printed`: an enclosing scope already does), a rule sharing
    /// scopes with others at its head statement.
    fn code(self, printed: bool) -> TokenStream {
        let mut out = TokenStream::new();
        for (origin, sink) in self.sinks {
            if printed {
                out.extend(sink);
            } else {
                // In a block: an attribute on an assignment statement
                // (`s.f3 = true;`) is unstable Rust, and a flag's insert
                // is one (found by the long differential run).
                out.extend(quote!(#origin { #sink }));
            }
        }
        for (_, level, tree) in self.children {
            let lone = !printed && tree.rules() == 1;
            let origin = lone.then(|| tree.origin());
            let inner = tree.code(printed || lone);
            let code = match level {
                Level::Bind(bind) => quote!({ #bind #inner }),
                Level::Scope(n) => nest(vec![n], inner),
                Level::Driver(n) => match n {
                    Nest::For(_, arity, rows) => {
                        let d = (0..arity).map(|k| format_ident!("d{k}"));
                        quote!(for &(#(#d,)*) in #rows { #inner })
                    }
                    Nest::Positions {
                        index,
                        lo,
                        hi,
                        table,
                        ..
                    } => quote! {
                        for #index in #lo..#hi {
                            let d = s.#table.rows()[#index];
                            #inner
                        }
                    },
                    Nest::Ids { cursor, k, .. } => quote! {
                        {
                            let mut #cursor = s.u.cursor(#k);
                            while let Some(d) = #cursor.next(&s.u) {
                                #inner
                            }
                        }
                    },
                    Nest::If(..) => nest(vec![n], inner),
                },
            };
            match origin {
                Some(origin) => out.extend(quote!(#origin #code)),
                None => out.extend(code),
            }
        }
        out
    }

    /// The origin of the one rule below.
    fn origin(&self) -> TokenStream {
        match self.sinks.first() {
            Some((origin, _)) => origin.clone(),
            None => self
                .children
                .first()
                .map(|(_, _, t)| t.origin())
                .unwrap_or_default(),
        }
    }
}

/// `inner` inside `scopes` (outermost first).
fn nest(scopes: Vec<Nest>, inner: TokenStream) -> TokenStream {
    let mut code = inner;
    for scope in scopes.into_iter().rev() {
        code = match scope {
            Nest::If(cond, _) => quote!(if #cond { #code }),
            Nest::For(pat, _, rows) => quote!(for &#pat in #rows { #code }),
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
            Nest::Ids { cursor, k, var } => quote! {
                {
                    let mut #cursor = s.u.cursor(#k);
                    while let Some(#var) = #cursor.next(&s.u) {
                        #code
                    }
                }
            },
        };
    }
    code
}

/// A component's rules as one tree of scopes (in any order: each rule reads
/// relations complete before it runs, or, in a semi-naive round, fixed
/// ranges of rows, so running one inside another's scopes changes nothing
/// it reads). Rules whose outermost loops range over the same rows run in
/// one loop over fresh variables, each binding its own names from them;
/// below that, rules whose next scopes are the same (the same test of the
/// same names, the same inner loop) share them, and rules with the same
/// body share all of it. Consecutive tests of a rule run cheapest first.
fn rules_code(rules: Vec<RuleCode>) -> TokenStream {
    let mut tree = Tree::default();
    for rule in rules {
        let mut levels = Vec::new();
        let mut scopes = rule.scopes.into_iter().peekable();
        if let Some(first) = scopes.next_if(|n| !matches!(n, Nest::If(..))) {
            let bind = match &first {
                Nest::For(pat, arity, _) => {
                    let d = (0..*arity).map(|k| format_ident!("d{k}"));
                    quote!(let #pat = (#(#d,)*);)
                }
                Nest::Positions { pat, .. } => quote!(let #pat = d;),
                Nest::Ids { var, .. } => quote!(let #var = d;),
                Nest::If(..) => TokenStream::new(),
            };
            levels.push(Level::Driver(first));
            levels.push(Level::Bind(bind));
        }
        // Runs of tests, cheapest first (then by text, so that rules
        // testing the same things share the tests).
        let mut run: Vec<Nest> = Vec::new();
        let flush = |run: &mut Vec<Nest>, levels: &mut Vec<Level>| {
            run.sort_by_cached_key(|n| match n {
                Nest::If(cond, cost) => (*cost, cond.to_string()),
                _ => (Cost::Value, String::new()),
            });
            levels.extend(run.drain(..).map(Level::Scope));
        };
        for n in scopes {
            if matches!(n, Nest::If(..)) {
                run.push(n);
            } else {
                flush(&mut run, &mut levels);
                levels.push(Level::Scope(n));
            }
        }
        flush(&mut run, &mut levels);
        tree.insert(levels.into_iter(), rule.origin, rule.sink);
    }
    tree.code(false)
}
