//! What a batch is evaluated from when its cases have no names: ids the
//! caller chose, rows in one reused buffer, and the names conclusions
//! render such entities with.
//!
//! A generated module numbers entities densely per case. Ids `0..k` are the
//! package's constants; a case's own entities follow. A named case
//! (`Facts`) gets its ids from an [`Interner`] in the order it names them.
//! A nameless case (`Case`, `Columns`) gets them from the caller:
//! `Game::from_index(i)` is id `k + i`, whatever the type, so a game and a
//! player may share an id. That is sound because the checker types every
//! rule: a column holds entities of one type, and comparisons compare like
//! with like, so two entities of different types never meet in a join or a
//! test.
//!
//! A nameless entity is *called* `Type#index` wherever conclusions need a
//! name (the canonical output, explanations, requests, error messages):
//! `Game#0`, `Player#1` (with more `#` in the rare package whose constant
//! would be spelt the same way: [`Nameless::separator`]). Those names are
//! distinct per type and never a constant's, so the reference evaluator,
//! which reads names, sees the same entities the engine computed with.

use super::columns::{ColumnsField, FieldRows};
use super::interner::Interner;
use crate::{Arg, Entity, Error, Id};
use std::borrow::Cow;
use std::fmt::Write as _;

/// The largest id a case's entity can have. The two ids above it are kept
/// free so that "one past the largest id" of a case fits in a `u32` and
/// [`INVALID`] is never one of them.
pub const MAX_ID: Id = u32::MAX - 2;

/// The id `from_index` gives an index past [`MAX_ID`]: a case holding one
/// fails to evaluate (with the predicate and row), it never runs.
pub const INVALID: Id = u32::MAX;

/// The id of a nameless case's entity `index`, after `first` constants
/// ([`INVALID`] when it would pass [`MAX_ID`]).
#[inline]
pub const fn id_of_index(first: u32, index: u32) -> Id {
    match first.checked_add(index) {
        Some(id) if id <= MAX_ID => id,
        _ => INVALID,
    }
}

/// The index of entity `id` of a case, after `first` constants (`None`
/// for a constant and for [`INVALID`]).
#[inline]
pub const fn index_of_id(first: u32, id: Id) -> Option<u32> {
    if id >= first && id <= MAX_ID {
        Some(id - first)
    } else {
        None
    }
}

/// One past the largest id among `hi - 1` and `id` (saturating, so an
/// [`INVALID`] id gives `u32::MAX`, which no valid id does).
#[inline]
pub fn seen(hi: u32, id: Id) -> u32 {
    hi.max(id.saturating_add(1))
}

/// How the entities of a package's nameless cases are called: the
/// constants by their names, every other id `Type#index`.
#[derive(Debug)]
pub struct Nameless {
    constants: &'static [&'static str],
    constant_id: fn(&str) -> Option<Id>,
    separator: &'static str,
}

impl Nameless {
    /// The `NAMELESS` static of a generated module.
    pub const fn new(
        constants: &'static [&'static str],
        constant_id: fn(&str) -> Option<Id>,
        separator: &'static str,
    ) -> Self {
        Nameless {
            constants,
            constant_id,
            separator,
        }
    }

    /// What stands between a type's name and an entity's index: `#`, or
    /// the shortest run of `#` with which no constant of `constants` reads
    /// as `Type<sep>digits` for a type of `types` (what the generator
    /// writes into `NAMELESS`).
    pub fn separator(constants: &[&str], types: &[&str]) -> String {
        let mut sep = String::from("#");
        loop {
            let clash = constants.iter().any(|c| {
                types.iter().any(|t| {
                    c.strip_prefix(t)
                        .and_then(|r| r.strip_prefix(sep.as_str()))
                        .is_some_and(|d| parse_index(d).is_some())
                })
            });
            if !clash {
                return sep;
            }
            sep.push('#');
        }
    }

    fn first(&self) -> u32 {
        self.constants.len() as u32
    }
}

/// A canonical decimal index: digits only, no sign, no leading zero (so
/// that each index has exactly one name).
fn parse_index(d: &str) -> Option<u32> {
    let canonical =
        !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && (d == "0" || !d.starts_with('0'));
    canonical.then(|| d.parse().ok()).flatten()
}

