//! The tables of generated Direct engines (`lawgen::Engine::Direct`).
//!
//! A Direct engine evaluates one case at a time, so a relation holds that
//! case's rows only — usually a handful. A [`Table`] keeps them in a `Vec`
//! in insertion order and answers membership by scanning it; only a table
//! that grows past [`SCAN`] rows (a case with many facts) gets a hash set
//! beside the rows. Rows are never removed during a run, so a semi-naive
//! loop can name "the rows added since the last round" as an index range
//! (`rows()[lo..hi]`). `clear` keeps the allocations, so a worker thread
//! that reuses its tables allocates nothing per case once they have grown
//! to the size of its cases.
//!
//! A rule that looks a table up by some of its columns (`p(X, Y)` with `X`
//! bound) scans it, which is right for a handful of rows and quadratic for
//! a case of thousands (a facts file holding a whole tournament). So a
//! table can be told which column sets it is looked up by ([`Table::want`],
//! once per run, before the rules); past [`SCAN`] rows it then keeps, per
//! column set, the positions of its rows by a hash of those columns, up to
//! date as rows are added, and [`Table::matching`] visits only the rows
//! whose key hashes alike (the caller still compares the columns).

use crate::generated::batch::ByCase;
use rustc_hash::{FxBuildHasher, FxHasher};
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// Up to this many rows a table scans instead of hashing.
pub const SCAN: usize = 16;

/// A row's columns as integers (entity ids widened): index keys, and the
/// rows the reference bridge reads.
pub trait Columns: Copy {
    const ARITY: usize;
    fn column(&self, k: usize) -> i64;
}

macro_rules! columns {
    ($($c:ident $i:tt),*) => {
        impl<$($c: crate::generated::batch::Column),*> Columns for ($($c,)*) {
            const ARITY: usize = 0 $(+ ($i, 1).1)*;
            #[inline]
            #[allow(unused_variables)]
            fn column(&self, k: usize) -> i64 {
                match k {
                    $($i => self.$i.wide(),)*
                    _ => 0,
                }
            }
        }
    };
}
columns!();
columns!(A 0);
columns!(A 0, B 1);
columns!(A 0, B 1, C 2);
columns!(A 0, B 1, C 2, D 3);
columns!(A 0, B 1, C 2, D 3, E 4);
columns!(A 0, B 1, C 2, D 3, E 4, F 5);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
// A kept row: the case and up to 11 columns.
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// The hash of a key: the values of the columns in `mask`, in order.
#[inline]
fn key_hash(values: impl Iterator<Item = i64>) -> u64 {
    let mut h = FxHasher::default();
    for v in values {
        h.write_i64(v);
    }
    h.finish()
}

/// The hash of `row`'s key under `mask`.
#[inline]
fn key_of<T: Columns>(mask: u32, row: &T) -> u64 {
    key_hash(mask_columns(mask).map(|k| row.column(k)))
}

/// Positions of a table's rows by the hash of the columns in `mask`.
#[derive(Clone, Debug, Default)]
struct Index {
    mask: u32,
    /// Built once the table outgrows [`SCAN`]; kept up to date after.
    live: bool,
    by_key: HashMap<u64, Vec<u32>, FxBuildHasher>,
}

/// A set of typed rows of one relation for one case.
#[derive(Clone, Debug)]
pub struct Table<T> {
    rows: Vec<T>,
    /// The rows again, once there are more than [`SCAN`] (else empty).
    set: HashSet<T, FxBuildHasher>,
    indexed: bool,
    /// The column sets the rules look this table up by.
    indexes: Vec<Index>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            rows: Vec::new(),
            set: HashSet::default(),
            indexed: false,
            indexes: Vec::new(),
        }
    }
}

/// The rows a lookup visits: all of them, or those whose key hashes alike.
pub enum Matching<'a, T> {
    All(std::slice::Iter<'a, T>),
    Some(&'a [T], std::slice::Iter<'a, u32>),
}

impl<'a, T> Iterator for Matching<'a, T> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match self {
            Matching::All(it) => it.next(),
            Matching::Some(rows, it) => it.next().map(|&i| &rows[i as usize]),
        }
    }
}

impl<T: Copy + Eq + Hash + Ord + Columns> Table<T> {
    /// The rows, in insertion order (sorted after [`Table::sort`]).
    #[inline]
    pub fn rows(&self) -> &[T] {
        &self.rows
    }

