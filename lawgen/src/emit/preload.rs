//! Rules the generated code applies while it loads a batch, outside the
//! engine's rules (the `ascent!` program, or the Direct engine's loops).
//!
//! Some rules of the (unfolded) engine read nothing but what the batch loads:
//!
//! * a **projection** of a loaded relation, `H(t…) <- R(x…)`, where `R` is an
//!   input (facts, entities, the policy flag), `x…` are distinct variables
//!   and each `t` is one of them or a constant: the lowering writes one per
//!   input column for every entity type's domain (`dom[Player]` has 27 in
//!   the chess package), and copy rules such as "a fact supports `p`";
//! * a **constant** rule with an empty body, `H(k…)`: the package's
//!   constants in each domain.
//!
//! As ascent rules each costs an index on `R`, a hash-table insertion per
//! tuple and an SCC of its own in ascent's generated `run` (about 80 ms of
//! rustc per rule in a release build). Applied while loading, each is a push
//! per loaded row. Nothing else changes: `H` is derived, so its preloaded
//! rows are the initial contents of a relation ascent completes (ascent
//! indexes every row already in a relation when `run` starts), and every rule
//! reading `H` runs after every rule writing it, as before; the rows are
//! deduplicated per case, since relations are sets and the engine's output
//! relations are read row by row. The differential tests compare the result
//! with the interpreter byte for byte.

use crate::program::Value;
use crate::program::{Item, Program, RelId, Role, Rule, Term};

/// One argument of a preloaded row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadArg {
    /// Column `k` of the loaded row (without the case column).
    Col(usize),
    /// A constant.
    Value(Value),
}

/// A rule applied while loading.
#[derive(Clone, Debug)]
pub struct LoadRule {
    /// The loaded relation each of whose rows gives one head row; `None` for
    /// a constant rule (one row per case).
    pub source: Option<RelId>,
    pub head: RelId,
    pub args: Vec<LoadArg>,
    /// The rule's origin, for a comment in the generated code.
    pub origin: String,
}

/// Splits `prog` into the rules ascent runs and the rules applied while
/// loading (`loaded` tells which relations the batch fills). The returned
/// program has the same relations and outputs; its strata hold the
/// remaining rules.
pub fn split(mut prog: Program, loaded: impl Fn(RelId) -> bool) -> (Program, Vec<LoadRule>) {
    let mut load = Vec::new();
    let mut new_index: Vec<Option<usize>> = Vec::with_capacity(prog.rules.len());
    let mut rules = Vec::new();
    for rule in std::mem::take(&mut prog.rules) {
        match load_rule(&prog, &rule, &loaded) {
            Some(l) => {
                load.push(l);
                new_index.push(None);
            }
            None => {
                new_index.push(Some(rules.len()));
                rules.push(rule);
            }
        }
    }
    prog.rules = rules;
    for s in &mut prog.strata {
        *s = s.iter().filter_map(|&ri| new_index[ri]).collect();
    }
    (prog, load)
}

