//! The Ascent backend: the engine's rules as one `ascent!` program, written
//! as text so every rule keeps a comment naming the package rule (and
//! overlay role) it comes from.
//!
//! Every relation has a leading **case** column. One engine run evaluates a
//! batch of independent cases (one `Facts` each); every atom of every rule
//! carries the same case variable `c`, so cases never join with each other
//! and a batch computes exactly what separate runs would, while the hash
//! tables stay small (bounded batches) and the fixed cost of a run is shared.

use super::plan::{self, out_type_ident, rel_ident, Plan};
use super::{names, Backend, EmitError, EngineCode};
use crate::program::{join_order, Atom, Item, Rule, Term};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The `ascent!` engine (`Engine::Ascent`).
pub(super) struct Ascent;

impl Backend for Ascent {
    /// The `ascent!` program: every relation the plan stores, the preloaded
    /// rules as comments, then the rules stratum by stratum.
    fn engine(&self, plan: &Plan) -> Result<EngineCode, EmitError> {
        let mut s = String::new();
        s.push_str("    ::ascent::ascent! {\n");
        // lawgen's index structures (see `lawgen_runtime::ds`): a key's first
        // value inline, tables pooled per thread across runs.
        s.push_str("        #![ds(::lawgen_runtime::__private::ds)]\n");
        s.push_str("        pub struct Engine;\n");
        s.push_str("        // The cases of this batch (drives rules with no positive atom).\n");
        s.push_str("        relation __case(u32);\n");
        for &r in &plan.storage {
            let mut cols = vec!["u32"];
            cols.extend(plan.column_types(r));
            let _ = writeln!(
                s,
                "        relation r{}({}); // {}",
                r.0,
                cols.join(", "),
                names::comment(&plan.program.relation(r).name)
            );
        }
        if !plan.preload.is_empty() {
            s.push_str(
                "\n        // Applied while the batch is loaded, before this program runs (see\n",
            );
            s.push_str(
                "        // `evaluate_batch`): projections of loaded relations and constants.\n",
            );
            for l in &plan.preload {
                let _ = writeln!(
                    s,
                    "        //   r{} <- {}",
                    l.head.0,
                    names::comment(&l.origin)
                );
            }
        }
        let prog = &plan.engine;
        for (si, stratum) in prog.strata.iter().enumerate() {
            let _ = writeln!(s, "\n        // stratum {si}");
            for rule in stratum.iter().map(|&ri| &prog.rules[ri]) {
                let _ = writeln!(s, "        // {}", names::comment(&rule.origin));
                let _ = writeln!(s, "        {}", rule_text(plan, rule));
            }
        }
        s.push_str("    }\n");
        Ok(EngineCode::Text(s))
    }

