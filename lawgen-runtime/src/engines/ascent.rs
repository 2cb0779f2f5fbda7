//! The data structures of generated `ascent` programs (an ascent "data
//! structure provider", selected by `#[ds(::lawgen_runtime::__private::ds)]`
//! on the generated program).
//!
//! ascent's default provider (`ascent::rel`) keeps every index as a
//! `HashMap<Key, Vec<Value>>` whose `Vec`s start at capacity 4. Every
//! relation of a lawgen engine carries the case column, so nearly every key
//! is distinct and nearly every inserted tuple allocated a `Vec` of its own.
//! Here a key's values live in a [`Bucket`]: the first value inline, a `Vec`
//! only from the second on. (Pooling emptied tables per thread across batches
//! was tried as well: fewer instructions, but iterating and clearing the
//! large, sparse tables it handed out made evaluation slower and quadrupled
//! peak memory, so tables are created afresh as in ascent.)
//!
//! What does carry over from one batch to the next is each table's size: a
//! table starts with room for the most entries the same table held in this
//! thread's previous run of the same program ([`sized`]), instead of
//! growing from empty one rehash at a time (`reserve_rehash` was a sixth of
//! the instructions per chess game). A table is "the same" by the order in
//! which the program creates it, which ascent's generated code fixes: the
//! program's fields, then each component's `delta`/`new`/`total` versions.
//!
//! Semantics are ascent's own: the same traits (`ascent::internal`), the same
//! set of tuples per key; only the order in which a key's values are iterated
//! may differ, which no ascent rule depends on (a rule's result is a set).
//! The differential tests (compiled against interpreted, byte for byte) run on
//! these structures.

use ascent::internal::{
    Freezable, RelFullIndexRead, RelFullIndexWrite, RelIndexMerge, RelIndexRead, RelIndexReadAll,
    RelIndexWrite, ToRelIndex,
};
use rustc_hash::FxBuildHasher;
use std::cell::RefCell;
use std::collections::hash_map::{self, Entry};
use std::collections::HashMap;
use std::hash::Hash;
use std::thread::LocalKey;

/// The values of one key of an index: one inline, more in a `Vec`.
#[derive(Clone, Debug)]
pub enum Bucket<V> {
    /// A key with one value, stored inline.
    One(V),
    /// A key with more values.
    Many(Vec<V>),
}

impl<V> Bucket<V> {
    /// The key's values.
    #[inline]
    pub fn as_slice(&self) -> &[V] {
        match self {
            Bucket::One(v) => std::slice::from_ref(v),
            Bucket::Many(vs) => vs,
        }
    }

    #[inline]
    fn push(&mut self, v: V) {
        match self {
            Bucket::Many(vs) => vs.push(v),
            Bucket::One(_) => {
                let first = std::mem::replace(self, Bucket::Many(Vec::with_capacity(4)));
                if let (Bucket::Many(vs), Bucket::One(first)) = (&mut *self, first) {
                    vs.push(first);
                    vs.push(v);
                }
            }
        }
    }

    fn append(&mut self, other: Bucket<V>) {
        match other {
            Bucket::One(v) => self.push(v),
            Bucket::Many(vs) => {
                for v in vs {
                    self.push(v);
                }
            }
        }
    }
}

type Map<K, V> = HashMap<K, V, FxBuildHasher>;

/// The most entries each of one program's tables held in this thread's
/// previous run, by creation order (see [`sized`]). A generated module keeps
/// one per thread.
#[derive(Debug, Default)]
pub struct Sizes {
    caps: Vec<u32>,
}

/// The run [`sized`] is measuring on this thread: the capacities to start
/// from, and those seen so far (`after.len()` is the next table's slot).
struct Run {
    before: Vec<u32>,
    after: Vec<u32>,
}

thread_local! {
    static RUN: RefCell<Option<Run>> = const { RefCell::new(None) };
}

/// A table created outside [`sized`]: no slot, no hint.
const NO_SLOT: u32 = u32::MAX;