/// How one case's entities are named.
#[derive(Clone, Copy, Debug)]
pub enum CaseNames<'a> {
    /// By the names its facts gave them.
    Named(&'a Interner),
    /// By type and index: a case built from ids (`Case`, `Columns`).
    Nameless(&'static Nameless),
}

impl<'a> CaseNames<'a> {
    /// The name of entity `id` of the type named `ty` (`None`: an id these
    /// facts did not issue, or [`INVALID`]).
    pub fn name(self, ty: &str, id: Id) -> Option<Cow<'a, str>> {
        match self {
            CaseNames::Named(i) => i.name_of(id).map(Cow::Borrowed),
            CaseNames::Nameless(n) => match n.constants.get(id as usize) {
                Some(c) => Some(Cow::Borrowed(c)),
                None => index_of_id(n.first(), id)
                    .map(|i| Cow::Owned(format!("{ty}{}{i}", n.separator))),
            },
        }
    }

    /// The name the caller gave entity `id`: a named case's, or a
    /// constant's (a nameless case's own entities have none).
    pub fn given(self, id: Id) -> Option<&'a str> {
        match self {
            CaseNames::Named(i) => i.name_of(id),
            CaseNames::Nameless(n) => n.constants.get(id as usize).copied(),
        }
    }

    /// The entity of the type named `ty` called `name`.
    pub fn id(self, ty: &str, name: &str) -> Option<Id> {
        match self {
            CaseNames::Named(i) => i.get(name),
            CaseNames::Nameless(n) => (n.constant_id)(name).or_else(|| {
                let index = parse_index(name.strip_prefix(ty)?.strip_prefix(n.separator)?)?;
                Some(id_of_index(n.first(), index)).filter(|&id| id != INVALID)
            }),
        }
    }
}

/// Decodes an entity column of a case's rows (whose ids the batch checked).
pub fn entity(names: CaseNames<'_>, ty: &str, id: Id) -> Arg {
    Arg::Entity(match names.name(ty, id) {
        Some(n) => n.into_owned(),
        // Not reachable: a batch refuses a case with an id it cannot name.
        None => format!("{ty}?{id}"),
    })
}

/// Decodes an entity a caller passed in: an id these facts did not issue
/// is a query error, not a panic.
pub fn known_entity<E: Entity>(names: CaseNames<'_>, e: E) -> Result<Arg, Error> {
    match names.name(E::TYPE_NAME, e.id()) {
        Some(n) => Ok(Arg::Entity(n.into_owned())),
        None => Err(Error::Query(format!(
            "the {} with id {} does not belong to these facts",
            E::TYPE_NAME,
            e.id()
        ))),
    }
}

/// An input relation as the typed API states it, for messages about a bad
/// row: the method (and `Columns` field) that states it, and per column the
/// entity type's name (`None`: an integer).
#[derive(Debug)]
pub struct InputRel {
    /// The relation's index in the program.
    pub rel: u32,
    /// `player_of`, `not_player_of`, `decide_piece_touched_intentionally`, `game`.
    pub method: &'static str,
    /// Per column, the entity type's name, or `None` for an integer.
    pub columns: &'static [Option<&'static str>],
}

/// The first entity id of `rows` that `ok` refuses, as an error naming the
/// method, which of its facts (counting from 0) and the type; `None` when
/// every id is fine. `what` describes a refused id.
pub fn bad_id<const W: usize>(
    rows: &[(u32, [i64; W])],
    rels: &[InputRel],
    ok: impl Fn(Id) -> bool,
    what: impl Fn(&str, Id) -> String,
) -> Option<Error> {
    for (k, (rel, v)) in rows.iter().enumerate() {
        let Some(r) = rels.iter().find(|r| r.rel == *rel) else {
            continue;
        };
        for (col, ty) in r.columns.iter().enumerate() {
            let (Some(ty), Some(&x)) = (ty, v.get(col)) else {
                continue;
            };
            let id = u32::try_from(x).unwrap_or(INVALID);
            if !ok(id) {
                let nth = rows[..k].iter().filter(|(q, _)| q == rel).count();
                return Some(Error::Facts(format!(
                    "`{}`, fact {nth} of the case (counting from 0), value {}: {}",
                    r.method,
                    col + 1,
                    what(ty, id)
                )));
            }
        }
    }
    None
}

/// Why a nameless case's id is refused: past the last index.
pub fn out_of_range(first: u32) -> impl Fn(&str, Id) -> String {
    move |ty, id| {
        format!(
            "the {ty} id {id} is out of range: `{ty}::from_index` takes indexes up to {} (a \
             larger index gives this id)",
            MAX_ID - first
        )
    }
}

