//! Small programs written as text, for the unit tests of `interp`,
//! `explain`, `formats` and `program` (the compiler's `lower` is not
//! available here: the runtime never depends on it).
//!
//! ```text
//! type Thing                      an entity type (TypeId in order)
//! pred a(Thing) empirical         a predicate (PredId in order); a column
//! pred n(int) empirical           type is a declared type or `int`
//! input fa(Thing) = a             a relation of the facts of `a` (or `~a`)
//! entities things(Thing)          the entities listed under `entities`
//! flag propagating                the policy flag
//! rel q(Thing)                    a derived relation
//! ```
//!
//! Rules are `head :- item, item.` over those relations: `!r(X)` negates,
//! `X < 3` compares (`=`, `!=`, `<`, `<=`, `>`, `>=`), a name starting with
//! an upper-case letter is a variable (numbered in order of appearance, the
//! head first), an integer is an integer and anything else (or a quoted
//! string) an entity. Strata are computed: a rule sits above every relation
//! its body negates.

use crate::interp::Facts;
use crate::program::{
    Atom, Catalog, CmpOp, Item, Lit, Meaning, PredId, PredInfo, Program, RelId, Relation,
    RelationKind, Role, Rule, Term, Ty, TypeId, TypeInfo, Value,
};
use std::collections::HashMap;

/// The program `decls` declares, with `rules` (each with its meaning).
pub(crate) fn program(decls: &str, rules: &[(&str, Meaning)]) -> Program {
    let mut types: Vec<TypeInfo> = Vec::new();
    let mut preds: Vec<PredInfo> = Vec::new();
    let mut relations: Vec<Relation> = Vec::new();
    for line in decls.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let ty_of = |types: &[TypeInfo], t: &str| match t.trim() {
            "int" => Ty::Int,
            t => Ty::Entity(TypeId(
                types
                    .iter()
                    .position(|x| x.name == t)
                    .expect("a declared type") as u32,
            )),
        };
        let signature = |types: &[TypeInfo], s: &str| -> (String, Vec<Ty>) {
            let (name, cols) = s.trim().split_once('(').expect("name(columns)");
            let cols = cols.trim_end_matches(')');
            let cols = cols
                .split(',')
                .filter(|c| !c.trim().is_empty())
                .map(|c| ty_of(types, c))
                .collect();
            (name.trim().to_owned(), cols)
        };
        match word {
            "type" => types.push(TypeInfo {
                id: format!("urn:t#{rest}"),
                name: rest.to_owned(),
                labels: Vec::new(),
            }),
            "pred" => {
                let (sig, kind) = rest.rsplit_once(' ').expect("pred name(cols) kind");
                let (name, params) = signature(&types, sig);
                let kind = match kind {
                    "empirical" => RelationKind::Empirical,
                    "institutional" => RelationKind::Institutional,
                    "judgment" => RelationKind::Judgment,
                    k => panic!("unknown kind {k}"),
                };
                preds.push(PredInfo {
                    id: format!("urn:t#{name}"),
                    local: name,
                    kind,
                    param_names: vec![None; params.len()],
                    params,
                    labels: Vec::new(),
                    external: (kind == RelationKind::Judgment).then(|| crate::program::External {
                        authority: "Arbiter".into(),
                        capability: "decide".into(),
                    }),
                });
            }
            "input" => {
                let (sig, lit) = rest.split_once('=').expect("input r(cols) = lit");
                let (name, columns) = signature(&types, sig);
                let lit = lit.trim();
                let (negative, p) = match lit.strip_prefix('~') {
                    Some(p) => (true, p),
                    None => (false, lit),
                };
                let pred = PredId(preds.iter().position(|x| x.local == p).expect("a pred") as u32);
                relations.push(Relation {
                    name,
                    columns,
                    role: Role::Facts(Lit { pred, negative }),
                });
            }
            "entities" => {
                let (name, columns) = signature(&types, rest);
                relations.push(Relation {
                    name,
                    role: Role::Entities(columns[0]),
                    columns,
                });
            }
            "flag" => relations.push(Relation {
                name: rest.to_owned(),
                columns: Vec::new(),
                role: Role::PolicyPropagating,
            }),
            "rel" => {
                let (name, columns) = signature(&types, rest);
                relations.push(Relation {
                    name,
                    columns,
                    role: Role::Derived,
                });
            }
            w => panic!("unknown declaration {w}"),
        }
    }
    let by_name: HashMap<String, RelId> = relations
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.clone(), RelId(i as u32)))
        .collect();
    let rules: Vec<Rule> = rules
        .iter()
        .map(|(text, meaning)| rule(text, &by_name, meaning.clone()))
        .collect();
    let strata = stratify(&relations, &rules);
    let mut catalog = Catalog::new(
        "urn:t".into(),
        None,
        types,
        preds,
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    catalog.packages = vec!["t 1".into()];
    Program {
        package: "t".into(),
        version: "1".into(),
        catalog,
        views: Vec::new(),
        relations,
        rules,
        strata,
        outputs: Vec::new(),
        requests: Vec::new(),
    }
}