/// Runs `f` (which creates, runs and drops one program) so that each table
/// the program creates starts with room for the most entries the same table
/// held in the previous run on this thread, as kept in `sizes`, and `sizes`
/// then holds this run's. A run nested in another (or one whose `sizes` is in use)
/// runs unsized, and a panic in `f` leaves the outer state as it was.
pub fn sized<T>(sizes: &'static LocalKey<RefCell<Sizes>>, f: impl FnOnce() -> T) -> T {
    let before = sizes
        .try_with(|s| {
            s.try_borrow_mut()
                .map(|mut s| std::mem::take(&mut s.caps))
                .ok()
        })
        .ok()
        .flatten();
    let run = before.map(|before| Run {
        before,
        after: Vec::new(),
    });
    /// Puts the outer state back when dropped, even if `f` unwinds.
    struct Restore(Option<Run>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = RUN.try_with(|r| r.replace(self.0.take()));
        }
    }
    let restore = Restore(RUN.with(|r| r.replace(run)));
    let t = f();
    let run = RUN.with(|r| r.take());
    drop(restore);
    if let Some(run) = run {
        let _ = sizes.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                s.caps = run.after;
            }
        });
    }
    t
}

/// The next table's slot in the run being measured, and the most entries
/// it held in the previous run (`(NO_SLOT, 0)` outside [`sized`]).
fn take_slot() -> (u32, usize) {
    RUN.try_with(|r| {
        let mut r = r.try_borrow_mut().ok()?;
        let run = r.as_mut()?;
        let k = run.after.len();
        run.after.push(0);
        let cap = run.before.get(k).copied().unwrap_or(0);
        Some((u32::try_from(k).ok()?, cap as usize))
    })
    .ok()
    .flatten()
    .unwrap_or((NO_SLOT, 0))
}

/// Table `slot` held at most `cap` entries in this run.
fn record(slot: u32, cap: usize) {
    if slot == NO_SLOT {
        return;
    }
    let _ = RUN.try_with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if let Some(x) = r.as_mut().and_then(|run| run.after.get_mut(slot as usize)) {
                *x = u32::try_from(cap).unwrap_or(u32::MAX);
            }
        }
    });
}

/// A fresh table, with room for its previous run's entries when [`sized`]
/// is measuring.
fn fresh_map<K, V>() -> (Map<K, V>, u32) {
    let (slot, cap) = take_slot();
    (Map::with_capacity_and_hasher(cap, FxBuildHasher), slot)
}

/// A non-full index: key columns → the values (the other columns) of the
/// tuples with that key.
#[derive(Debug)]
pub struct Index<K, V> {
    map: Map<K, Bucket<V>>,
    /// Its creation order in a [`sized`] run.
    slot: u32,
    /// The most entries it held before being drained (capacity would not
    /// do: a table that starts large never shrinks).
    peak: usize,
}

impl<K, V> Default for Index<K, V> {
    #[inline]
    fn default() -> Self {
        let (map, slot) = fresh_map();
        Index { map, slot, peak: 0 }
    }
}

impl<K, V> Drop for Index<K, V> {
    fn drop(&mut self) {
        record(self.slot, self.peak.max(self.map.len()));
    }
}

impl<K: Clone, V: Clone> Clone for Index<K, V> {
    fn clone(&self) -> Self {
        Index {
            map: self.map.clone(),
            slot: NO_SLOT,
            peak: 0,
        }
    }
}

impl<'a, K: Eq + Hash + 'a, V: Clone + 'a> RelIndexRead<'a> for Index<K, V> {
    type Key = K;
    type Value = &'a V;
    type IteratorType = std::slice::Iter<'a, V>;

    #[inline]
    fn index_get(&'a self, key: &K) -> Option<Self::IteratorType> {
        self.map.get(key).map(|b| b.as_slice().iter())
    }

    #[inline]
    fn len_estimate(&'a self) -> usize {
        self.map.len()
    }

    #[inline]
    fn is_empty(&'a self) -> bool {
        self.map.is_empty()
    }
}

type BucketFn<K, V> = for<'x, 'y> fn((&'x K, &'y Bucket<V>)) -> (&'x K, std::slice::Iter<'y, V>);
type BucketIter<'a, K, V> = std::iter::Map<hash_map::Iter<'a, K, Bucket<V>>, BucketFn<K, V>>;