/// Why a named case's id is refused: its `Facts` did not issue it.
pub fn not_issued(len: usize) -> impl Fn(&str, Id) -> String {
    move |ty, id| {
        format!(
            "the {ty} with id {id} was not named in these facts (they have {len} entities, \
             constants included): use the ids their methods return, or evaluate a nameless \
             `Case`"
        )
    }
}

/// The input rows of a batch of nameless cases, case after case in one
/// buffer. The buffers come from, and return to, a small pool of this
/// thread's ([`pool`]), so a worker evaluating batch after batch allocates
/// none per case, nor per batch once they have grown.
#[derive(Debug)]
pub struct CaseRows<R: 'static> {
    rows: Vec<R>,
    /// `ends[c]`: where case `c`'s rows end (`ends[c - 1]`, or 0, is where
    /// they begin).
    ends: Vec<u32>,
    /// Per case, one past its largest entity id (0: none; `u32::MAX`: an
    /// [`INVALID`] one).
    his: Vec<u32>,
    /// Set when every case of the batch fails ([`CaseRows::failed`]).
    failure: Option<Error>,
}

type Buffers<R> = (Vec<R>, Vec<u32>, Vec<u32>);

impl<R: 'static> Default for CaseRows<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: 'static> CaseRows<R> {
    /// No cases yet, in buffers from this thread's pool when it has some.
    pub fn new() -> Self {
        let (rows, ends, his) = pool::take::<Buffers<R>>().unwrap_or_default();
        CaseRows {
            rows,
            ends,
            his,
            failure: None,
        }
    }

    /// How many cases.
    #[inline]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no case.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn span(&self, c: usize) -> std::ops::Range<usize> {
        let start = match c {
            0 => 0,
            _ => self.ends.get(c - 1).map_or(0, |&e| e as usize),
        };
        let end = self.ends.get(c).map_or(start, |&e| e as usize);
        start..end
    }

    /// Case `c`'s rows (none for a case not in the batch).
    #[inline]
    pub fn rows(&self, c: usize) -> &[R] {
        &self.rows[self.span(c)]
    }

    /// Case `c`'s rows, to sort them.
    pub fn rows_mut(&mut self, c: usize) -> &mut [R] {
        let s = self.span(c);
        &mut self.rows[s]
    }

    /// One past the largest entity id of case `c` (0 if it names none).
    pub fn hi(&self, c: usize) -> u32 {
        self.his.get(c).copied().unwrap_or(0)
    }

    /// The buffer the next cases' rows are appended to: a builder fills
    /// it, marks where each case ends ([`CaseRows::end_at`]) and hands it
    /// back ([`CaseRows::put_rows`]).
    pub fn take_rows(&mut self) -> Vec<R> {
        std::mem::take(&mut self.rows)
    }

    /// Ends a case at row `end` of the builder's buffer, `hi` being one
    /// past its largest entity id.
    pub fn end_at(&mut self, end: usize, hi: u32) {
        let end = u32::try_from(end).expect("fewer than 2^32 rows in one batch");
        self.ends.push(end);
        self.his.push(hi);
    }

    /// The builder's buffer back, holding every case ended so far.
    pub fn put_rows(&mut self, rows: Vec<R>) {
        self.rows = rows;
    }

    /// Ends the case whose rows were appended since the last one.
    fn end(&mut self, hi: u32) {
        self.end_at(self.rows.len(), hi);
    }

    /// The error every case of this batch fails with, if its builder went
    /// wrong.
    pub fn failure(&self) -> Option<&Error> {
        self.failure.as_ref()
    }

    /// `n` cases that all fail with `e`: what a builder that lost its
    /// buffer returns (none of its cases can be evaluated).
    pub fn failed(n: usize, e: Error) -> Self {
        let mut r = CaseRows::new();
        for _ in 0..n {
            r.end(0);
        }
        r.failure = Some(e);
        r
    }

    /// Appends a case with rows `rows`.
    pub fn push_case(&mut self, rows: &[R], hi: u32)
    where
        R: Copy,
    {
        self.rows.extend_from_slice(rows);
        self.end(hi);
    }
}

impl<R: 'static> Drop for CaseRows<R> {
    fn drop(&mut self) {
        let mut b = (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.ends),
            std::mem::take(&mut self.his),
        );
        // A buffer that held a huge batch is not worth keeping.
        if b.0.capacity() <= pool::MAX_ROWS {
            b.0.clear();
            b.1.clear();
            b.2.clear();
            pool::give(b);
        }
    }
}

