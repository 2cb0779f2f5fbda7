//! Entity names and the dense ids every engine and the reference evaluator
//! compute with.

use crate::Id;

/// Up to this many entities an interner scans (a hash per name, compared
/// before any bytes) instead of probing an index.
const SMALL: usize = 32;

/// Entity names ↔ dense ids. Ids `0..k` are the package's constants
/// (a static table shared by every case, so a case costs nothing until it
/// names its own entities); later ids are this case's entities.
///
/// A case's names are stored end to end in one `String` (`names[i]`
/// holds where name `i` ends, and a 32-bit hash of it): a case of a few dozen
/// names is found by scanning the hashes, and a case with more (a facts
/// file of a whole tournament) gets an open-addressing index of ids
/// probed by a keyed SipHash (names are input: no hash flooding). No
/// allocation per name in either case, which profiles of many small
/// cases showed (a `HashMap<Box<str>, Id>` did one per name).
#[derive(Clone, Debug)]
pub struct Interner {
    constants: &'static [&'static str],
    /// `constants` as a lookup (a generated `match`).
    constant_id: fn(&str) -> Option<Id>,
    text: String,
    /// Per name: where it ends in `text`, and its [`scan_hash`].
    names: Vec<(u32, u32)>,
    /// Only past [`SMALL`] names: `index.len()` is a power of two, at
    /// least twice the names; a slot holds a name's position + 1, or 0.
    index: Vec<u32>,
    /// The index's SipHash keys, drawn when the first index is built (a
    /// case that scans never needs them).
    keys: Option<std::collections::hash_map::RandomState>,
}

/// A cheap hash of a short name, for the scan (FxHash's step, 8 bytes
/// at a time, the length mixed in).
#[inline]
fn scan_hash(name: &[u8]) -> u32 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let mut h = name.len() as u64;
    let mut chunks = name.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = step(h, u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = step(h, tail(rest));
    }
    (h >> 32) as u32
}

/// The last 1 to 7 bytes of a name as one word, read with fixed-size loads
/// (two overlapping 4-byte reads, or the first, middle and last byte): a
/// copy of a variable length is a `memcpy` call, which the profile of short
/// names showed costing as much as the hash. Names that differ may share a
/// word (the length is mixed in, and the scan compares bytes after the hash).
#[inline]
fn tail(rest: &[u8]) -> u64 {
    let n = rest.len();
    let word = |at: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&rest[at..at + 4]);
        u64::from(u32::from_le_bytes(w))
    };
    if n >= 4 {
        word(0) | word(n - 4) << 32
    } else {
        u64::from(rest[0]) | u64::from(rest[n / 2]) << 8 | u64::from(rest[n - 1]) << 16
    }
}

impl Default for Interner {
    fn default() -> Self {
        Interner::with_constants(&[], |_| None)
    }
}

