//! Pass 2: rules resolved and typed.
//!
//! Every variable is declared once with a type; every literal names a
//! predicate with the right arity and argument types; `value` terms hold a
//! JSON value of their type; comparisons compare like with like, and order
//! comparisons only integers. A rule with any error is left out of the model
//! (its errors are reported), so later passes see only well-typed rules.

use super::names::Scope;
use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{self, Atom, Model, RuleId, Term, Var};
use crate::program::{local_name, Ty, Value};
use crate::syntax::{self, pick_label, NodeKind, Package, Scalar, TermKind};
use std::collections::HashMap;

pub(super) fn rules(pkg: &Package, scope: &mut Scope, model: &mut Model, diags: &mut Diagnostics) {
    let mut built = HashMap::new();
    for n in &pkg.nodes {
        let NodeKind::Rule(r) = &n.kind else { continue };
        let mut cx = RuleCx {
            node: &n.id,
            scope: &*scope,
            model,
            diags,
            vars: HashMap::new(),
            var_list: Vec::new(),
            untyped: Vec::new(),
            ok: true,
        };
        cx.declare_vars(r);
        let head = cx.atom(&r.head);
        let body: Vec<_> = r.body.iter().filter_map(|i| cx.item(i)).collect();
        let anchors = model.fragment_ids(r.anchors.iter().map(|a| a.id.as_str()));
        if !cx.ok || body.len() != r.body.len() {
            continue;
        }
        let Some(head) = head else { continue };
        let vars = cx.var_list;
        if built.contains_key(&n.id) {
            continue; // duplicate id, reported by the reader
        }
        built.insert(n.id.clone(), RuleId(model.rules.len() as u32));
        model.rules.push(model::Rule {
            id: n.id.clone(),
            local: local_name(&n.id).to_owned(),
            strength: r.strength,
            head,
            body,
            vars,
            anchors,
            label: pick_label(&n.labels).map(str::to_owned),
            labels: n.labels.clone(),
            ptr: n.ptr.clone(),
        });
    }
    scope.rules = built;
}

struct RuleCx<'a> {
    node: &'a str,
    scope: &'a Scope,
    model: &'a Model,
    diags: &'a mut Diagnostics,
    vars: HashMap<String, Var>,
    var_list: Vec<(String, Ty)>,
    /// Declared variables whose type did not resolve (reported there): their
    /// uses are not "undeclared".
    untyped: Vec<String>,
    ok: bool,
}