/// Groups the rows of column-wise input by case, one batch (a range of
/// cases) at a time: first every field's rows are counted per case
/// ([`Gather::count_fields`]), then placed ([`Gather::place_fields`]).
pub struct Gather<R: 'static> {
    lo: usize,
    /// Per case of the range: its rows so far (counting), then where its
    /// next row goes (placing).
    next: Vec<u32>,
    /// Per relation counted, in order: its positions in case order that
    /// fall in the range.
    spans: Vec<(usize, usize)>,
    placed: usize,
    /// Rows every case has ([`Gather::each`]).
    each: Vec<R>,
    /// Rows per case instead ([`Gather::each_of`]): per case of the range,
    /// which set; the sets.
    each_of: Option<(Vec<u32>, Vec<Vec<R>>)>,
    out: CaseRows<R>,
    /// [`Gather::place_field`]'s scratch: the rows of the field being
    /// placed, where each goes, and one column's values.
    at: Vec<u32>,
    to: Vec<u32>,
    values: Vec<i64>,
}

/// The row at position `p` in case order of a column whose rows are
/// `order`ed (`None`: already in case order).
#[inline]
fn at(order: Option<&[u32]>, p: usize) -> usize {
    order.map_or(p, |o| o[p] as usize)
}

impl<R: Copy + Default + 'static> Gather<R> {
    /// Gathers cases `range`.
    pub fn new(range: std::ops::Range<usize>) -> Self {
        Gather {
            lo: range.start,
            next: vec![0; range.len()],
            spans: Vec::new(),
            placed: 0,
            each: Vec::new(),
            each_of: None,
            out: CaseRows::new(),
            at: Vec::new(),
            to: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Counts the rows of one relation (case column `cases`, in case order
    /// through `order`) that belong to the range.
    pub fn count(&mut self, cases: &[u32], order: Option<&[u32]>) {
        let (lo, hi) = (self.lo, self.lo + self.next.len());
        let case = |p: usize| cases[at(order, p)] as usize;
        let a = partition_point(cases.len(), |p| case(p) < lo);
        let b = a + partition_point(cases.len() - a, |p| case(a + p) < hi);
        for p in a..b {
            self.next[case(p) - lo] += 1;
        }
        self.spans.push((a, b));
    }

    /// Rows every case of the range has besides its columns' (the
    /// in-force inputs of the package's current date): counted now, placed
    /// first.
    pub fn each(&mut self, rows: &[R]) {
        for n in &mut self.next {
            *n += rows.len() as u32;
        }
        self.each = rows.to_vec();
    }

    /// Rows each case of the range has besides its columns' (the in-force
    /// inputs of its own date): case `i` of the range has `sets[of[i]]`.
    /// Counted now, placed first; instead of [`Gather::each`].
    pub fn each_of(&mut self, of: &[u32], sets: &[Vec<R>]) {
        for (n, &k) in self.next.iter_mut().zip(of) {
            *n += sets[k as usize].len() as u32;
        }
        self.each_of = Some((of.to_vec(), sets.to_vec()));
    }

    /// After every relation is counted: room for the rows, case by case.
    pub fn start_placing(&mut self) {
        let mut end = 0u32;
        for n in &mut self.next {
            let start = end;
            end += *n;
            self.out.ends.push(end);
            self.out.his.push(0);
            *n = start;
        }
        self.out.rows.clear();
        self.out.rows.resize(end as usize, R::default());
        for (c, n) in self.next.iter_mut().enumerate() {
            let rows = match &self.each_of {
                Some((of, sets)) => &sets[of[c] as usize],
                None => &self.each,
            };
            for &r in rows {
                self.out.rows[*n as usize] = r;
                *n += 1;
            }
        }
    }

    /// The range's cases.
    pub fn finish(self) -> CaseRows<R> {
        self.out
    }
}

impl<const W: usize> Gather<(u32, [i64; W])>
where
    (u32, [i64; W]): Default,
{
    /// Counts the rows of every field `fields` hands its visitor that has
    /// a relation to load; `order[k]` is the order by case of the `k`th
    /// field's rows (from [`super::columns::columns_order`]).
    pub fn count_fields(
        &mut self,
        order: &[Option<Vec<u32>>],
        fields: impl FnOnce(&mut dyn FnMut(ColumnsField<'_>)),
    ) {
        self.each_loaded(order, fields, |g, f, o| g.count(f.cases(), o));
    }

    /// Places the rows of the fields [`Gather::count_fields`] counted,
    /// `fields` handing its visitor the same fields in the same order.
    pub fn place_fields(
        &mut self,
        order: &[Option<Vec<u32>>],
        fields: impl FnOnce(&mut dyn FnMut(ColumnsField<'_>)),
    ) {
        self.each_loaded(order, fields, |g, f, o| g.place_field(f, o));
    }

    /// `each` on every field `fields` hands its visitor that has a
    /// relation to load, with the order by case of its rows (`order[k]`
    /// of the `k`th field).
    fn each_loaded(
        &mut self,
        order: &[Option<Vec<u32>>],
        fields: impl FnOnce(&mut dyn FnMut(ColumnsField<'_>)),
        mut each: impl FnMut(&mut Self, &ColumnsField<'_>, Option<&[u32]>),
    ) {
        let mut k = 0;
        fields(&mut |f| {
            if !matches!(f.rows(), FieldRows::Nothing) {
                each(self, &f, order[k].as_deref());
            }
            k += 1;
        });
    }

    /// Places one field's rows (the fields in the order they were
    /// counted): first each row's relation and slot, then column by
    /// column, each column's values read in one call.
    fn place_field(&mut self, f: &ColumnsField<'_>, order: Option<&[u32]>) {
        let (a, b) = self.spans[self.placed];
        self.placed += 1;
        let cases = f.cases();
        self.at.clear();
        self.to.clear();
        for p in a..b {
            let i = at(order, p);
            let c = cases[i] as usize - self.lo;
            let to = self.next[c];
            self.next[c] += 1;
            self.at.push(i as u32);
            self.to.push(to);
            self.out.rows[to as usize].0 = match f.rows() {
                FieldRows::Fact(r) => r,
                FieldRows::Decide(holds, yes, no) => {
                    if holds[i] {
                        yes
                    } else {
                        no
                    }
                }
                FieldRows::Nothing => unreachable!("a field with no relation is not placed"),
            };
        }
        for (j, col) in f.cols().iter().enumerate() {
            self.values.clear();
            col.read(&self.at, &mut self.values);
            let entity = col.entity().is_some();
            for ((&to, &v), &i) in self.to.iter().zip(&self.values).zip(&self.at) {
                self.out.rows[to as usize].1[j] = v;
                if entity {
                    let c = cases[i as usize] as usize - self.lo;
                    self.out.his[c] = seen(self.out.his[c], v as u32);
                }
            }
        }
    }
}

/// The first `p` in `0..n` for which `pred(p)` is false (`pred` true on a
/// prefix).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `Columns::name`'s columns have the same length; `lens` are
/// `(column, length)`, the case column first.
pub fn same_lengths(name: &str, lens: &[(&str, usize)]) -> Result<(), Error> {
    let Some(&(_, n)) = lens.first() else {
        return Ok(());
    };
    if lens.iter().all(|&(_, l)| l == n) {
        return Ok(());
    }
    let mut m = format!("`Columns::{name}`: its columns differ in length:");
    for (k, (col, l)) in lens.iter().enumerate() {
        let _ = write!(m, "{} {col} has {l}", if k == 0 { "" } else { "," });
    }
    m.push_str("; give every column of a predicate one value per row");
    Err(Error::Facts(m))
}

/// Checks `Columns::name`'s case column against the number of cases;
/// returns the order of its rows by case when they are not in it already.
pub fn case_order(name: &str, cases: &[u32], n: usize) -> Result<Option<Vec<u32>>, Error> {
    let mut sorted = true;
    let mut prev = 0u32;
    for (row, &c) in cases.iter().enumerate() {
        if c as usize >= n {
            return Err(Error::Facts(format!(
                "`Columns::{name}`, row {row}: case {c} is out of range: the batch has {n} \
                 case{} (indexes 0 to {})",
                if n == 1 { "" } else { "s" },
                n.saturating_sub(1)
            )));
        }
        sorted &= c >= prev;
        prev = c;
    }
    if sorted {
        return Ok(None);
    }
    let len = u32::try_from(cases.len()).map_err(|_| {
        Error::Facts(format!(
            "`Columns::{name}`: more than 2^32 rows in one call; split the batch"
        ))
    })?;
    let mut order: Vec<u32> = (0..len).collect();
    order.sort_by_key(|&i| cases[i as usize]);
    Ok(Some(order))
}

/// Up to this many rows a case is checked by [`plain_set`]; a larger one
/// (a facts file of a whole tournament) is sorted, as sorting it costs
/// little beside evaluating it.
const PLAIN_SET_ROWS: usize = 4096;

/// Probes after which [`plain_set`] gives up and lets the caller sort:
/// rows are input, and a long probe sequence is what a flood of colliding
/// rows would cause.
const PLAIN_SET_PROBES: usize = 32;

thread_local! {
    /// [`plain_set`]'s open-addressing table: a slot holds a row's index
    /// + 1, or 0. Kept per thread, cleared per case.
    static PLAIN_SET: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether a case's `rows` are already a set in which no fact meets its
/// explicit negation (`negation[r]`: the relation stating the negation of
/// relation `r`'s facts, `u32::MAX` or out of range for none), found with
/// one hash probe per row instead of a sort. That is every consistent case
/// as the typed API states it, so its rows can be loaded as they are.
/// `false` when a row repeats, a fact meets its negation, the case is
/// large, or a probe runs long: the caller then sorts, deduplicates and
/// names the first contradiction as every engine does.
pub fn plain_set<const W: usize>(rows: &[(u32, [i64; W])], negation: &[u32]) -> bool {
    if rows.len() < 2 {
        // No repeat, and a contradiction takes two rows.
        return true;
    }
    if rows.len() > PLAIN_SET_ROWS {
        return false;
    }
    PLAIN_SET
        .try_with(|t| {
            let Ok(mut table) = t.try_borrow_mut() else {
                return false;
            };
            let size = (rows.len() * 2).next_power_of_two().max(16);
            table.clear();
            table.resize(size, 0);
            let mask = size - 1;
            // Every row in (a repeat is found here), then each negation
            // looked up among them; `present` has a bit per relation below
            // 256 that has rows, so a negation whose relation has none
            // (most) needs no probe.
            let mut present = [0u64; 4];
            for (i, row) in rows.iter().enumerate() {
                match probe(&table, rows, row, mask) {
                    Probe::Empty(slot) => table[slot] = i as u32 + 1,
                    Probe::Found | Probe::TooLong => return false,
                }
                if let Some(w) = present.get_mut(row.0 as usize / 64) {
                    *w |= 1 << (row.0 % 64);
                }
            }
            let absent = |r: u32| {
                present
                    .get(r as usize / 64)
                    .is_some_and(|w| w >> (r % 64) & 1 == 0)
            };
            rows.iter()
                .all(|&(rel, v)| match negation.get(rel as usize) {
                    Some(&neg) if neg != u32::MAX && !absent(neg) => {
                        matches!(probe(&table, rows, &(neg, v), mask), Probe::Empty(_))
                    }
                    _ => true,
                })
        })
        .unwrap_or(false)
}

/// Where a probe for a row in [`plain_set`]'s table ended.
enum Probe {
    /// At an empty slot: the row is not there.
    Empty(usize),
    Found,
    /// After [`PLAIN_SET_PROBES`] occupied slots.
    TooLong,
}

#[inline(always)]
fn probe<const W: usize>(
    table: &[u32],
    rows: &[(u32, [i64; W])],
    row: &(u32, [i64; W]),
    mask: usize,
) -> Probe {
    // FxHash's step over the relation and the columns (the table is
    // local to one case, and a long probe gives up: no flooding).
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h = u64::from(row.0).wrapping_mul(K);
    for &x in &row.1 {
        h = (h.rotate_left(5) ^ x as u64).wrapping_mul(K);
    }
    let mut slot = (h >> 32) as usize & mask;
    for _ in 0..PLAIN_SET_PROBES {
        match table[slot] {
            0 => return Probe::Empty(slot),
            j if rows[j as usize - 1] == *row => return Probe::Found,
            _ => slot = (slot + 1) & mask,
        }
    }
    Probe::TooLong
}

/// Moves each distinct row of sorted `rows` once to the front; returns
/// how many there are (the rest of the slice holds the duplicates).
pub fn dedup_sorted<T: Ord + Copy>(rows: &mut [T]) -> usize {
    let mut kept = 0;
    for i in 0..rows.len() {
        if kept == 0 || rows[i] != rows[kept - 1] {
            rows[kept] = rows[i];
            kept += 1;
        }
    }
    kept
}

/// A number that no earlier batch builder of this process had: what a
/// batch's `Case` carries, so that a `Case` swapped in from elsewhere is
/// noticed rather than evaluated in its place.
pub fn next_tag() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A few emptied buffers per thread, kept for the next batch: a batch's
/// input outlives its evaluation (conclusions read it), and fresh pages
/// for every batch cost more than filling them.
pub mod pool {
    use std::any::Any;
    use std::cell::RefCell;

    /// Buffers with room for more rows than this are freed, not kept.
    pub const MAX_ROWS: usize = 1 << 20;
    /// Buffers a thread keeps.
    const KEEP: usize = 4;

    thread_local! {
        static POOL: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
    }

    /// A kept `T`, if this thread has one.
    pub fn take<T: Any>() -> Option<T> {
        POOL.try_with(|p| {
            let mut p = p.try_borrow_mut().ok()?;
            let k = p.iter().position(|b| b.is::<T>())?;
            p.swap_remove(k).downcast::<T>().ok().map(|b| *b)
        })
        .ok()
        .flatten()
    }

    /// Keeps `t` for a later [`take`] on this thread (or drops it when the
    /// thread keeps enough).
    pub fn give<T: Any>(t: T) {
        let _ = POOL.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.len() < KEEP {
                    p.push(Box::new(t));
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static CONSTANTS: [&str; 2] = ["white", "Game#0"];
    fn constant_id(s: &str) -> Option<u32> {
        CONSTANTS.iter().position(|c| *c == s).map(|i| i as u32)
    }

    #[test]
    fn a_plain_set_has_no_repeat_and_no_fact_with_its_negation() {
        // Relation 1's negation is relation 2; relation 0 has none.
        let negation = [u32::MAX, 2, u32::MAX];
        let set = [(1u32, [7i64, 0]), (0, [7, 0]), (1, [8, 0]), (2, [9, 0])];
        assert!(plain_set(&set, &negation));
        assert!(plain_set::<2>(&[], &negation));
        assert!(plain_set(&set[..1], &negation));
        // A repeated row, anywhere.
        let mut repeat = set.to_vec();
        repeat.push((0, [7, 0]));
        assert!(!plain_set(&repeat, &negation));
        // A fact and its negation, in either order.
        let mut meets = set.to_vec();
        meets.push((2, [8, 0]));
        assert!(!plain_set(&meets, &negation));
        meets.reverse();
        assert!(!plain_set(&meets, &negation));
        // Relations past the bits of present relations are probed too.
        let mut wide = vec![u32::MAX; 300];
        wide[270] = 280;
        assert!(plain_set(&[(270u32, [1i64, 0]), (280, [2, 0])], &wide));
        assert!(!plain_set(&[(270u32, [1i64, 0]), (280, [1, 0])], &wide));
        // A relation past the table has no negation.
        assert!(plain_set(&[(9u32, [1i64, 0]), (9, [2, 0])], &negation));
        // A case too large to check is sorted by the caller.
        let large: Vec<(u32, [i64; 2])> = (0..5000).map(|i| (0, [i, 0])).collect();
        assert!(!plain_set(&large, &negation));
        let fits: Vec<(u32, [i64; 2])> = (0..4000).map(|i| (0, [i, 0])).collect();
        assert!(plain_set(&fits, &negation));
    }

    #[test]
    fn ids_of_indexes_follow_the_constants_and_saturate_to_invalid() {
        assert_eq!(id_of_index(2, 0), 2);
        assert_eq!(index_of_id(2, 2), Some(0));
        assert_eq!(index_of_id(2, 1), None);
        assert_eq!(id_of_index(2, MAX_ID - 2), MAX_ID);
        assert_eq!(id_of_index(2, MAX_ID - 1), INVALID);
        assert_eq!(id_of_index(2, u32::MAX), INVALID);
        assert_eq!(index_of_id(2, INVALID), None);
        assert_eq!(seen(0, 4), 5);
        assert_eq!(seen(9, 4), 9);
        assert_eq!(seen(0, MAX_ID), u32::MAX - 1);
        assert_eq!(seen(0, INVALID), u32::MAX);
    }

    /// A constant spelt like a nameless entity moves the separator on, so
    /// the two can never be confused.
    #[test]
    fn nameless_names_never_collide_with_a_constant() {
        assert_eq!(Nameless::separator(&["white"], &["Game"]), "#");
        assert_eq!(Nameless::separator(&["Game#0"], &["Game"]), "##");
        assert_eq!(
            Nameless::separator(&["Game#0", "Game##12"], &["Game"]),
            "###"
        );
        // Not canonical indexes: no clash.
        assert_eq!(
            Nameless::separator(&["Game#01", "Game#", "Game#+1"], &["Game"]),
            "#"
        );
        let sep = Nameless::separator(&CONSTANTS, &["Game", "Player"]);
        let n: &'static Nameless =
            Box::leak(Box::new(Nameless::new(&CONSTANTS, constant_id, "##")));
        assert_eq!(sep, "##");
        let names = CaseNames::Nameless(n);
        assert_eq!(names.name("Game", 0).as_deref(), Some("white"));
        assert_eq!(names.name("Game", 1).as_deref(), Some("Game#0"));
        assert_eq!(names.name("Game", 2).as_deref(), Some("Game##0"));
        assert_eq!(names.name("Player", 7).as_deref(), Some("Player##5"));
        assert_eq!(names.name("Player", INVALID), None);
        assert_eq!(names.given(7), None);
        assert_eq!(names.given(0), Some("white"));
        assert_eq!(names.id("Game", "Game##0"), Some(2));
        assert_eq!(names.id("Game", "Game#0"), Some(1));
        assert_eq!(names.id("Player", "Game##0"), None);
        assert_eq!(names.id("Game", "Game##00"), None);
        assert_eq!(names.id("Game", "Game##4294967295"), None);
        assert_eq!(entity(names, "Game", 3), Arg::Entity("Game##1".into()));
    }

    #[test]
    fn case_rows_keep_each_case_and_reuse_their_buffers() {
        let mut rows: CaseRows<(u32, u32)> = CaseRows::new();
        rows.push_case(&[(1, 2), (3, 4)], 5);
        let mut b = rows.take_rows();
        b.push((5, 6));
        rows.end_at(b.len(), 0);
        rows.put_rows(b);
        rows.push_case(&[], 0);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows.rows(0), &[(1, 2), (3, 4)]);
        assert_eq!(rows.rows(1), &[(5, 6)]);
        assert_eq!(rows.rows(2), &[] as &[(u32, u32)]);
        assert_eq!(rows.rows(3), &[] as &[(u32, u32)]);
        assert_eq!(rows.hi(0), 5);
        rows.rows_mut(0).reverse();
        assert_eq!(rows.rows(0), &[(3, 4), (1, 2)]);
        drop(rows);
        // The buffers come back, emptied, with their room.
        let again: CaseRows<(u32, u32)> = CaseRows::new();
        assert!(again.is_empty());
        assert!(again.rows.capacity() >= 3);
    }

    #[test]
    fn rows_not_in_case_order_are_ordered_by_case() {
        let a_cases = [0u32, 1, 1, 3];
        let b_cases = [2u32, 0, 3, 1, 0];
        assert!(case_order("a", &a_cases, 4).unwrap().is_none());
        let b_order = case_order("b", &b_cases, 4).unwrap();
        assert_eq!(b_order.as_deref(), Some(&[1, 4, 3, 0, 2][..]));
    }

    #[test]
    fn column_errors_name_the_field_the_row_and_the_fix() {
        assert_eq!(
            same_lengths(
                "player_of",
                &[("the case column", 3), ("`game`", 3), ("`who`", 2)]
            ),
            Err(Error::Facts(
                "`Columns::player_of`: its columns differ in length: the case column has 3, \
                 `game` has 3, `who` has 2; give every column of a predicate one value per row"
                    .into()
            ))
        );
        assert_eq!(same_lengths("p", &[("the case column", 0)]), Ok(()));
        assert_eq!(
            case_order("draw_agreed", &[0, 5, 1], 2),
            Err(Error::Facts(
                "`Columns::draw_agreed`, row 1: case 5 is out of range: the batch has 2 cases \
                 (indexes 0 to 1)"
                    .into()
            ))
        );
    }

    #[test]
    fn a_bad_id_is_named_by_method_fact_and_value() {
        static RELS: [InputRel; 2] = [
            InputRel {
                rel: 3,
                method: "player_of",
                columns: &[Some("Game"), Some("Player")],
            },
            InputRel {
                rel: 4,
                method: "moves",
                columns: &[Some("Game"), None],
            },
        ];
        let rows = [(3u32, [2i64, 3]), (4, [2, 1 << 40]), (3, [2, 9])];
        assert_eq!(bad_id(&rows, &RELS, |id| id < 10, not_issued(10)), None);
        assert_eq!(
            bad_id(&rows, &RELS, |id| id < 9, not_issued(9)),
            Some(Error::Facts(
                "`player_of`, fact 1 of the case (counting from 0), value 2: the Player with id \
                 9 was not named in these facts (they have 9 entities, constants included): use \
                 the ids their methods return, or evaluate a nameless `Case`"
                    .into()
            ))
        );
    }

    #[test]
    fn dedup_sorted_keeps_each_row_once_at_the_front() {
        let mut rows = [1, 1, 2, 3, 3];
        let k = dedup_sorted(&mut rows);
        assert_eq!(&rows[..k], &[1, 2, 3]);
        assert_eq!(dedup_sorted::<u8>(&mut []), 0);
    }
}