impl<'a, K: Eq + Hash + 'a, V: Clone + 'a> RelIndexReadAll<'a> for Index<K, V> {
    type Key = &'a K;
    type Value = &'a V;
    type ValueIteratorType = std::slice::Iter<'a, V>;
    type AllIteratorType = BucketIter<'a, K, V>;

    fn iter_all(&'a self) -> Self::AllIteratorType {
        let f: BucketFn<K, V> = |(k, b)| (k, b.as_slice().iter());
        self.map.iter().map(f)
    }
}

impl<K: Eq + Hash, V> RelIndexWrite for Index<K, V> {
    type Key = K;
    type Value = V;

    #[inline]
    fn index_insert(&mut self, key: K, value: V) {
        match self.map.entry(key) {
            Entry::Occupied(mut e) => e.get_mut().push(value),
            Entry::Vacant(e) => {
                e.insert(Bucket::One(value));
            }
        }
    }
}

impl<K: Eq + Hash, V> RelIndexMerge for Index<K, V> {
    fn move_index_contents(from: &mut Self, to: &mut Self) {
        if from.map.len() > to.map.len() {
            std::mem::swap(from, to);
        }
        to.map.reserve(from.map.len());
        from.peak = from.peak.max(from.map.len());
        for (k, b) in from.map.drain() {
            match to.map.entry(k) {
                Entry::Occupied(mut e) => e.get_mut().append(b),
                Entry::Vacant(e) => {
                    e.insert(b);
                }
            }
        }
    }
}

impl<K, V> Freezable for Index<K, V> {}

impl<K, V, R> ToRelIndex<R> for Index<K, V> {
    type RelIndex<'a>
        = &'a Self
    where
        Self: 'a,
        R: 'a;
    #[inline(always)]
    fn to_rel_index<'a>(&'a self, _rel: &'a R) -> Self::RelIndex<'a> {
        self
    }

    type RelIndexWrite<'a>
        = &'a mut Self
    where
        Self: 'a,
        R: 'a;
    #[inline(always)]
    fn to_rel_index_write<'a>(&'a mut self, _rel: &'a mut R) -> Self::RelIndexWrite<'a> {
        self
    }
}

/// The full index of a relation (every column is key): the set of its
/// tuples, which is what deduplicates insertions.
#[derive(Debug)]
pub struct FullIndex<K, V> {
    map: Map<K, V>,
    /// Its creation order in a [`sized`] run.
    slot: u32,
    /// The most entries it held before being drained (capacity would not
    /// do: a table that starts large never shrinks).
    peak: usize,
}

impl<K, V> Default for FullIndex<K, V> {
    #[inline]
    fn default() -> Self {
        let (map, slot) = fresh_map();
        FullIndex { map, slot, peak: 0 }
    }
}

impl<K, V> Drop for FullIndex<K, V> {
    fn drop(&mut self) {
        record(self.slot, self.peak.max(self.map.len()));
    }
}

impl<K: Clone, V: Clone> Clone for FullIndex<K, V> {
    fn clone(&self) -> Self {
        FullIndex {
            map: self.map.clone(),
            slot: NO_SLOT,
            peak: 0,
        }
    }
}

impl<'a, K: Eq + Hash + 'a, V: Clone + 'a> RelIndexRead<'a> for FullIndex<K, V> {
    type Key = K;
    type Value = &'a V;
    type IteratorType = std::iter::Once<&'a V>;

    #[inline]
    fn index_get(&'a self, key: &K) -> Option<Self::IteratorType> {
        self.map.get(key).map(std::iter::once)
    }

    #[inline]
    fn len_estimate(&'a self) -> usize {
        self.map.len()
    }

    #[inline]
    fn is_empty(&'a self) -> bool {
        self.map.is_empty()
    }
}

type OnceFn<K, V> = for<'x, 'y> fn((&'x K, &'y V)) -> (&'x K, std::iter::Once<&'y V>);
type OnceIter<'a, K, V> = std::iter::Map<hash_map::Iter<'a, K, V>, OnceFn<K, V>>;

