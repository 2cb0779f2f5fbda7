//! The Direct engine: the lowered program as per-case Rust.
//!
//! The same rules the ascent engine runs (the program after [`super::unfold`]
//! and [`super::preload`]) become plain functions over one case's tables:
//!
//! - every relation is a [`Table`](lawgen_runtime::__private::Table) of typed
//!   rows (`(u32, i64)`, …) in a `Tables` struct, one per worker thread,
//!   cleared (not freed) between cases, so the steady state allocates
//!   nothing per fact or per case;
//! - the relations are grouped into strongly connected components (over
//!   positive and negated dependencies; a stratified program never negates
//!   inside one) and run in topological order;
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
//! Rules carry their origin as a comment, like the ascent program's. No
//! package string reaches this code except through [`names::comment`].

use super::api::{out_ident, rel_ident};
use super::{names, Gen};
use crate::model::{Ty, Value};
use crate::program::{join_order, Item, RelId, Role, Rule, Term};
use crate::syntax::CmpOp;
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

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

/// Relations that depend on each other, and the rules deriving them.
struct Component {
    rels: BTreeSet<RelId>,
    /// Indices into the engine program's rules.
    rules: Vec<usize>,
    /// Does some rule read a relation of the component?
    recursive: bool,
}

/// Deepest indentation written (long bodies nest deeply; the text stays
/// linear in their length).
const MAX_INDENT: usize = 24;

fn indent(depth: usize) -> String {
    "    ".repeat(depth.min(MAX_INDENT))
}

/// `()`, `(a,)`, `(a, b)`.
fn tuple(items: &[String]) -> String {
    match items {
        [] => "()".to_owned(),
        [one] => format!("({one},)"),
        more => format!("({})", more.join(", ")),
    }
}

