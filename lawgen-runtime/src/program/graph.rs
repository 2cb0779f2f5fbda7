//! The rule-dependency graph of a [`Program`] and its strongly connected
//! components: the one definition that program-level stratification, the
//! emit passes (common subexpressions, the engines' plan), the reference
//! interpreter and `lawgen analyze`'s grounder share.

use super::{Item, Program, RelId};
use std::collections::HashMap;

/// The strongly connected components of a program's rule-dependency graph,
/// in dependency order.
///
/// - **Nodes** are relations: every relation of the program
///   ([`Program::rule_components`]), or only the heads of a set of rules
///   ([`Program::rule_components_within`]).
/// - **Edges** run from each node a rule's body reads, positively or
///   negated, to the rule's head. Comparisons add none; a body relation that
///   is not a node adds none.
/// - **Order**: every component comes after every component it reads, so
///   evaluating them in order finds each relation a component reads
///   complete, except the component's own. Components that do not depend
///   on each other come in the reverse of the order in which Tarjan's
///   algorithm completes them, started from each node in relation order
///   and following each node's edges in the [`EdgeOrder`] asked for.
#[derive(Clone, Debug)]
pub struct RuleComponents {
    /// `(relation, component)` for every node, sorted by relation.
    of: Vec<(RelId, usize)>,
    components: Vec<Component>,
}

/// The order in which Tarjan's algorithm follows a node's edges, which
/// decides only how components that do not depend on each other are
/// ordered. Both are deterministic; a caller whose output shows that order
/// keeps the one it was written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeOrder {
    /// By the relation each edge leads to: a function of the graph alone,
    /// whatever the order of the rules (the engines' plan, so generated
    /// code keeps its order when rules move).
    Relation,
    /// By the rule that adds each edge, in the order the rules are given
    /// (the grounder of `lawgen analyze`, whose atom numbering, and so the
    /// witness the solver finds first, follows the components).
    Rule,
}

/// Relations that depend on each other, and the rules deriving them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Component {
    /// Its relations, ascending.
    pub relations: Vec<RelId>,
    /// The rules whose head is one of them, in the order they were given
    /// (ascending for [`Program::rule_components`]). Empty for a relation
    /// no rule derives (an input).
    pub rules: Vec<usize>,
    /// Does one of its rules read (positively or negated) one of its
    /// relations?
    pub recursive: bool,
    /// The first of its rules that negates one of its relations, and that
    /// relation: the program is not stratified.
    pub negated: Option<(usize, RelId)>,
}

impl RuleComponents {
    /// The components, in dependency order.
    pub fn components(&self) -> &[Component] {
        &self.components
    }

    /// The position in [`Self::components`] of the component holding `rel`,
    /// if `rel` is a node.
    pub fn component_of(&self, rel: RelId) -> Option<usize> {
        self.of
            .binary_search_by_key(&rel, |&(r, _)| r)
            .ok()
            .map(|i| self.of[i].1)
    }

    /// The graph on `nodes` (ascending) with the edges of `rules`, whose
    /// heads must all be nodes.
    fn build(prog: &Program, nodes: &[RelId], rules: &[usize], order: EdgeOrder) -> RuleComponents {
        let local: HashMap<RelId, usize> = nodes.iter().enumerate().map(|(i, &r)| (r, i)).collect();
        let head = |ri: usize| local[&prog.rules[ri].head.rel];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for &ri in rules {
            let h = head(ri);
            for it in &prog.rules[ri].body {
                if let Item::Pos(a) | Item::Neg(a) = it {
                    if let Some(&b) = local.get(&a.rel) {
                        succ[b].push(h);
                    }
                }
            }
        }
        if order == EdgeOrder::Relation {
            // Node positions ascend with relations. (A repeated edge is a
            // no-op for Tarjan: only its first place counts.)
            for s in &mut succ {
                s.sort_unstable();
                s.dedup();
            }
        }
        let tarjan = crate::scc::components(&succ);
        let count = tarjan.iter().copied().max().map_or(0, |m| m + 1);
        // Tarjan numbers components in reverse topological order.
        let comp: Vec<usize> = tarjan.iter().map(|&c| count - 1 - c).collect();
        let mut components = vec![Component::default(); count];
        let of: Vec<(RelId, usize)> = nodes.iter().copied().zip(comp.iter().copied()).collect();
        for &(r, c) in &of {
            components[c].relations.push(r);
        }
        for &ri in rules {
            let c = comp[head(ri)];
            let component = &mut components[c];
            component.rules.push(ri);
            for it in &prog.rules[ri].body {
                let (Item::Pos(a) | Item::Neg(a)) = it else {
                    continue;
                };
                if local.get(&a.rel).map(|&b| comp[b]) == Some(c) {
                    component.recursive = true;
                    if matches!(it, Item::Neg(_)) && component.negated.is_none() {
                        component.negated = Some((ri, a.rel));
                    }
                }
            }
        }
        RuleComponents { of, components }
    }
}

