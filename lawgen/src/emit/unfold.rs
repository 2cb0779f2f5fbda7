//! Unfolding: the engine's rules, with intermediate relations folded away.
//!
//! The lowered [`Program`] names every step of the defeasible overlay with a
//! relation of its own ("rule r applicable at ∂", "r supports p", ...), which
//! keeps it readable and is what the interpreter and explanations use. In the
//! `ascent` engine each of those relations costs a hash table per index and
//! an insertion per tuple, for tuples nobody reads but the next rule. So the
//! emitter replaces each use of such a relation `R` by the body of the one
//! rule that defines it, when that is sure to compute the same thing:
//!
//! * `R` is derived, and neither an output, the relation subtracted from
//!   one, nor a request relation (nothing outside the engine reads it);
//! * exactly one rule derives `R`, its head arguments are distinct variables,
//!   and its body does not mention `R`;
//! * its rule's body is one positive atom (a projection or renaming, free to
//!   repeat at every use), or `R` is used exactly once (no join is repeated);
//! * a join is unfolded only while the body it lands in stays at most
//!   [`MAX_UNFOLDED_BODY`] items: a chain of two-atom rules would otherwise
//!   become one rule as long as the chain, and rustc refuses ascent rules
//!   nested much deeper than a hundred atoms (its recursion limit);
//! * `R` is negated only if its rule is a pure *renaming* `R(x…) <- S(y…)`,
//!   where `y…` are the head variables, each once, in some order: then `R`
//!   and `S` hold the same tuples up to the column order, and `!R(t…)` is
//!   `!S(t…)` reordered. (A projection under negation would need `R` as a
//!   set; that is left alone.)
//!
//! A positive atom `R(t…)` is then, by the least-model semantics, the same as
//! `∃ y. body[h := t]`: the body with the head variables replaced by the use's
//! terms and its other variables renamed apart. Rules whose head relation is
//! read by nothing at all (dead steps) are dropped. Only the engine changes:
//! relation numbers, the typed API and the reference pipeline stay those of
//! the lowered program, and the differential tests check the result against
//! the interpreter byte for byte.

use crate::program::{Atom, Item, Program, RelId, Role, Rule, Term};
use std::collections::{BTreeSet, HashMap};

/// The longest body a join may be unfolded into.
pub const MAX_UNFOLDED_BODY: usize = 64;

/// Programs with more rules than this are not unfolded.
pub const MAX_UNFOLDED_PROGRAM: usize = 5_000;

