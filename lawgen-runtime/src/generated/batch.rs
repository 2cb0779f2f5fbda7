//! Many cases at once: the rows of a batch grouped by case, and the worker
//! threads that evaluate batches.

/// How `evaluate_many` splits its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batching {
    /// Cases per unit of work a worker thread takes (default 1024); `sink`
    /// receives results a batch at a time. The Ascent engine evaluates a
    /// batch in one run: big enough to share the run's fixed cost, small
    /// enough that its hash tables stay in cache. The Direct engine, which
    /// evaluates a case at a time, builds and evaluates at most 256 of a
    /// batch's cases before `map` digests them where it builds the cases
    /// itself (`evaluate_indexed`, `evaluate_cases`, `evaluate_columns`);
    /// `evaluate_many`'s cases are built by its caller, a batch at a time.
    pub batch_size: usize,
    /// Worker threads (default: the machine's available parallelism).
    pub threads: usize,
}

impl Default for Batching {
    fn default() -> Self {
        Batching {
            batch_size: 1024,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// Sorts and deduplicates `rows[from..]` in place: the rows one case
/// preloads into a relation (relations are sets).
pub fn dedup_tail<T: Ord + Copy>(rows: &mut Vec<T>, from: usize) {
    rows[from..].sort_unstable();
    let mut kept = from;
    for i in from..rows.len() {
        if kept == from || rows[i] != rows[kept - 1] {
            rows[kept] = rows[i];
            kept += 1;
        }
    }
    rows.truncate(kept);
}

/// A batch's rows of one relation, sorted, with each case's rows as
/// one range found in O(1).
#[derive(Clone, Debug, Default)]
pub struct ByCase<T> {
    rows: Vec<T>,
    /// `offsets[c]..offsets[c + 1]` are case `c`'s rows; a case past the
    /// end has none.
    offsets: Vec<u32>,
}

impl<T: Ord + Copy> ByCase<T> {
    /// Groups `rows` by case (`case_of`, each `< cases`) and sorts each
    /// case's rows. A counting pass by case and a sort per case: the
    /// engine's rows arrive in no particular order, and sorting each small
    /// group is cheaper than sorting the whole batch.
    ///
    /// `case_of` is a function pointer, not a closure type, so that a
    /// generated crate instantiates this once per row type rather than
    /// once per output relation (39 copies were 7% of the chess example's
    /// unoptimized LLVM IR).
    pub fn new(rows: Vec<T>, cases: usize, case_of: fn(&T) -> u32) -> Self {
        let mut offsets = vec![0u32; cases + 1];
        for r in &rows {
            let c = case_of(r) as usize;
            assert!(c < cases, "a row of case {c} in a batch of {cases} cases");
            offsets[c + 1] += 1;
        }
        for c in 0..cases {
            offsets[c + 1] += offsets[c];
        }
        // Placement into per-case slots (rows are plain tuples of
        // integers: copying is cheap), then a sort per slot.
        let mut next: Vec<u32> = offsets[..cases].to_vec();
        let mut placed = rows.clone();
        for &r in &rows {
            let c = case_of(&r) as usize;
            placed[next[c] as usize] = r;
            next[c] += 1;
        }
        for c in 0..cases {
            placed[offsets[c] as usize..offsets[c + 1] as usize].sort_unstable();
        }
        ByCase {
            rows: placed,
            offsets,
        }
    }

    /// An empty batch to be filled case by case with
    /// [`ByCase::push_rows`] or [`ByCase::push_case`] (room for `cases`
    /// cases). A case with no rows needs no call: the cases between two
    /// pushed ones, and after the last, have none.
    pub fn with_cases(cases: usize) -> Self {
        Self::with_capacity(cases, 0)
    }

    /// [`ByCase::with_cases`] with room for `rows` rows, so that filling
    /// it does not grow the rows one doubling at a time (see
    /// [`OutputSizes`]).
    pub fn with_capacity(cases: usize, rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(cases + 1);
        offsets.push(0);
        ByCase {
            rows: Vec::with_capacity(rows),
            offsets,
        }
    }

    /// How many rows the batch holds, over all its cases.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no case of the batch has a row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Case `c`'s rows `rows` (with the case column, sorted), after those
    /// of every case pushed before it (cases are pushed in increasing
    /// order).
    pub fn push_case(&mut self, c: u32, rows: impl IntoIterator<Item = T>) {
        self.start(c);
        self.rows.extend(rows);
        self.end();
    }

    /// Case `c`'s rows `rows` (a Direct table's, sorted), each with the
    /// case prepended.
    #[inline(always)]
    pub fn push_rows<R: WithCase<Out = T>>(&mut self, c: u32, rows: &[R]) {
        self.start(c);
        self.rows.extend(rows.iter().map(|r| r.with_case(c)));
        self.end();
    }

    /// Case `c`'s entity ids `word` (bit `i` for id `i`), then `more`
    /// (sorted, each above 63), as rows `(c, id)`.
    #[inline(always)]
    pub fn push_ids(&mut self, c: u32, mut word: u64, more: &[(u32,)])
    where
        T: From<(u32, u32)>,
    {
        self.start(c);
        while word != 0 {
            self.rows.push(T::from((c, word.trailing_zeros())));
            word &= word - 1;
        }
        self.rows.extend(more.iter().map(|&(id,)| T::from((c, id))));
        self.end();
    }

    /// The cases before `c` that were not pushed end where the rows end.
    #[inline(always)]
    fn start(&mut self, c: u32) {
        let c = c as usize;
        if self.offsets.len() <= c {
            let end = self.offsets.last().copied().unwrap_or(0);
            self.offsets.resize(c + 1, end);
        }
    }

    #[inline(always)]
    fn end(&mut self) {
        let end = u32::try_from(self.rows.len()).expect("fewer than 2^32 rows in one batch");
        self.offsets.push(end);
    }

    /// How many rows case `c` has (0 for a case not in the batch): the
    /// offsets alone, without making the slice.
    #[inline]
    pub fn count(&self, c: u32) -> usize {
        let c = c as usize;
        match (self.offsets.get(c), self.offsets.get(c + 1)) {
            (Some(&lo), Some(&hi)) => hi.saturating_sub(lo) as usize,
            _ => 0,
        }
    }

    /// Case `c`'s rows (empty for a case not in the batch).
    pub fn case(&self, c: u32) -> &[T] {
        let c = c as usize;
        match (self.offsets.get(c), self.offsets.get(c + 1)) {
            (Some(&lo), Some(&hi)) => &self.rows[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// Does case `c` have the row `row` (whose first column is `c`)?
    pub fn contains(&self, c: u32, row: &T) -> bool {
        self.case(c).binary_search(row).is_ok()
    }
}

/// How many rows each of a module's `K` kept relations had in the previous
/// batch a worker thread evaluated, so that the next batch's outputs
/// ([`ByCase::with_capacity`]) start at about their final size. Growing
/// 39 outputs from empty, one doubling at a time, was a tenth of the
/// instructions per chess game of the Direct engine (reallocations and
/// their copies).
///
/// The capacity is the previous batch's rows scaled down to a smaller
/// batch, never up: one batch with a huge case must not make every later
/// batch reserve as much per case.
#[derive(Clone, Debug)]
pub struct OutputSizes<const K: usize> {
    rows: [usize; K],
    cases: usize,
}

impl<const K: usize> Default for OutputSizes<K> {
    fn default() -> Self {
        OutputSizes {
            rows: [0; K],
            cases: 0,
        }
    }
}

impl<const K: usize> OutputSizes<K> {
    /// The rows to reserve for kept relation `k` in a batch of `cases`.
    #[inline]
    pub fn capacity(&self, k: usize, cases: usize) -> usize {
        let rows = self.rows[k];
        if cases >= self.cases {
            rows
        } else {
            // Rounded up; in 128 bits, the product cannot overflow, and
            // as `cases < self.cases` the result is at most `rows`.
            let scaled = (rows as u128 * cases as u128).div_ceil(self.cases as u128);
            scaled as usize
        }
    }

    /// A batch of `cases` cases ended with `rows[k]` rows in kept
    /// relation `k`.
    pub fn record(&mut self, cases: usize, rows: [usize; K]) {
        self.rows = rows;
        self.cases = cases;
    }
}

/// A column of a generated row: an entity id or an integer.
pub trait Column: Copy {
    /// The column widened to the runtime's `i64` (an entity id stays
    /// non-negative).
    fn wide(self) -> i64;
}

impl Column for u32 {
    #[inline]
    fn wide(self) -> i64 {
        i64::from(self)
    }
}

impl Column for i64 {
    #[inline]
    fn wide(self) -> i64 {
        self
    }
}

/// A Direct table's row, and the same row with its case prepended (as
/// a batch's outputs keep it).
pub trait WithCase: Copy {
    /// The row with the case prepended.
    type Out: Copy;
    /// The row with case `c` prepended.
    fn with_case(self, c: u32) -> Self::Out;
}

macro_rules! with_case {
    ($($c:ident $i:tt),*) => {
        impl<$($c: Copy),*> WithCase for ($($c,)*) {
            type Out = (u32, $($c,)*);
            #[inline]
            fn with_case(self, c: u32) -> Self::Out {
                (c, $(self.$i,)*)
            }
        }
    };
}
with_case!();
with_case!(A 0);
with_case!(A 0, B 1);
with_case!(A 0, B 1, C 2);
with_case!(A 0, B 1, C 2, D 3);
with_case!(A 0, B 1, C 2, D 3, E 4);
with_case!(A 0, B 1, C 2, D 3, E 4, F 5);
with_case!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
with_case!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
with_case!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
with_case!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
with_case!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);

/// Where a generated module finds one case's rows of a relation for the
/// reference bridge (its `__rows` table, one entry per relation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowSource {
    /// An input relation of this many columns: among the case's facts.
    Input(usize),
    /// Kept relation `k` of the batch's outputs.
    Kept(usize),
}

/// One case's rows of a kept relation (the case first, then the
/// columns), for the reference bridge: the columns widened, without the
/// case.
pub fn case_rows<T: crate::engines::direct::Columns>(rows: &[T]) -> Vec<Vec<i64>> {
    rows.iter()
        .map(|r| (1..T::ARITY).map(|k| r.column(k)).collect())
        .collect()
}

/// The rows of input relation `rel` among a case's facts (`arity`
/// columns of each), for the reference bridge (which makes them a set).
pub fn input_rows<const W: usize>(
    rows: &[(u32, [i64; W])],
    rel: u32,
    arity: usize,
) -> Vec<Vec<i64>> {
    rows.iter()
        .filter(|(r, _)| *r == rel)
        .map(|(_, v)| v[..arity.min(W)].to_vec())
        .collect()
}

/// Runs `eval` over cases `0..n` in batches on worker threads, where the
/// workers also build each case (`make`) and digest each result (`map`),
/// so neither cases nor conclusions cross threads: only `map`'s values
/// reach `sink`, on the calling thread, a batch at a time. A worker makes
/// and evaluates at most `run` cases before `map` digests them (see
/// [`run_ranges`]).
pub fn run_indexed<F, C, T: Send>(
    n: usize,
    batching: &Batching,
    run: usize,
    make: &(dyn Fn(usize) -> F + Sync),
    eval: &(dyn Fn(Vec<F>) -> Vec<C> + Sync),
    map: &(dyn Fn(usize, C) -> T + Sync),
    sink: &mut dyn FnMut(usize, T),
) {
    run_ranges(
        n,
        batching,
        run,
        &|range| eval(range.map(make).collect()),
        map,
        sink,
    );
}

/// Runs `eval` over cases `0..n`, a range of `batching.batch_size` cases
/// at a time, on `batching.threads` worker threads: `eval` builds and
/// evaluates a range's cases, `map` digests each result on the worker,
/// and `sink` receives `map`'s values with their case index on the
/// calling thread, a batch at a time.
///
/// A worker hands `eval` at most `run` cases of its batch at once and
/// digests their results before building the next ones: an engine that
/// evaluates a case at a time (Direct) gains nothing from building a
/// thousand cases ahead, and their facts, tables and conclusions then fit
/// the core's cache (in runs of 256 rather than 1024, a named chess game
/// took a seventh less time, a nameless one a twenty-fifth); an engine that
/// shares a run's fixed cost over its cases (Ascent, 6–8% slower in runs
/// of 256) passes `usize::MAX`, a run per batch.
pub fn run_ranges<C, T: Send>(
    n: usize,
    batching: &Batching,
    run: usize,
    eval: &(dyn Fn(std::ops::Range<usize>) -> Vec<C> + Sync),
    map: &(dyn Fn(usize, C) -> T + Sync),
    sink: &mut dyn FnMut(usize, T),
) {
    let size = batching.batch_size.max(1);
    let run = run.max(1);
    let work = |first: usize| -> Vec<T> {
        let last = first.saturating_add(size).min(n);
        let mut out = Vec::with_capacity(last - first);
        let mut start = first;
        while start < last {
            let end = start.saturating_add(run).min(last);
            let results = eval(start..end);
            // One result per case, or the later runs' indices would shift.
            debug_assert_eq!(results.len(), end - start);
            for (i, c) in (start..).zip(results) {
                out.push(map(i, c));
            }
            start = end;
        }
        out
    };
    if batching.threads <= 1 {
        for first in (0..n).step_by(size) {
            for (i, t) in work(first).into_iter().enumerate() {
                sink(first + i, t);
            }
        }
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, Vec<T>)>();
    std::thread::scope(|scope| {
        for _ in 0..batching.threads {
            let done_tx = done_tx.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || loop {
                let first = next.fetch_add(size, std::sync::atomic::Ordering::Relaxed);
                if first >= n || done_tx.send((first, work(first))).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        for (first, results) in done_rx {
            for (i, t) in results.into_iter().enumerate() {
                sink(first + i, t);
            }
        }
    });
}

/// Runs `eval` over `cases` in batches of `batching.batch_size` on
/// `batching.threads` worker threads, handing every result to `sink` on
/// the calling thread with its case index. At most two batches per
/// worker are in flight, so memory is bounded whatever the number of cases.
pub fn run_batched<F: Send, C: Send>(
    mut cases: impl Iterator<Item = F>,
    batching: &Batching,
    eval: &(dyn Fn(Vec<F>) -> Vec<C> + Sync),
    sink: &mut dyn FnMut(usize, C),
) {
    let size = batching.batch_size.max(1);
    let mut next_batch = |start: &mut usize| -> Option<(usize, Vec<F>)> {
        let batch: Vec<F> = cases.by_ref().take(size).collect();
        if batch.is_empty() {
            return None;
        }
        let first = *start;
        *start += batch.len();
        Some((first, batch))
    };
    let mut start = 0;
    if batching.threads <= 1 {
        while let Some((first, batch)) = next_batch(&mut start) {
            for (i, c) in eval(batch).into_iter().enumerate() {
                sink(first + i, c);
            }
        }
        return;
    }
    let (work_tx, work_rx) = std::sync::mpsc::channel::<(usize, Vec<F>)>();
    let work_rx = std::sync::Mutex::new(work_rx);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, Vec<C>)>();
    std::thread::scope(|scope| {
        for _ in 0..batching.threads {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || loop {
                let job = work_rx.lock().map(|rx| rx.recv());
                let Ok(Ok((first, batch))) = job else { break };
                if done_tx.send((first, eval(batch))).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        let max_in_flight = 2 * batching.threads;
        let mut in_flight = 0;
        let mut exhausted = false;
        loop {
            while !exhausted && in_flight < max_in_flight {
                match next_batch(&mut start) {
                    Some(job) => {
                        work_tx.send(job).expect("workers outlive the producer");
                        in_flight += 1;
                    }
                    None => exhausted = true,
                }
            }
            if in_flight == 0 {
                break;
            }
            let Ok((first, results)) = done_rx.recv() else {
                break;
            };
            in_flight -= 1;
            for (i, c) in results.into_iter().enumerate() {
                sink(first + i, c);
            }
        }
        drop(work_tx);
    });
}

/// A relation of a verdict's section, less the rows of its `minus` when it
/// has one (`program::Output`), each by its index among a module's kept
/// relations: what a generated verdict function tests a tuple in.
pub type SectionRel = (usize, Option<usize>);

/// The kept relations of row type `T` in a generated module's outputs, by
/// their index among the kept relations (the module implements it once per
/// row type).
pub trait Kept<T> {
    /// Kept relation `k`, of row type `T`.
    fn kept(&self, k: usize) -> &ByCase<T>;
}

impl<T> Kept<T> for [ByCase<T>] {
    fn kept(&self, k: usize) -> &ByCase<T> {
        &self[k]
    }
}

/// The verdict on row `row` of case `c`, given each section's relations in
/// the order definitely, defeasibly, pending, supported (none: the section
/// never holds). `Verdict::decide` over `section_member`, the definitions
/// `lawgen explain` decides with; `requests` is asked only for a pending
/// verdict. Compiled once per row type, so that a generated verdict function
/// is one call and not a closure with a search per section.
pub fn verdict<T: Ord + Copy, O: Kept<T> + ?Sized>(
    out: &O,
    c: u32,
    row: &T,
    sections: [&[SectionRel]; 4],
    requests: impl FnOnce() -> Vec<crate::Request>,
) -> crate::Verdict {
    use crate::program::{section_member, Section};
    crate::Verdict::decide(
        |s| {
            let rels = match s {
                Section::Definitely => sections[0],
                Section::Defeasibly => sections[1],
                Section::Pending => sections[2],
                Section::Supported => sections[3],
            };
            rels.iter().any(|&(rel, minus)| {
                section_member(out.kept(rel).contains(c, row), || {
                    minus.is_some_and(|m| out.kept(m).contains(c, row))
                })
            })
        },
        requests,
    )
}

#[cfg(test)]
mod tests {
    use super::{dedup_tail, run_indexed, run_ranges, verdict, Batching, ByCase, OutputSizes};
    use crate::{Request, Verdict};

    #[test]
    fn by_case_groups_and_sorts_each_case() {
        let rows = vec![(2u32, 5i64), (0, 9), (2, 1), (0, 3), (2, 1), (3, 0)];
        let b = ByCase::new(rows, 4, |t| t.0);
        assert_eq!(b.case(0), &[(0, 3), (0, 9)]);
        assert_eq!(b.case(1), &[] as &[(u32, i64)]);
        assert_eq!(b.case(2), &[(2, 1), (2, 1), (2, 5)]);
        assert_eq!(b.case(3), &[(3, 0)]);
        assert_eq!(b.case(4), &[] as &[(u32, i64)]);
    }

    #[test]
    fn verdict_ranks_sections_and_subtracts_minus() {
        // Case 0: (0, 1) definitely and defeasibly; (0, 2) defeasibly but in
        // the minus relation; (0, 3) pending; (0, 4) supported only.
        // Kept relations 0 to 4: definitely, defeasibly, its minus,
        // pending, supported.
        let out = [
            ByCase::new(vec![(0u32, 1i64)], 1, |t| t.0),
            ByCase::new(vec![(0u32, 1i64), (0, 2)], 1, |t| t.0),
            ByCase::new(vec![(0u32, 2i64)], 1, |t| t.0),
            ByCase::new(vec![(0u32, 3i64)], 1, |t| t.0),
            ByCase::new(vec![(0u32, 2i64), (0, 4)], 1, |t| t.0),
        ];
        let out = &out[..];
        let asked = std::cell::Cell::new(0);
        let requests = || {
            asked.set(asked.get() + 1);
            Vec::<Request>::new()
        };
        let v = |row: i64| {
            verdict(
                out,
                0,
                &(0, row),
                [&[(0, None)], &[(1, Some(2))], &[(3, None)], &[(4, None)]],
                requests,
            )
        };
        assert_eq!(v(1), Verdict::Definitely);
        assert_eq!(v(2), Verdict::SupportedOnly);
        assert_eq!(v(3), Verdict::Pending(Vec::new()));
        assert_eq!(v(4), Verdict::SupportedOnly);
        assert_eq!(v(5), Verdict::NotConcluded);
        // Requests are decoded for the pending verdict only.
        assert_eq!(asked.get(), 1);
        // A section with no relations never holds.
        assert_eq!(
            verdict(out, 0, &(0u32, 1i64), [&[], &[], &[], &[]], Vec::new),
            Verdict::NotConcluded
        );
    }

    #[test]
    fn by_case_filled_case_by_case() {
        // Cases 1, 3 and 5 have no rows and are not pushed.
        let mut b: ByCase<(u32, i64)> = ByCase::with_cases(6);
        b.push_case(0, [(0, 1), (0, 4)]);
        b.push_case(2, [(2, 0)]);
        b.push_rows(4, &[(7i64,), (8,)]);
        assert_eq!(b.case(0), &[(0, 1), (0, 4)]);
        assert_eq!(b.case(1), &[] as &[(u32, i64)]);
        assert_eq!(b.case(2), &[(2, 0)]);
        assert_eq!(b.case(3), &[] as &[(u32, i64)]);
        assert_eq!(b.case(4), &[(4, 7), (4, 8)]);
        assert_eq!(b.case(5), &[] as &[(u32, i64)]);
        assert_eq!(b.case(6), &[] as &[(u32, i64)]);
        let empty: ByCase<(u32, i64)> = ByCase::with_cases(2);
        assert_eq!(empty.case(0), &[] as &[(u32, i64)]);
        // `count` agrees with `case` for every case, pushed or not.
        for c in 0..8 {
            assert_eq!(b.count(c), b.case(c).len(), "case {c}");
        }
        assert_eq!((b.len(), empty.len(), empty.is_empty()), (5, 0, true));
    }

    #[test]
    fn output_sizes_follow_the_previous_batch_scaled_down_only() {
        let mut sizes: OutputSizes<3> = OutputSizes::default();
        // Nothing known yet: no reservation.
        assert_eq!(sizes.capacity(0, 1024), 0);
        sizes.record(1000, [3000, 0, 7]);
        // A batch as large or larger: the previous rows, never more.
        assert_eq!(sizes.capacity(0, 1000), 3000);
        assert_eq!(sizes.capacity(0, 5000), 3000);
        assert_eq!(sizes.capacity(1, 1000), 0);
        // A smaller batch: scaled down, rounded up.
        assert_eq!(sizes.capacity(0, 10), 30);
        assert_eq!(sizes.capacity(2, 1), 1);
        assert_eq!(sizes.capacity(0, 0), 0);
        // Huge figures do not overflow.
        sizes.record(usize::MAX, [usize::MAX, 1, 0]);
        assert_eq!(sizes.capacity(0, usize::MAX - 1), usize::MAX - 1);
        assert_eq!(sizes.capacity(1, 2), 1);
    }

    #[test]
    fn dedup_tail_sets_only_the_tail() {
        // Rows before `from` (earlier cases) are left as they are, even
        // unsorted or repeated; the tail becomes sorted and duplicate-free.
        let mut rows = vec![
            (0u32, 9u32),
            (0, 1),
            (0, 1),
            (1, 7),
            (1, 2),
            (1, 7),
            (1, 7),
            (1, 3),
        ];
        dedup_tail(&mut rows, 3);
        assert_eq!(rows, vec![(0, 9), (0, 1), (0, 1), (1, 2), (1, 3), (1, 7)]);
        // An empty tail, and a tail of one.
        dedup_tail(&mut rows, 6);
        assert_eq!(rows.len(), 6);
        rows.push((2, 0));
        dedup_tail(&mut rows, 6);
        assert_eq!(rows[6..], [(2, 0)]);
    }

    /// Runs shorter than a batch, uneven at both ends: every case is made,
    /// evaluated and digested once, with its own index, on one thread (where
    /// `sink` gets them in order) and on three (batches in any order).
    #[test]
    fn runs_within_batches_cover_every_case_once_in_order() {
        for threads in [1, 3] {
            for (n, batch_size, run) in [(0, 4, 2), (10, 4, 3), (10, 4, 1), (17, 5, 64), (9, 9, 4)]
            {
                let batching = Batching {
                    batch_size,
                    threads,
                };
                let runs = std::sync::Mutex::new(Vec::new());
                let mut got = Vec::new();
                run_indexed(
                    n,
                    &batching,
                    run,
                    &|i| i * 10,
                    &|cases: Vec<usize>| {
                        runs.lock().unwrap().push(cases.len());
                        cases.into_iter().map(|c| c + 1).collect()
                    },
                    &|i, c| (i, c),
                    &mut |i, t| got.push((i, t)),
                );
                if threads > 1 {
                    got.sort_unstable();
                }
                let want: Vec<_> = (0..n).map(|i| (i, (i, i * 10 + 1))).collect();
                assert_eq!(
                    got, want,
                    "{n} cases, batches of {batch_size}, runs of {run}"
                );
                let runs = runs.into_inner().unwrap();
                assert!(runs.iter().all(|&k| k <= run.min(batch_size)), "{runs:?}");
                assert_eq!(runs.iter().sum::<usize>(), n);
            }
        }
        // A run of 0 is taken as 1 (no endless loop).
        let mut got = 0;
        run_ranges(
            3,
            &Batching {
                batch_size: 2,
                threads: 1,
            },
            0,
            &|r| r.collect(),
            &|_, c: usize| c,
            &mut |_, _| got += 1,
        );
        assert_eq!(got, 3);
    }
}