    /// How many rows the table holds.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table holds no row.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Whether the table holds `row`.
    #[inline]
    pub fn contains(&self, row: &T) -> bool {
        if self.indexed {
            self.set.contains(row)
        } else {
            self.rows.contains(row)
        }
    }

    /// Adds `row` unless it is there already; whether it was new.
    #[inline]
    pub fn insert(&mut self, row: T) -> bool {
        // The small case inline; a large table's work out of line, so that
        // the rules' loops stay small enough to inline this.
        if self.indexed {
            return self.insert_large(row);
        }
        if self.rows.contains(&row) {
            return false;
        }
        self.rows.push(row);
        if self.rows.len() > SCAN {
            self.outgrow_scan();
        }
        true
    }

    /// [`Table::contains`] as a call, compiled once per row type: what the
    /// rules of a large program test with, so that each test is a call
    /// rather than a copy of the search for rustc to optimize.
    #[inline(never)]
    pub fn contains_call(&self, row: &T) -> bool {
        self.contains(row)
    }

    /// [`Table::insert`] as a call, compiled once per row type (see
    /// [`Table::contains_call`]).
    #[inline(never)]
    pub fn insert_call(&mut self, row: T) -> bool {
        self.insert(row)
    }

    /// [`Table::clear`] as a call, compiled once per row type (see
    /// [`Table::contains_call`]).
    #[inline(never)]
    pub fn clear_call(&mut self) {
        self.clear()
    }

    #[inline(never)]
    fn insert_large(&mut self, row: T) -> bool {
        if !self.set.insert(row) {
            return false;
        }
        self.rows.push(row);
        let at = self.rows.len() as u32 - 1;
        for ix in &mut self.indexes {
            if ix.live {
                ix.by_key.entry(key_of(ix.mask, &row)).or_default().push(at);
            }
        }
        true
    }

    /// The table just grew past [`SCAN`] rows: a set and the indexes.
    #[cold]
    #[inline(never)]
    fn outgrow_scan(&mut self) {
        self.set.extend(self.rows.iter().copied());
        self.indexed = true;
        for i in 0..self.indexes.len() {
            self.build(i);
        }
    }

    /// Says the rules look this table up by the columns in `mask` (bit `k`
    /// for column `k`); idempotent. A large table then keeps an index.
    pub fn want(&mut self, mask: u32) {
        if let Some(i) = self.indexes.iter().position(|ix| ix.mask == mask) {
            if self.indexed && !self.indexes[i].live {
                self.build(i);
            }
            return;
        }
        self.indexes.push(Index {
            mask,
            ..Index::default()
        });
        if self.indexed {
            self.build(self.indexes.len() - 1);
        }
    }

    fn build(&mut self, i: usize) {
        let mask = self.indexes[i].mask;
        let ix = &mut self.indexes[i];
        ix.by_key.clear();
        for (at, row) in self.rows.iter().enumerate() {
            ix.by_key
                .entry(key_of(mask, row))
                .or_default()
                .push(at as u32);
        }
        ix.live = true;
    }

    /// The rows whose columns in `mask` may equal `key` (every row, for a
    /// small table or a column set nobody asked for): a superset, in
    /// insertion order; the caller compares the columns.
    #[inline]
    pub fn matching(&self, mask: u32, key: &[i64]) -> Matching<'_, T> {
        if self.indexed {
            if let Some(ix) = self.indexes.iter().find(|ix| ix.mask == mask && ix.live) {
                let hits = ix
                    .by_key
                    .get(&key_hash(key.iter().copied()))
                    .map_or(&[][..], Vec::as_slice);
                return Matching::Some(&self.rows, hits.iter());
            }
        }
        Matching::All(self.rows.iter())
    }

    /// Does `other` hold a row of this table? (A fact and its explicit
    /// negation: nearly always one side is empty.)
    #[inline(always)]
    pub fn meets(&self, other: &Table<T>) -> bool {
        !self.is_empty() && !other.is_empty() && self.meets_rows(other)
    }

    #[inline(never)]
    fn meets_rows(&self, other: &Table<T>) -> bool {
        self.rows.iter().any(|t| other.contains(t))
    }

    /// Empties the table, keeping its allocations (and the column sets it
    /// is looked up by) for the next case.
    #[inline]
    pub fn clear(&mut self) {
        self.rows.clear();
        if self.indexed {
            self.set.clear();
            self.indexed = false;
            for ix in &mut self.indexes {
                ix.by_key.clear();
                ix.live = false;
            }
        }
    }

    /// Sorts the rows (once a run is over: the conclusions binary-search
    /// them). Positions change, so the indexes go.
    #[inline]
    pub fn sort(&mut self) {
        if self.rows.len() > 1 {
            self.sort_rows();
        }
    }

    #[inline(never)]
    fn sort_rows(&mut self) {
        self.rows.sort_unstable();
        for ix in &mut self.indexes {
            ix.by_key.clear();
            ix.live = false;
        }
    }
}

