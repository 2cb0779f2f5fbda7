//! Properties files: named goals a package must never (or must be able to)
//! reach, checked all at once by `lawgen analyze --properties FILE`.
//!
//! JSON (`*.json`):
//!
//! ```json
//! {"properties": [
//!   {"name": "not-drawn-and-lost", "description": "a drawn game is lost by nobody",
//!    "exclusive": ["game_drawn(G)", "game_lost_by(G, _)"]},
//!   {"name": "a-game-can-end", "goal": "entered_state(G, Ended)", "expect": "possible"}
//! ]}
//! ```
//!
//! or the text form (any other extension), one property a line, `#` lines
//! above it its description:
//!
//! ```text
//! # a drawn game is lost by nobody
//! exclusive not-drawn-and-lost: game_drawn(G), game_lost_by(G, _)
//! possible a-game-can-end: entered_state(G, Ended) at definitely
//! ```
//!
//! `exclusive` takes two literals and is violated by a binding that
//! concludes both; `never GOAL` is violated by an input under which the goal
//! holds; `possible GOAL` is violated when no input within the bound gives
//! it. A level (`at definitely|defeasibly|supported|pending`, JSON
//! `"level"`) says which section of the output the literals are read from;
//! the default is `defeasibly`, what the package concludes.

use super::pattern::{parse_goal, parse_level, Goal};
use super::Error;
use lawgen_runtime::program::{Catalog, Section};
use serde_json::Value as J;

/// What a property asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// No input within the bound reaches the goal.
    Never,
    /// Some input within the bound reaches it.
    Possible,
}

/// A property as written, before its literals are resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub description: Option<String>,
    /// `exclusive` (two literals), else a goal.
    pub exclusive: bool,
    pub goal: String,
    pub level: Section,
    pub expect: Expect,
    /// Where it is: a line of the text form, a JSON pointer.
    pub at: String,
}

/// A property resolved against a package.
#[derive(Clone, Debug)]
pub struct Property {
    pub spec: Spec,
    pub goal: Goal,
}

/// Most properties one file may hold.
pub const MAX_PROPERTIES: usize = 10_000;

/// Reads a properties file: JSON when `json`, else the text form.
pub fn read(bytes: &[u8], json: bool, file: &str) -> Result<Vec<Spec>, Error> {
    let specs = if json {
        read_json(bytes, file)?
    } else {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            Error::usage(format!(
                "{file} is not UTF-8 text (byte {})\n  = help: save the properties file as UTF-8",
                e.valid_up_to()
            ))
        })?;
        read_text(text, file)?
    };
    if specs.len() > MAX_PROPERTIES {
        return Err(Error::usage(format!(
            "{file} holds {} properties, more than {MAX_PROPERTIES}\n  = help: split it into several files",
            specs.len()
        )));
    }
    let mut names = std::collections::BTreeSet::new();
    for s in &specs {
        if !names.insert(s.name.clone()) {
            return Err(Error::usage(format!(
                "{file}{}: the property name `{}` is used twice\n  = help: give each property its own name",
                s.at, s.name
            )));
        }
    }
    Ok(specs)
}

fn bad(file: &str, at: &str, what: String, help: &str) -> Error {
    Error::usage(format!("{file}{at}: {what}\n  = help: {help}"))
}

fn check_name(file: &str, at: &str, name: &str) -> Result<(), Error> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(bad(
            file,
            at,
            format!("`{name}` is not a property name"),
            "use letters, digits, `-`, `_` and `.`, e.g. `not-drawn-and-lost`",
        ));
    }
    Ok(())
}