impl<'a, K: Eq + Hash + 'a, V: Clone + 'a> RelIndexReadAll<'a> for FullIndex<K, V> {
    type Key = &'a K;
    type Value = &'a V;
    type ValueIteratorType = std::iter::Once<&'a V>;
    type AllIteratorType = OnceIter<'a, K, V>;

    fn iter_all(&'a self) -> Self::AllIteratorType {
        let f: OnceFn<K, V> = |(k, v)| (k, std::iter::once(v));
        self.map.iter().map(f)
    }
}

impl<K: Eq + Hash, V> RelIndexWrite for FullIndex<K, V> {
    type Key = K;
    type Value = V;

    #[inline]
    fn index_insert(&mut self, key: K, value: V) {
        self.map.insert(key, value);
    }
}

impl<K: Eq + Hash, V> RelIndexMerge for FullIndex<K, V> {
    fn move_index_contents(from: &mut Self, to: &mut Self) {
        if from.map.len() > to.map.len() {
            std::mem::swap(from, to);
        }
        to.map.reserve(from.map.len());
        from.peak = from.peak.max(from.map.len());
        to.map.extend(from.map.drain());
    }
}

impl<'a, K: Eq + Hash, V> RelFullIndexRead<'a> for FullIndex<K, V> {
    type Key = K;

    #[inline]
    fn contains_key(&'a self, key: &K) -> bool {
        self.map.contains_key(key)
    }
}

impl<K: Clone + Eq + Hash, V> RelFullIndexWrite for FullIndex<K, V> {
    type Key = K;
    type Value = V;

    #[inline]
    fn insert_if_not_present(&mut self, key: &K, v: V) -> bool {
        // Keys are small tuples of integers: checking first and cloning only
        // to insert costs one more probe on a miss, and no clone on a hit.
        if self.map.contains_key(key) {
            return false;
        }
        self.map.insert(key.clone(), v);
        true
    }
}

impl<K, V> Freezable for FullIndex<K, V> {}

impl<K, V, R> ToRelIndex<R> for FullIndex<K, V> {
    type RelIndex<'a>
        = &'a Self
    where
        Self: 'a,
        R: 'a;
    #[inline(always)]
    fn to_rel_index<'a>(&'a self, _rel: &'a R) -> Self::RelIndex<'a> {
        self
    }

    type RelIndexWrite<'a>
        = &'a mut Self
    where
        Self: 'a,
        R: 'a;
    #[inline(always)]
    fn to_rel_index_write<'a>(&'a mut self, _rel: &'a mut R) -> Self::RelIndexWrite<'a> {
        self
    }
}

// The provider's macros, as ascent's macro expansion calls them
// (`<path>::rel!(name, field_types, indices, ser|par, (args))`, and so on;
// see `ascent::rel`). Only the sequential (`ser`) engine is generated.

