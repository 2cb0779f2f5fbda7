//! Merging relations with the same definition: one relation computed where
//! the lowered program names the same tuples twice.
//!
//! The overlay names each step of a proof with a relation of its own, and
//! many steps compute the same tuples: a strict rule whose items are all
//! facts is applicable at ∂ exactly when it is at Σ (`app[r]` and `appΣ[r]`
//! have the same body), the conclusion of such a rule at Δ
//! (`D[agreed_draw_has_ended_the_game]`) may be the same body again, and a
//! literal nothing attacks has `S[p]` equal to `D[p]`. An engine that
//! stores each computes and stores the same rows again, and every reader
//! of the copy looks it up apart.
//!
//! Two derived relations are merged when their definitions are the same:
//! the same column types, and the same set of rules up to the names of
//! their variables and the order of their body items (each rule written in
//! a canonical form: head variables numbered in order, body items sorted,
//! the remaining variables numbered by first use in that order), reading
//! relations that are merged themselves. Components of relations are
//! visited in dependency order, so merges cascade (`cand[L]` of two merged
//! `app` relations). Inside a recursive component the relations are split
//! into classes until every member of a class has the same rules, reading
//! classes (partition refinement, from one class per row type): the
//! coarsest such partition, in which a rule reading its own head's class
//! with the head's arguments (`S[p](x) :- D[p](x)` once `S[p]` is `D[p]`)
//! derives nothing new and is left out of the comparison. By induction over
//! the rounds of a fixpoint, members of a class hold the same tuples in
//! every round, so they have the same least model.
//!
//! Each group is read through one representative: a kept relation (an
//! output, the relation subtracted from one, a request) if it has one, else
//! its lowest-numbered. Every use of a merged relation reads the
//! representative. A merged relation's rules are dropped, except that a
//! kept one becomes a copy of its representative (the API reads its rows).
//! Then, per relation, rules that became duplicates of another (`S[p] :-
//! app[r]` and `S[p] :- appΣ[r]` once `appΣ[r]` is `app[r]`), rules that
//! read their own head, and rules whose body holds every item of another
//! rule with the same head (`ok :- cand, !app, !policy` beside `ok :-
//! cand, !app`) are dropped: each derives nothing the others do not.
//!
//! As with [`super::unfold`], only the engine's rules change, never relation
//! numbers, outputs or the program the module embeds, and the differential
//! tests compare every engine with the interpreter.

use crate::program::{Atom, EdgeOrder, Item, Program, RelId, Role, Rule, Term};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

/// Recursive components with more relations than this are not refined
/// (each round compares every member's rules).
pub const MAX_REFINED_COMPONENT: usize = 64;

/// Relations with more rules than this are not checked for rules whose
/// body holds another's (a comparison of every pair).
pub const MAX_SUBSUMED_RULES: usize = 64;

