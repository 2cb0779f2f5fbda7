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
    #[inline]
    pub fn meets(&self, other: &Table<T>) -> bool {
        !self.is_empty() && !other.is_empty() && self.rows.iter().any(|t| other.contains(t))
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
        self.rows.sort_unstable();
        for ix in &mut self.indexes {
            ix.by_key.clear();
            ix.live = false;
        }
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