fn load_rule(prog: &Program, rule: &Rule, loaded: &impl Fn(RelId) -> bool) -> Option<LoadRule> {
    // Only derived heads: a loaded relation gets exactly the rows loaded.
    if prog.relation(rule.head.rel).role != Role::Derived {
        return None;
    }
    let (source, body_vars) = match rule.body.as_slice() {
        [] => (None, Vec::new()),
        [Item::Pos(a)] if loaded(a.rel) => {
            let mut vars = Vec::with_capacity(a.args.len());
            for t in &a.args {
                match t {
                    // A repeated variable is an equality, a constant a
                    // filter: left to ascent.
                    Term::Var(v) if !vars.contains(v) => vars.push(*v),
                    _ => return None,
                }
            }
            (Some(a.rel), vars)
        }
        _ => return None,
    };
    let args = rule
        .head
        .args
        .iter()
        .map(|t| match t {
            Term::Var(v) => body_vars.iter().position(|b| b == v).map(LoadArg::Col),
            Term::Value(x) => Some(LoadArg::Value(x.clone())),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(LoadRule {
        source,
        head: rule.head.rel,
        args,
        origin: rule.origin.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Ty;
    use crate::program::{Atom, Relation};

    fn rel(name: &str, arity: usize, role: Role) -> Relation {
        Relation {
            name: name.into(),
            columns: vec![Ty::Int; arity],
            role,
        }
    }

    fn atom(rel: u32, args: Vec<Term>) -> Atom {
        Atom {
            rel: RelId(rel),
            args,
        }
    }

    fn rule(head: Atom, body: Vec<Item>) -> Rule {
        Rule {
            head,
            body,
            vars: (0..4).map(|i| format!("x{i}")).collect(),
            origin: "test".into(),
            meaning: crate::program::Meaning::Domain,
        }
    }

    /// r0: an input (arity 2); r1, r2: derived (arity 1); r3: an input flag.
    fn program(rules: Vec<Rule>) -> Program {
        let strata = vec![(0..rules.len()).collect()];
        Program {
            package: "p".into(),
            version: "0".into(),
            catalog: Default::default(),
            views: Vec::new(),
            relations: vec![
                rel("in", 2, Role::Entities(Ty::Int)),
                rel("d1", 1, Role::Derived),
                rel("d2", 1, Role::Derived),
                rel("flag", 0, Role::PolicyPropagating),
            ],
            rules,
            strata,
            outputs: Vec::new(),
            requests: Vec::new(),
        }
    }

    const V0: Term = Term::Var(0);
    const V1: Term = Term::Var(1);

    #[test]
    fn projections_and_constants_are_loaded_the_rest_stays() {
        let p = program(vec![
            // A projection of the input: loaded.
            rule(atom(1, vec![V1]), vec![Item::Pos(atom(0, vec![V0, V1]))]),
            // Reads a derived relation: stays.
            rule(atom(2, vec![V0]), vec![Item::Pos(atom(1, vec![V0]))]),
            // A constant: loaded.
            rule(atom(2, vec![Term::Value(Value::Int(7))]), vec![]),
            // A repeated variable (an equality): stays.
            rule(atom(1, vec![V0]), vec![Item::Pos(atom(0, vec![V0, V0]))]),
            // A constant in the body (a filter): stays.
            rule(
                atom(1, vec![V0]),
                vec![Item::Pos(atom(0, vec![V0, Term::Value(Value::Int(1))]))],
            ),
            // The policy flag is loaded too: loaded.
            rule(
                atom(2, vec![Term::Value(Value::Int(1))]),
                vec![Item::Pos(atom(3, vec![]))],
            ),
            // A head on a loaded relation: stays.
            rule(atom(0, vec![V0, V0]), vec![Item::Pos(atom(1, vec![V0]))]),
        ]);
        let loaded = |r: RelId| r == RelId(0) || r == RelId(3);
        let (engine, load) = split(p, loaded);
        assert_eq!(load.len(), 3);
        assert_eq!(load[0].source, Some(RelId(0)));
        assert_eq!(load[0].head, RelId(1));
        assert_eq!(load[0].args, vec![LoadArg::Col(1)]);
        assert_eq!(load[1].source, None);
        assert_eq!(load[1].args, vec![LoadArg::Value(Value::Int(7))]);
        assert_eq!(load[2].source, Some(RelId(3)));
        assert_eq!(engine.rules.len(), 4);
        // The strata hold exactly the remaining rules, renumbered.
        assert_eq!(engine.strata, vec![vec![0, 1, 2, 3]]);
        assert_eq!(engine.rules[0].head.rel, RelId(2));
    }

    #[test]
    fn nothing_is_loaded_when_no_relation_is() {
        let p = program(vec![rule(
            atom(1, vec![V1]),
            vec![Item::Pos(atom(0, vec![V0, V1]))],
        )]);
        let (engine, load) = split(p, |_| false);
        assert!(load.is_empty());
        assert_eq!(engine.rules.len(), 1);
        assert_eq!(engine.strata, vec![vec![0]]);
    }
}