/// `prog` with every relation whose definition equals another's read
/// through one representative (same relations and outputs; fewer rules,
/// and relations that no rule mentions any more). Public so that tests can
/// run the result through the interpreter and compare it with the
/// original.
pub fn merge(prog: &Program) -> Program {
    let n = prog.relations.len();
    let mut keep: BTreeSet<RelId> = BTreeSet::new();
    for o in &prog.outputs {
        keep.insert(o.rel);
        keep.extend(o.minus);
    }
    keep.extend(prog.requests.iter().map(|rv| rv.rel));

    let mut defs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (ri, rule) in prog.rules.iter().enumerate() {
        defs[rule.head.rel.0 as usize].push(ri);
    }
    let components = prog.rule_components(EdgeOrder::Rule);
    let mergeable = |r: usize| prog.relations[r].role == Role::Derived && !defs[r].is_empty();

    // rep[r]: the relation `r` is read through (itself unless merged).
    // A relation's key reads its body through `rep` as it is when the
    // relation is visited; a representative chosen later (a kept or
    // lower-numbered relation of the same group) can leave two readers
    // keyed apart, so the pass runs again until it merges nothing new.
    let mut rep: Vec<RelId> = (0..n as u32).map(RelId).collect();
    loop {
        let mut merged = false;
        let mut by_def: HashMap<String, RelId> = HashMap::new();
        let mut recursive_reps: HashSet<usize> = HashSet::new();
        for component in components.components() {
            let rels = &component.relations;
            let live: Vec<usize> = rels
                .iter()
                .map(|r| r.0 as usize)
                .filter(|&r| rep[r].0 as usize == r && mergeable(r))
                .collect();
            if component.recursive {
                if live.len() > 1 && rels.len() <= MAX_REFINED_COMPONENT {
                    for class in refine(prog, &defs, &live, &rep) {
                        let best = representative(&class, &keep);
                        for &r in &class {
                            if r != best {
                                rep[r] = RelId(best as u32);
                                merged = true;
                            }
                        }
                    }
                }
                // A relation outside the component with the same rules
                // (reading the component) holds what the component's
                // relation holds once the component is complete: each
                // rule's instances over the final rows are in the fixpoint,
                // and the fixpoint has no others.
                for &r in &live {
                    if rep[r].0 as usize == r {
                        let key = definition(prog, &defs[r], &|x| find(&rep, x), None);
                        by_def.entry(key).or_insert(RelId(r as u32));
                        recursive_reps.insert(r);
                    }
                }
                continue;
            }
            let Some(&r) = live.first() else {
                continue;
            };
            let rel = RelId(r as u32);
            let key = definition(prog, &defs[r], &|x| find(&rep, x), None);
            let Some(first) = by_def.get(&key).copied() else {
                by_def.insert(key, rel);
                continue;
            };
            if recursive_reps.contains(&(first.0 as usize)) {
                // A relation of a recursive component represents the other
                // (so the component reads nothing outside it), unless only
                // the other is kept.
                if !keep.contains(&rel) || keep.contains(&first) {
                    rep[r] = first;
                    merged = true;
                }
                continue;
            }
            merged = true;
            // Readers are visited after both (dependency order) and read
            // through `rep`, which follows a change of representative.
            if representative(&[first.0 as usize, r], &keep) == r {
                rep[first.0 as usize] = rel;
                by_def.insert(key, rel);
            } else {
                rep[r] = first;
            }
        }
        if !merged {
            break;
        }
    }

    // The rules: those of representatives read through `rep`, a copy for
    // each merged kept relation; then, per relation, the redundant ones out.
    let mut by_head: BTreeMap<RelId, Vec<(usize, Rule)>> = BTreeMap::new();
    for (ri, rule) in prog.rules.iter().enumerate() {
        let head = rule.head.rel;
        let to = find(&rep, head);
        if to != head {
            if keep.contains(&head) && defs[head.0 as usize][0] == ri {
                by_head
                    .entry(head)
                    .or_default()
                    .push((ri, copy(prog, rule, to)));
            }
            continue;
        }
        let mut rule = rule.clone();
        for it in &mut rule.body {
            if let Item::Pos(a) | Item::Neg(a) = it {
                a.rel = find(&rep, a.rel);
            }
        }
        if rule
            .body
            .iter()
            .any(|it| matches!(it, Item::Pos(a) if same_atom(a, &rule.head)))
        {
            continue;
        }
        by_head.entry(head).or_default().push((ri, rule));
    }
    let mut kept_rules: Vec<(usize, Rule)> = Vec::new();
    for (_, rules) in by_head {
        kept_rules.extend(without_redundant(rules));
    }
    // In the order of the original rules (a copy where its relation's
    // first rule was).
    kept_rules.sort_by_key(|(ri, _)| *ri);
    let mut new_index: Vec<Option<usize>> = vec![None; prog.rules.len()];
    let mut rules = Vec::with_capacity(kept_rules.len());
    for (ri, rule) in kept_rules {
        new_index[ri] = Some(rules.len());
        rules.push(rule);
    }
    let strata = prog
        .strata
        .iter()
        .map(|s| s.iter().filter_map(|&ri| new_index[ri]).collect())
        .collect();
    Program {
        rules,
        strata,
        ..prog.clone()
    }
}

fn find(rep: &[RelId], mut r: RelId) -> RelId {
    while rep[r.0 as usize] != r {
        r = rep[r.0 as usize];
    }
    r
}

