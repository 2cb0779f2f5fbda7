//! W003: a rule that can never fire; W008: a derogation of such a rule.

use super::Cx;
use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{Item, Rule, Term};
use crate::program::{local_name, Ty, Value};
use crate::program::{CmpOp, RelationKind, Status, Strength};
use crate::syntax::NodeKind;

/// Condition, any of:
///
/// 1. the comparisons of the body contradict each other or themselves
///    (`x < x`, `x != x`, `3 > 5`, `x = A, x = B` for distinct constants,
///    `x = y, x != y`, or integer bounds with no solution such as
///    `x >= 5, x < 3` or `x < y, y < x`) — decided exactly over the
///    integers (difference constraints, Floyd–Warshall) and by equality
///    classes for entities; `!=` between different terms is only used
///    against an equality, so a satisfiable body is never reported;
/// 2. the body holds `a` and `not a` for the same literal and arguments
///    (`not supported a` also contradicts `established a`: +∂ implies +Σ);
/// 3. the body reads a literal of an institutional predicate that no strict
///    or defeasible rule of the package concludes (defeaters conclude
///    nothing), so it is never even supported.
///
/// Each is a body that no facts can satisfy, so the rule is dead code.
pub(super) fn never_fires(cx: &Cx, out: &mut Diagnostics) {
    for r in &cx.m.rules {
        if let Some((k, why)) = comparisons(r)
            .or_else(|| self_contradiction(r))
            .or_else(|| unconcludable(cx, r))
        {
            out.error(
                Code::NeverFires,
                cx.item(r, k),
                format!("`{}` can never fire: {why}", r.local),
                "fix the condition, or remove the rule if it is not meant to apply",
            );
        }
    }
}

/// W008. A derogation that changes nothing: a rule it sets aside would have
/// concluded nothing anyway.
///
/// Condition: the set-aside rule meets a condition of W003 (its body can
/// never hold, judged against the rules that remain), or it is a defeater
/// and nothing concludes the literal it would block (a defeater only acts
/// against a strict or defeasible rule for the complement of its head), or
/// the derogation lists no rule at all. Setting such a rule aside leaves
/// every conclusion as it was, so the derogation most likely names the
/// wrong rule. Only the root package's derogations are linted.
pub(super) fn derogation_without_effect(cx: &Cx, out: &mut Diagnostics) {
    for n in &cx.loaded.package.nodes {
        let NodeKind::Derogation(d) = &n.kind else {
            continue;
        };
        if d.rules.is_empty() {
            out.error(
                Code::DerogationWithoutEffect,
                cx.node(&n.id),
                format!(
                    "`{}` lists no rule: it sets nothing aside",
                    local_name(&n.id)
                ),
                "list the imported rules it displaces in `rules`, or remove the derogation",
            );
        }
        for r in &d.rules {
            // Set aside on every date, or (a dated derogation's) left in
            // the program and out on the dates the derogation is in force.
            let Some(rule) =
                cx.m.set_aside
                    .iter()
                    .map(|a| &a.rule)
                    .chain(&cx.m.rules)
                    .find(|x| x.id == r.id)
            else {
                continue;
            };
            let why = comparisons(rule)
                .or_else(|| self_contradiction(rule))
                .or_else(|| unconcludable(cx, rule))
                .map(|(_, why)| why)
                .or_else(|| {
                    let blocked = rule.head.lit().complement();
                    (rule.strength == Strength::Defeater && !cx.m.has_concluding_rule(blocked))
                        .then(|| {
                            format!(
                                "it is a defeater, and nothing concludes `{}`, which it would block",
                                cx.m.lit_name(blocked)
                            )
                        })
                });
            if let Some(why) = why {
                out.error(
                    Code::DerogationWithoutEffect,
                    Location::new(Some(&n.id), r.ptr.as_str()),
                    format!(
                        "`{}` sets aside `{}`, which would have concluded nothing anyway: {why}",
                        local_name(&n.id),
                        rule.local
                    ),
                    "check that the derogation names the rule the article displaces; if it does, the derogation changes nothing and can go",
                );
            }
        }
    }
}

fn term_text(r: &Rule, t: &Term) -> String {
    match t {
        Term::Var(v) => r.vars[v.0 as usize].0.clone(),
        Term::Value(Value::Int(i)) => i.to_string(),
        Term::Value(Value::Entity(e)) => e.clone(),
    }
}

/// A node of the comparison graph: a variable, or a constant.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Var(u32),
    Const(Value),
}

fn node(t: &Term) -> Node {
    match t {
        Term::Var(v) => Node::Var(v.0),
        Term::Value(v) => Node::Const(v.clone()),
    }
}