impl Gen<'_> {
    /// Relations with a table: inputs, the policy flag, what the conclusions
    /// keep, what the batch preloads, and whatever a rule mentions.
    fn direct_tables(&self) -> BTreeSet<RelId> {
        let mut t: BTreeSet<RelId> = (0..self.prog.relations.len() as u32)
            .map(RelId)
            .filter(|&r| self.prog.relation(r).role != Role::Derived)
            .chain(self.kept())
            .chain(self.preload.iter().map(|l| l.head))
            .collect();
        for rule in &self.engine.rules {
            t.insert(rule.head.rel);
            t.extend(rule.body.iter().filter_map(|i| match i {
                Item::Pos(a) | Item::Neg(a) => Some(a.rel),
                Item::Cmp(..) => None,
            }));
        }
        t
    }

    fn row_type(&self, r: RelId) -> String {
        let cols: Vec<String> = self
            .prog
            .relation(r)
            .columns
            .iter()
            .map(|c| match c {
                Ty::Int => "i64".to_owned(),
                Ty::Entity(_) => "u32".to_owned(),
            })
            .collect();
        tuple(&cols)
    }

    /// The engine's rules grouped into components, in the order they run.
    fn components(&self) -> Result<Vec<Component>, String> {
        let prog = &self.engine;
        let n = prog.relations.len();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for rule in &prog.rules {
            for it in &rule.body {
                if let Item::Pos(a) | Item::Neg(a) = it {
                    succ[a.rel.0 as usize].push(rule.head.rel.0 as usize);
                }
            }
        }
        for s in &mut succ {
            s.sort_unstable();
            s.dedup();
        }
        let comp = crate::scc::components(&succ);
        // Rules by the component of their head; components numbered in
        // reverse topological order, so the largest number runs first.
        let mut by_comp: BTreeMap<std::cmp::Reverse<usize>, Vec<usize>> = BTreeMap::new();
        for (ri, rule) in prog.rules.iter().enumerate() {
            by_comp
                .entry(std::cmp::Reverse(comp[rule.head.rel.0 as usize]))
                .or_default()
                .push(ri);
        }
        let mut out = Vec::new();
        for (std::cmp::Reverse(c), rules) in by_comp {
            let rels: BTreeSet<RelId> = (0..n)
                .filter(|&r| comp[r] == c)
                .map(|r| RelId(r as u32))
                .collect();
            let mut recursive = false;
            for &ri in &rules {
                for it in &prog.rules[ri].body {
                    match it {
                        Item::Pos(a) if rels.contains(&a.rel) => recursive = true,
                        Item::Neg(a) if rels.contains(&a.rel) => {
                            return Err(format!(
                                "rule `{}` negates a relation of its own component (the lowered program is not stratified)",
                                names::comment(&prog.rules[ri].origin)
                            ))
                        }
                        _ => {}
                    }
                }
            }
            out.push(Component {
                rels,
                rules,
                recursive,
            });
        }
        Ok(out)
    }

    /// The body of `mod __engine` for the Direct engine.
    pub(super) fn direct_engine(&self) -> Result<String, String> {
        let tables = self.direct_tables();
        let mut s = String::new();
        // Comments, not docs, in the engine module: nothing of it is API,
        // and a comment is not a token the injection test must vet.
        s.push_str("    // One case's relations, typed rows each; reused case after case.\n");
        s.push_str("    #[derive(Default)]\n");
        s.push_str("    pub(super) struct Tables {\n");
        for &r in &tables {
            let _ = writeln!(
                s,
                "        pub(super) r{}: ::lawgen_runtime::__private::Table<{}>, // {}",
                r.0,
                self.row_type(r),
                names::comment(&self.prog.relation(r).name),
            );
        }
        s.push_str("    }\n\n");
        s.push_str("    impl Tables {\n");
        s.push_str("        // Empties every table (keeping its allocation) for the next case.\n");
        s.push_str("        pub(super) fn clear(&mut self) {\n");
        for &r in &tables {
            let _ = writeln!(s, "            self.r{}.clear();", r.0);
        }
        s.push_str("        }\n\n");
        let comps = self.components()?;
        s.push_str("        // Runs every rule on the loaded case, component by component.\n");
        s.push_str("        pub(super) fn run(&mut self) {\n");
        for k in 0..comps.len() {
            let _ = writeln!(s, "            c{k}(self);");
        }
        s.push_str("        }\n");
        s.push_str("    }\n\n");
        s.push_str(
            "    ::std::thread_local! {\n        \
             // This worker thread's tables.\n        \
             static TABLES: ::std::cell::RefCell<Tables> = ::std::cell::RefCell::new(Tables::new());\n    \
             }\n\n",
        );
        s.push_str(
            "    // Runs `f` on this thread's tables (fresh ones if they are in use).\n    \
             pub(super) fn with_tables<T>(f: impl FnOnce(&mut Tables) -> T) -> T {\n        \
             TABLES.with(|t| match t.try_borrow_mut() {\n            \
             Ok(mut t) => f(&mut t),\n            \
             Err(_) => f(&mut Tables::new()),\n        \
             })\n    \
             }\n",
        );
        let mut wants: BTreeSet<(u32, u32)> = BTreeSet::new();
        for (k, comp) in comps.iter().enumerate() {
            let (rels, recursive) = (&comp.rels, &comp.recursive);
            let names: Vec<String> = rels
                .iter()
                .map(|r| format!("r{} {}", r.0, names::comment(&self.prog.relation(*r).name)))
                .collect();
            let _ = writeln!(
                s,
                "\n    // component {k}{}: {}",
                if *recursive { " (recursive)" } else { "" },
                names.join(", ")
            );
            s.push_str(&format!("    fn c{k}(s: &mut Tables) {{\n"));
            let rules: Vec<&Rule> = comp
                .rules
                .iter()
                .map(|&ri| &self.engine.rules[ri])
                .collect();
            if !*recursive {
                for rule in &rules {
                    self.direct_rule(&mut s, rule, None, &|_, _| Range::All, 2, &mut wants);
                }
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
                for rule in rules.iter().filter(|r| on(r).is_empty()) {
                    self.direct_rule(&mut s, rule, None, &|_, _| Range::All, 2, &mut wants);
                }
                let mut cond = Vec::new();
                for r in rels {
                    let i = r.0;
                    let _ = writeln!(s, "        let (mut l{i}, mut h{i}) = (0, s.r{i}.len());");
                    cond.push(format!("l{i} < h{i}"));
                }
                let _ = writeln!(s, "        while {} {{", cond.join(" || "));
                for rule in rules.iter() {
                    let positions = on(rule);
                    for &d in &positions {
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
                        self.direct_rule(&mut s, rule, Some(d), &range, 3, &mut wants);
                    }
                }
                for r in rels {
                    let i = r.0;
                    let _ = writeln!(s, "            (l{i}, h{i}) = (h{i}, s.r{i}.len());");
                }
                s.push_str("        }\n");
            }
            s.push_str("    }\n");
        }
        s.push_str(
            "\n    impl Tables {\n        \
             // Fresh tables, told the column sets the rules look them up by.\n        \
             pub(super) fn new() -> Self {\n            \
             #[allow(unused_mut)]\n            \
             let mut t = Tables::default();\n",
        );
        for (r, mask) in &wants {
            let _ = writeln!(s, "            t.r{r}.want({mask});");
        }
        s.push_str("            t\n        }\n    }\n");
        Ok(s)
    }

    /// One rule as nested loops (appended to `s` at `depth`).
    fn direct_rule(
        &self,
        s: &mut String,
        rule: &Rule,
        delta: Option<usize>,
        range: &dyn Fn(usize, RelId) -> Range,
        depth: usize,
        wants: &mut BTreeSet<(u32, u32)>,
    ) {
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
        let value = |t: &Term| -> String {
            match t {
                Term::Var(v) => format!("v{v}"),
                // The extremes as paths: rustc's `unused_comparisons` lint
                // fires on a comparison with the literal.
                Term::Value(Value::Int(i)) if *i == i64::MIN => "i64::MIN".to_owned(),
                Term::Value(Value::Int(i)) if *i == i64::MAX => "i64::MAX".to_owned(),
                Term::Value(Value::Int(i)) => format!("{i}i64"),
                Term::Value(Value::Entity(e)) => format!("{}u32", self.constant_ids[e]),
            }
        };
        let _ = writeln!(s, "{}// {}", indent(depth), names::comment(&rule.origin));
        let mut d = depth;
        let mut open = 0usize;
        let mut bound: HashSet<u32> = HashSet::new();
        let (mut fresh, mut loops) = (0usize, 0usize);
        let line = |s: &mut String, d: usize, text: &str| {
            let _ = writeln!(s, "{}{text}", indent(d));
        };
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
                    let args: Vec<String> = a.args.iter().map(&value).collect();
                    line(
                        s,
                        d,
                        &format!("if s.r{}.contains(&{}) {{", a.rel.0, tuple(&args)),
                    );
                    d += 1;
                    open += 1;
                }
                Item::Pos(a) => {
                    let mut pats = Vec::with_capacity(a.args.len());
                    let mut checks = Vec::new();
                    // The columns bound before the loop, and their values.
                    let (mut mask, mut key) = (0u32, Vec::new());
                    for (k, t) in a.args.iter().enumerate() {
                        match t {
                            Term::Var(v) if bound.contains(v) => {
                                mask |= 1 << k;
                                key.push(format!("i64::from(v{v})"));
                            }
                            Term::Value(_) => {
                                mask |= 1 << k;
                                key.push(format!("i64::from({})", value(t)));
                            }
                            Term::Var(_) => {}
                        }
                    }
                    for t in &a.args {
                        match t {
                            Term::Var(v) if bound.contains(v) => {
                                pats.push(format!("w{fresh}"));
                                checks.push(format!("w{fresh} == v{v}"));
                                fresh += 1;
                            }
                            Term::Var(v) if uses[v] == 1 => pats.push("_".to_owned()),
                            Term::Var(v) => {
                                bound.insert(*v);
                                pats.push(format!("v{v}"));
                            }
                            Term::Value(_) => {
                                pats.push(format!("w{fresh}"));
                                checks.push(format!("w{fresh} == {}", value(t)));
                                fresh += 1;
                            }
                        }
                    }
                    let pat = tuple(&pats);
                    let r = a.rel.0;
                    match range(i, a.rel) {
                        // Looked up by some columns: by an index, once the
                        // table is large (`Table::matching`).
                        Range::All if mask != 0 => {
                            wants.insert((r, mask));
                            line(
                                s,
                                d,
                                &format!(
                                    "for &{pat} in s.r{r}.matching({mask}, &[{}]) {{",
                                    key.join(", ")
                                ),
                            );
                        }
                        Range::All => line(s, d, &format!("for &{pat} in s.r{r}.rows() {{")),
                        other => {
                            let (lo, hi) = match other {
                                Range::Old(_) => ("0".to_owned(), format!("l{r}")),
                                Range::Delta(_) => (format!("l{r}"), format!("h{r}")),
                                _ => ("0".to_owned(), format!("h{r}")),
                            };
                            line(s, d, &format!("for i{loops} in {lo}..{hi} {{"));
                            line(s, d + 1, &format!("let {pat} = s.r{r}.rows()[i{loops}];"));
                            loops += 1;
                        }
                    }
                    d += 1;
                    open += 1;
                    if !checks.is_empty() {
                        line(s, d, &format!("if {} {{", checks.join(" && ")));
                        d += 1;
                        open += 1;
                    }
                }
                Item::Neg(a) => {
                    let args: Vec<String> = a.args.iter().map(&value).collect();
                    line(
                        s,
                        d,
                        &format!("if !s.r{}.contains(&{}) {{", a.rel.0, tuple(&args)),
                    );
                    d += 1;
                    open += 1;
                }
                Item::Cmp(a, op, b) => {
                    let op = match op {
                        CmpOp::Eq => "==",
                        CmpOp::Ne => "!=",
                        CmpOp::Lt => "<",
                        CmpOp::Le => "<=",
                        CmpOp::Gt => ">",
                        CmpOp::Ge => ">=",
                    };
                    line(s, d, &format!("if {} {op} {} {{", value(a), value(b)));
                    d += 1;
                    open += 1;
                }
            }
        }
        let head: Vec<String> = rule.head.args.iter().map(&value).collect();
        line(
            s,
            d,
            &format!("s.r{}.insert({});", rule.head.rel.0, tuple(&head)),
        );
        for _ in 0..open {
            d -= 1;
            line(s, d, "}");
        }
    }

    /// `evaluate_batch` for the Direct engine: each case loaded into this
    /// thread's tables, run, and its kept relations appended (sorted) to the
    /// batch's outputs.
    ///
    /// A case's facts are not sorted first (`Facts::normalize`, a quarter of
    /// the instructions per chess game): the tables are sets, and a fact
    /// given with its explicit negation is found by testing each pair of
    /// tables, which are nearly always empty on one side. Only then is the
    /// case normalized, so that the error names the same tuple as the other
    /// engines' do.
    pub(super) fn direct_batch(&self) -> TokenStream {
        let kept = self.kept();
        let push = |f: &Ident, cols: Vec<TokenStream>| quote!(s.#f.insert((#(#cols,)*)););
        let load = self.inputs().into_iter().map(|r| {
            let f = rel_ident(r);
            let t = self.row_tuple(r, false);
            let rel = r.0;
            let derived = self.preloaded_from(Some(r), &push);
            quote!(#rel => { s.#f.insert(#t); #(#derived)* })
        });
        let policy = self.policy_rel.map(|r| {
            let f = rel_ident(r);
            let derived = self.preloaded_from(Some(r), &push);
            quote!(if policy == __rt::Policy::Propagating { s.#f.insert(()); #(#derived)* })
        });
        let constants = self.preloaded_from(None, &push);
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
        let conflicts = self.negation_pairs().into_iter().map(|(_, p, n)| {
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
                        for (rel, v) in &f.rows {
                            match *rel {
                                #(#load)*
                                _ => {}
                            }
                        }
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