impl Interner {
    /// An interner whose ids `0..k` are the package's `constants`, found by
    /// `constant_id` (a generated `match`): a case costs nothing until it
    /// names an entity of its own.
    pub fn with_constants(
        constants: &'static [&'static str],
        constant_id: fn(&str) -> Option<Id>,
    ) -> Self {
        // Room for a typical case's names, so that interning them does
        // not grow the buffers one reallocation at a time.
        Interner::with_buffers(
            constants,
            constant_id,
            String::with_capacity(64),
            Vec::with_capacity(SMALL),
        )
    }

    /// An interner with no names of its own, storing them in `text` and
    /// `names` (empty; fresh, or a dropped `Facts`' spares).
    fn with_buffers(
        constants: &'static [&'static str],
        constant_id: fn(&str) -> Option<Id>,
        text: String,
        names: Vec<(u32, u32)>,
    ) -> Self {
        Interner {
            constants,
            constant_id,
            text,
            names,
            index: Vec::new(),
            keys: None,
        }
    }

    /// This case's entity `i` (0-based, after the constants).
    #[inline]
    fn own(&self, i: usize) -> &[u8] {
        &self.text.as_bytes()[self.span(i)]
    }

    /// Where this case's entity `i` lies in `text`.
    #[inline]
    fn span(&self, i: usize) -> std::ops::Range<usize> {
        let start = match i {
            0 => 0,
            _ => self.names[i - 1].0 as usize,
        };
        start..self.names[i].0 as usize
    }

    fn slot_of(&self, name: &[u8]) -> usize {
        use std::hash::BuildHasher;
        // `reindex` draws the keys before the index has a slot.
        let hash = self.keys.as_ref().map_or(0, |k| k.hash_one(name));
        hash as usize & (self.index.len() - 1)
    }

    /// (Re)builds the index for the names so far, with room to grow.
    fn reindex(&mut self) {
        self.keys
            .get_or_insert_with(std::collections::hash_map::RandomState::new);
        let size = (self.names.len() * 4).next_power_of_two();
        self.index.clear();
        self.index.resize(size, 0);
        for i in 0..self.names.len() {
            self.place(i);
        }
    }

    fn place(&mut self, i: usize) {
        let mask = self.index.len() - 1;
        let mut s = self.slot_of(self.own(i));
        while self.index[s] != 0 {
            s = (s + 1) & mask;
        }
        self.index[s] = i as u32 + 1;
    }

    /// The id of `name`, issued now if it has none yet (the next id).
    pub fn intern(&mut self, name: &str) -> Id {
        let h = scan_hash(name.as_bytes());
        if let Some(id) = self.find(name, h) {
            return id;
        }
        let i = self.names.len();
        let id =
            Id::try_from(self.constants.len() + i).expect("more than 2^32 entities in one case");
        let end = u32::try_from(self.text.len() + name.len())
            .expect("more than 4 GiB of entity names in one case");
        self.text.push_str(name);
        self.names.push((end, h));
        if self.names.len() > SMALL {
            if self.index.len() < 2 * self.names.len() {
                self.reindex();
            } else {
                self.place(i);
            }
        }
        id
    }

    /// The id of `name`, if it has one.
    pub fn get(&self, name: &str) -> Option<Id> {
        self.find(name, scan_hash(name.as_bytes()))
    }

    /// [`Interner::get`], given the name's [`scan_hash`] `h`.
    #[inline]
    fn find(&self, name: &str, h: u32) -> Option<Id> {
        if let Some(i) = (self.constant_id)(name) {
            return Some(i);
        }
        let k = self.constants.len();
        let name = name.as_bytes();
        if self.index.is_empty() {
            // A case usually names a handful of entities: a scan of
            // their hashes beats hashing into a table.
            return self
                .names
                .iter()
                .enumerate()
                .find(|&(i, &(_, x))| x == h && self.own(i) == name)
                .map(|(i, _)| (k + i) as Id);
        }
        let mask = self.index.len() - 1;
        let mut s = self.slot_of(name);
        loop {
            match self.index[s] {
                0 => return None,
                slot => {
                    let i = slot as usize - 1;
                    if self.own(i) == name {
                        return Some((k + i) as Id);
                    }
                }
            }
            s = (s + 1) & mask;
        }
    }

    /// The name of an id this interner issued.
    pub fn name(&self, id: Id) -> &str {
        self.name_of(id).expect("an id from this interner")
    }

    /// The name of `id`, if this interner issued it.
    pub fn name_of(&self, id: Id) -> Option<&str> {
        let i = id as usize;
        match self.constants.get(i) {
            Some(c) => Some(c),
            None => {
                let i = i - self.constants.len();
                (i < self.names.len()).then(|| &self.text[self.span(i)])
            }
        }
    }

    /// How many ids it has issued, constants included.
    pub fn len(&self) -> usize {
        self.constants.len() + self.names.len()
    }

    /// Whether it has issued no id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The buffers of a dropped `Facts` (its names and its rows), kept by the
/// thread that dropped it for the next `Facts` made there. A batch holds
/// its cases' `Facts` until their conclusions are dropped, hundreds or a
/// thousand at a time: more than the allocator's per-thread cache keeps, so each new
/// `Facts` paid for three allocations from the allocator's shared bins and
/// as many frees (a fifth of a named case's instructions in the profile).
#[derive(Debug)]
pub struct Spare<R> {
    text: String,
    names: Vec<(u32, u32)>,
    rows: Vec<R>,
}