impl RuleCx<'_> {
    fn err(&mut self, code: Code, ptr: &str, msg: String, help: String) {
        self.ok = false;
        self.diags
            .error(code, Location::new(Some(self.node), ptr), msg, help);
    }

    fn declare_vars(&mut self, r: &syntax::Rule) {
        for v in &r.variables {
            let Some(ty) = self.scope.ty(&v.ty, self.node, self.diags) else {
                self.ok = false;
                self.untyped.push(v.name.clone());
                continue;
            };
            if self.vars.contains_key(&v.name) {
                self.err(
                    Code::DuplicateVariable,
                    &v.ptr,
                    format!("variable `{}` is declared twice", v.name),
                    "declare each variable once in `variables`; rename one of them if they differ"
                        .into(),
                );
                continue;
            }
            self.vars
                .insert(v.name.clone(), Var(self.var_list.len() as u32));
            self.var_list.push((v.name.clone(), ty));
        }
    }

    /// A term and its type.
    fn term(&mut self, t: &syntax::Term) -> Option<(Term, Ty)> {
        match &t.kind {
            TermKind::Var(name) => match self.vars.get(name) {
                Some(v) => Some((Term::Var(*v), self.var_list[v.0 as usize].1)),
                None if self.untyped.contains(name) => {
                    self.ok = false;
                    None
                }
                None => {
                    self.err(
                        Code::UndeclaredVariable,
                        &t.ptr,
                        format!("variable `{name}` is not declared"),
                        format!(r#"add {{"id":"{name}","type":{{"name":"…"}}}} to the rule's `variables`"#),
                    );
                    None
                }
            },
            TermKind::Const(r) => {
                let Some(c) = self.scope.constant(r, self.node, self.diags) else {
                    self.ok = false;
                    return None;
                };
                let c = &self.model.constants[c];
                Some((
                    Term::Value(Value::Entity(c.local.clone())),
                    Ty::Entity(c.ty),
                ))
            }
            TermKind::Value { ty, value } => {
                let Some(t_ty) = self.scope.ty(ty, self.node, self.diags) else {
                    self.ok = false;
                    return None;
                };
                let v = match (t_ty, value) {
                    (Ty::Int, Scalar::Int(i)) => Value::Int(*i),
                    (Ty::Entity(_), Scalar::Str(s)) => Value::Entity(s.clone()),
                    (ty, v) => {
                        let found = match v {
                            Scalar::Int(i) => format!("the integer {i}"),
                            Scalar::Str(s) => format!("the string {s:?}"),
                            Scalar::Other(o) => format!("`{o}`"),
                        };
                        self.err(
                            Code::BadValue,
                            &t.ptr,
                            format!("a value of type {} cannot be {found}", self.model.type_name(ty)),
                            "integers are JSON integers in the i64 range; entities are JSON strings".into(),
                        );
                        return None;
                    }
                };
                Some((Term::Value(v), t_ty))
            }
        }
    }

    fn atom(&mut self, l: &syntax::Literal) -> Option<Atom> {
        let pred = self.scope.pred(&l.predicate, self.node, self.diags);
        let args: Vec<_> = l.args.iter().map(|a| self.term(a)).collect();
        let Some(pred) = pred else {
            self.ok = false;
            return None;
        };
        let decl = self.model.pred(pred);
        if args.len() != decl.params.len() {
            self.err(
                Code::Arity,
                &format!("{}/args", l.ptr),
                format!(
                    "`{}` takes {} argument{}, this literal has {}",
                    decl.local,
                    decl.params.len(),
                    if decl.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                format!(
                    "pass exactly {} argument(s), in the order of the declaration: ({})",
                    decl.params.len(),
                    self.signature(pred)
                ),
            );
            return None;
        }
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.into_iter().enumerate() {
            let (term, ty) = a?;
            let want = decl.params[i];
            if ty != want {
                self.err(
                    Code::TypeMismatch,
                    &l.args[i].ptr,
                    format!(
                        "argument {} of `{}` must be {}, found {}",
                        i + 1,
                        decl.local,
                        self.model.type_name(want),
                        self.model.type_name(ty)
                    ),
                    format!(
                        "pass a term of type {} (declaration: ({}))",
                        self.model.type_name(want),
                        self.signature(pred)
                    ),
                );
                continue;
            }
            out.push(term);
        }
        (out.len() == decl.params.len()).then_some(Atom {
            pred,
            negative: l.negative,
            args: out,
        })
    }

    fn signature(&self, p: crate::program::PredId) -> String {
        let d = self.model.pred(p);
        d.params
            .iter()
            .zip(&d.param_names)
            .map(|(t, n)| match n {
                Some(n) => format!("{n}: {}", self.model.type_name(*t)),
                None => self.model.type_name(*t).to_owned(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn item(&mut self, i: &syntax::Item) -> Option<model::Item> {
        match i {
            syntax::Item::Status {
                status, literal, ..
            } => Some(model::Item::Status {
                status: *status,
                atom: self.atom(literal)?,
            }),
            syntax::Item::Not {
                status, literal, ..
            } => Some(model::Item::Not {
                status: *status,
                atom: self.atom(literal)?,
            }),
            syntax::Item::Comparison {
                left,
                op,
                right,
                ptr,
            } => {
                let l = self.term(left);
                let r = self.term(right);
                let ((lt, lty), (rt, rty)) = (l?, r?);
                if lty != rty {
                    self.err(
                        Code::ComparisonType,
                        ptr,
                        format!(
                            "`{}` compares {} with {}",
                            op.as_str(),
                            self.model.type_name(lty),
                            self.model.type_name(rty)
                        ),
                        "compare terms of the same type".into(),
                    );
                    return None;
                }
                if op.is_order() && lty != Ty::Int {
                    self.err(
                        Code::ComparisonType,
                        ptr,
                        format!("`{}` orders values of entity type {}", op.as_str(), self.model.type_name(lty)),
                        "order comparisons (lt, le, gt, ge) are defined on integers only; use eq or ne for entities".into(),
                    );
                    return None;
                }
                Some(model::Item::Compare {
                    left: lt,
                    op: *op,
                    right: rt,
                })
            }
        }
    }
}