/// Below this id an entity is a bit of its relation's word in [`Sets`].
pub const BITS: u32 = 64;

/// The unary relations over entities of one case, `N` of them: a case
/// has a few entities, numbered densely from the package's constants on,
/// so relation `k` is mostly the bits of `words[k]` (id `i` is bit `i`).
/// An id of [`BITS`] or more (a case with many entities) goes to relation
/// `k`'s spill table, which is allocated the first time a case needs it.
/// Clearing is one `memset` of the words, plus the spill tables when the
/// case used them.
///
/// Generated code names each relation by its index `k`, a constant, and
/// iterates one with a [`Cursor`], which borrows the sets only while it
/// steps, so that the loop's body may insert into other relations.
#[derive(Clone, Debug)]
pub struct Sets<const N: usize> {
    words: [u64; N],
    /// Rows with ids of [`BITS`] or more, per relation; empty until a case
    /// has such an id.
    spill: Vec<Table<(u32,)>>,
    /// Whether a spill table holds a row.
    spilled: bool,
}

impl<const N: usize> Default for Sets<N> {
    fn default() -> Self {
        Sets {
            words: [0; N],
            spill: Vec::new(),
            spilled: false,
        }
    }
}

impl<const N: usize> Sets<N> {
    /// Whether relation `k` holds `id`.
    #[inline(always)]
    pub fn contains(&self, k: usize, id: u32) -> bool {
        if id < BITS {
            self.words[k] >> id & 1 != 0
        } else {
            self.spilled && self.spill[k].contains(&(id,))
        }
    }

    /// Adds `id` to relation `k`.
    #[inline(always)]
    pub fn insert(&mut self, k: usize, id: u32) {
        if id < BITS {
            self.words[k] |= 1 << id;
        } else {
            self.insert_spill(k, id);
        }
    }

    #[cold]
    #[inline(never)]
    fn insert_spill(&mut self, k: usize, id: u32) {
        if self.spill.is_empty() {
            self.spill = (0..N).map(|_| Table::default()).collect();
        }
        self.spill[k].insert((id,));
        self.spilled = true;
    }

    /// Whether relation `k` holds no id.
    #[inline(always)]
    pub fn is_empty(&self, k: usize) -> bool {
        self.words[k] == 0 && (!self.spilled || self.spill[k].is_empty())
    }

    /// The ids of relation `k`, ascending below [`BITS`], then the spilled
    /// ones in insertion order.
    #[inline(always)]
    pub fn cursor(&self, k: usize) -> Cursor {
        Cursor {
            word: self.words[k],
            k,
            at: 0,
        }
    }

    /// Adds to relation `h` every id that is in each relation of `pos` and
    /// in none of `neg` (`pos` not empty, `h` in neither): the rule
    /// `h(x) :- p₁(x), …, !n₁(x), …` as a few word operations.
    #[inline(always)]
    pub fn derive(&mut self, h: usize, pos: &[usize], neg: &[usize]) {
        let mut w = !0u64;
        for &p in pos {
            w &= self.words[p];
        }
        for &n in neg {
            w &= !self.words[n];
        }
        self.words[h] |= w;
        if self.spilled {
            self.derive_spilled(h, pos, neg);
        }
    }

    /// [`Sets::derive`] for the spilled ids.
    #[cold]
    #[inline(never)]
    fn derive_spilled(&mut self, h: usize, pos: &[usize], neg: &[usize]) {
        let Some((&first, rest)) = pos.split_first() else {
            return;
        };
        for i in 0..self.spill[first].len() {
            let row = self.spill[first].rows()[i];
            if rest.iter().all(|&p| self.spill[p].contains(&row))
                && !neg.iter().any(|&n| self.spill[n].contains(&row))
            {
                self.spill[h].insert(row);
            }
        }
    }

