//! Functions of the typed API with one statement per input relation
//! (`columns_fields`), split into functions of at most [`ARMS_PER_FN`]
//! statements once they have more than [`SPLIT_ABOVE`]
//! (`Plan::split_above`); above the same threshold, `concluded_counts` is a
//! loop over a table instead of one expression. What had one arm per
//! relation elsewhere (`__rows`, `Outputs`, contradictions) is a table.
//!
//! Why: LLVM's time in one function grows faster than the function's
//! length, so a large package's few functions of thousands of arms made
//! rustc's time grow faster than its rules (docs/performance.md, "Large
//! packages"). Below the threshold a function stays whole, as the chess
//! package's are (74 input methods).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// At most how many arms or statements one split function holds.
const ARMS_PER_FN: usize = 64;

/// Above this many arms or statements, a function is split (unless
/// [`super::EmitOptions::split_above`] says otherwise).
pub(super) const SPLIT_ABOVE: usize = 128;

/// Whether a function of `n` arms or statements is split: where it is,
/// what each arm instantiates (a closure given to a generic call) should
/// be compiled once, not once per arm.
pub(super) fn splits(above: usize, n: usize) -> bool {
    n > above
}

/// At most how many arms one split function holds: [`ARMS_PER_FN`], or
/// fewer where the threshold is lower (lawgen's tests split small packages
/// into many functions).
fn chunk(above: usize) -> usize {
    ARMS_PER_FN.min(above.max(1))
}

/// A split function: the code where the whole used to be, and the items
/// (functions, or methods where the callers make them so) it calls.
pub(super) struct Split {
    pub body: TokenStream,
    pub fns: TokenStream,
}

/// `stmts` in order, split above `above` into functions
/// `{name}_{n}` of consecutive statements, which the body calls in order.
/// `header(f)` is a chunk's signature, `call(f)` the statement calling it,
/// `tail` what a chunk returns after its statements (`Ok(())`, or nothing).
pub(super) fn split_seq(
    above: usize,
    stmts: Vec<TokenStream>,
    name: &str,
    header: &dyn Fn(&Ident) -> TokenStream,
    call: &dyn Fn(&Ident) -> TokenStream,
    tail: &TokenStream,
) -> Split {
    if !splits(above, stmts.len()) {
        return Split {
            body: quote!(#(#stmts)*),
            fns: TokenStream::new(),
        };
    }
    let mut calls = Vec::new();
    let mut fns = Vec::new();
    for (n, chunk) in stmts.chunks(chunk(above)).enumerate() {
        let f = format_ident!("{name}_{n}");
        calls.push(call(&f));
        let h = header(&f);
        fns.push(quote! {
            #[inline(never)]
            #[allow(unused_variables, clippy::let_unit_value)]
            #h {
                #(#chunk)*
                #tail
            }
        });
    }
    Split {
        body: quote!(#(#calls)*),
        fns: quote!(#(#fns)*),
    }
}
