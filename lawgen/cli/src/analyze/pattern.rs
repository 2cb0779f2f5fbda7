//! Literal patterns and goals: `game_lost_by(G, _)`, `~castling_legal(g1,
//! P, S)`, `entered_state(G, Ended), not game_drawn(G)`.
//!
//! An argument is `_` (any value, each occurrence its own), an integer, a
//! quoted entity name, or a bare name: a constant of the column's type if
//! the package has one of that name (`Ended`), else a variable if it starts
//! with an upper-case letter (`G`), else the name of an entity (`g1`).
//! Variables shared by literals must take one value in all of them.

use super::domain::Named;
use lawgen_runtime::program::{Catalog, CmpOp, Lit, Section, Ty, Value};
use std::collections::BTreeMap;

/// One argument of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PArg {
    Var(String),
    Any,
    Value(Value),
}

/// `p(args)` or `~p(args)` with variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub lit: Lit,
    pub args: Vec<PArg>,
}

/// A conjunction of patterns, each possibly under `not`, and comparisons
/// of their variables, at one level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goal {
    /// `(negated, pattern)`.
    pub items: Vec<(bool, Pattern)>,
    /// `X != Y`, `N >= 75`: every variable bound by a positive item; the
    /// type both sides have.
    pub cmps: Vec<(PArg, CmpOp, PArg, Ty)>,
    /// The section of the canonical output each literal is read from.
    pub section: Section,
}

impl Goal {
    /// The goal as text, as it parses back.
    pub fn show(&self, cat: &Catalog) -> String {
        let arg = |a: &PArg| match a {
            PArg::Var(v) => v.clone(),
            PArg::Any => "_".into(),
            PArg::Value(Value::Int(i)) => i.to_string(),
            PArg::Value(Value::Entity(e)) => format!("{e:?}"),
        };
        self.items
            .iter()
            .map(|(neg, p)| {
                let lit = show_pattern(cat, p);
                if *neg {
                    format!("not {lit}")
                } else {
                    lit
                }
            })
            .chain(
                self.cmps
                    .iter()
                    .map(|(a, op, b, _)| format!("{} {} {}", arg(a), op_text(*op), arg(b))),
            )
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Variables in order of first occurrence in a positive item.
    pub fn bound_vars(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (neg, p) in &self.items {
            if *neg {
                continue;
            }
            for a in &p.args {
                if let PArg::Var(v) = a {
                    if !out.contains(v) {
                        out.push(v.clone());
                    }
                }
            }
        }
        out
    }

    /// Adds the goal's entities and integers to `named`.
    pub fn name_values(&self, cat: &Catalog, named: &mut Named) {
        for (a, _, b, ty) in &self.cmps {
            for x in [a, b] {
                match (x, ty) {
                    (PArg::Value(Value::Int(i)), _) => {
                        named.ints.insert(*i);
                    }
                    (PArg::Value(Value::Entity(e)), Ty::Entity(t)) => {
                        named
                            .entities
                            .insert((cat.types[t.0 as usize].id.clone(), e.clone()));
                    }
                    _ => {}
                }
            }
        }
        for (_, p) in &self.items {
            let params = &cat.pred(p.lit.pred).params;
            for (a, ty) in p.args.iter().zip(params) {
                match (a, ty) {
                    (PArg::Value(Value::Int(i)), _) => {
                        named.ints.insert(*i);
                    }
                    (PArg::Value(Value::Entity(e)), Ty::Entity(t)) => {
                        named
                            .entities
                            .insert((cat.types[t.0 as usize].id.clone(), e.clone()));
                    }
                    _ => {}
                }
            }
        }
    }
}

/// A pattern as text.
pub fn show_pattern(cat: &Catalog, p: &Pattern) -> String {
    let args: Vec<String> = p
        .args
        .iter()
        .map(|a| match a {
            PArg::Var(v) => v.clone(),
            PArg::Any => "_".into(),
            PArg::Value(Value::Int(i)) => i.to_string(),
            PArg::Value(Value::Entity(e)) => {
                let plain = e.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && e.chars()
                        .next()
                        .is_some_and(|c| !c.is_uppercase() && c != '_')
                    || cat.constants.iter().any(|c| &c.local == e);
                if plain && !e.is_empty() {
                    e.clone()
                } else {
                    format!("{e:?}")
                }
            }
        })
        .collect();
    format!("{}({})", cat.lit_name(p.lit), args.join(", "))
}

/// The section a level names: `definitely`, `defeasibly` (concluded),
/// `supported`, `pending`.
pub fn parse_level(s: &str) -> Result<Section, String> {
    match s.trim() {
        "definitely" => Ok(Section::Definitely),
        "defeasibly" | "concluded" => Ok(Section::Defeasibly),
        "supported" => Ok(Section::Supported),
        "pending" => Ok(Section::Pending),
        other => Err(format!(
            "unknown level `{other}`: use definitely, defeasibly, supported or pending"
        )),
    }
}

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

/// The comparison operator of an item outside parentheses and quotes, if any.
fn find_cmp(s: &str) -> Option<(usize, usize, CmpOp)> {
    let (mut depth, mut quoted) = (0i32, false);
    let b = s.as_bytes();
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            '!' | '<' | '>' | '=' if !quoted && depth == 0 => {
                let two = b.get(i + 1) == Some(&b'=');
                let op = match (c, two) {
                    ('!', true) => CmpOp::Ne,
                    ('<', true) => CmpOp::Le,
                    ('>', true) => CmpOp::Ge,
                    ('<', false) => CmpOp::Lt,
                    ('>', false) => CmpOp::Gt,
                    ('=', _) => CmpOp::Eq,
                    _ => continue,
                };
                let len = if two && c != '=' { 2 } else { 1 };
                return Some((i, len, op));
            }
            _ => {}
        }
    }
    None
}