    /// Empties every relation (keeping the spill tables' allocations).
    #[inline]
    pub fn clear(&mut self) {
        self.words = [0; N];
        if self.spilled {
            for t in &mut self.spill {
                t.clear();
            }
            self.spilled = false;
        }
    }

    /// Appends relation `k` as case `c`'s rows (sorted) to a batch's
    /// outputs (called for a relation that is not empty: the test is the
    /// caller's, so that an empty relation costs no call).
    #[inline(always)]
    pub fn push_to(&mut self, k: usize, c: u32, out: &mut ByCase<(u32, u32)>) {
        let more = if self.spilled {
            self.spill[k].sort();
            self.spill[k].rows()
        } else {
            &[]
        };
        out.push_ids(c, self.words[k], more);
    }

    /// Whether any pair `(a, b)` of `pairs` shares an id (a fact given with
    /// its explicit negation).
    #[inline(always)]
    pub fn meets_any(&self, pairs: &[(usize, usize)]) -> bool {
        let mut both = 0u64;
        for &(a, b) in pairs {
            both |= self.words[a] & self.words[b];
        }
        both != 0
            || (self.spilled
                && pairs
                    .iter()
                    .any(|&(a, b)| self.spill[a].meets(&self.spill[b])))
    }
}

/// A position in one relation of [`Sets`] (see [`Sets::cursor`]).
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    /// The bits not visited yet.
    word: u64,
    k: usize,
    /// The next spilled row.
    at: usize,
}

impl Cursor {
    /// The next id, reading `sets` (the ones the cursor was made from).
    #[inline(always)]
    pub fn next<const N: usize>(&mut self, sets: &Sets<N>) -> Option<u32> {
        if self.word != 0 {
            let id = self.word.trailing_zeros();
            self.word &= self.word - 1;
            return Some(id);
        }
        if sets.spilled {
            return self.next_spilled(sets);
        }
        None
    }

    #[cold]
    #[inline(never)]
    fn next_spilled<const N: usize>(&mut self, sets: &Sets<N>) -> Option<u32> {
        let (id,) = *sets.spill[self.k].rows().get(self.at)?;
        self.at += 1;
        Some(id)
    }
}

