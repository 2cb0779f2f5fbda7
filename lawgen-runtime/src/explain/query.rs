//! Queries: `game_drawn(g1)`, `~castling_legal(g1, white, "king side")`.

use crate::program::{Catalog, Lit, Ty, Value};

/// A ground literal to explain: `p(args)` or `~p(args)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The predicate and polarity asked about.
    pub lit: Lit,
    /// The ground arguments.
    pub args: Vec<Value>,
}

/// Parses `game_drawn(g1)`, `~game_drawn(g1)`, `castling_legal(g1, white, kingside)`.
/// Integers are unquoted; names may be `"quoted"`.
pub fn parse_query(cat: &Catalog, text: &str) -> Result<Query, String> {
    let t = text.trim();
    let (negative, rest) = match t.strip_prefix('~') {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let (name, args_text) = match rest.find('(') {
        Some(i) => {
            let inner = rest[i + 1..].trim_end();
            let Some(inner) = inner.strip_suffix(')') else {
                return Err(format!(
                    "query `{t}` has no closing `)`; write it like `game_drawn(g1)`"
                ));
            };
            (rest[..i].trim(), Some(inner))
        }
        None => (rest.trim(), None),
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!(
            "query `{t}` is not a literal; write it like `game_drawn(g1)` or `~game_drawn(g1)`"
        ));
    }
    let Some(pred) = cat.pred_by_name(name) else {
        let close = close_names(cat, name);
        let hint = if close.is_empty() {
            "; `lawgen check PACKAGE` lists the predicates".to_owned()
        } else {
            format!("; did you mean {}?", close.join(", "))
        };
        return Err(format!("unknown predicate `{name}`{hint}"));
    };
    let p = cat.pred(pred);
    let raw = match args_text {
        Some(a) => split_args(a)?,
        None => Vec::new(),
    };
    let signature = || {
        let cols: Vec<String> = p
            .params
            .iter()
            .zip(&p.param_names)
            .map(|(ty, n)| match n {
                Some(n) => format!("{n}: {}", cat.type_name(*ty)),
                None => cat.type_name(*ty).to_owned(),
            })
            .collect();
        format!("{}({})", p.local, cols.join(", "))
    };
    if raw.len() != p.params.len() {
        return Err(format!(
            "`{}` takes {} argument{}, the query gives {}; write {}",
            p.local,
            p.params.len(),
            if p.params.len() == 1 { "" } else { "s" },
            raw.len(),
            signature()
        ));
    }
    let mut args = Vec::new();
    for (i, ((s, quoted), ty)) in raw.iter().zip(&p.params).enumerate() {
        match ty {
            Ty::Int => match (quoted, s.parse::<i64>()) {
                (false, Ok(v)) => args.push(Value::Int(v)),
                _ => {
                    return Err(format!(
                        "argument {} of `{}` must be an integer (column type Integer), got `{}`; \
                         write integers unquoted, as in {}",
                        i + 1,
                        p.local,
                        s,
                        signature()
                    ))
                }
            },
            Ty::Entity(_) => {
                if s.is_empty() {
                    return Err(format!(
                        "argument {} of `{}` is empty; write {}",
                        i + 1,
                        p.local,
                        signature()
                    ));
                }
                args.push(Value::Entity(s.clone()));
            }
        }
    }
    Ok(Query {
        lit: Lit { pred, negative },
        args,
    })
}

/// Splits `a, "b c", 3` into (text, quoted) pairs.
fn split_args(s: &str) -> Result<Vec<(String, bool)>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut cur = String::new();
        let mut quoted = false;
        if chars.peek() == Some(&'"') {
            quoted = true;
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(format!("unterminated quote in `{s}`")),
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(c) => cur.push(c),
                        None => return Err(format!("unterminated quote in `{s}`")),
                    },
                    Some(c) => cur.push(c),
                }
            }
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ',' {
                    break;
                }
                cur.push(c);
                chars.next();
            }
            cur = cur.trim().to_owned();
        }
        out.push((cur, quoted));
        match chars.next() {
            None => break,
            Some(',') => {}
            Some(c) => {
                return Err(format!(
                    "unexpected `{c}` in the arguments `{s}`; separate arguments with commas"
                ))
            }
        }
    }
    Ok(out)
}

fn close_names(cat: &Catalog, name: &str) -> Vec<String> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = cat
        .preds
        .iter()
        .filter_map(|p| {
            let l = p.local.to_lowercase();
            let d = levenshtein(&lower, &l);
            let limit = (lower.chars().count() / 3).max(2);
            if d <= limit || l.contains(&lower) || (lower.len() >= 4 && lower.contains(&l)) {
                Some((d, p.local.as_str()))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(5)
        .map(|(_, n)| n.to_owned())
        .collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
