//! The engine of a package above the straight-line limit
//! ([`super::super::EmitOptions::straight_line_rules`]): no code per rule.
//! Every case is evaluated from the lowered program the module embeds
//! (`PROGRAM`, which explanations and facts files read already) by the
//! runtime's reference evaluator (`__rt::evaluate_case`), compiled once
//! with the runtime; the module keeps its whole typed API, whose size
//! follows the package's predicates, and stores the rows of the kept
//! relations in the same `Outputs` as the other engines.
//!
//! Why: generated straight-line code costs rustc more than linear time and
//! memory in the rules (docs/performance.md, "Large packages"), while the
//! reference evaluator is linear in the program and needs no build of its
//! own. What is lost is throughput per case, which the same section
//! measures.

use super::super::plan::Plan;
use super::super::{Backend, EmitError, EngineCode};
use proc_macro2::TokenStream;
use quote::quote;

/// The engine that evaluates the embedded program.
pub(in crate::emit) struct FromProgram;

impl Backend for FromProgram {
    /// Nothing: the rules run in the runtime.
    fn engine(&self, _plan: &Plan) -> Result<EngineCode, EmitError> {
        Ok(EngineCode::Tokens(TokenStream::new()))
    }

    /// Each case checked (ids it can name, no fact given with its explicit
    /// negation) as the Direct engine checks it, evaluated by the runtime,
    /// and the rows of its kept relations appended to the batch's outputs.
    fn evaluate_batch(&self, plan: &Plan) -> TokenStream {
        let kept = &plan.kept;
        let k = kept.len();
        let rels = kept.iter().map(|r| r.0);
        let (case, out, take) = if kept.is_empty() {
            (quote!(_), quote!(out), quote!(let _ = rows;))
        } else {
            // Each kept relation's rows narrowed to its row type, the case
            // first, by a call compiled once per row type.
            (
                quote!(c),
                quote!(mut out),
                quote! {
                    for (k, rows) in rows.iter().enumerate() {
                        if !rows.is_empty() {
                            out.push_columns(k, c, rows);
                        }
                    }
                },
            )
        };
        // The outputs start empty: a `ByCase` takes its cases as they are
        // pushed (the cases before one pushed have no rows), so no code per
        // kept relation is needed before the loop.
        let init = quote!(let #out = Outputs::default(););
        let conclusions = crate::emit::batch_conclusions();
        quote! {
            /// The relations a case's conclusions keep, in the order of
            /// `Outputs`' indices.
            static KEPT_RELS: [u32; #k] = [#(#rels),*];

            /// Evaluates independent cases one after the other, each from
            /// the program this module embeds, by the runtime's reference
            /// evaluator: the package is above lawgen's straight-line limit.
            fn evaluate_batch(mut input: Input, policy: __rt::Policy) -> Vec<Result<Conclusions, __rt::Error>> {
                let n = input.len();
                let mut errors = Vec::with_capacity(n);
                #init
                for (#case, i) in (0u32..).zip(0..n) {
                    // A case with an id it cannot name, or with a fact and
                    // its explicit negation, is not run.
                    let failed = match input.check(i) {
                        Ok(()) => input.contradiction(i),
                        Err(e) => Some(e),
                    };
                    if let Some(e) = failed {
                        // Its outputs get no rows.
                        errors.push(Some(e));
                        continue;
                    }
                    match __rt::evaluate_case(&PACKAGE, policy, input.names(i), input.rows(i), &KEPT_RELS) {
                        Ok(rows) => {
                            #take
                            errors.push(None);
                        }
                        Err(e) => errors.push(Some(e)),
                    }
                }
                #conclusions
            }
        }
    }

    /// Cases are evaluated one at a time, as the Direct engine's.
    fn cases_per_run(&self) -> Option<usize> {
        Some(super::CASES_PER_RUN)
    }
}