/// The program the engine runs: `prog` with its intermediate relations
/// unfolded (same relations, same outputs; fewer rules, and relations that no
/// rule mentions any more). Public so that tests can run the result through
/// the interpreter and compare it with the original.
pub fn unfold(prog: &Program) -> Program {
    if prog.rules.len() > MAX_UNFOLDED_PROGRAM {
        // Unfolding is an optimization, and the loop below is quadratic in
        // the number of rules: a program this large runs as lowered.
        return prog.clone();
    }
    let mut keep: BTreeSet<RelId> = BTreeSet::new();
    for o in &prog.outputs {
        keep.insert(o.rel);
        keep.extend(o.minus);
    }
    keep.extend(prog.requests.iter().map(|rv| rv.rel));
    let mut stratum_of = vec![0usize; prog.rules.len()];
    for (si, s) in prog.strata.iter().enumerate() {
        for &ri in s {
            stratum_of[ri] = si;
        }
    }
    let mut live: Vec<Option<Rule>> = prog.rules.iter().cloned().map(Some).collect();
    let foldable = |r: RelId| prog.relation(r).role == Role::Derived && !keep.contains(&r);

    loop {
        let mut defs: HashMap<RelId, Vec<usize>> = HashMap::new();
        let mut pos: HashMap<RelId, usize> = HashMap::new();
        let mut neg: HashMap<RelId, usize> = HashMap::new();
        // The body length of (the last) rule reading each relation positively.
        let mut reader_len: HashMap<RelId, usize> = HashMap::new();
        for (i, rule) in live.iter().enumerate() {
            let Some(rule) = rule else { continue };
            defs.entry(rule.head.rel).or_default().push(i);
            for item in &rule.body {
                match item {
                    Item::Pos(a) => {
                        *pos.entry(a.rel).or_default() += 1;
                        reader_len.insert(a.rel, rule.body.len());
                    }
                    Item::Neg(a) => *neg.entry(a.rel).or_default() += 1,
                    Item::Cmp(..) => {}
                }
            }
        }
        let used = |r: &RelId| pos.contains_key(r) || neg.contains_key(r);

        // Dead steps first: rules for a relation nothing reads.
        let dead: Vec<usize> = defs
            .iter()
            .filter(|(r, _)| foldable(**r) && !used(r))
            .flat_map(|(_, rules)| rules.iter().copied())
            .collect();
        if !dead.is_empty() {
            for i in dead {
                live[i] = None;
            }
            continue;
        }

        // The lowest-numbered candidate, for deterministic output.
        let mut candidates: Vec<(RelId, usize)> = defs
            .iter()
            .filter(|(r, rules)| foldable(**r) && rules.len() == 1)
            .map(|(r, rules)| (*r, rules[0]))
            .filter(|&(r, d)| {
                let def = live[d].as_ref().expect("a live rule");
                let single_atom = matches!(def.body.as_slice(), [Item::Pos(_)]);
                let fits = || {
                    reader_len.get(&r).copied().unwrap_or(0) + def.body.len()
                        <= MAX_UNFOLDED_BODY + 1
                };
                head_is_distinct_vars(&def.head)
                    && !mentions(def, r)
                    && (single_atom || (pos.get(&r).copied().unwrap_or(0) <= 1 && fits()))
                    && (!neg.contains_key(&r) || is_renaming(def))
            })
            .collect();
        candidates.sort_by_key(|&(r, _)| r.0);
        let Some(&(r, d)) = candidates.first() else {
            break;
        };
        let def = live[d].take().expect("a live rule");
        for slot in &mut live {
            if let Some(rule) = slot {
                if mentions(rule, r) && !substitute(rule, r, &def) {
                    *slot = None;
                }
            }
        }
    }

    let mut rules = Vec::new();
    let mut strata: Vec<Vec<usize>> = vec![Vec::new(); prog.strata.len()];
    for s in &prog.strata {
        for &ri in s {
            if let Some(rule) = live[ri].take() {
                strata[stratum_of[ri]].push(rules.len());
                rules.push(rule);
            }
        }
    }
    Program {
        rules,
        strata,
        ..prog.clone()
    }
}

/// No variable twice in the head (constants are fine).
fn head_is_distinct_vars(head: &Atom) -> bool {
    let mut seen = BTreeSet::new();
    head.args.iter().all(|t| match t {
        Term::Var(v) => seen.insert(*v),
        Term::Value(_) => true,
    })
}

/// `R(x…) <- S(y…)` with `y…` exactly the head variables, each once.
fn is_renaming(def: &Rule) -> bool {
    let [Item::Pos(b)] = def.body.as_slice() else {
        return false;
    };
    let mut seen = BTreeSet::new();
    def.head.args.iter().all(|t| matches!(t, Term::Var(_)))
        && b.args.len() == def.head.args.len()
        && b.args
            .iter()
            .all(|t| matches!(t, Term::Var(v) if seen.insert(*v) && def.head.args.contains(t)))
}

fn mentions(rule: &Rule, r: RelId) -> bool {
    rule.body
        .iter()
        .any(|i| matches!(i, Item::Pos(a) | Item::Neg(a) if a.rel == r))
}

