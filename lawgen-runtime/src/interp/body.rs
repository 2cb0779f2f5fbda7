//! The one rule-body matcher: the evaluator derives with it, and the
//! explainer finds derivations and first failing items with it, so both read
//! a body the same way (the same join order, the same comparison, the same
//! treatment of constants).
//!
//! A match walks the body's items in a given order (from
//! [`crate::program::join_order`]), binding variables depth first; an
//! [`Observer`] hears of every instance whose items all hold and of every
//! item that fails, with the values bound when it failed.

use super::{Interner, Rel};
use crate::program::{Atom, Item, RelId, Rule, Term, Value};

/// Which tuples of a positive item a match may use: `[lo, hi)` by insertion
/// index (the evaluator's delta; everything for the explainer).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub(crate) lo: u32,
    pub(crate) hi: u32,
}

/// What a body match reports as it goes.
pub(crate) trait Observer {
    /// Every item holds under `binding` (indexed by variable; the rule's
    /// safety guarantees every head variable is bound). `rels` are the
    /// relations as the match saw them. Returns whether to look for more
    /// instances.
    fn matched(&mut self, rels: &[Rel], binding: &[Option<i64>]) -> bool;

    /// Item `item` (its index in the body) fails after `depth` items held:
    /// no tuple of a positive atom agrees with `binding`, a negated atom
    /// holds, or a comparison is false. Called for every failure on the way,
    /// so that an observer can keep the deepest.
    fn failed(&mut self, depth: usize, item: usize, binding: &[Option<i64>]) {
        let _ = (depth, item, binding);
    }
}

/// The relations a match reads: the evaluator's, which grow an index for
/// every set of bound columns a rule looks them up by, or a finished
/// store's, read as they are (an index the evaluation built is used, other
/// lookups scan; both visit tuples in insertion order, so they agree).
pub(crate) enum Rows<'a> {
    Growing(&'a mut [Rel]),
    #[cfg_attr(not(feature = "explain"), allow(dead_code))]
    Fixed(&'a [Rel], &'a super::LateIndexes),
}

impl Rows<'_> {
    fn all(&self) -> &[Rel] {
        match self {
            Rows::Growing(r) => r,
            Rows::Fixed(r, _) => r,
        }
    }

    fn rel(&self, r: RelId) -> &Rel {
        &self.all()[r.0 as usize]
    }

    /// Ids of the tuples of `r` within `range` whose columns `cols` hold `key`,
    /// in insertion order.
    fn matching(&mut self, r: RelId, cols: &[usize], key: &[i64], range: Range) -> Vec<u32> {
        let within = |i: &u32| *i >= range.lo && *i < range.hi;
        let (rel, late) = match self {
            Rows::Growing(rels) => {
                let rel = &mut rels[r.0 as usize];
                if cols.is_empty() {
                    return (range.lo..range.hi.min(rel.tuples.len() as u32)).collect();
                }
                return rel
                    .index(cols)
                    .get(key)
                    .map(|ids| ids.iter().copied().filter(within).collect())
                    .unwrap_or_default();
            }
            Rows::Fixed(rels, late) => (&rels[r.0 as usize], *late),
        };
        if cols.is_empty() {
            return (range.lo..range.hi.min(rel.tuples.len() as u32)).collect();
        }
        if let Some(index) = rel.indexes.get(cols) {
            return index
                .get(key)
                .map(|ids| ids.iter().copied().filter(within).collect())
                .unwrap_or_default();
        }
        // Built once per relation and columns, not scanned per lookup.
        late.get(r, rel, cols)
            .get(key)
            .map(|ids| ids.iter().copied().filter(within).collect())
            .unwrap_or_default()
    }
}

/// One match of a rule body.
pub(crate) struct Matcher<'a, O: Observer> {
    pub(crate) rule: &'a Rule,
    /// The items in the order they are matched (every index of the body once).
    pub(crate) order: &'a [usize],
    /// One positive item restricted to a range of its tuples.
    pub(crate) delta: Option<(usize, Range)>,
    pub(crate) rows: Rows<'a>,
    /// Resolves entity constants; a constant it does not know matches no tuple.
    pub(crate) interner: &'a Interner,
    pub(crate) observer: &'a mut O,
}

/// The value of a term under a binding, when it has one.
pub(crate) fn value(interner: &Interner, t: &Term, binding: &[Option<i64>]) -> Option<i64> {
    match t {
        Term::Var(v) => binding[*v as usize],
        Term::Value(v) => constant(interner, v),
    }
}

