//! Strongly connected components: of a program's rule-dependency graph
//! ([`crate::program::RuleComponents`]), of the checked package's predicate
//! graph (`check::strata`) and of `lawgen analyze`'s ground atoms.

/// Tarjan's algorithm, iterative (no recursion depth limit on hostile input).
/// Returns each node's component; components are numbered in reverse
/// topological order (a component's successors have smaller numbers).
pub fn components(succ: &[Vec<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = succ.len();
    let (mut index, mut low) = (vec![NONE; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut comp) = (Vec::new(), vec![NONE; n]);
    let (mut next_index, mut next_comp) = (0, 0);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut call = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    #[test]
    fn cycle_and_tail() {
        // 0 → 1 → 2 → 0, 2 → 3
        let c = super::components(&[vec![1], vec![2], vec![0, 3], vec![]]);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[1], c[2]);
        assert!(c[3] < c[0], "successor components are numbered first");
    }
}