    /// One `ascent!` run per batch, every tuple carrying its case's index.
    fn evaluate_batch(&self, plan: &Plan) -> TokenStream {
        let store = |r, cols: Vec<TokenStream>| {
            let f = rel_ident(r);
            quote!(engine.#f.push((c, #(#cols,)*));)
        };
        let constants = plan.load_constants(&store);
        let load = plan.load_facts(&store, quote!(rows));
        let policy = plan.load_policy(&store);
        // Relations the batch preloads (`emit::preload`): each case's rows
        // are deduplicated once the case is loaded.
        let preload_heads: Vec<(Ident, Ident)> = plan
            .preload_heads()
            .into_iter()
            .map(|h| (rel_ident(h), format_ident!("__mark_{}", rel_ident(h))))
            .collect();
        let marks = preload_heads
            .iter()
            .map(|(f, mark)| quote!(let #mark = engine.#f.len();));
        let dedup = preload_heads
            .iter()
            .map(|(f, mark)| quote!(__rt::dedup_tail(&mut engine.#f, #mark);));
        // Per row type of `Outputs`, its kept relations' rows in order.
        let take = plan
            .outputs
            .types
            .iter()
            .enumerate()
            .map(|(ty, (_, range))| {
                let o = out_type_ident(ty);
                let rels = plan.kept[range.clone()].iter().map(|&r| {
                    let f = rel_ident(r);
                    quote!(__rt::ByCase::new(::std::mem::take(&mut engine.#f), n, |t| t.0))
                });
                quote!(#o: [#(#rels),*])
            });
        let conclusions = crate::emit::batch_conclusions();
        quote! {
            /// Evaluates independent cases in one engine run: every tuple
            /// carries its case's index, so cases never meet.
            fn evaluate_batch(mut input: Input, policy: __rt::Policy) -> Vec<Result<Conclusions, __rt::Error>> {
                // The engine's tables start at their sizes in this thread's
                // previous batch (`__private::ds::sized`).
                ::std::thread_local! {
                    static SIZES: ::std::cell::RefCell<__rt::ds::Sizes> = ::std::cell::RefCell::new(__rt::ds::Sizes::default());
                }
                let n = input.len();
                let (errors, out) = __rt::ds::sized(&SIZES, || {
                let mut engine = __engine::Engine::default();
                let mut errors = Vec::with_capacity(n);
                for i in 0..n {
                    let c = i as u32;
                    // Each case's rows as a set, or why it cannot run.
                    match input.normalize(i) {
                        Ok(rows) => {
                            #(#marks)*
                            engine.__case.push((c,));
                            #(#constants)*
                            #load
                            #policy
                            #(#dedup)*
                            errors.push(None);
                        }
                        Err(e) => errors.push(Some(e)),
                    }
                }
                engine.run();
                let out = Outputs { #(#take,)* };
                drop(engine);
                (errors, out)
                });
                #conclusions
            }
        }
    }

    /// A batch per run: the program's fixed cost (its relations, indices
    /// and strata) is shared by the batch's cases.
    fn cases_per_run(&self) -> Option<usize> {
        None
    }
}

/// One rule of the `ascent!` program.
fn rule_text(plan: &Plan, rule: &Rule) -> String {
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
            // ascent binds variables by reference inside `if`.
            Term::Var(v) if in_cmp => format!("*v{v}"),
            Term::Var(v) => format!("v{v}"),
            Term::Value(v) => plan.value(v).to_string(),
        }
    };
    // A variable repeated inside one body atom is bound once; the other
    // occurrences get fresh names checked by an equality (ascent does
    // not unify repeated variables within a clause for every type).
    let mut fresh = 0usize;
    let mut body_atom = |a: &Atom| -> (String, Vec<String>) {
        let mut args = vec!["c".to_owned()];
        let mut seen: Vec<u32> = Vec::new();
        let mut checks = Vec::new();
        for t in &a.args {
            match t {
                Term::Var(v) if seen.contains(v) => {
                    let f = format!("w{fresh}");
                    fresh += 1;
                    checks.push(format!("if *{f} == *v{v}"));
                    args.push(f);
                }
                Term::Var(v) => {
                    seen.push(*v);
                    args.push(term(t, false));
                }
                Term::Value(_) => args.push(term(t, false)),
            }
        }
        (format!("r{}({})", a.rel.0, args.join(", ")), checks)
    };
    let head = {
        let mut args = vec!["c".to_owned()];
        args.extend(rule.head.args.iter().map(|t| term(t, false)));
        format!("r{}({})", rule.head.rel.0, args.join(", "))
    };
    let order = join_order(&rule.body, None);
    let mut items: Vec<String> = Vec::new();
    // ascent needs a positive clause first to drive the rule (and to bind `c`).
    if order
        .first()
        .is_none_or(|&i| !matches!(rule.body[i], Item::Pos(_)))
    {
        items.push("__case(c)".to_owned());
    }
    for &i in &order {
        items.push(match &rule.body[i] {
            Item::Pos(a) => {
                let (text, checks) = body_atom(a);
                items.push(text);
                items.extend(checks);
                continue;
            }
            // Every variable of a negated atom is bound already: its
            // arguments are plain expressions, repeats included.
            Item::Neg(a) => {
                let mut args = vec!["c".to_owned()];
                args.extend(a.args.iter().map(|t| term(t, false)));
                format!("!r{}({})", a.rel.0, args.join(", "))
            }
            Item::Cmp(a, op, b) => format!(
                "if {} {} {}",
                term(a, true),
                plan::operator(*op),
                term(b, true)
            ),
        });
    }
    format!("{head} <-- {};", items.join(", "))
}