fn rule(text: &str, rels: &HashMap<String, RelId>, meaning: Meaning) -> Rule {
    let text = text.trim().trim_end_matches('.');
    let (head, body) = match text.split_once(":-") {
        Some((h, b)) => (h, b),
        None => (text, ""),
    };
    let mut vars: Vec<String> = Vec::new();
    let head = match atom(head, rels, &mut vars) {
        Item::Pos(a) => a,
        _ => panic!("a head is an atom"),
    };
    let body = split_items(body)
        .iter()
        .map(|i| atom(i, rels, &mut vars))
        .collect();
    Rule {
        head,
        body,
        vars,
        origin: text.to_owned(),
        meaning,
    }
}

/// Items separated by commas outside parentheses and quotes.
fn split_items(body: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quoted) = (Vec::new(), String::new(), 0, false);
    for c in body.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if depth == 0 && !quoted => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn term(t: &str, vars: &mut Vec<String>) -> Term {
    let t = t.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Term::Value(Value::Int(i));
    }
    if let Some(q) = t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return Term::Value(Value::Entity(q.to_owned()));
    }
    if t.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
        let i = match vars.iter().position(|v| v == t) {
            Some(i) => i,
            None => {
                vars.push(t.to_owned());
                vars.len() - 1
            }
        };
        return Term::Var(i as u32);
    }
    Term::Value(Value::Entity(t.to_owned()))
}

fn atom(text: &str, rels: &HashMap<String, RelId>, vars: &mut Vec<String>) -> Item {
    let text = text.trim();
    for (sym, op) in [
        ("!=", CmpOp::Ne),
        ("<=", CmpOp::Le),
        (">=", CmpOp::Ge),
        ("<", CmpOp::Lt),
        (">", CmpOp::Gt),
        ("=", CmpOp::Eq),
    ] {
        if !text.contains('(') {
            if let Some((l, r)) = text.split_once(sym) {
                return Item::Cmp(term(l, vars), op, term(r, vars));
            }
        }
    }
    let (neg, text) = match text.strip_prefix('!') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (name, args) = text.split_once('(').unwrap_or((text, ")"));
    let rel = *rels
        .get(name.trim())
        .unwrap_or_else(|| panic!("undeclared relation {name}"));
    let args = split_items(args.trim_end_matches(')'))
        .iter()
        .map(|a| term(a, vars))
        .collect();
    let a = Atom { rel, args };
    if neg {
        Item::Neg(a)
    } else {
        Item::Pos(a)
    }
}

/// Rules by the stratum of their head: above every relation their bodies
/// negate, not below any they read.
fn stratify(relations: &[Relation], rules: &[Rule]) -> Vec<Vec<usize>> {
    let mut level = vec![0usize; relations.len()];
    loop {
        let mut changed = false;
        for r in rules {
            for it in &r.body {
                let need = match it {
                    Item::Pos(a) => level[a.rel.0 as usize],
                    Item::Neg(a) => level[a.rel.0 as usize] + 1,
                    Item::Cmp(..) => 0,
                };
                let h = &mut level[r.head.rel.0 as usize];
                if *h < need {
                    assert!(need <= relations.len(), "negation through recursion");
                    *h = need;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let top = rules
        .iter()
        .map(|r| level[r.head.rel.0 as usize])
        .max()
        .unwrap_or(0);
    let mut strata = vec![Vec::new(); top + 1];
    for (i, r) in rules.iter().enumerate() {
        strata[level[r.head.rel.0 as usize]].push(i);
    }
    strata
}

/// Facts written `a(x, 1). ~a(y, 2).`, and `@Thing(z)` for an entity listed
/// under `entities`.
pub(crate) fn facts(prog: &Program, text: &str) -> Facts {
    let mut f = Facts::default();
    for fact in text.split('.').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, args) = fact.split_once('(').expect("p(args)");
        let mut vars = Vec::new();
        let args: Vec<Value> = split_items(args.trim_end_matches(')'))
            .iter()
            .map(|a| match term(a, &mut vars) {
                Term::Value(v) => v,
                Term::Var(_) => Value::Entity(a.to_owned()),
            })
            .collect();
        if let Some(ty) = name.strip_prefix('@') {
            let t = prog
                .catalog
                .types
                .iter()
                .position(|t| t.name == ty)
                .expect("a type");
            for a in args {
                f.entities
                    .entry(TypeId(t as u32))
                    .or_default()
                    .insert(a.to_string());
            }
            continue;
        }
        let lit = prog.catalog.lit_of(name.trim()).expect("a predicate");
        f.rows.entry(lit).or_default().insert(args);
    }
    f
}

/// Every derived relation's tuples, one line per relation (`name: t; t`),
/// entities by name, in the order the relations were declared; relations
/// without tuples left out.
pub(crate) fn dump(prog: &Program, store: &crate::interp::Store) -> String {
    let mut out = String::new();
    for (i, r) in prog.relations.iter().enumerate() {
        if r.role != Role::Derived {
            continue;
        }
        let mut rows: Vec<String> = store
            .tuples(RelId(i as u32))
            .map(|t| {
                let vals: Vec<String> = r
                    .columns
                    .iter()
                    .zip(t)
                    .map(|(ty, v)| store.decode(*ty, *v).to_string())
                    .collect();
                format!("({})", vals.join(", "))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        rows.sort();
        out.push_str(&format!("{}: {}\n", r.name, rows.join(" ")));
    }
    out
}
