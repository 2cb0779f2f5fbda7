//! Package JSON → text form. Every node is printed, read back with the
//! parser, and compared with the node it came from (hashes recomputed);
//! a node the statements cannot express exactly is written as a raw
//! `node {…}` statement instead, so printing never loses a field.

use super::lex::is_ident;
use super::spec::{self, reserved, KindSpec, Val};
use super::{parse::parse_node, quote, rehash_node, Comments, Ctx, INTEGER};
use crate::syntax::hash::canonical_json;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};
use std::fmt;

/// Why a JSON document has no text form.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PrintError {
    /// The document is not a JSON object.
    NotAnObject,
    /// The document has no `nodes` array.
    NoNodes,
}

impl fmt::Display for PrintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrintError::NotAnObject => {
                write!(
                    f,
                    "the document is not a rule package: it is not a JSON object"
                )
            }
            PrintError::NoNodes => write!(
                f,
                "the document is not a rule package: it has no `nodes` array"
            ),
        }
    }
}

impl std::error::Error for PrintError {}

/// Prints a package in the text form (what the round-trip tests print).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn print(package: &Value) -> Result<String, PrintError> {
    print_with_comments(package, &Comments::default())
}

/// Prints a package in the text form with the comments of a parsed file
/// (`lawgen fmt` on a `.law` file keeps them).
pub fn print_with_comments(package: &Value, comments: &Comments) -> Result<String, PrintError> {
    let top = package.as_object().ok_or(PrintError::NotAnObject)?;
    let nodes = top
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or(PrintError::NoNodes)?;
    let mut ctx = Ctx {
        ns: top
            .get("package")
            .and_then(|p| p.get("namespace"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        ..Ctx::default()
    };
    let mut out = String::new();
    for c in &comments.header {
        out.push_str(&format!("//{c}\n"));
    }
    // Header statements.
    match top.get("schemaVersion") {
        Some(Value::String(s)) => out.push_str(&format!("schema {}\n", quote(s))),
        Some(v) => out.push_str(&format!("set schemaVersion = {}\n", canonical_json(v))),
        None => {}
    }
    match top.get("package") {
        Some(Value::Object(p)) if p.get("name").is_some_and(Value::is_string) => {
            out.push_str(&format!("package{}\n", header_fields(p)));
        }
        Some(v) => out.push_str(&format!("set package = {}\n", canonical_json(v))),
        None => {}
    }
    for (k, v) in top {
        if !matches!(
            k.as_str(),
            "schemaVersion" | "package" | "imports" | "nodes"
        ) {
            out.push_str(&format!("set {} = {}\n", key(k), canonical_json(v)));
        }
    }
    match top.get("imports") {
        Some(Value::Array(list))
            if !list.is_empty()
                && list
                    .iter()
                    .all(|i| i.get("name").is_some_and(Value::is_string) && i.is_object()) =>
        {
            for i in list {
                let m = i.as_object().expect("checked to be an object");
                out.push_str(&format!("import{}\n", header_fields(m)));
            }
        }
        Some(v) => out.push_str(&format!("set imports = {}\n", canonical_json(v))),
        None => {}
    }
    choose_defaults(&mut ctx, nodes);
    if let Some(p) = &ctx.package {
        out.push_str(&format!("default package {}\n", canonical_json(p)));
    }
    if let Some(l) = &ctx.label {
        out.push_str(&format!(
            "default label {}\n",
            canonical_json(&Value::Object(l.clone()))
        ));
    }
    if let Some(t) = &ctx.text {
        out.push_str(&format!(
            "default text {}\n",
            canonical_json(&Value::Object(t.clone()))
        ));
    }
    if ctx.param_ids {
        out.push_str("default parameter_ids true\n");
    }
    for (i, n) in nodes.iter().enumerate() {
        out.push('\n');
        if let Some(cs) = comments.nodes.get(&i) {
            for c in cs {
                out.push_str(&format!("//{c}\n"));
            }
        }
        out.push_str(&node(n, &ctx));
    }
    if !comments.trailing.is_empty() {
        out.push('\n');
        for c in &comments.trailing {
            out.push_str(&format!("//{c}\n"));
        }
    }
    Ok(out)
}

/// ` "name" version "…" namespace "…" semantic_hash "…"` and `with` lines
/// for the other fields, as the `package` and `import` statements write them.
fn header_fields(m: &Map<String, Value>) -> String {
    let mut s = format!(" {}", quote(m["name"].as_str().unwrap_or_default()));
    let mut withs = String::new();
    for (k, v) in m {
        let kw = match k.as_str() {
            "name" => continue,
            "version" => "version",
            "namespace" => "namespace",
            "semanticHash" => "semantic_hash",
            _ => "",
        };
        match v {
            Value::String(v) if !kw.is_empty() => s.push_str(&format!(" {kw} {}", quote(v))),
            _ => withs.push_str(&format!("\n  with {} = {}", key(k), canonical_json(v))),
        }
    }
    s + &withs
}

/// A JSON key as the text form writes it.
fn key(k: &str) -> String {
    if is_ident(k) && !reserved(k) {
        k.to_owned()
    } else {
        quote(k)
    }
}

/// The most common value, if it is shared by more than half of `total`.
fn majority<T: Ord + Clone>(items: impl Iterator<Item = T>, total: usize) -> Option<T> {
    let mut counts: BTreeMap<T, usize> = BTreeMap::new();
    for i in items {
        *counts.entry(i).or_default() += 1;
    }
    let (v, c) = counts.into_iter().max_by_key(|(_, c)| *c)?;
    (c * 2 > total).then_some(v)
}

/// Picks the `default` statements that make the most nodes shortest.
fn choose_defaults(ctx: &mut Ctx, nodes: &[Value]) {
    let objs: Vec<&Map<String, Value>> = nodes.iter().filter_map(Value::as_object).collect();
    ctx.package = majority(
        objs.iter()
            .filter_map(|n| n.get("package"))
            .map(canonical_json),
        objs.len(),
    )
    .and_then(|s| serde_json::from_str(&s).ok());
    let attrs = |list: Option<&Value>, drop: &[&str]| -> Vec<String> {
        list.and_then(Value::as_array)
            .map(|ls| {
                ls.iter()
                    .filter_map(Value::as_object)
                    .map(|l| {
                        let mut a = l.clone();
                        for d in drop {
                            a.remove(*d);
                        }
                        canonical_json(&Value::Object(a))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let labels: Vec<String> = objs
        .iter()
        .flat_map(|n| attrs(n.get("labels"), &["text"]))
        .collect();
    let n = labels.len();
    // An empty default says nothing: leave it out.
    let object = |s: String| -> Option<Map<String, Value>> {
        serde_json::from_str::<Map<String, Value>>(&s)
            .ok()
            .filter(|m| !m.is_empty())
    };
    ctx.label = majority(labels.into_iter(), n).and_then(object);
    let texts: Vec<String> = objs
        .iter()
        .flat_map(|n| attrs(n.get("texts"), &["text", "contentHash"]))
        .collect();
    let n = texts.len();
    ctx.text = majority(texts.into_iter(), n).and_then(object);
    let (mut with_ids, mut named) = (0, 0);
    for n in &objs {
        let (Some(id), Some(Value::Array(ps))) =
            (n.get("id").and_then(Value::as_str), n.get("parameters"))
        else {
            continue;
        };
        for p in ps {
            if let Some(name) = p.get("name").and_then(Value::as_str) {
                named += 1;
                if p.get("id").and_then(Value::as_str) == Some(&format!("{id}/arg/{name}")) {
                    with_ids += 1;
                }
            }
        }
    }
    ctx.param_ids = with_ids * 2 > named;
}

/// One node statement, checked by reading it back; a raw `node` if the
/// statement would not give the same node.
fn node(n: &Value, ctx: &Ctx) -> String {
    let mut expected = n.clone();
    if let Value::Object(m) = &mut expected {
        rehash_node(m);
    }
    if let Some(m) = n.as_object() {
        if let Some(text) = structured(m, ctx) {
            if parse_node(&text, ctx).as_ref() == Some(&expected) {
                return text;
            }
        }
    }
    raw(n)
}

fn raw(n: &Value) -> String {
    match n {
        Value::Object(m) => {
            let mut m = m.clone();
            let hashed = m.remove("contentHash").is_some();
            format!(
                "node {}{}\n",
                canonical_json(&Value::Object(m)),
                if hashed { "" } else { " unhashed" }
            )
        }
        other => format!("node {}\n", canonical_json(other)),
    }
}

/// `kind` of a term/literal/item object with exactly `keys`.
fn exact<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Map<String, Value>> {
    let m = v.as_object()?;
    (m.len() == keys.len() && keys.iter().all(|k| m.contains_key(*k))).then_some(m)
}

fn const_ref(v: &Value) -> Option<&str> {
    let m = exact(v, &["kind", "id"])?;
    (m["kind"] == "const_ref").then_some(())?;
    m["id"].as_str()
}

fn type_ref(v: &Value) -> Option<&str> {
    exact(v, &["name"])?["name"].as_str()
}

/// A word (strength, relation kind) bare when it can be, else quoted.
fn word(s: &str) -> String {
    key(s)
}

struct Rule<'a> {
    ctx: &'a Ctx,
    vars: HashSet<&'a str>,
}

impl Rule<'_> {
    fn term(&self, t: &Value) -> Option<String> {
        let kind = t.get("kind")?.as_str()?;
        match kind {
            "var" => {
                let v = exact(t, &["kind", "var"])?["var"].as_str()?;
                Some(if self.vars.contains(v) && is_ident(v) && !reserved(v) {
                    v.to_owned()
                } else {
                    format!("?{}", key(v))
                })
            }
            "const_ref" => {
                let id = const_ref(t)?;
                let n = self.ctx.name(id);
                Some(if self.vars.contains(n.as_str()) {
                    quote(id)
                } else {
                    n
                })
            }
            "value" => {
                let m = exact(t, &["kind", "type", "value"])?;
                let ty = type_ref(&m["type"])?;
                let v = &m["value"];
                match v.as_i64() {
                    Some(i) if ty == INTEGER && v.is_i64() => Some(i.to_string()),
                    _ => Some(format!(
                        "value({}, {})",
                        self.ctx.name(ty),
                        canonical_json(v)
                    )),
                }
            }
            _ => None,
        }
    }

    fn literal(&self, l: &Value) -> Option<String> {
        let m = exact(l, &["kind", "predicate", "polarity", "args"])?;
        (m["kind"] == "literal").then_some(())?;
        let neg = match m["polarity"].as_str()? {
            "positive" => "",
            "negative" => "~",
            _ => return None,
        };
        let args: Option<Vec<String>> =
            m["args"].as_array()?.iter().map(|a| self.term(a)).collect();
        Some(format!(
            "{neg}{}({})",
            self.ctx.name(m["predicate"].as_str()?),
            args?.join(", ")
        ))
    }

    fn status_item(&self, i: &Value) -> Option<String> {
        let m = exact(i, &["kind", "status", "formula"])?;
        (m["kind"] == "status").then_some(())?;
        let lit = self.literal(&m["formula"])?;
        match m["status"].as_str()? {
            "established" => Some(lit),
            "supported" => Some(format!("supported {lit}")),
            _ => None,
        }
    }

    fn item(&self, i: &Value) -> Option<String> {
        match i.get("kind")?.as_str()? {
            "status" => self.status_item(i),
            "not" => {
                let m = exact(i, &["kind", "item"])?;
                Some(format!("not {}", self.status_item(&m["item"])?))
            }
            "comparison" => {
                let m = exact(i, &["kind", "left", "op", "right"])?;
                let op = match m["op"].as_str()? {
                    "eq" => "=",
                    "ne" => "!=",
                    "lt" => "<",
                    "le" => "<=",
                    "gt" => ">",
                    "ge" => ">=",
                    _ => return None,
                };
                Some(format!(
                    "{} {op} {}",
                    self.term(&m["left"])?,
                    self.term(&m["right"])?
                ))
            }
            _ => None,
        }
    }

    /// The body: items, and whether it is an `and` of two or more.
    fn body(&self, b: &Value) -> Option<(Vec<String>, bool)> {
        if b.get("kind").and_then(Value::as_str) == Some("and") {
            let m = exact(b, &["kind", "items"])?;
            let items: Option<Vec<String>> = m["items"]
                .as_array()?
                .iter()
                .map(|i| self.item(i))
                .collect();
            let items = items?;
            if items.len() >= 2 {
                Some((items, true))
            } else {
                Some((vec![format!("and[{}]", items.join(", "))], false))
            }
        } else {
            Some((vec![self.item(b)?], false))
        }
    }
}

/// The statement for a node, if its kind has one (not yet checked).
fn structured(m: &Map<String, Value>, ctx: &Ctx) -> Option<String> {
    let kind = m.get("kind")?.as_str()?;
    let sk = m.get("symbolKind").and_then(Value::as_str);
    let spec: &KindSpec = spec::spec_for(kind, sk)?;
    let id = m.get("id")?.as_str()?;
    let local = id.split_once('#').map_or(id, |(_, l)| l);
    let defaults: BTreeMap<&str, Value> = spec::defaults(spec, id, local).into_iter().collect();
    let mut used: HashSet<&str> = ["id", "kind", "contentHash"].into_iter().collect();
    let name = ctx.name(id);
    let mut out = String::new();
    let mut vars = HashSet::new();
    let mut var_clause = None;
    if spec.kw == "rule" {
        if let Some(Value::Array(vs)) = m.get("variables") {
            let decls: Option<Vec<(&str, &str)>> = vs
                .iter()
                .map(|v| {
                    let o = exact(v, &["id", "type"])?;
                    Some((o["id"].as_str()?, type_ref(&o["type"])?))
                })
                .collect();
            if let Some(decls) = decls {
                vars = decls.iter().map(|(n, _)| *n).collect();
                let list: Vec<String> = decls
                    .iter()
                    .map(|(n, t)| format!("{}: {}", key(n), ctx.name(t)))
                    .collect();
                var_clause = Some(format!("  vars [{}]\n", list.join(", ")));
                used.insert("variables");
            }
        }
    }
    let rule = Rule { ctx, vars };
    match spec.kw {
        "relation" => {
            let rk = m.get("relationKind")?.as_str()?;
            used.insert("relationKind");
            out.push_str(&format!("relation {} {name}", word(rk)));
            if let Some(Value::Array(ps)) = m.get("parameters") {
                let params: Option<Vec<String>> = ps.iter().map(|p| param(p, id, ctx)).collect();
                if let Some(params) = params {
                    out.push_str(&format!("({})", params.join(", ")));
                    used.insert("parameters");
                }
            }
            out.push('\n');
        }
        "constant" => {
            let ty = type_ref(m.get("returnType")?)?;
            used.insert("returnType");
            out.push_str(&format!("constant {name}: {}\n", ctx.name(ty)));
        }
        "rule" => {
            let strength = m.get("strength")?.as_str()?;
            let head = rule.literal(m.get("head")?)?;
            used.extend(["strength", "head"]);
            out.push_str(&format!("rule {name} {}\n", word(strength)));
            match m.get("body") {
                None => out.push_str(&format!("  {head}\n")),
                Some(b) => {
                    let (items, _) = rule.body(b)?;
                    used.insert("body");
                    let one = format!("  {head} :- {}", items.join(", "));
                    if one.chars().count() <= 100 {
                        out.push_str(&one);
                        out.push('\n');
                    } else {
                        out.push_str(&format!("  {head} :-\n      {}\n", items.join(",\n      ")));
                    }
                }
            }
        }
        "priority" => {
            let hi = const_ref(m.get("higher")?)?;
            let lo = const_ref(m.get("lower")?)?;
            used.extend(["higher", "lower"]);
            out.push_str(&format!(
                "priority {name}: {} > {}\n",
                ctx.name(hi),
                ctx.name(lo)
            ));
        }
        "derogation" => {
            let rules: Option<Vec<String>> = m
                .get("rules")?
                .as_array()?
                .iter()
                .map(|r| -> Option<String> {
                    let o = exact(r, &["kind", "id"])?;
                    if o["kind"] != "rule_ref" {
                        return None;
                    }
                    Some(ctx.name(o["id"].as_str()?))
                })
                .collect();
            used.insert("rules");
            out.push_str(&format!("derogation {name}: [{}]\n", rules?.join(", ")));
        }
        "closure" => {
            let p = m.get("predicate")?.as_str()?;
            let d = const_ref(m.get("domain")?)?;
            used.extend(["predicate", "domain"]);
            out.push_str(&format!(
                "closure {name}: {} over {}\n",
                ctx.name(p),
                ctx.name(d)
            ));
        }
        "external" => {
            let s = m.get("symbol")?.as_str()?;
            used.insert("symbol");
            out.push_str(&format!("external {name}: {}\n", ctx.name(s)));
        }
        "edition" | "publication" => {
            let k = if spec.kw == "edition" {
                "work"
            } else {
                "edition"
            };
            let of = m.get(k)?.as_str()?;
            used.insert(k);
            out.push_str(&format!("{} {name} of {}\n", spec.kw, ctx.name(of)));
        }
        kw => out.push_str(&format!("{kw} {name}\n")),
    }
    if let Some(v) = var_clause {
        out.push_str(&v);
    }
    // `name`, when it is not the id's local part.
    if let Some(v) = m.get("name") {
        used.insert("name");
        if defaults.get("name") != Some(v) {
            match v {
                Value::String(s) => out.push_str(&format!("  name {}\n", quote(s))),
                _ => {
                    used.remove("name");
                }
            }
        }
    }
    for f in spec.fields {
        if f.kw == "vars" {
            continue;
        }
        let Some(v) = m.get(f.key) else { continue };
        if defaults.get(f.key) == Some(v) {
            used.insert(f.key);
            continue;
        }
        if let Some(text) = field(f.val, v, ctx) {
            out.push_str(&format!("  {} {text}\n", f.kw));
            used.insert(f.key);
        }
    }
    for (k, v) in &defaults {
        if m.get(*k) == Some(v) {
            used.insert(k);
        }
    }
    if let Some(Value::Array(ls)) = m.get("labels") {
        if !ls.is_empty() {
            if let Some(text) = labels(ls, ctx.label.as_ref(), false) {
                out.push_str(&text);
                used.insert("labels");
            }
        }
    }
    if let Some(Value::Array(ts)) = m.get("texts") {
        if !ts.is_empty() {
            if let Some(text) = labels(ts, ctx.text.as_ref(), true) {
                out.push_str(&text);
                used.insert("texts");
            }
        }
    }
    match (m.get("package"), &ctx.package) {
        (Some(p), Some(d)) if p == d => {
            used.insert("package");
        }
        (None, Some(_)) => out.push_str("  without package\n"),
        _ => {}
    }
    for (k, v) in m {
        if !used.contains(k.as_str()) {
            out.push_str(&format!("  with {} = {}\n", key(k), canonical_json(v)));
        }
    }
    for k in defaults.keys() {
        if !m.contains_key(*k) {
            out.push_str(&format!("  without {}\n", key(k)));
        }
    }
    if !m.contains_key("contentHash") {
        out.push_str("  unhashed\n");
    }
    Some(out)
}

fn param(p: &Value, rel_id: &str, ctx: &Ctx) -> Option<String> {
    let m = p.as_object()?;
    let ty = ctx.name(type_ref(m.get("type")?)?);
    match m.get("name") {
        None => (m.len() == 1).then_some(ty),
        Some(n) => {
            let n = n.as_str()?;
            let id_ok = match m.get("id") {
                Some(id) => ctx.param_ids && id.as_str() == Some(&format!("{rel_id}/arg/{n}")),
                None => !ctx.param_ids,
            };
            let keys = if m.contains_key("id") { 3 } else { 2 };
            (id_ok && m.len() == keys).then(|| format!("{}: {ty}", key(n)))
        }
    }
}

fn field(val: Val, v: &Value, ctx: &Ctx) -> Option<String> {
    match val {
        Val::Str => Some(quote(v.as_str()?)),
        Val::Id => Some(ctx.name(v.as_str()?)),
        Val::ConstRef => Some(ctx.name(const_ref(v)?)),
        Val::Authority => Some(ctx.name(exact(v, &["authority"])?["authority"].as_str()?)),
        Val::Bool => Some(v.as_bool()?.to_string()),
        Val::IdList => {
            let ids: Option<Vec<String>> = v
                .as_array()?
                .iter()
                .map(|i| Some(ctx.name(i.as_str()?)))
                .collect();
            Some(format!("[{}]", ids?.join(", ")))
        }
        Val::Json => Some(canonical_json(v)),
    }
}

/// `label` (or `text`) clauses for a list of label objects.
fn labels(list: &[Value], default: Option<&Map<String, Value>>, texts: bool) -> Option<String> {
    let kw = if texts { "text" } else { "label" };
    let mut out = String::new();
    for l in list {
        let m = l.as_object()?;
        let text = m.get("text")?.as_str()?;
        let mut attrs = m.clone();
        attrs.remove("text");
        let hashed = attrs.remove("contentHash").is_some();
        if !texts && hashed {
            // A label's own `contentHash` is data, not computed: keep it raw.
            return None;
        }
        out.push_str(&format!("  {kw}"));
        if texts && !hashed {
            out.push_str(" unhashed");
        }
        let is_default = match default {
            Some(d) => *d == attrs,
            None => attrs.is_empty(),
        };
        if !is_default {
            out.push_str(&format!(" {}", canonical_json(&Value::Object(attrs))));
        }
        match block(text) {
            Some(b) => out.push_str(&format!(" \"\"\"\n{b}    \"\"\"\n")),
            None => out.push_str(&format!(" {}\n", quote(text))),
        }
    }
    Some(out)
}

/// A text of several lines as the lines of a `"""` block (indented by four),
/// when the block reads back as exactly the text.
fn block(text: &str) -> Option<String> {
    if !text.contains('\n')
        || text.contains("\"\"\"")
        || text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        || text
            .lines()
            .any(|l| l.ends_with([' ', '\t']) || l.starts_with("\"\"\""))
    {
        return None;
    }
    let mut out = String::new();
    for line in text.split('\n') {
        if line.trim_start_matches(' ').starts_with("\"\"\"") {
            return None;
        }
        if !line.is_empty() {
            out.push_str("    ");
            out.push_str(line);
        }
        out.push('\n');
    }
    Some(out)
}
