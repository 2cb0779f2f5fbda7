//! `lawgen graph`: the predicate dependency graph as Graphviz DOT.

use crate::model::Model;

/// The dependency graph in DOT.
pub fn dot(model: &Model) -> String {
    let mut s = String::from("digraph lawgen {\n");
    for e in crate::check::strata::dependency_edges(model) {
        s.push_str(&format!("  p{} -> p{};\n", e.from.0, e.to.0));
    }
    s.push_str("}\n");
    s
}