/// The columns of `mask`, lowest first.
#[inline]
fn mask_columns(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |k| mask & (1 << k) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_call_forms_of_a_large_program_act_as_the_inline_ones() {
        let mut a: Table<(u32, u32)> = Table::default();
        let mut b: Table<(u32, u32)> = Table::default();
        b.want(0b01);
        for round in 0..2 {
            for i in 0..50u32 {
                let row = (i % 25, i % 3);
                assert_eq!(a.insert(row), b.insert_call(row), "row {i}, round {round}");
            }
            assert_eq!(a.rows(), b.rows());
            for i in 0..30u32 {
                let row = (i, i % 3);
                assert_eq!(a.contains(&row), b.contains_call(&row), "row {i}");
            }
            a.clear();
            b.clear_call();
            assert!(b.is_empty() && !b.contains_call(&(1, 1)));
        }
    }

    #[test]
    fn a_table_is_a_set_below_and_above_the_scan_size() {
        let mut t: Table<(u32, i64)> = Table::default();
        for round in 0..2 {
            for i in 0..40u32 {
                assert!(t.insert((i % 20, 7)) == (i < 20), "row {i}, round {round}");
            }
            assert_eq!(t.len(), 20);
            assert!(t.contains(&(19, 7)));
            assert!(!t.contains(&(20, 7)));
            // Insertion order, which semi-naive loops index into.
            assert_eq!(t.rows()[3], (3, 7));
            t.clear();
            assert!(t.is_empty());
            assert!(!t.contains(&(3, 7)));
            assert!(t.insert((3, 7)));
            t.clear();
        }
        let mut z: Table<()> = Table::default();
        assert!(z.insert(()));
        assert!(!z.insert(()));
        assert_eq!(z.rows(), &[()]);
        let (mut a, mut b): (Table<(u32,)>, Table<(u32,)>) = Default::default();
        assert!(!a.meets(&b));
        a.insert((1,));
        assert!(!a.meets(&b) && !b.meets(&a));
        b.insert((2,));
        assert!(!a.meets(&b));
        for i in 3..40 {
            b.insert((i,));
        }
        b.insert((1,));
        assert!(a.meets(&b) && b.meets(&a));
    }

    /// Unary relations as bits behave as sets of ids on both sides of
    /// [`BITS`]: a case with many entities spills to tables, which
    /// membership, iteration, derivation, the contradiction test, the
    /// batch's output and clearing all see.
    #[test]
    fn sets_hold_ids_below_and_above_the_word() {
        let mut s: Sets<4> = Sets::default();
        let ids = |s: &Sets<4>, k: usize| {
            let mut c = s.cursor(k);
            let mut out = Vec::new();
            while let Some(id) = c.next(s) {
                out.push(id);
            }
            out
        };
        for round in 0..2 {
            assert!((0..4).all(|k| s.is_empty(k)), "round {round}");
            // Relation 0: 3, 63, 64, 200; relation 1: 3, 200; relation 2: 64.
            for id in [200, 3, 64, 63] {
                s.insert(0, id);
            }
            s.insert(1, 3);
            s.insert(1, 200);
            s.insert(2, 64);
            assert!(s.contains(0, 64) && s.contains(0, 63) && !s.contains(1, 64));
            assert!(!s.is_empty(2) && s.is_empty(3));
            assert_eq!(ids(&s, 0), vec![3, 63, 200, 64]);
            // 3(x) :- 0(x), !1(x): 63 and 64.
            s.derive(3, &[0], &[1]);
            assert_eq!(ids(&s, 3), vec![63, 64]);
            assert!(s.meets_any(&[(2, 3)]) && !s.meets_any(&[(1, 2)]));
            assert!(s.meets_any(&[(1, 2), (0, 1)]));
            let mut out: ByCase<(u32, u32)> = ByCase::with_cases(3);
            s.push_to(0, 2, &mut out);
            assert_eq!(out.case(2), &[(2, 3), (2, 63), (2, 64), (2, 200)]);
            assert_eq!(out.case(0), &[] as &[(u32, u32)]);
            s.clear();
            assert!(!s.contains(0, 200) && !s.contains(0, 3));
        }
        // Below the word only, no spill table is made.
        let mut s: Sets<2> = Sets::default();
        s.insert(0, 5);
        s.derive(1, &[0], &[]);
        assert!(s.contains(1, 5) && s.spill.is_empty());
    }

    /// A lookup by some columns visits every matching row, small or large,
    /// rows added after the index was built included, and only those once
    /// the table is large; clearing and sorting keep it right.
    #[test]
    fn matching_finds_the_rows_with_the_key_at_every_size() {
        let mut t: Table<(u32, i64)> = Table::default();
        t.want(0b01);
        let count = |t: &Table<(u32, i64)>, g: u32| {
            t.matching(0b01, &[i64::from(g)])
                .filter(|r| r.0 == g)
                .count()
        };
        for round in 0..2 {
            for i in 0..200u32 {
                t.insert((i % 7, i64::from(i)));
                for g in 0..7 {
                    let expected = (0..=i).filter(|j| j % 7 == g).count();
                    assert_eq!(count(&t, g), expected, "round {round}, {i} rows, key {g}");
                }
                if i > SCAN as u32 {
                    // Only rows whose key hashes alike are visited.
                    assert!(t.matching(0b01, &[3]).count() < t.len());
                }
            }
            // A column set nobody asked for scans, and is still right.
            assert_eq!(t.matching(0b10, &[5]).filter(|r| r.1 == 5).count(), 1);
            t.sort();
            assert_eq!(t.matching(0b01, &[2]).filter(|r| r.0 == 2).count(), 29);
            t.clear();
            assert_eq!(count(&t, 1), 0);
        }
        // Asked for once the table is large: built then.
        let mut u: Table<(u32, u32)> = Table::default();
        for i in 0..100 {
            u.insert((i, i % 3));
        }
        u.want(0b10);
        assert_eq!(u.matching(0b10, &[2]).filter(|r| r.1 == 2).count(), 33);
        assert!(u.matching(0b10, &[2]).count() < 100);
    }

    #[test]
    fn sort_orders_rows_and_keeps_membership() {
        let mut t: Table<(u32,)> = Table::default();
        for i in (0..30u32).rev() {
            t.insert((i,));
        }
        t.sort();
        assert_eq!(t.rows()[0], (0,));
        assert_eq!(t.rows()[29], (29,));
        assert!(t.contains(&(17,)));
        assert!(!t.insert((17,)));
    }
}