/// Parses `LIT, not LIT, X != Y, …` at `section`.
pub fn parse_goal(cat: &Catalog, text: &str, section: Section) -> Result<Goal, String> {
    let mut items = Vec::new();
    let mut raw_cmps = Vec::new();
    let parts = split_top(text, ',')?;
    if parts.iter().all(|p| p.trim().is_empty()) {
        return Err(format!(
            "the goal `{text}` has no literal; write it like `game_drawn(G), game_lost_by(G, _)`"
        ));
    }
    for part in parts {
        let part = part.trim();
        if let Some((i, len, op)) = find_cmp(part) {
            raw_cmps.push((part[..i].trim(), op, part[i + len..].trim(), part));
            continue;
        }
        let (neg, lit) = match part.strip_prefix("not ") {
            Some(rest) => (true, rest.trim()),
            None => (false, part),
        };
        items.push((neg, parse_pattern(cat, lit)?));
    }
    let mut goal = Goal {
        items,
        cmps: Vec::new(),
        section,
    };
    check_var_types(cat, &goal)?;
    // Variable types from the positive items.
    let mut var_ty: BTreeMap<String, Ty> = BTreeMap::new();
    for (neg, p) in &goal.items {
        for (a, ty) in p.args.iter().zip(&cat.pred(p.lit.pred).params) {
            if let (false, PArg::Var(v)) = (neg, a) {
                var_ty.insert(v.clone(), *ty);
            }
        }
    }
    for (l, op, r, whole) in raw_cmps {
        let side_ty = |x: &str| {
            (x.starts_with(|c: char| c.is_uppercase() || c == '_'))
                .then(|| var_ty.get(x).copied())
                .flatten()
        };
        let ty = side_ty(l).or_else(|| side_ty(r)).ok_or_else(|| {
            format!(
                "`{whole}` compares no variable of a positive literal; write it like `P != Q` after literals that bind P and Q"
            )
        })?;
        let side = |x: &str| -> Result<PArg, String> {
            if x == "_" {
                return Err(format!("`_` cannot be compared in `{whole}`"));
            }
            let a = parse_arg(cat, x, ty, whole)?;
            if let PArg::Var(v) = &a {
                match var_ty.get(v) {
                    None => {
                        return Err(format!(
                            "variable `{v}` of `{whole}` occurs in no positive literal of the goal"
                        ))
                    }
                    Some(t) if *t != ty => {
                        return Err(format!(
                            "`{whole}` compares {} with {}",
                            cat.type_name(ty),
                            cat.type_name(*t)
                        ))
                    }
                    Some(_) => {}
                }
            }
            Ok(a)
        };
        let (a, b) = (side(l)?, side(r)?);
        if op.is_order() && ty != Ty::Int {
            return Err(format!(
                "`{whole}` orders values of type {}; `<`, `<=`, `>`, `>=` compare integers only",
                cat.type_name(ty)
            ));
        }
        goal.cmps.push((a, op, b, ty));
    }
    Ok(goal)
}

