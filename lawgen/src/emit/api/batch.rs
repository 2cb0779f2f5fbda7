//! A batch's outputs and the functions evaluating many cases: `Facts`
//! (`evaluate_many`, `evaluate_indexed`), `Case`s (`evaluate_cases`) and
//! `Columns` (`evaluate_columns`), around the engine's `evaluate_batch`.

use super::super::plan::column_type;
use super::model::ApiModel;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// `Outputs`, `Batch`, the engine's `evaluate_batch` and the functions
/// calling it.
pub(super) fn items(m: &ApiModel, evaluate_batch: TokenStream) -> TokenStream {
    let out_fields = m.kept.iter().map(|k| {
        let o = &k.field;
        let mut cols = vec![quote!(u32)];
        cols.extend(m.rel(k.rel).columns.iter().map(|c| {
            let t = format_ident!("{}", column_type(*c));
            quote!(#t)
        }));
        quote!(#o: __rt::ByCase<(#(#cols,)*)>)
    });
    let many = many();
    let fill = fill_cases(m);
    let columns = columns();
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

        #many
        #fill
        #columns
    }
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