/// Replaces every atom of `r` in `rule` by `def`'s body (a negated one only
/// when `def` is a renaming: see [`is_renaming`]). Returns `false` when the
/// rule can never fire (a use's constant differs from `def`'s head constant):
/// the caller drops it.
fn substitute(rule: &mut Rule, r: RelId, def: &Rule) -> bool {
    while let Some(at) = rule
        .body
        .iter()
        .position(|i| matches!(i, Item::Pos(a) | Item::Neg(a) if a.rel == r))
    {
        let (Item::Pos(a) | Item::Neg(a)) = &rule.body[at] else {
            return false;
        };
        // A head constant meets the use's term: a variable there is that
        // constant in the whole rule; a different constant, no match ever.
        let mut bind = None;
        for (h, t) in def.head.args.iter().zip(&a.args) {
            match (h, t) {
                (Term::Value(k), Term::Var(v)) => {
                    bind = Some((*v, k.clone()));
                    break;
                }
                (Term::Value(k), Term::Value(x)) if k != x => return false,
                _ => {}
            }
        }
        if let Some((v, k)) = bind {
            replace_var(rule, v, &Term::Value(k));
            continue;
        }
        let negated = matches!(rule.body[at], Item::Neg(_));
        let (Item::Pos(a) | Item::Neg(a)) = rule.body.remove(at) else {
            return false;
        };
        // Head variables become the use's terms; every other variable of
        // `def` a fresh one of `rule`.
        let mut ren = Renamer {
            map: def
                .head
                .args
                .iter()
                .zip(a.args)
                .filter_map(|(h, t)| match h {
                    Term::Var(v) => Some((*v, t)),
                    Term::Value(_) => None,
                })
                .collect(),
            vars: &mut rule.vars,
            def_vars: &def.vars,
        };
        let items: Vec<Item> = match (negated, def.body.as_slice()) {
            // A renaming (checked by the caller): one atom, no new variable.
            (true, [Item::Pos(b)]) => vec![Item::Neg(ren.atom(b))],
            (true, _) => return false,
            (false, body) => body
                .iter()
                .map(|it| match it {
                    Item::Pos(b) => Item::Pos(ren.atom(b)),
                    Item::Neg(b) => Item::Neg(ren.atom(b)),
                    Item::Cmp(x, op, y) => Item::Cmp(ren.term(x), *op, ren.term(y)),
                })
                .collect(),
        };
        rule.body.splice(at..at, items);
    }
    rule.origin = format!("{} ← {}", rule.origin, def.origin);
    true
}

/// `def`'s terms as seen from the rule it is unfolded into.
struct Renamer<'a> {
    map: HashMap<u32, Term>,
    vars: &'a mut Vec<String>,
    def_vars: &'a [String],
}

impl Renamer<'_> {
    fn term(&mut self, t: &Term) -> Term {
        match t {
            Term::Value(_) => t.clone(),
            Term::Var(v) => {
                let vars = &mut *self.vars;
                let def_vars = self.def_vars;
                self.map
                    .entry(*v)
                    .or_insert_with(|| {
                        let fresh = vars.len() as u32;
                        vars.push(format!("{}'", def_vars[*v as usize]));
                        Term::Var(fresh)
                    })
                    .clone()
            }
        }
    }

    fn atom(&mut self, b: &Atom) -> Atom {
        Atom {
            rel: b.rel,
            args: b.args.iter().map(|t| self.term(t)).collect(),
        }
    }
}

/// Replaces variable `v` by `to` everywhere in `rule`.
fn replace_var(rule: &mut Rule, v: u32, to: &Term) {
    let swap = |t: &mut Term| {
        if *t == Term::Var(v) {
            *t = to.clone();
        }
    };
    rule.head.args.iter_mut().for_each(swap);
    for item in &mut rule.body {
        match item {
            Item::Pos(a) | Item::Neg(a) => a.args.iter_mut().for_each(swap),
            Item::Cmp(x, _, y) => {
                swap(x);
                swap(y);
            }
        }
    }
}