/// Parses one literal pattern.
pub fn parse_pattern(cat: &Catalog, text: &str) -> Result<Pattern, String> {
    let t = text.trim();
    let (negative, rest) = match t.strip_prefix('~') {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let (name, inner) = match rest.find('(') {
        Some(i) => {
            let Some(inner) = rest[i + 1..].trim_end().strip_suffix(')') else {
                return Err(format!(
                    "`{t}` has no closing `)`; write a literal like `game_drawn(G)`"
                ));
            };
            (rest[..i].trim(), Some(inner))
        }
        None => (rest.trim(), None),
    };
    if name.is_empty() || name.contains(|c: char| c.is_whitespace() || "(),\"".contains(c)) {
        return Err(format!(
            "`{t}` is not a literal; write it like `game_drawn(G)` or `~game_drawn(G)`"
        ));
    }
    let Some(pred) = cat.pred_by_name(name) else {
        if let Some(ids) = cat.ambiguous_pred(name) {
            return Err(format!(
                "`{name}` is ambiguous: the packages declare {}; name it by its full id",
                ids.join(" and ")
            ));
        }
        return Err(format!(
            "unknown predicate `{name}` in `{t}`; `lawgen check PACKAGE` lists the predicates"
        ));
    };
    let decl = cat.pred(pred);
    let raw: Vec<String> = match inner {
        Some(a) if a.trim().is_empty() => Vec::new(),
        Some(a) => split_top(a, ',')?
            .into_iter()
            .map(|s| s.trim().to_owned())
            .collect(),
        None => Vec::new(),
    };
    if raw.len() != decl.params.len() {
        return Err(format!(
            "`{}` takes {} argument(s), `{t}` gives {}",
            decl.local,
            decl.params.len(),
            raw.len()
        ));
    }
    let mut args = Vec::with_capacity(raw.len());
    for (a, ty) in raw.iter().zip(&decl.params) {
        args.push(parse_arg(cat, a, *ty, t)?);
    }
    Ok(Pattern {
        lit: Lit { pred, negative },
        args,
    })
}

fn parse_arg(cat: &Catalog, a: &str, ty: Ty, lit: &str) -> Result<PArg, String> {
    if a.is_empty() {
        return Err(format!("an argument of `{lit}` is empty"));
    }
    if a == "_" {
        return Ok(PArg::Any);
    }
    if let Some(q) = a.strip_prefix('"') {
        let Some(name) = q.strip_suffix('"') else {
            return Err(format!("`{a}` in `{lit}` has no closing quote"));
        };
        return match ty {
            Ty::Entity(_) => Ok(PArg::Value(Value::Entity(name.to_owned()))),
            Ty::Int => Err(format!(
                "`{a}` in `{lit}` is a name, but the column is an integer"
            )),
        };
    }
    if a.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return match (ty, a.parse::<i64>()) {
            (Ty::Int, Ok(i)) => Ok(PArg::Value(Value::Int(i))),
            (Ty::Int, Err(_)) => Err(format!(
                "`{a}` in `{lit}` is not an integer in the i64 range"
            )),
            (Ty::Entity(_), _) => Err(format!(
                "`{a}` in `{lit}` is a number, but the column is of type {}; quote an entity name",
                cat.type_name(ty)
            )),
        };
    }
    if !a.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!(
            "`{a}` in `{lit}` is not an argument: write `_`, an integer, a name, or a \"quoted name\""
        ));
    }
    if let Ty::Entity(t) = ty {
        if cat.constants.iter().any(|c| c.ty == t && c.local == a) {
            return Ok(PArg::Value(Value::Entity(a.to_owned())));
        }
    }
    if a.starts_with(|c: char| c.is_uppercase() || c == '_') {
        return Ok(PArg::Var(a.to_owned()));
    }
    match ty {
        Ty::Entity(_) => Ok(PArg::Value(Value::Entity(a.to_owned()))),
        Ty::Int => Err(format!(
            "`{a}` in `{lit}` names an entity, but the column is an integer; write a variable (upper case) or a number"
        )),
    }
}

/// Every variable has one type across the goal.
fn check_var_types(cat: &Catalog, g: &Goal) -> Result<(), String> {
    let mut seen: BTreeMap<&str, Ty> = BTreeMap::new();
    for (_, p) in &g.items {
        for (a, ty) in p.args.iter().zip(&cat.pred(p.lit.pred).params) {
            if let PArg::Var(v) = a {
                match seen.get(v.as_str()) {
                    Some(t) if t != ty => {
                        return Err(format!(
                            "variable `{v}` is used as {} and as {}",
                            cat.type_name(*t),
                            cat.type_name(*ty)
                        ))
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(v, *ty);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Splits at `sep` outside parentheses and quotes.
fn split_top(s: &str, sep: char) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("`{s}` has an unmatched `)`"));
                }
            }
            c if c == sep && depth == 0 && !quoted => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if depth != 0 || quoted {
        return Err(format!(
            "`{s}` has an unclosed `(` or quote; write a literal like `game_drawn(G)`"
        ));
    }
    out.push(&s[start..]);
    Ok(out)
}
