//! The facts path without names, for the differential test: each facts file of a package becomes
//! Rust code stating the same facts through the module's nameless API —
//! `Case` methods with `Type::from_index` ids, `evaluate_cases`, and
//! `Columns` — and the interpreter's output on the same facts with every
//! entity renamed to what conclusions call a nameless entity (`Type#index`,
//! constants unchanged) is what that code must print.
//!
//! The module's API is read from its source: the `Case` methods' parameter
//! types (syn), `INPUT_RELS` (which method states which relation) and
//! `CONSTANTS` (names with fixed ids, kept by name).

use lawgen::driver::{self, Loaded};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::interp::Facts;
use lawgen_runtime::program::{Lit, RelationKind, Role, Ty, TypeId, Value};
use lawgen_runtime::Policy;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// The code of one module's nameless paths and what it must print.
pub struct Nameless {
    /// `fn nameless_<module>(out: &mut impl std::io::Write)`: prints, for
    /// every facts file `k` and policy, a result headed `<module>:case k
    /// policy` (a `Case` each), `<module>:cases …` (all files through
    /// `evaluate_cases`) and `<module>:columns …` (all files as `Columns`).
    pub code: String,
    /// Per facts file, the expected output under each policy (as `policies`).
    pub expected: Vec<[String; 2]>,
}

/// The paths `Nameless::code` prints, in header order.
pub const PATHS: [&str; 3] = ["case", "cases", "columns"];

/// A `Case` method as the module declares it.
struct Method {
    /// Per parameter, its type: an entity type's ident, `i64` or `bool`.
    params: Vec<String>,
}

/// What the module's source says of its input API.
struct Api {
    methods: HashMap<String, Method>,
    /// Relation index → method.
    rels: HashMap<u32, String>,
    constants: Vec<String>,
}

fn read_api(source: &str) -> Result<Api, String> {
    let file = syn::parse_file(source).map_err(|e| format!("the module does not parse: {e}"))?;
    let mut methods = HashMap::new();
    let mut constants = Vec::new();
    let mut rels = HashMap::new();
    for item in &file.items {
        match item {
            syn::Item::Impl(i) if i.trait_.is_none() => {
                let syn::Type::Path(p) = &*i.self_ty else {
                    continue;
                };
                if !p.path.is_ident("Case") {
                    continue;
                }
                for it in &i.items {
                    let syn::ImplItem::Fn(f) = it else { continue };
                    let params = f
                        .sig
                        .inputs
                        .iter()
                        .filter_map(|a| match a {
                            syn::FnArg::Typed(t) => Some(tokens(&*t.ty)),
                            syn::FnArg::Receiver(_) => None,
                        })
                        .collect();
                    methods.insert(f.sig.ident.to_string(), Method { params });
                }
            }
            syn::Item::Static(s) if s.ident == "CONSTANTS" => {
                collect_strings(&s.expr, &mut constants)
            }
            syn::Item::Static(s) if s.ident == "INPUT_RELS" => {
                // `&[__rt::InputRel { rel: 7u32, method: "player_of", … }, …]`
                for e in elements(&s.expr) {
                    let syn::Expr::Struct(e) = e else {
                        return Err(format!("INPUT_RELS: not a struct: `{}`", tokens(e)));
                    };
                    let field = |name: &str| {
                        e.fields
                            .iter()
                            .find(|f| matches!(&f.member, syn::Member::Named(m) if m == name))
                            .map(|f| &f.expr)
                            .ok_or_else(|| format!("INPUT_RELS: no `{name}` in `{}`", tokens(e)))
                    };
                    let rel = match field("rel")? {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(i),
                            ..
                        }) => i.base10_parse::<u32>().map_err(|e| e.to_string())?,
                        x => return Err(format!("INPUT_RELS: `rel: {}`", tokens(x))),
                    };
                    let method = match field("method")? {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(m),
                            ..
                        }) => m.value(),
                        x => return Err(format!("INPUT_RELS: `method: {}`", tokens(x))),
                    };
                    rels.insert(rel, method);
                }
            }
            _ => {}
        }
    }
    if methods.is_empty() {
        return Err("the module has no `impl Case`".into());
    }
    Ok(Api {
        methods,
        rels,
        constants,
    })
}