fn read_json(bytes: &[u8], file: &str) -> Result<Vec<Spec>, Error> {
    let v: J = serde_json::from_slice(bytes).map_err(|e| {
        Error::usage(format!(
            "{file} is not valid JSON: {e}\n  = help: write {{\"properties\": [{{\"name\": …, \"exclusive\": [LIT, LIT]}}, …]}}"
        ))
    })?;
    let Some(obj) = v.as_object() else {
        return Err(bad(
            file,
            "",
            "a properties file must be a JSON object".into(),
            r#"write {"properties": [...]}"#,
        ));
    };
    for k in obj.keys() {
        if k != "properties" && k != "package" && k != "description" {
            return Err(bad(
                file,
                &format!(" at /{k}"),
                format!("unknown key `{k}`"),
                "a properties file has `properties` and, optionally, `package` and `description`",
            ));
        }
    }
    let Some(list) = obj.get("properties").and_then(J::as_array) else {
        return Err(bad(
            file,
            " at /properties",
            "`properties` must be an array".into(),
            r#"write "properties": [{"name": …, "exclusive": [LIT, LIT]}, …]"#,
        ));
    };
    let mut out = Vec::new();
    for (i, p) in list.iter().enumerate() {
        let at = format!(" at /properties/{i}");
        let Some(o) = p.as_object() else {
            return Err(bad(
                file,
                &at,
                "a property must be an object".into(),
                r#"write {"name": …, "exclusive": [LIT, LIT]} or {"name": …, "goal": "LIT, …"}"#,
            ));
        };
        for k in o.keys() {
            if ![
                "name",
                "description",
                "exclusive",
                "goal",
                "level",
                "expect",
            ]
            .contains(&k.as_str())
            {
                return Err(bad(
                    file,
                    &format!("{at}/{k}"),
                    format!("unknown key `{k}`"),
                    "a property has `name`, `exclusive` or `goal`, and optionally `description`, `level`, `expect`",
                ));
            }
        }
        let str_of = |k: &str| -> Result<Option<String>, Error> {
            match o.get(k) {
                None => Ok(None),
                Some(J::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(
                    file,
                    &format!("{at}/{k}"),
                    format!("`{k}` must be a string"),
                    "quote it",
                )),
            }
        };
        let Some(name) = str_of("name")? else {
            return Err(bad(
                file,
                &at,
                "the property has no `name`".into(),
                "add \"name\": \"not-drawn-and-lost\"",
            ));
        };
        check_name(file, &at, &name)?;
        let level = match str_of("level")? {
            None => Section::Defeasibly,
            Some(l) => parse_level(&l).map_err(|m| {
                bad(
                    file,
                    &format!("{at}/level"),
                    m,
                    "use definitely, defeasibly, supported or pending",
                )
            })?,
        };
        let goal_text = str_of("goal")?;
        let (exclusive, goal) = match (o.get("exclusive"), goal_text) {
            (Some(e), None) => {
                let lits: Option<Vec<&str>> =
                    e.as_array().and_then(|a| a.iter().map(J::as_str).collect());
                match lits {
                    Some(l) if l.len() == 2 => (true, format!("{}, {}", l[0], l[1])),
                    _ => {
                        return Err(bad(
                            file,
                            &format!("{at}/exclusive"),
                            "`exclusive` must be an array of two literals".into(),
                            r#"write "exclusive": ["game_drawn(G)", "game_lost_by(G, _)"]"#,
                        ))
                    }
                }
            }
            (None, Some(g)) => (false, g),
            (Some(_), Some(_)) => {
                return Err(bad(
                    file,
                    &at,
                    "a property has either `exclusive` or `goal`, not both".into(),
                    "split it into two properties",
                ))
            }
            (None, None) => {
                return Err(bad(
                    file,
                    &at,
                    format!("property `{name}` has neither `exclusive` nor `goal`"),
                    r#"add "exclusive": [LIT, LIT] or "goal": "LIT, …""#,
                ))
            }
        };
        let expect = match str_of("expect")?.as_deref() {
            None | Some("never") => Expect::Never,
            Some("possible") if !exclusive => Expect::Possible,
            Some(other) => {
                return Err(bad(
                    file,
                    &format!("{at}/expect"),
                    format!("`expect` must be `never` or (for a goal) `possible`, found `{other}`"),
                    "`never`: no input reaches it; `possible`: some input does",
                ))
            }
        };
        out.push(Spec {
            name,
            description: str_of("description")?,
            exclusive,
            goal,
            level,
            expect,
            at,
        });
    }
    Ok(out)
}