impl Program {
    /// The components of the whole rule-dependency graph: every relation is
    /// a node, every rule adds its edges. See [`RuleComponents`].
    pub fn rule_components(&self, order: EdgeOrder) -> RuleComponents {
        let nodes: Vec<RelId> = (0..self.relations.len() as u32).map(RelId).collect();
        let rules: Vec<usize> = (0..self.rules.len()).collect();
        RuleComponents::build(self, &nodes, &rules, order)
    }

    /// The components of the graph of `rules` alone (a stratum, say): the
    /// nodes are their heads, the edges theirs between those nodes; sized
    /// by `rules`, not by the program. Every component has a rule. See
    /// [`RuleComponents`].
    pub fn rule_components_within(&self, rules: &[usize], order: EdgeOrder) -> RuleComponents {
        let mut nodes: Vec<RelId> = rules.iter().map(|&ri| self.rules[ri].head.rel).collect();
        nodes.sort_unstable();
        nodes.dedup();
        RuleComponents::build(self, &nodes, rules, order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Meaning;
    use crate::test_support::program;

    const DECLS: &str = "type Node
         pred edge(Node, Node) empirical
         input e(Node, Node) = edge
         rel reach(Node, Node)
         rel back(Node, Node)
         rel cut(Node, Node)
         rel top(Node)";

    fn rel(prog: &Program, name: &str) -> RelId {
        RelId(prog.relations.iter().position(|r| r.name == name).unwrap() as u32)
    }

    /// `reach` and `back` read each other; `cut` negates `reach`; `top`
    /// reads `cut`.
    fn prog() -> Program {
        program(
            DECLS,
            &[
                ("top(X) :- cut(X, Y).", Meaning::Domain),
                ("cut(X, Y) :- e(X, Y), !reach(Y, X).", Meaning::Domain),
                ("reach(X, Y) :- e(X, Y).", Meaning::Domain),
                ("reach(X, Z) :- back(X, Y), e(Y, Z).", Meaning::Domain),
                ("back(X, Y) :- reach(Y, X).", Meaning::Domain),
            ],
        )
    }

    #[test]
    fn a_recursive_pair_is_one_component_after_what_it_reads() {
        let p = prog();
        let rc = p.rule_components(EdgeOrder::Rule);
        let [e, reach, back, cut, top] = ["e", "reach", "back", "cut", "top"].map(|n| rel(&p, n));
        let at = |r| rc.component_of(r).unwrap();
        assert_eq!(at(reach), at(back));
        let pair = &rc.components()[at(reach)];
        assert_eq!(pair.relations, [reach, back]);
        assert_eq!(pair.rules, [2, 3, 4]);
        assert!(pair.recursive);
        assert_eq!(pair.negated, None);
        // Dependency order: the input, the pair, `cut`, `top`.
        assert!(at(e) < at(reach) && at(reach) < at(cut) && at(cut) < at(top));
        assert_eq!(rc.components().len(), 4);
        let input = &rc.components()[at(e)];
        assert!(input.rules.is_empty() && !input.recursive);
        let cut_c = &rc.components()[at(cut)];
        assert_eq!((cut_c.rules.as_slice(), cut_c.recursive), (&[1][..], false));
    }

    #[test]
    fn a_negation_edge_orders_but_inside_a_cycle_is_reported() {
        let p = prog();
        let rc = p.rule_components(EdgeOrder::Rule);
        // `cut` negates `reach`: the edge orders them, it is no recursion.
        let (reach, cut) = (rel(&p, "reach"), rel(&p, "cut"));
        assert!(rc.component_of(reach) < rc.component_of(cut));
        assert!(rc.components().iter().all(|c| c.negated.is_none()));

        // `reach` read back through a negation of itself: not stratified
        // (written positive, since the test programs are stratified, then
        // negated).
        let mut bad = program(
            DECLS,
            &[
                ("reach(X, Y) :- e(X, Y), back(X, Y).", Meaning::Domain),
                ("back(X, Y) :- reach(X, Y).", Meaning::Domain),
            ],
        );
        let Item::Pos(a) = bad.rules[0].body[1].clone() else {
            panic!("a positive atom")
        };
        bad.rules[0].body[1] = Item::Neg(a);
        let rc = bad.rule_components(EdgeOrder::Rule);
        let c = &rc.components()[rc.component_of(rel(&bad, "reach")).unwrap()];
        assert_eq!(c.rules, [0, 1]);
        assert!(c.recursive);
        assert_eq!(c.negated, Some((0, rel(&bad, "back"))));
    }

    #[test]
    fn a_self_loop_is_recursive_and_a_chain_is_not() {
        let p = program(
            DECLS,
            &[
                ("reach(X, Y) :- e(X, Y).", Meaning::Domain),
                ("reach(X, Z) :- reach(X, Y), e(Y, Z).", Meaning::Domain),
                ("back(X, Y) :- reach(Y, X).", Meaning::Domain),
            ],
        );
        let rc = p.rule_components(EdgeOrder::Rule);
        let of = |n| &rc.components()[rc.component_of(rel(&p, n)).unwrap()];
        assert!(of("reach").recursive);
        assert_eq!(of("reach").relations.len(), 1);
        assert!(!of("back").recursive);
    }

    #[test]
    fn restricted_to_a_stratum_only_its_heads_are_nodes() {
        let p = prog();
        // The stratum above the negation: `cut` and `top`.
        let rc = p.rule_components_within(&[0, 1], EdgeOrder::Rule);
        let [reach, cut, top] = ["reach", "cut", "top"].map(|n| rel(&p, n));
        assert_eq!(rc.component_of(reach), None, "read from below, not a node");
        assert_eq!(rc.components().len(), 2);
        assert_eq!(rc.components()[0].relations, [cut]);
        assert_eq!(rc.components()[0].rules, [1]);
        assert_eq!(rc.components()[1].relations, [top]);
        assert_eq!(rc.components()[1].rules, [0]);
        assert!(rc
            .components()
            .iter()
            .all(|c| !c.recursive && c.negated.is_none()));

        // The recursive stratum, rules given out of order: kept in that
        // order within their component.
        let rc = p.rule_components_within(&[4, 2, 3], EdgeOrder::Rule);
        assert_eq!(rc.components().len(), 1);
        assert_eq!(rc.components()[0].rules, [4, 2, 3]);
        assert!(rc.components()[0].recursive);
    }

    #[test]
    fn components_that_do_not_depend_on_each_other_follow_the_edge_order() {
        // `reach` and `back` both read only `e`: two components, neither
        // before the other by dependency. Tarjan from `e` completes first
        // the one it follows first, which comes last.
        let order = |rules: &[(&str, Meaning)], order| {
            let p = program(DECLS, rules);
            let rc = p.rule_components(order);
            let names: Vec<String> = rc
                .components()
                .iter()
                .filter(|c| !c.rules.is_empty())
                .map(|c| p.relations[c.relations[0].0 as usize].name.clone())
                .collect();
            names
        };
        let back = ("back(X, Y) :- e(X, Y).", Meaning::Domain);
        let reach = ("reach(X, Y) :- e(X, Y).", Meaning::Domain);
        let (back_first, reach_first) = ([back.clone(), reach.clone()], [reach, back]);
        // By relation, `reach` (the lower relation) is followed first,
        // whatever the order of the rules.
        for rules in [&back_first, &reach_first] {
            assert_eq!(order(rules, EdgeOrder::Relation), ["back", "reach"]);
        }
        // By rule, the edge of the first rule is followed first.
        assert_eq!(order(&back_first, EdgeOrder::Rule), ["reach", "back"]);
        assert_eq!(order(&reach_first, EdgeOrder::Rule), ["back", "reach"]);
    }
}