/// A constant as the relations hold it (`None`: an entity nobody named, so
/// no tuple holds it).
pub(crate) fn constant(interner: &Interner, v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Entity(e) => interner.get(e).map(i64::from),
    }
}

/// An atom's tuple under a binding.
enum Ground {
    Tuple(Vec<i64>),
    /// A variable is not bound yet.
    Unbound,
    /// A constant names an entity no tuple holds.
    Unknown,
}

impl<O: Observer> Matcher<'_, O> {
    /// Matches the body from `binding` (variables bound beforehand stay bound).
    pub(crate) fn run(&mut self, binding: &mut [Option<i64>]) {
        self.step(0, binding);
    }

    /// Matches items `order[k..]`; returns whether to go on.
    fn step(&mut self, k: usize, binding: &mut [Option<i64>]) -> bool {
        let Some(&idx) = self.order.get(k) else {
            return self.observer.matched(self.rows.all(), binding);
        };
        match &self.rule.body[idx] {
            Item::Cmp(a, op, b) => {
                let holds = match (
                    value(self.interner, a, binding),
                    value(self.interner, b, binding),
                ) {
                    (Some(x), Some(y)) => op.holds(&x, &y),
                    _ => false,
                };
                if holds {
                    return self.step(k + 1, binding);
                }
            }
            Item::Neg(a) => match self.ground(a, binding) {
                Ground::Tuple(t) if self.rows.rel(a.rel).set.contains_key(&t[..]) => {}
                Ground::Tuple(_) | Ground::Unknown => return self.step(k + 1, binding),
                Ground::Unbound => {}
            },
            Item::Pos(a) => return self.positive(k, idx, a, binding),
        }
        self.observer.failed(k, idx, binding);
        true
    }

    fn positive(&mut self, k: usize, idx: usize, a: &Atom, binding: &mut [Option<i64>]) -> bool {
        let range = match self.delta {
            Some((pos, r)) if pos == idx => r,
            // Everything known: nothing is committed mid-round.
            _ => Range {
                lo: 0,
                hi: self.rows.rel(a.rel).tuples.len() as u32,
            },
        };
        let mut cols = Vec::new();
        let mut key = Vec::new();
        let mut fresh: Vec<usize> = Vec::new();
        for (c, t) in a.args.iter().enumerate() {
            match (t, value(self.interner, t, binding)) {
                (_, Some(v)) => {
                    cols.push(c);
                    key.push(v);
                }
                (Term::Var(v), None) => fresh.push(*v as usize),
                (Term::Value(_), None) => {
                    self.observer.failed(k, idx, binding);
                    return true;
                }
            }
        }
        let mut any = false;
        for tid in self.rows.matching(a.rel, &cols, &key, range) {
            let tuple = &self.rows.rel(a.rel).tuples[tid as usize];
            // The bound columns agree (the lookup's key); a variable that
            // occurs twice must take one value.
            let agrees = unify(&a.args, tuple, binding);
            if agrees {
                any = true;
                let go_on = self.step(k + 1, binding);
                for &v in &fresh {
                    binding[v] = None;
                }
                if !go_on {
                    return false;
                }
            } else {
                for &v in &fresh {
                    binding[v] = None;
                }
            }
        }
        if !any {
            self.observer.failed(k, idx, binding);
        }
        true
    }

    fn ground(&self, a: &Atom, binding: &[Option<i64>]) -> Ground {
        let mut t = Vec::with_capacity(a.args.len());
        for x in &a.args {
            match (x, value(self.interner, x, binding)) {
                (_, Some(v)) => t.push(v),
                (Term::Var(_), None) => return Ground::Unbound,
                (Term::Value(_), None) => return Ground::Unknown,
            }
        }
        Ground::Tuple(t)
    }
}

/// Binds the unbound variables of `args` to `tuple`'s columns; false when a
/// variable would take two values. Constant columns are not compared: a
/// matcher looks tuples up by them.
fn unify(args: &[Term], tuple: &[i64], binding: &mut [Option<i64>]) -> bool {
    for (t, &v) in args.iter().zip(tuple) {
        if let Term::Var(x) = t {
            match binding[*x as usize] {
                Some(b) if b != v => return false,
                Some(_) => {}
                None => binding[*x as usize] = Some(v),
            }
        }
    }
    true
}
