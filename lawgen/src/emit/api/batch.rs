//! A batch's outputs and the functions evaluating many cases: `Facts`
//! (`evaluate_many`, `evaluate_indexed`), `Case`s (`evaluate_cases`) and
//! `Columns` (`evaluate_columns`), around the engine's `evaluate_batch`.

use super::model::ApiModel;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// `Outputs`, `Batch`, the engine's `evaluate_batch` and the functions
/// calling it.
pub(super) fn items(m: &ApiModel, evaluate_batch: TokenStream) -> TokenStream {
    let outputs = outputs(m);
    let many = many();
    let fill = fill_cases(m);
    let columns = columns();
    quote! {
        #outputs

        /// What the conclusions of one batch share.
        #[derive(Debug)]
        struct Batch {
            input: Input,
            out: Outputs,
        }

        // The one engine-specific item of the API: how a batch is run.
        #evaluate_batch

        #many
        #fill
        #columns
    }
}

/// `Outputs`: one array of `ByCase` per row type, and the functions on
/// kept relation `k` (its index among the kept relations), each with an
/// arm per row type, compiled once per row type.
fn outputs(m: &ApiModel) -> TokenStream {
    let fields = m.out_types.iter().map(|t| {
        let f = &t.field;
        let cols = t.columns.iter().map(|c| format_ident!("{c}"));
        let n = unsuffixed(t.range.len());
        quote!(#f: [__rt::ByCase<(u32, #(#cols,)*)>; #n])
    });
    let makes = m.out_types.iter().map(|t| {
        let f = &t.field;
        let k = match t.range.start {
            0 => quote!(j),
            s => {
                let s = unsuffixed(s);
                quote!(#s + j)
            }
        };
        quote!(#f: ::std::array::from_fn(|j| __rt::ByCase::with_capacity(cases, rows(#k))))
    });
    // `body` on the `ByCase` of kept relation `k`, in one arm per row type.
    let by_k = |body: &dyn Fn(TokenStream) -> TokenStream, other: TokenStream| {
        if m.out_types.is_empty() {
            return other;
        }
        let arms = m.out_types.iter().map(|t| {
            let f = &t.field;
            let (first, last) = (unsuffixed(t.range.start), unsuffixed(t.range.end - 1));
            let slot = slot(t.range.start);
            let b = body(quote!(#f[#slot]));
            quote!(#first..=#last => #b,)
        });
        quote! {
            match k {
                #(#arms)*
                _ => #other,
            }
        }
    };
    // Kept relation `k` of each row type, for the verdict methods.
    let kept = m.out_types.iter().map(|t| {
        let f = &t.field;
        let cols: Vec<_> = t.columns.iter().map(|c| format_ident!("{c}")).collect();
        let slot = slot(t.range.start);
        quote! {
            impl __rt::Kept<(u32, #(#cols,)*)> for Outputs {
                fn kept(&self, k: usize) -> &__rt::ByCase<(u32, #(#cols,)*)> {
                    &self.#f[#slot]
                }
            }
        }
    });
    let len = by_k(&|o| quote!(self.#o.len()), quote!(0));
    let count = by_k(&|o| quote!(self.#o.count(c)), quote!(0));
    let rows = by_k(
        &|o| quote!(__rt::case_rows(self.#o.case(c))),
        quote!(Vec::new()),
    );
    let push = by_k(
        &|o| quote!(__rt::push_columns(&mut self.#o, c, rows)),
        quote!({}),
    );
    quote! {
        /// The derived relations a batch's conclusions read, with the
        /// case column, sorted: a case's rows are one contiguous range.
        /// One array per row type, holding the kept relations of that
        /// type in their order (arrays, not vectors: an index written in
        /// the module needs no bounds test, and the Direct engine and
        /// `concluded_counts` index them per case).
        #[doc(hidden)]
        #[derive(Debug)]
        pub struct Outputs {
            #(#fields,)*
        }

        #(#kept)*

        impl Default for Outputs {
            fn default() -> Self {
                Outputs::with_capacity(0, |_| 0)
            }
        }

        // Each engine calls some of these.
        #[allow(dead_code, unused_variables)]
        impl Outputs {
            /// Empty outputs for `cases` cases, with room for `rows(k)`
            /// rows in kept relation `k`.
            fn with_capacity(cases: usize, rows: impl Fn(usize) -> usize) -> Self {
                Outputs { #(#makes,)* }
            }

            /// How many rows kept relation `k` holds, over all cases.
            fn len(&self, k: usize) -> usize {
                #len
            }

            /// How many rows case `c` has in kept relation `k`.
            fn count(&self, k: usize, c: u32) -> usize {
                #count
            }

            /// Case `c`'s rows of kept relation `k`, widened, without the
            /// case column.
            fn rows(&self, k: usize, c: u32) -> Vec<Vec<i64>> {
                #rows
            }

            /// Appends case `c`'s `rows` (widened, without the case column)
            /// to kept relation `k`.
            fn push_columns(&mut self, k: usize, c: u32, rows: &[Vec<i64>]) {
                #push
            }
        }
    }
}

/// `k - 3`: kept index `k` as a slot of the array whose first kept index
/// is `start` (`k` alone for 0, which clippy would call an identity
/// operation in the generated code).
fn slot(start: usize) -> TokenStream {
    match start {
        0 => quote!(k),
        s => {
            let s = unsuffixed(s);
            quote!(k - #s)
        }
    }
}

/// `7`, not `7usize`: an index as the module prints it.
fn unsuffixed(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// `evaluate_many`, `evaluate_indexed` and `evaluate_cases`.
fn many() -> TokenStream {
    quote! {
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
    }
}

/// `fill_cases`: cases stated by the caller's `fill` into one buffer.
fn fill_cases(m: &ApiModel) -> TokenStream {
    // A case starts with the in-force inputs of the current date (only
    // where some rule depends on the date: nothing to do otherwise).
    let start_in_force = m
        .law
        .has_gates()
        .then(|| quote!(case.rows.extend_from_slice(default_in_force());));
    // The error's string literal goes into the module as written here, its
    // continuation line's indentation included: the goldens hold it.
    quote! {
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
    }
}

/// `evaluate_columns`.
fn columns() -> TokenStream {
    quote! {
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