fn comparisons(r: &Rule) -> Option<(usize, String)> {
    let cmps: Vec<(usize, &Term, CmpOp, &Term)> = r
        .body
        .iter()
        .enumerate()
        .filter_map(|(k, i)| match i {
            Item::Compare { left, op, right } => Some((k, left, *op, right)),
            _ => None,
        })
        .collect();
    if cmps.is_empty() {
        return None;
    }
    let text = |k: usize| {
        let (_, l, op, rt) = cmps.iter().find(|c| c.0 == k).expect("k is a comparison");
        format!(
            "`{} {} {}`",
            term_text(r, l),
            op_text(*op),
            term_text(r, rt)
        )
    };
    // Each comparison on its own.
    for &(k, l, op, rt) in &cmps {
        let same = node(l) == node(rt);
        let bad = match (l, rt) {
            (Term::Value(a), Term::Value(b)) => !op.holds(a, b),
            _ => same && matches!(op, CmpOp::Ne | CmpOp::Lt | CmpOp::Gt),
        };
        if bad {
            return Some((k, format!("{} is false whatever the facts", text(k))));
        }
    }
    // Equality classes (union-find over nodes).
    let mut nodes: Vec<Node> = Vec::new();
    let id = |n: Node, nodes: &mut Vec<Node>| match nodes.iter().position(|x| *x == n) {
        Some(i) => i,
        None => {
            nodes.push(n);
            nodes.len() - 1
        }
    };
    let mut pairs = Vec::new();
    for &(k, l, op, rt) in &cmps {
        let a = id(node(l), &mut nodes);
        let b = id(node(rt), &mut nodes);
        pairs.push((k, a, op, b));
    }
    let mut parent: Vec<usize> = (0..nodes.len()).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut last_eq = None;
    for &(k, a, op, b) in &pairs {
        if op == CmpOp::Eq {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            parent[ra] = rb;
            last_eq = Some(k);
        }
    }
    // Two different constants in one class.
    for i in 0..nodes.len() {
        for j in i + 1..nodes.len() {
            if let (Node::Const(x), Node::Const(y)) = (&nodes[i], &nodes[j]) {
                if x != y && find(&mut parent, i) == find(&mut parent, j) {
                    let k = last_eq.unwrap_or(pairs[0].0);
                    return Some((
                        k,
                        format!("its equalities make {} equal to {}", show(x), show(y)),
                    ));
                }
            }
        }
    }
    for &(k, a, op, b) in &pairs {
        if op == CmpOp::Ne && find(&mut parent, a) == find(&mut parent, b) {
            return Some((k, format!("{} contradicts its equalities", text(k))));
        }
    }
    // Integer bounds: x - y <= c, over integer variables and a zero node.
    let int_vars: Vec<u32> = (0..r.vars.len() as u32)
        .filter(|v| r.vars[*v as usize].1 == Ty::Int)
        .collect();
    let n = int_vars.len() + 1;
    let zero = int_vars.len();
    let ix = |t: &Term| -> Option<(usize, i128)> {
        match t {
            Term::Var(v) => int_vars.iter().position(|x| *x == v.0).map(|i| (i, 0)),
            Term::Value(Value::Int(c)) => Some((zero, i128::from(*c))),
            Term::Value(Value::Entity(_)) => None,
        }
    };
    const INF: i128 = i128::MAX / 4;
    let mut d = vec![vec![INF; n]; n];
    for (i, row) in d.iter_mut().enumerate() {
        row[i] = 0;
    }
    let mut used = Vec::new();
    for &(k, l, op, rt) in &cmps {
        let (Some((a, ka)), Some((b, kb))) = (ix(l), ix(rt)) else {
            continue;
        };
        // l op r, with l = a + ka and r = b + kb.
        let mut edge = |x: usize, y: usize, c: i128| {
            if c < d[x][y] {
                d[x][y] = c;
            }
        };
        match op {
            CmpOp::Le => edge(a, b, kb - ka),
            CmpOp::Lt => edge(a, b, kb - ka - 1),
            CmpOp::Ge => edge(b, a, ka - kb),
            CmpOp::Gt => edge(b, a, ka - kb - 1),
            CmpOp::Eq => {
                edge(a, b, kb - ka);
                edge(b, a, ka - kb);
            }
            CmpOp::Ne => continue,
        }
        used.push(k);
    }
    for m in 0..n {
        for i in 0..n {
            if d[i][m] == INF {
                continue;
            }
            for j in 0..n {
                if d[m][j] != INF && d[i][m] + d[m][j] < d[i][j] {
                    d[i][j] = d[i][m] + d[m][j];
                }
            }
        }
    }
    if (0..n).any(|i| d[i][i] < 0) {
        let all: Vec<String> = used.iter().map(|&k| text(k)).collect();
        let all = match all.split_last() {
            Some((last, init)) if !init.is_empty() => format!("{} and {last}", init.join(", ")),
            _ => all.join(""),
        };
        return Some((used[0], format!("no integers satisfy {all}")));
    }
    None
}

/// The operator as the text form writes it.
fn op_text(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::Int(i) => format!("`{i}`"),
        Value::Entity(e) => format!("`{e}`"),
    }
}

fn self_contradiction(r: &Rule) -> Option<(usize, String)> {
    for (k, i) in r.body.iter().enumerate() {
        let Item::Not {
            status: ns,
            atom: na,
        } = i
        else {
            continue;
        };
        for j in &r.body {
            let Item::Status { status, atom } = j else {
                continue;
            };
            // `not supported a` excludes both; `not established a` only `a`.
            let excluded = *ns == Status::Supported || *status == Status::Established;
            if atom == na && excluded {
                return Some((
                    k,
                    format!(
                        "it requires `{}` and `not {}` of the same literal",
                        status.as_str(),
                        ns.as_str()
                    ),
                ));
            }
        }
    }
    None
}

fn unconcludable(cx: &Cx, r: &Rule) -> Option<(usize, String)> {
    for (k, i) in r.body.iter().enumerate() {
        let Item::Status { atom, .. } = i else {
            continue;
        };
        let p = cx.m.pred(atom.pred);
        if p.kind == RelationKind::Institutional && !cx.m.has_concluding_rule(atom.lit()) {
            return Some((
                k,
                format!(
                    "it reads `{}`, which no strict or defeasible rule of the package concludes",
                    cx.m.lit_name(atom.lit())
                ),
            ));
        }
    }
    None
}