/// A thread's spare buffers; a generated module declares one per thread
/// (`thread_local!`), for its own row type.
pub type SparePool<R> = std::cell::RefCell<Vec<Spare<R>>>;

/// At most this many sets of buffers per thread and module: a batch's
/// worth at the default batch size. A thread that drops `Facts` made on
/// another (conclusions handed on by `sink`) keeps up to this many that it
/// may never use: bounded, at most `KEEP` × [`LARGEST`] bytes.
const KEEP: usize = 1024;
/// Buffers that grew past this many bytes (a facts file of a whole
/// tournament) are freed rather than kept.
const LARGEST: usize = 16 * 1024;

impl Interner {
    /// An interner as [`Interner::with_constants`] makes it, and an empty
    /// row buffer, from this thread's spare buffers when it has some (else
    /// fresh ones, the rows with room for `rows`).
    pub fn reuse<R>(
        constants: &'static [&'static str],
        constant_id: fn(&str) -> Option<Id>,
        pool: &'static std::thread::LocalKey<SparePool<R>>,
        rows: usize,
    ) -> (Interner, Vec<R>) {
        // Outside a thread's lifetime (its locals being destroyed) or
        // while the pool is borrowed, the buffers are simply new.
        let spare = pool
            .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.pop()))
            .ok()
            .flatten();
        match spare {
            Some(s) => (
                Interner::with_buffers(constants, constant_id, s.text, s.names),
                s.rows,
            ),
            None => (
                Interner::with_constants(constants, constant_id),
                Vec::with_capacity(rows),
            ),
        }
    }

    /// Gives this interner's buffers and `rows` to this thread's spare
    /// buffers (emptied), leaving the interner with no names of its own
    /// and no index: what a `Facts` does when it is dropped. Buffers past
    /// [`LARGEST`] bytes, or a pool already holding [`KEEP`], are freed
    /// instead.
    pub fn recycle<R>(&mut self, rows: Vec<R>, pool: &'static std::thread::LocalKey<SparePool<R>>) {
        // The index (a case past `SMALL` names) is not kept: it is rare,
        // and its slots would point at names no longer there.
        self.index = Vec::new();
        self.keys = None;
        let text = std::mem::take(&mut self.text);
        let names = std::mem::take(&mut self.names);
        let bytes = text.capacity()
            + names.capacity() * std::mem::size_of::<(u32, u32)>()
            + rows.capacity() * std::mem::size_of::<R>();
        if bytes > LARGEST {
            return;
        }
        let mut spare = Spare { text, names, rows };
        spare.text.clear();
        spare.names.clear();
        spare.rows.clear();
        let _ = pool.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.len() < KEEP {
                    p.push(spare);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::Interner;

    #[test]
    fn interner_ids_follow_the_constants_and_round_trip() {
        static CONSTANTS: [&str; 2] = ["white", "black"];
        fn constant_id(s: &str) -> Option<u32> {
            CONSTANTS.iter().position(|c| *c == s).map(|i| i as u32)
        }
        let mut i = Interner::with_constants(&CONSTANTS, constant_id);
        assert_eq!(i.intern("black"), 1);
        assert_eq!(i.intern("g1"), 2);
        assert_eq!(i.intern(""), 3);
        assert_eq!(i.intern("g1"), 2);
        assert_eq!(i.name(3), "");
        assert_eq!(i.name_of(2), Some("g1"));
        assert_eq!(i.name_of(4), None);
        // Past the scanned size the interner hashes; ids and names stay.
        let ids: Vec<u32> = (0..100).map(|n| i.intern(&format!("e{n}"))).collect();
        assert_eq!(ids, (4..104).collect::<Vec<u32>>());
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(i.get(&format!("e{n}")), Some(*id));
            assert_eq!(i.name(*id), format!("e{n}"));
        }
        assert_eq!(i.get("g1"), Some(2));
        assert_eq!(i.get("white"), Some(0));
        assert_eq!(i.get("nobody"), None);
        assert_eq!(i.len(), 104);
    }

    std::thread_local! {
        static POOL: super::SparePool<u64> = const { std::cell::RefCell::new(Vec::new()) };
    }

    /// A dropped `Facts` gives its buffers to the next one on its thread,
    /// emptied: the new interner knows the constants and no name of the
    /// old one, and the rows are empty with the old capacity.
    #[test]
    fn spare_buffers_come_back_empty_and_bounded() {
        static CONSTANTS: [&str; 1] = ["white"];
        fn constant_id(s: &str) -> Option<u32> {
            (s == "white").then_some(0)
        }
        let (mut i, mut rows) = Interner::reuse(&CONSTANTS, constant_id, &POOL, 8);
        assert!(rows.capacity() >= 8);
        for n in 0..40 {
            i.intern(&format!("p{n}"));
            rows.push(n);
        }
        let capacity = rows.capacity();
        i.recycle(rows, &POOL);
        assert_eq!(i.len(), 1, "a recycled interner keeps no name");
        assert_eq!(POOL.with(|p| p.borrow().len()), 1);

        let (mut i, rows) = Interner::reuse(&CONSTANTS, constant_id, &POOL, 8);
        assert_eq!(POOL.with(|p| p.borrow().len()), 0);
        assert!(rows.is_empty());
        assert_eq!(rows.capacity(), capacity, "the same buffer, reused");
        assert_eq!(i.len(), 1);
        assert_eq!(i.get("p3"), None);
        assert_eq!(i.intern("white"), 0);
        assert_eq!(i.intern("p39"), 1);
        assert_eq!(i.name(1), "p39");

        // A buffer grown past the limit is freed, not kept; the interner
        // is left empty and usable all the same, its index gone too.
        for n in 0..100 {
            i.intern(&format!("q{n}"));
        }
        let big: Vec<u64> = Vec::with_capacity(super::LARGEST);
        i.recycle(big, &POOL);
        assert_eq!(POOL.with(|p| p.borrow().len()), 0);
        assert_eq!((i.len(), i.get("q5"), i.get("white")), (1, None, Some(0)));
        assert_eq!(i.intern("q5"), 1);
        // And the pool holds at most `KEEP` sets.
        let mut alive: Vec<_> = (0..super::KEEP + 5)
            .map(|_| Interner::reuse(&CONSTANTS, constant_id, &POOL, 1))
            .collect();
        for (i, rows) in &mut alive {
            i.recycle(std::mem::take(rows), &POOL);
        }
        assert_eq!(POOL.with(|p| p.borrow().len()), super::KEEP);
    }

    /// Names that differ in one byte, in length only, past 8 bytes, or are
    /// not ASCII, at every size: the scan (up to 32 names), the first index,
    /// and the index grown many times (a tournament's facts file).
    #[test]
    fn interner_finds_every_name_and_no_other_at_every_size() {
        let mut i = Interner::default();
        let name = |n: usize| match n % 5 {
            0 => format!("p{n}"),
            1 => format!("player_of_the_tournament_{n}"),
            2 => format!("{}{n}", "a".repeat(n % 17)),
            3 => format!("ферзь{n}"),
            _ => format!("p{n}\u{0}"),
        };
        for n in 0..20_000 {
            assert_eq!(i.get(&name(n)), None, "{} before it is interned", name(n));
            assert_eq!(i.intern(&name(n)), n as u32);
            if n.is_power_of_two() || n < 40 {
                for m in 0..=n {
                    assert_eq!(i.get(&name(m)), Some(m as u32), "{} among {n}", name(m));
                }
                assert_eq!(i.get(&format!("{}x", name(n))), None);
                assert_eq!(i.get(&format!("x{}", name(n))), None);
            }
        }
        for n in 0..20_000 {
            assert_eq!(i.name(n as u32), name(n));
        }
        assert_eq!(i.len(), 20_000);
    }
}