/// The member of a group the others are read through: a kept relation if
/// there is one, else the lowest-numbered.
fn representative(group: &[usize], keep: &BTreeSet<RelId>) -> usize {
    *group
        .iter()
        .min_by_key(|&&r| (!keep.contains(&RelId(r as u32)), r))
        .expect("a group has a member")
}

fn same_atom(a: &Atom, b: &Atom) -> bool {
    a.rel == b.rel && a.args == b.args
}

/// `head(x…) :- to(x…)`: a merged kept relation read off its
/// representative (`rule` is its first rule, for the origin and meaning).
fn copy(prog: &Program, rule: &Rule, to: RelId) -> Rule {
    let arity = prog.relation(rule.head.rel).columns.len();
    let args: Vec<Term> = (0..arity as u32).map(Term::Var).collect();
    Rule {
        head: Atom {
            rel: rule.head.rel,
            args: args.clone(),
        },
        body: vec![Item::Pos(Atom { rel: to, args })],
        vars: (0..arity).map(|k| format!("x{k}")).collect(),
        origin: format!("the same tuples as {}", prog.relation(to).name),
        meaning: rule.meaning.clone(),
    }
}

/// Partition refinement of the relations `live` of one recursive
/// component: classes whose members have the same rules, reading the
/// classes (see the module docs). Relations outside the component are read
/// through `rep`.
fn refine(prog: &Program, defs: &[Vec<usize>], live: &[usize], rep: &[RelId]) -> Vec<Vec<usize>> {
    let mut class: HashMap<usize, usize> = HashMap::new();
    // From one class per row type.
    let mut first: HashMap<String, usize> = HashMap::new();
    for &r in live {
        let k = first.len();
        let c = *first
            .entry(format!("{:?}", prog.relations[r].columns))
            .or_insert(k);
        class.insert(r, c);
    }
    loop {
        let count = class.values().collect::<HashSet<_>>().len();
        let read = |x: RelId| -> String {
            match class.get(&(x.0 as usize)) {
                Some(c) => format!("c{c}"),
                None => find(rep, x).0.to_string(),
            }
        };
        let mut next: HashMap<usize, usize> = HashMap::new();
        let mut ids: HashMap<(usize, String), usize> = HashMap::new();
        for &r in live {
            let own = class[&r];
            let key = definition(prog, &defs[r], &|x| find(rep, x), Some((&read, own)));
            let k = ids.len();
            next.insert(r, *ids.entry((own, key)).or_insert(k));
        }
        class = next;
        if ids.len() == count {
            break;
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &r in live {
        groups.entry(class[&r]).or_default().push(r);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

/// How a rule's body names the relations it reads: by number (read
/// through the merges so far), or, inside a component being refined, by
/// class (with the class of the rule's own head).
type Names<'a> = Option<(&'a dyn Fn(RelId) -> String, usize)>;

/// The definition of a relation (its rules `rules`, bodies read through
/// `find`, or `classes`) in canonical form, its column types first.
fn definition(
    prog: &Program,
    rules: &[usize],
    find: &dyn Fn(RelId) -> RelId,
    classes: Names,
) -> String {
    let head = &prog.rules[rules[0]].head;
    let mut key = format!("{:?}", prog.relations[head.rel.0 as usize].columns);
    let name = |r: RelId| match classes {
        Some((read, _)) => read(r),
        None => find(r).0.to_string(),
    };
    let forms: BTreeSet<String> = rules
        .iter()
        .map(|&ri| &prog.rules[ri])
        // Under refinement, a rule reading its head's class with the
        // head's arguments derives nothing new.
        .filter(|rule| match classes {
            Some((read, own)) => !rule.body.iter().any(|it| {
                matches!(it, Item::Pos(a) if a.args == rule.head.args && read(a.rel) == format!("c{own}"))
            }),
            None => true,
        })
        .map(|rule| canonical(rule, &name))
        .collect();
    for f in forms {
        key.push('\n');
        key.push_str(&f);
    }
    key
}

/// The rules of one relation without those that derive nothing the others
/// do not: duplicates, and rules whose body holds every item of another's
/// (same head). Each rule keeps its original index.
fn without_redundant(rules: Vec<(usize, Rule)>) -> Vec<(usize, Rule)> {
    let mut seen = HashSet::new();
    let rules: Vec<(usize, Rule)> = rules
        .into_iter()
        .filter(|(_, r)| seen.insert(canonical(r, &|x| x.0.to_string())))
        .collect();
    if rules.len() > MAX_SUBSUMED_RULES {
        return rules;
    }
    // Each rule's items written with the head's variables only: an item
    // with another variable can match no item of another rule.
    let items: Vec<(String, Option<BTreeSet<String>>)> =
        rules.iter().map(|(_, r)| head_items(r)).collect();
    let redundant: Vec<bool> = (0..rules.len())
        .map(|b| {
            let (bh, bi) = &items[b];
            (0..rules.len()).any(|a| {
                let (ah, ai) = &items[a];
                a != b
                    && ah == bh
                    && match (ai, bi) {
                        (Some(ai), Some(bi)) => ai.is_subset(bi) && ai.len() < bi.len(),
                        (Some(ai), None) => {
                            // `b` also has items with other variables.
                            let b_known: BTreeSet<String> = head_items_partial(&rules[b].1);
                            ai.is_subset(&b_known)
                        }
                        _ => false,
                    }
            })
        })
        .collect();
    rules
        .into_iter()
        .zip(redundant)
        .filter(|(_, r)| !r)
        .map(|(x, _)| x)
        .collect()
}

/// A rule's head form and, if every body item mentions only head
/// variables, the forms of its items (`None` otherwise).
fn head_items(rule: &Rule) -> (String, Option<BTreeSet<String>>) {
    let names = head_names(rule);
    let mut head = String::new();
    for t in &rule.head.args {
        term_form(&mut head, t, &names);
    }
    let all = rule.body.iter().all(|it| {
        it.terms()
            .iter()
            .all(|t| !matches!(t, Term::Var(v) if !names.contains_key(v)))
    });
    (head, all.then(|| head_items_partial(rule)))
}

/// The forms of a rule's items that mention only head variables.
fn head_items_partial(rule: &Rule) -> BTreeSet<String> {
    let names = head_names(rule);
    rule.body
        .iter()
        .filter(|it| {
            it.terms()
                .iter()
                .all(|t| !matches!(t, Term::Var(v) if !names.contains_key(v)))
        })
        .map(|it| item_form(it, &names, &|x| x.0.to_string()))
        .collect()
}

fn head_names(rule: &Rule) -> HashMap<u32, usize> {
    let mut names = HashMap::new();
    for t in &rule.head.args {
        if let Term::Var(v) = t {
            let k = names.len();
            names.entry(*v).or_insert(k);
        }
    }
    names
}

/// A rule up to the names of its variables and the order of its body items
/// (the head relation left out; `name` writes the relations it reads):
/// equal strings mean equal rules. Unequal strings may still be equal
/// rules (the form is not a full graph canonization); that only leaves two
/// relations unmerged.
fn canonical(rule: &Rule, name: &dyn Fn(RelId) -> String) -> String {
    let head_names = head_names(rule);
    let mut names = head_names.clone();
    let mut items: Vec<(String, &Item)> = rule.body.iter().map(|it| (String::new(), it)).collect();
    // Sort by the form with the names known so far, name the rest by first
    // use in that order, and again until the order no longer changes.
    let mut previous: Option<Vec<String>> = None;
    for _ in 0..4 {
        for (form, it) in &mut items {
            *form = item_form(it, &names, name);
        }
        items.sort_by(|a, b| a.0.cmp(&b.0));
        let forms: Vec<String> = items.iter().map(|(f, _)| f.clone()).collect();
        if previous.as_ref() == Some(&forms) {
            break;
        }
        previous = Some(forms);
        names = head_names.clone();
        for (_, it) in &items {
            for t in it.terms() {
                if let Term::Var(v) = t {
                    let k = names.len();
                    names.entry(*v).or_insert(k);
                }
            }
        }
    }
    let mut out = String::new();
    for t in &rule.head.args {
        term_form(&mut out, t, &names);
    }
    out.push_str(" :-");
    let mut last = None;
    for (_, it) in &items {
        let f = item_form(it, &names, name);
        // A repeated item is the same condition once.
        if last.as_ref() != Some(&f) {
            out.push(' ');
            out.push_str(&f);
            last = Some(f);
        }
    }
    out
}

fn item_form(it: &Item, names: &HashMap<u32, usize>, name: &dyn Fn(RelId) -> String) -> String {
    let mut s = String::new();
    match it {
        Item::Pos(a) | Item::Neg(a) => {
            let sign = if matches!(it, Item::Pos(_)) { '+' } else { '!' };
            let _ = write!(s, "{sign}{}(", name(a.rel));
            for t in &a.args {
                term_form(&mut s, t, names);
            }
            s.push(')');
        }
        Item::Cmp(x, op, y) => {
            s.push('~');
            term_form(&mut s, x, names);
            let _ = write!(s, "{op:?}");
            term_form(&mut s, y, names);
        }
    }
    s
}

/// A variable by its canonical number (`?` while it has none), a constant
/// by value.
fn term_form(s: &mut String, t: &Term, names: &HashMap<u32, usize>) {
    match t {
        Term::Var(v) => match names.get(v) {
            Some(k) => {
                let _ = write!(s, "v{k},");
            }
            None => s.push_str("?,"),
        },
        Term::Value(x) => {
            let _ = write!(s, "{x:?},");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Ty;
    use crate::program::{Atom, Relation, RequestView};

    fn atom(rel: u32, args: &[u32]) -> Atom {
        Atom {
            rel: RelId(rel),
            args: args.iter().map(|&v| Term::Var(v)).collect(),
        }
    }

    fn rule(head: Atom, body: Vec<Item>) -> Rule {
        Rule {
            head,
            body,
            vars: (0..8).map(|k| format!("x{k}")).collect(),
            origin: "test".into(),
            meaning: crate::program::Meaning::Domain,
        }
    }

    /// Relations 0 and 1 are inputs; 2 and 3 are the same join written
    /// apart (other variable names, other item order); 4 and 5 copy 2 and
    /// 3; 6 reads both 4 and 5.
    fn program() -> Program {
        let rel = |name: &str, role: Role, arity: usize| Relation {
            name: name.into(),
            columns: vec![Ty::Int; arity],
            role,
        };
        let rules = vec![
            rule(
                atom(2, &[0]),
                vec![Item::Pos(atom(0, &[0, 1])), Item::Pos(atom(1, &[1]))],
            ),
            rule(
                atom(3, &[5]),
                vec![Item::Pos(atom(1, &[2])), Item::Pos(atom(0, &[5, 2]))],
            ),
            rule(atom(4, &[0]), vec![Item::Pos(atom(2, &[0]))]),
            rule(atom(5, &[3]), vec![Item::Pos(atom(3, &[3]))]),
            rule(
                atom(6, &[0]),
                vec![Item::Pos(atom(4, &[0])), Item::Neg(atom(5, &[0]))],
            ),
        ];
        Program {
            package: "p".into(),
            version: "0".into(),
            catalog: Default::default(),
            views: Vec::new(),
            relations: vec![
                rel("a", Role::Entities(Ty::Int), 2),
                rel("b", Role::Entities(Ty::Int), 1),
                rel("j1", Role::Derived, 1),
                rel("j2", Role::Derived, 1),
                rel("c1", Role::Derived, 1),
                rel("c2", Role::Derived, 1),
                rel("out", Role::Derived, 1),
            ],
            strata: vec![(0..rules.len()).collect()],
            rules,
            outputs: Vec::new(),
            requests: Vec::new(),
        }
    }

    fn kept(p: &mut Program, r: u32) {
        p.requests.push(RequestView {
            lit: crate::program::Lit {
                pred: crate::program::PredId(0),
                negative: false,
            },
            rel: RelId(r),
            authority: String::new(),
            capability: String::new(),
        });
    }

    fn heads(p: &Program) -> Vec<u32> {
        p.rules.iter().map(|r| r.head.rel.0).collect()
    }

    fn reads(rule: &Rule) -> Vec<u32> {
        rule.body
            .iter()
            .filter_map(|it| match it {
                Item::Pos(a) | Item::Neg(a) => Some(a.rel.0),
                Item::Cmp(..) => None,
            })
            .collect()
    }

    #[test]
    fn equal_definitions_merge_and_merges_cascade() {
        let p = merge(&program());
        // j2 and c2 are gone; `out` reads c1 twice.
        assert_eq!(heads(&p), vec![2, 4, 6]);
        assert_eq!(reads(&p.rules[2]), vec![4, 4]);
        assert_eq!(p.strata, vec![vec![0, 1, 2]]);
    }

    #[test]
    fn a_kept_relation_represents_its_group_and_a_second_one_copies_it() {
        let mut prog = program();
        kept(&mut prog, 5);
        let p = merge(&prog);
        // c2 is kept: c1 is read through it, and c2 reads j1 (the lower
        // numbered of the two joins).
        assert_eq!(heads(&p), vec![2, 5, 6]);
        assert_eq!(reads(&p.rules[1]), vec![2]);
        assert_eq!(reads(&p.rules[2]), vec![5, 5]);

        // Both kept: c1 (the lower number) represents them, and c2 is a
        // copy of it.
        kept(&mut prog, 4);
        let p = merge(&prog);
        assert_eq!(heads(&p), vec![2, 4, 5, 6]);
        assert_eq!(reads(&p.rules[2]), vec![4]);
        assert_eq!(reads(&p.rules[3]), vec![4, 4]);
    }

    #[test]
    fn a_recursive_component_merges_only_members_with_the_same_rules() {
        // c1 and c2 each copy the other, and j1 / j2: the same relation.
        let mut prog = program();
        prog.rules
            .push(rule(atom(4, &[0]), vec![Item::Pos(atom(5, &[0]))]));
        prog.rules
            .push(rule(atom(5, &[0]), vec![Item::Pos(atom(4, &[0]))]));
        prog.strata = vec![(0..prog.rules.len()).collect()];
        let p = merge(&prog);
        assert_eq!(heads(&p), vec![2, 4, 6]);
        assert_eq!(reads(&p.rules[1]), vec![2]);
        assert_eq!(reads(&p.rules[2]), vec![4, 4]);

        // c2 reads `b` instead of j2: c1 = j1 ∪ b = c2 still (each copies
        // the other), but c1 and c2 no longer have the same rules, and the
        // refinement keeps them apart (it does not compute models).
        prog.rules[3] = rule(atom(5, &[3]), vec![Item::Pos(atom(1, &[3]))]);
        let p = merge(&prog);
        assert_eq!(heads(&p), vec![2, 4, 5, 6, 4, 5]);
    }

    #[test]
    fn different_joins_stay_apart() {
        let mut prog = program();
        // j2 joins on the other column of `a`: not the same relation.
        prog.rules[1] = rule(
            atom(3, &[5]),
            vec![Item::Pos(atom(1, &[2])), Item::Pos(atom(0, &[2, 5]))],
        );
        assert_eq!(heads(&merge(&prog)), vec![2, 3, 4, 5, 6]);
    }

    #[test]
    fn rules_that_add_nothing_are_dropped() {
        let mut prog = program();
        // out(x) :- c1(x), !c2(x), b(x): its body holds out's first rule's.
        prog.rules.push(rule(
            atom(6, &[0]),
            vec![
                Item::Pos(atom(1, &[0])),
                Item::Pos(atom(4, &[0])),
                Item::Neg(atom(5, &[0])),
            ],
        ));
        // out(x) :- a(x, y), c1(x): an item with another variable, and the
        // first rule's items all there too ... once c2 is c1.
        prog.rules.push(rule(
            atom(6, &[0]),
            vec![
                Item::Pos(atom(0, &[0, 1])),
                Item::Pos(atom(4, &[0])),
                Item::Neg(atom(4, &[0])),
            ],
        ));
        // ... and one that is not implied: b(x) alone.
        prog.rules
            .push(rule(atom(6, &[0]), vec![Item::Pos(atom(1, &[0]))]));
        prog.strata = vec![(0..prog.rules.len()).collect()];
        let p = merge(&prog);
        assert_eq!(heads(&p), vec![2, 4, 6, 6]);
        assert_eq!(reads(&p.rules[3]), vec![1]);
    }
}
