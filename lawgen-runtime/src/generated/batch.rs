//! Many cases at once: the rows of a batch grouped by case, and the worker
//! threads that evaluate batches.

/// How `evaluate_many` splits its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batching {
    /// Cases per engine run. Big enough to share a run's fixed cost, small
    /// enough that its hash tables stay in cache (default 1024).
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

/// Sorts and deduplicates input rows in place (facts are sets).
pub fn normalize<T: Ord>(rows: &mut Vec<T>) {
    rows.sort_unstable();
    rows.dedup();
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
    /// `offsets[c]..offsets[c + 1]` are case `c`'s rows.
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
    /// [`ByCase::push_case`] (room for `cases` cases).
    pub fn with_cases(cases: usize) -> Self {
        let mut offsets = Vec::with_capacity(cases + 1);
        offsets.push(0);
        ByCase {
            rows: Vec::new(),
            offsets,
        }
    }

    /// Appends the next case's rows, already sorted (case numbers are
    /// given by the order of the calls, from 0).
    pub fn push_case(&mut self, rows: impl IntoIterator<Item = T>) {
        self.rows.extend(rows);
        let end = u32::try_from(self.rows.len()).expect("fewer than 2^32 rows in one batch");
        self.offsets.push(end);
    }

    /// Appends case `c`'s rows `rows` (a Direct table's, sorted), each
    /// with the case prepended: one instantiation per row type.
    pub fn push_rows<R: WithCase<Out = T>>(&mut self, c: u32, rows: &[R]) {
        self.rows.extend(rows.iter().map(|r| r.with_case(c)));
        let end = u32::try_from(self.rows.len()).expect("fewer than 2^32 rows in one batch");
        self.offsets.push(end);
    }

    /// Appends a case with no rows.
    #[inline]
    pub fn push_empty(&mut self) {
        let end = self.offsets.last().copied().unwrap_or(0);
        self.offsets.push(end);
    }

    /// Case `c`'s rows (empty for a case not in the batch).
    pub fn case(&self, c: u32) -> &[T] {
        let c = c as usize;
        match (self.offsets.get(c), self.offsets.get(c + 1)) {
            (Some(&lo), Some(&hi)) => &self.rows[lo as usize..hi as usize],
            _ => &[],
        }
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

/// A row present in both sorted, deduplicated `a` and `b`, if any.
pub fn common<'a, T: Ord>(a: &'a [T], b: &[T]) -> Option<&'a T> {
    a.iter().find(|t| b.binary_search(t).is_ok())
}

/// Runs `eval` over cases `0..n` in batches on worker threads, where the
/// workers also build each case (`make`) and digest each result (`map`),
/// so neither cases nor conclusions cross threads: only `map`'s values
/// reach `sink`, on the calling thread, a batch at a time.
pub fn run_indexed<F, C, T: Send>(
    n: usize,
    batching: &Batching,
    make: &(dyn Fn(usize) -> F + Sync),
    eval: &(dyn Fn(Vec<F>) -> Vec<C> + Sync),
    map: &(dyn Fn(usize, C) -> T + Sync),
    sink: &mut dyn FnMut(usize, T),
) {
    let size = batching.batch_size.max(1);
    let work = |first: usize| -> Vec<T> {
        let last = (first + size).min(n);
        let batch: Vec<F> = (first..last).map(make).collect();
        eval(batch)
            .into_iter()
            .enumerate()
            .map(|(i, c)| map(first + i, c))
            .collect()
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

#[cfg(test)]
mod tests {
    use super::{dedup_tail, ByCase};

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
    fn by_case_filled_case_by_case() {
        let mut b: ByCase<(u32, i64)> = ByCase::with_cases(3);
        b.push_case([(0, 1), (0, 4)]);
        b.push_case([]);
        b.push_case([(2, 0)]);
        assert_eq!(b.case(0), &[(0, 1), (0, 4)]);
        assert_eq!(b.case(1), &[] as &[(u32, i64)]);
        assert_eq!(b.case(2), &[(2, 0)]);
        assert_eq!(b.case(3), &[] as &[(u32, i64)]);
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
}