/// The elements of `&[a, b, …]` (or `[a, b, …]`).
fn elements(e: &syn::Expr) -> Vec<&syn::Expr> {
    match e {
        syn::Expr::Reference(r) => elements(&r.expr),
        syn::Expr::Array(a) => a.elems.iter().collect(),
        _ => Vec::new(),
    }
}

/// The string literals of `&[…]`.
fn collect_strings(e: &syn::Expr, out: &mut Vec<String>) {
    for x in elements(e) {
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = x
        {
            out.push(s.value());
        }
    }
}

fn tokens(t: &impl quote::ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// One argument of a call, as Rust code.
fn int_code(v: i64) -> String {
    match v {
        i64::MIN => "i64::MIN".into(),
        v if v < 0 => format!("({v}i64)"),
        v => format!("{v}i64"),
    }
}

/// A statement of one facts file: the method and its arguments' code
/// (a decision's last one is `holds`).
struct Call {
    method: String,
    args: Vec<String>,
}

/// The nameless paths of `module` (its source `source`) on `facts`; the
/// rows of `Columns` are given in reverse order of files when `shuffle`
/// (so that the case column is not in case order).
pub fn nameless(
    loaded: &Loaded,
    module: &str,
    source: &str,
    facts: &[Vec<u8>],
    policies: [Policy; 2],
    shuffle: bool,
) -> Result<Nameless, String> {
    let api = read_api(source)?;
    let cat = &loaded.catalog;
    let empty = Facts::default();
    let program = driver::evaluate(loaded, &empty, Policy::Blocking)
        .map_err(|e| format!("lowering: {e:?}"))?
        .program;
    // Relation of each input literal and entity type.
    let mut lit_rel: HashMap<Lit, u32> = HashMap::new();
    let mut type_rel: HashMap<TypeId, u32> = HashMap::new();
    for (i, r) in program.relations.iter().enumerate() {
        match &r.role {
            Role::Facts(l) => {
                lit_rel.insert(*l, i as u32);
            }
            Role::Entities(Ty::Entity(t)) => {
                type_rel.insert(*t, i as u32);
            }
            _ => {}
        }
    }
    let type_names: Vec<&str> = cat.types.iter().map(|t| t.name.as_str()).collect();
    let const_names: Vec<&str> = api.constants.iter().map(String::as_str).collect();
    let sep = lawgen_runtime::__private::Nameless::separator(&const_names, &type_names);
    let method_of = |rel: u32| -> Result<&Method, String> {
        let name = api
            .rels
            .get(&rel)
            .ok_or_else(|| format!("no method states relation {rel}"))?;
        api.methods
            .get(name)
            .ok_or_else(|| format!("INPUT_RELS names `{name}`, which `Case` lacks"))
    };

    let mut files: Vec<Vec<Call>> = Vec::new();
    let mut dates = Vec::new();
    let mut expected = Vec::new();
    for (k, bytes) in facts.iter().enumerate() {
        let f = read_facts(bytes, cat).map_err(|d| format!("facts{k}: {}", d.render()))?;
        // Each type's entities numbered in order of first appearance.
        let mut index: BTreeMap<(TypeId, String), u32> = BTreeMap::new();
        let mut counts: HashMap<TypeId, u32> = HashMap::new();
        let mut entity = |t: TypeId, name: &str, ty_ident: &str| -> (Value, String) {
            if api.constants.iter().any(|c| c == name) {
                return (
                    Value::Entity(name.to_owned()),
                    format!("k.get::<{module}::{ty_ident}>({name:?}).unwrap()"),
                );
            }
            let i = *index.entry((t, name.to_owned())).or_insert_with(|| {
                let n = counts.entry(t).or_default();
                *n += 1;
                *n - 1
            });
            (
                Value::Entity(format!("{}{sep}{i}", cat.types[t.0 as usize].name)),
                format!("{module}::{ty_ident}::from_index({i})"),
            )
        };
        // The file's date: the case's, through `Case::as_of` (and
        // `Columns::as_of`).
        let mut renamed = Facts {
            as_of: f.as_of,
            ..Facts::default()
        };
        dates.push(f.as_of);
        let mut calls = Vec::new();
        for (lit, rows) in &f.rows {
            let Some(&rel) = lit_rel.get(lit) else {
                continue;
            };
            let m = method_of(rel)?;
            let pred = cat.pred(lit.pred);
            let decision = pred.kind == RelationKind::Judgment;
            let set = renamed.rows.entry(*lit).or_default();
            for row in rows {
                let mut values = Vec::new();
                let mut args = Vec::new();
                for (j, v) in row.iter().enumerate() {
                    match (v, pred.params[j]) {
                        (Value::Int(x), _) => {
                            values.push(Value::Int(*x));
                            args.push(int_code(*x));
                        }
                        (Value::Entity(name), Ty::Entity(t)) => {
                            let (v, code) = entity(t, name, &m.params[j]);
                            values.push(v);
                            args.push(code);
                        }
                        (Value::Entity(_), Ty::Int) => {
                            return Err(format!("facts{k}: an entity in an integer column"))
                        }
                    }
                }
                set.insert(values);
                if decision {
                    args.push((!lit.negative).to_string());
                }
                calls.push(Call {
                    method: api.rels[&rel].clone(),
                    args,
                });
            }
        }
        for (t, names) in &f.entities {
            let Some(&rel) = type_rel.get(t) else {
                continue;
            };
            let m = method_of(rel)?;
            let set = renamed.entities.entry(*t).or_default();
            for name in names {
                let (v, code) = entity(*t, name, &m.params[0]);
                if let Value::Entity(n) = v {
                    set.insert(n);
                }
                calls.push(Call {
                    method: api.rels[&rel].clone(),
                    args: vec![code],
                });
            }
        }
        let mut both: [String; 2] = Default::default();
        for (slot, policy) in both.iter_mut().zip(policies) {
            let c = driver::evaluate(loaded, &renamed, policy)
                .map_err(|e| format!("lowering: {e:?}"))?
                .conclusions;
            *slot = canonical_json(&c);
        }
        expected.push(both);
        files.push(calls);
    }

    // The code: a fill function per file, then the three paths.
    let n = files.len();
    let mut code = String::new();
    for (k, calls) in files.iter().enumerate() {
        let _ = writeln!(
            code,
            "#[allow(unused_variables)]\nfn fill_{module}_{k}(k: &{module}::Facts, c: &mut {module}::Case) {{"
        );
        if let Some(d) = dates[k] {
            let _ = writeln!(
                code,
                "    c.as_of(lawgen_runtime::__private::Date({})).unwrap();",
                d.0
            );
        }
        for call in calls {
            let _ = writeln!(code, "    c.{}({});", call.method, call.args.join(", "));
        }
        code.push_str("}\n");
    }
    // Columns: per method, its rows over all files.
    let mut columns: BTreeMap<&str, Vec<(usize, &Call)>> = BTreeMap::new();
    let order: Vec<usize> = if shuffle {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for &k in &order {
        for call in &files[k] {
            columns.entry(&call.method).or_default().push((k, call));
        }
    }
    let fills: Vec<String> = (0..n).map(|k| format!("fill_{module}_{k}")).collect();
    let _ = writeln!(
        code,
        "fn nameless_{module}(out: &mut impl std::io::Write) {{\n    \
         let k = {module}::Facts::new();\n    \
         let fills: [fn(&{module}::Facts, &mut {module}::Case); {n}] = [{}];\n    \
         let render = |r: Result<{module}::Conclusions, lawgen_runtime::Error>| match r {{\n        \
             Ok(c) => c.to_json().out(),\n        \
             Err(e) => format!(\"ERROR evaluate: {{e}}\\n\"),\n    \
         }};",
        fills.join(", ")
    );
    let mut fields = Vec::new();
    for (f, (method, rows)) in columns.iter().enumerate() {
        let m = &api.methods[*method];
        let cases: Vec<String> = rows.iter().map(|(k, _)| format!("{k}u32")).collect();
        let mut cols = vec![format!("vec![{}]", cases.join(", "))];
        for j in 0..m.params.len() {
            let vals: Vec<String> = rows.iter().map(|(_, c)| c.args[j].clone()).collect();
            let ty = match m.params[j].as_str() {
                "i64" | "bool" => m.params[j].clone(),
                t => format!("{module}::{t}"),
            };
            cols.push(format!(
                "{{ let v: Vec<{ty}> = vec![{}]; v }}",
                vals.join(", ")
            ));
        }
        let _ = writeln!(code, "    let f{f} = ({},);", cols.join(", "));
        let refs: Vec<String> = (0..=m.params.len())
            .map(|j| format!("&f{f}.{j}[..]"))
            .collect();
        fields.push(format!("{method}: ({},)", refs.join(", ")));
    }
    // One date per case when some file has one (the others as of the
    // package's current date, which is what they mean).
    if dates.iter().any(Option::is_some) {
        let each: Vec<String> = dates
            .iter()
            .map(|d| {
                let d = d.or(cat.law.current()).map_or(0, |d| d.0);
                format!("lawgen_runtime::__private::Date({d})")
            })
            .collect();
        fields.push(format!("as_of: &[{}]", each.join(", ")));
    }
    let _ = writeln!(
        code,
        "    let columns = {module}::Columns {{ {}{}..{module}::Columns::default() }};",
        fields.join(", "),
        if fields.is_empty() { "" } else { ", " }
    );
    let _ = writeln!(
        code,
        "    for (policy, pname) in [(lawgen_runtime::Policy::{:?}, {:?}), (lawgen_runtime::Policy::{:?}, {:?})] {{\n        \
             for (i, fill) in fills.iter().enumerate() {{\n            \
                 let mut c = {module}::Case::new();\n            \
                 fill(&k, &mut c);\n            \
                 write!(out, \"\\u{{1e}}{module}:case {{i}} {{pname}}\\n{{}}\", render(c.evaluate(policy))).unwrap();\n        \
             }}\n        \
             let mut got = vec![String::new(); {n}];\n        \
             {module}::evaluate_cases({n}, policy, &lawgen_runtime::Batching {{ batch_size: 3, threads: 2 }}, |i, c| fills[i](&k, c), |_, r| render(r), |i, s| got[i] = s);\n        \
             for (i, s) in got.iter().enumerate() {{\n            \
                 write!(out, \"\\u{{1e}}{module}:cases {{i}} {{pname}}\\n{{s}}\").unwrap();\n        \
             }}\n        \
             let mut got = vec![String::new(); {n}];\n        \
             match {module}::evaluate_columns({n}, &columns, policy, &lawgen_runtime::Batching {{ batch_size: 2, threads: 1 }}, |_, r| render(r), |i, s| got[i] = s) {{\n            \
                 Ok(()) => {{}}\n            \
                 Err(e) => got = vec![format!(\"ERROR evaluate_columns: {{e}}\\n\"); {n}],\n        \
             }}\n        \
             for (i, s) in got.iter().enumerate() {{\n            \
                 write!(out, \"\\u{{1e}}{module}:columns {{i}} {{pname}}\\n{{s}}\").unwrap();\n        \
             }}\n    \
         }}\n}}",
        policies[0],
        policy_name(policies[0]),
        policies[1],
        policy_name(policies[1]),
    );
    Ok(Nameless { code, expected })
}

fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Blocking => "blocking",
        Policy::Propagating => "propagating",
    }
}