#[doc(hidden)]
#[macro_export]
macro_rules! __lawgen_ds_rel_codegen {
    ( $($tt: tt)* ) => {};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __lawgen_ds_rel {
    ($name: ident, $field_types: ty, $indices: expr, ser, ()) => {
        ::std::vec::Vec<$field_types>
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __lawgen_ds_rel_ind_common {
    ($name: ident, $field_types: ty, $indices: expr, ser, ()) => {
        ()
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __lawgen_ds_rel_full_ind {
    ($name: ident, $field_types: ty, $indices: expr, ser, (), $key: ty, $val: ty) => {
        $crate::__private::ds::FullIndex<$key, $val>
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __lawgen_ds_rel_ind {
    ($name: ident, $field_types: ty, $indices: expr, ser, (), $ind: expr, $key: ty, $val: ty) => {
        $crate::__private::ds::Index<$key, $val>
    };
}

pub use crate::__lawgen_ds_rel as rel;
pub use crate::__lawgen_ds_rel_codegen as rel_codegen;
pub use crate::__lawgen_ds_rel_full_ind as rel_full_ind;
pub use crate::__lawgen_ds_rel_ind as rel_ind;
pub use crate::__lawgen_ds_rel_ind_common as rel_ind_common;

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted<'a>(it: impl Iterator<Item = &'a (u32, i64)>) -> Vec<(u32, i64)> {
        let mut v: Vec<_> = it.copied().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn an_index_keeps_every_value_of_a_key() {
        let mut ix: Index<(u32,), (u32, i64)> = Index::default();
        ix.index_insert((1,), (7, -1));
        ix.index_insert((2,), (8, 0));
        ix.index_insert((1,), (9, 5));
        ix.index_insert((1,), (10, 6));
        assert_eq!(ix.len_estimate(), 2);
        assert_eq!(
            sorted(ix.index_get(&(1,)).unwrap()),
            vec![(7, -1), (9, 5), (10, 6)]
        );
        assert_eq!(sorted(ix.index_get(&(2,)).unwrap()), vec![(8, 0)]);
        assert!(ix.index_get(&(3,)).is_none());
        let all: usize = ix.iter_all().map(|(_, vs)| vs.count()).sum();
        assert_eq!(all, 4);
    }

    #[test]
    fn merging_indices_unions_their_values() {
        let mut a: Index<(u32,), (u32, i64)> = Index::default();
        let mut b: Index<(u32,), (u32, i64)> = Index::default();
        a.index_insert((1,), (1, 1));
        b.index_insert((1,), (2, 2));
        b.index_insert((1,), (3, 3));
        b.index_insert((4,), (4, 4));
        // `from` larger than `to`: swapped first, the union is the same.
        Index::move_index_contents(&mut b, &mut a);
        assert_eq!(b.len_estimate(), 0);
        assert_eq!(
            sorted(a.index_get(&(1,)).unwrap()),
            vec![(1, 1), (2, 2), (3, 3)]
        );
        assert_eq!(sorted(a.index_get(&(4,)).unwrap()), vec![(4, 4)]);
    }

    #[test]
    fn a_sized_run_starts_each_table_with_room_for_its_previous_entries() {
        thread_local! {
            static SIZES: RefCell<Sizes> = RefCell::new(Sizes::default());
        }
        // One "program": two tables, filled, then dropped, in one order.
        let run = |rows: u32| {
            sized(&SIZES, || {
                let mut a: Index<(u32,), (u32, i64)> = Index::default();
                let mut f: FullIndex<(u32, i64), ()> = FullIndex::default();
                let start = (a.map.capacity(), f.map.capacity());
                for i in 0..rows {
                    a.index_insert((i,), (i, 0));
                    f.index_insert((i, 1), ());
                }
                start
            })
        };
        assert_eq!(run(100), (0, 0));
        let (a, f) = run(100);
        assert!(a >= 100 && f >= 100, "started at {a} and {f}");
        // A table made outside a sized run is not sized, and does not
        // disturb the next run's slots.
        let outside: Index<(u32,), (u32, i64)> = Index::default();
        assert_eq!(outside.map.capacity(), 0);
        drop(outside);
        // A nested run is unsized; the outer one still finds its slots.
        let nested = sized(&SIZES, || {
            let a: Index<(u32,), (u32, i64)> = Index::default();
            let inner = run(5);
            (a.map.capacity(), inner)
        });
        assert!(nested.0 >= 100, "{nested:?}");
        assert_eq!(nested.1, (0, 0));
        // The capacities follow the last run: smaller again after a small one.
        run(3);
        let (a, _) = run(3);
        assert!(a < 100, "{a}");
    }

    #[test]
    fn a_full_index_inserts_each_tuple_once() {
        let mut f: FullIndex<(u32, i64), ()> = FullIndex::default();
        assert!(f.insert_if_not_present(&(1, 2), ()));
        assert!(!f.insert_if_not_present(&(1, 2), ()));
        assert!(f.insert_if_not_present(&(1, 3), ()));
        assert!(f.contains_key(&(1, 3)));
        assert!(!f.contains_key(&(2, 3)));
        let mut g: FullIndex<(u32, i64), ()> = FullIndex::default();
        g.index_insert((9, 9), ());
        FullIndex::move_index_contents(&mut g, &mut f);
        assert_eq!(f.len_estimate(), 3);
    }
}