fn read_text(text: &str, file: &str) -> Result<Vec<Spec>, Error> {
    let mut out = Vec::new();
    let mut comment: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = format!(":{}", i + 1);
        let line = raw.trim();
        if line.is_empty() {
            comment.clear();
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            comment.push(c.trim().to_owned());
            continue;
        }
        let (head, body) = line.split_once(':').ok_or_else(|| {
            bad(
                file,
                &at,
                format!("`{line}` is not a property"),
                "write `exclusive NAME: LIT, LIT`, `never NAME: GOAL` or `possible NAME: GOAL`, optionally ending `at LEVEL`",
            )
        })?;
        let mut words = head.split_whitespace();
        let (kind, name) = match (words.next(), words.next(), words.next()) {
            (Some(k), Some(n), None) => (k, n),
            _ => {
                return Err(bad(
                    file,
                    &at,
                    format!("`{}` does not say what to check", head.trim()),
                    "begin the line with `exclusive NAME:`, `never NAME:` or `possible NAME:`",
                ))
            }
        };
        let (exclusive, expect) = match kind {
            "exclusive" => (true, Expect::Never),
            "never" => (false, Expect::Never),
            "possible" => (false, Expect::Possible),
            other => {
                return Err(bad(
                    file,
                    &at,
                    format!("unknown kind of property `{other}`"),
                    "use `exclusive`, `never` or `possible`",
                ))
            }
        };
        check_name(file, &at, name)?;
        let mut goal = body.trim().to_owned();
        let mut level = Section::Defeasibly;
        if let Some((g, l)) = goal.rsplit_once(" at ") {
            if let Ok(s) = parse_level(l) {
                level = s;
                goal = g.trim().to_owned();
            }
        }
        let description = (!comment.is_empty()).then(|| comment.join(" "));
        comment.clear();
        out.push(Spec {
            name: name.to_owned(),
            description,
            exclusive,
            goal,
            level,
            expect,
            at,
        });
    }
    Ok(out)
}

/// Resolves a property's literals against a package.
pub fn resolve(spec: &Spec, cat: &Catalog, file: &str) -> Result<Property, Error> {
    let goal = parse_goal(cat, &spec.goal, spec.level).map_err(|m| {
        bad(
            file,
            &spec.at,
            format!("property `{}`: {m}", spec.name),
            "fix the literal; patterns are written like `game_lost_by(G, _)`",
        )
    })?;
    if spec.exclusive && (goal.items.len() != 2 || goal.items.iter().any(|(n, _)| *n)) {
        return Err(bad(
            file,
            &spec.at,
            format!(
                "property `{}`: `exclusive` takes exactly two literals, without `not`",
                spec.name
            ),
            "write `exclusive NAME: LIT, LIT`, or use `never NAME: GOAL` for other goals",
        ));
    }
    Ok(Property {
        spec: spec.clone(),
        goal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_forms_read_alike() {
        let json = br#"{"properties": [
            {"name": "a", "description": "d", "exclusive": ["p(X)", "q(X)"]},
            {"name": "b", "goal": "p(X), not q(X)", "level": "supported", "expect": "possible"}]}"#;
        let text = "# d\nexclusive a: p(X), q(X)\n\npossible b: p(X), not q(X) at supported\n";
        let a = read(json, true, "f").unwrap();
        let b = read(text.as_bytes(), false, "f").unwrap();
        assert_eq!(a.len(), 2);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(
                (
                    &x.name,
                    &x.description,
                    x.exclusive,
                    &x.goal,
                    x.level,
                    x.expect
                ),
                (
                    &y.name,
                    &y.description,
                    y.exclusive,
                    &y.goal,
                    y.level,
                    y.expect
                )
            );
        }
    }

    #[test]
    fn mistakes_are_named() {
        for (src, json, needle) in [
            (&b"[]"[..], true, "must be a JSON object"),
            (br#"{"properties": [{"goal": "p"}]}"#, true, "has no `name`"),
            (br#"{"properties": [{"name": "x"}]}"#, true, "neither"),
            (
                br#"{"properties": [{"name": "x", "exclusive": ["p"]}]}"#,
                true,
                "two literals",
            ),
            (
                br#"{"properties": [{"name": "x", "goal": "p", "colour": 1}]}"#,
                true,
                "unknown key",
            ),
            (b"maybe x: p", false, "unknown kind"),
            (b"never x p", false, "is not a property"),
            (b"never x: p\nnever x: q", false, "used twice"),
            (b"\xff", false, "not UTF-8"),
        ] {
            let e = read(src, json, "f").unwrap_err();
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
    }
}
