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

use rustc_hash::FxBuildHasher;
use std::collections::HashSet;
use std::hash::Hash;

/// Up to this many rows a table scans instead of hashing.
pub const SCAN: usize = 16;

/// A set of typed rows of one relation for one case.
#[derive(Clone, Debug)]
pub struct Table<T> {
    rows: Vec<T>,
    /// The rows again, once there are more than [`SCAN`] (else empty).
    set: HashSet<T, FxBuildHasher>,
    indexed: bool,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            rows: Vec::new(),
            set: HashSet::default(),
            indexed: false,
        }
    }
}

impl<T: Copy + Eq + Hash + Ord> Table<T> {
    /// The rows, in insertion order (sorted after [`Table::sort`]).
    #[inline]
    pub fn rows(&self) -> &[T] {
        &self.rows
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

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
        if self.indexed {
            if !self.set.insert(row) {
                return false;
            }
        } else if self.rows.contains(&row) {
            return false;
        }
        self.rows.push(row);
        if !self.indexed && self.rows.len() > SCAN {
            self.set.extend(self.rows.iter().copied());
            self.indexed = true;
        }
        true
    }

    /// Does `other` hold a row of this table? (A fact and its explicit
    /// negation: nearly always one side is empty.)
    #[inline]
    pub fn meets(&self, other: &Table<T>) -> bool {
        !self.is_empty() && !other.is_empty() && self.rows.iter().any(|t| other.contains(t))
    }

    /// Empties the table, keeping its allocations for the next case.
    #[inline]
    pub fn clear(&mut self) {
        self.rows.clear();
        if self.indexed {
            self.set.clear();
            self.indexed = false;
        }
    }

    /// Sorts the rows (once a run is over: the conclusions binary-search them).
    #[inline]
    pub fn sort(&mut self) {
        self.rows.sort_unstable();
    }
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
