//! The text form of `law.core.ir/0.2` (`.law` files): a package written for
//! people, rules as `head :- body`, that converts to and from the package
//! JSON exactly. The grammar and a worked example are in `docs/text-form.md`.
//!
//! The text form is a second *syntax* of the same JSON document, not a
//! second model: [`parse()`] turns text into the package JSON (computing every
//! content hash), which the one JSON reader then reads, so every later stage
//! and every diagnostic is shared. [`print()`] goes the other way; it checks
//! each node it prints by reading it back, and writes a node it cannot
//! express faithfully as a raw `node {…}` statement, so that JSON → text →
//! JSON is the identity on every package (hashes recomputed).

mod lex;
mod parse;
mod print;
mod spec;

use super::hash::{canonical_json, node_hash, sha256_hex};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::ops::Range;

#[cfg(feature = "internals")]
pub use print::print;
pub use print::{print_with_comments, PrintError};

/// The built-in integer type, written `Integer` in the text form.
pub(crate) const INTEGER: &str = super::INTEGER_TYPE;

/// The file extension of the text form.
pub const EXTENSION: &str = "law";

/// A syntax error: where (a byte range of the source), what, and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TextError {
    /// The part of the source the error is about, as a byte range into
    /// [`SyntaxErrors::source`] ([`SyntaxErrors::positions`] gives its line
    /// and column).
    pub span: Range<usize>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

impl TextError {
    pub(crate) fn new(
        span: Range<usize>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        TextError {
            span,
            message: message.into(),
            help: help.into(),
        }
    }
}

/// Every syntax error of one file, with the source to render them against.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SyntaxErrors {
    /// Every error found.
    pub errors: Vec<TextError>,
    /// The file's text, which the spans index (for a file that is not
    /// UTF-8, its lossy conversion).
    pub source: String,
}

impl SyntaxErrors {
    /// rustc-style rendering: `error[E110]: …`, `--> path:line:col`, the
    /// line with carets under the span, and a help line.
    pub fn render(&self, path: &str) -> String {
        use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
        let renderer = Renderer::plain();
        let mut out = String::new();
        for e in &self.errors {
            let span = clamp_span(&self.source, e.span.clone());
            let message = crate::diagnostics::escape_for_display(&e.message);
            let help = crate::diagnostics::escape_for_display(&e.help);
            let report = [Group::with_title(
                Level::ERROR
                    .primary_title(message.as_str())
                    .id(crate::diagnostics::Code::TextSyntax.as_str()),
            )
            .element(
                Snippet::source(self.source.as_str())
                    .path(path)
                    .annotation(AnnotationKind::Primary.span(span)),
            )
            .element(Level::HELP.message(help.as_str()))];
            out.push_str(&renderer.render(&report));
            out.push_str("\n\n");
        }
        let n = self.errors.len();
        out.push_str(&format!(
            "error: {} error{} found\n",
            n,
            if n == 1 { "" } else { "s" }
        ));
        out
    }

    /// Line and column (1-based, columns in characters) of each error.
    pub fn positions(&self) -> Vec<(usize, usize)> {
        self.errors
            .iter()
            .map(|e| line_col(&self.source, e.span.start))
            .collect()
    }
}

/// Keeps a span on char boundaries inside the source (the renderer slices it).
fn clamp_span(src: &str, span: Range<usize>) -> Range<usize> {
    let fix = |mut i: usize| {
        i = i.min(src.len());
        while !src.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (s, e) = (fix(span.start), fix(span.end));
    s..e.max(s)
}

/// 1-based line and column (in characters) of byte offset `off`.
pub fn line_col(src: &str, off: usize) -> (usize, usize) {
    let off = clamp_span(src, off..off).start;
    let before = &src[..off];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before, |i| &before[i + 1..])
        .chars()
        .count()
        + 1;
    (line, col)
}

/// Where the parts of the JSON came from in the text: lets diagnostics of
/// the checker (which speak JSON pointers) point at lines.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// Offset of each node's statement, by node index.
    nodes: Vec<usize>,
    /// Offsets of parts of nodes, by JSON pointer.
    points: Vec<(String, usize)>,
}

impl SourceMap {
    /// The byte offset in the text of the part of the package at `pointer`
    /// (the closest enclosing part that has a place: a body item, a clause,
    /// or the node's statement).
    pub fn offset(&self, pointer: &str) -> Option<usize> {
        let best = self
            .points
            .iter()
            .filter(|(p, _)| {
                pointer == p
                    || (pointer.starts_with(p.as_str()) && pointer[p.len()..].starts_with('/'))
            })
            .max_by_key(|(p, _)| p.len())
            .map(|(_, o)| *o);
        best.or_else(|| {
            let rest = pointer.strip_prefix("/nodes/")?;
            let i: usize = rest.split('/').next()?.parse().ok()?;
            self.nodes.get(i).copied()
        })
    }
}

/// Comments kept by `lawgen fmt`: those before the header statements,
/// before each node's statement (by node index), and at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comments {
    pub header: Vec<String>,
    pub nodes: BTreeMap<usize, Vec<String>>,
    pub trailing: Vec<String>,
}

/// A parsed text package.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The package JSON, every hash computed.
    pub json: Value,
    pub map: SourceMap,
    pub comments: Comments,
}

/// Text → package JSON. Never panics; on failure returns every syntax error.
pub fn parse(src: &str) -> Result<Parsed, SyntaxErrors> {
    match parse::parse(src) {
        Ok(o) => Ok(Parsed {
            json: o.json,
            map: o.map,
            comments: o.comments,
        }),
        Err(errors) => Err(SyntaxErrors {
            errors,
            source: src.to_owned(),
        }),
    }
}

/// The bytes of a `.law` file → the package JSON text the JSON reader reads
/// (compact, keys sorted, the seed's own serialization). The one call that
/// lets anything that reads package JSON read the text form as well.
pub fn to_json(bytes: &[u8]) -> Result<String, SyntaxErrors> {
    let src = std::str::from_utf8(bytes).map_err(|e| SyntaxErrors {
        errors: vec![TextError::new(
            e.valid_up_to()..e.valid_up_to() + 1,
            "the file is not valid UTF-8",
            "save the file as UTF-8",
        )],
        source: String::from_utf8_lossy(bytes).into_owned(),
    })?;
    Ok(canonical_json(&parse(src)?.json))
}

/// The parser's context: the namespace bare names resolve in, and the
/// `default` statements seen so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ctx {
    pub ns: Option<String>,
    pub label: Option<Map<String, Value>>,
    pub text: Option<Map<String, Value>>,
    pub package: Option<Value>,
    pub param_ids: bool,
}

impl Ctx {
    /// A bare name → its id: `Integer` is the built-in type, any other name
    /// is `<namespace>#<name>` (the name itself without a namespace).
    pub fn resolve(&self, name: &str) -> String {
        if name == "Integer" {
            return INTEGER.to_owned();
        }
        match &self.ns {
            Some(ns) => format!("{ns}#{name}"),
            None => name.to_owned(),
        }
    }

    /// An id → how the text form writes it: a bare name when it reads back
    /// as the same id and is no keyword, else the full id in quotes.
    pub fn name(&self, id: &str) -> String {
        if id == INTEGER {
            return "Integer".to_owned();
        }
        let local = match &self.ns {
            Some(ns) => id
                .strip_prefix(ns.as_str())
                .and_then(|r| r.strip_prefix('#')),
            None => Some(id),
        };
        match local {
            Some(l) if lex::is_ident(l) && !spec::reserved(l) => l.to_owned(),
            _ => quote(id),
        }
    }
}

/// A string literal of the text form (JSON escaping).
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::new();
    super::hash::write_string(&mut out, s);
    out
}

/// Recomputes a node's hashes in place: each fragment text's `contentHash`
/// that is present, then the node's own `contentHash` if present. Returns
/// which changed (`None` for the node's own, `Some(i)` for text `i`).
pub(crate) fn rehash_node(m: &mut Map<String, Value>) -> Vec<Option<usize>> {
    let mut changed = Vec::new();
    if m.get("kind").and_then(Value::as_str) == Some("fragment") {
        if let Some(Value::Array(texts)) = m.get_mut("texts") {
            for (i, t) in texts.iter_mut().enumerate() {
                let Value::Object(t) = t else { continue };
                let Some(text) = t.get("text").and_then(Value::as_str) else {
                    continue;
                };
                let h = Value::String(format!("sha256:{}", sha256_hex(text.as_bytes())));
                if let Some(old) = t.get_mut("contentHash") {
                    if *old != h {
                        *old = h;
                        changed.push(Some(i));
                    }
                }
            }
        }
    }
    if m.contains_key("contentHash") {
        let h = Value::String(node_hash(m));
        if m.get("contentHash") != Some(&h) {
            m.insert("contentHash".to_owned(), h);
            changed.push(None);
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clause keyword that is also a statement keyword would end the
    /// statement instead of being read as the clause.
    #[test]
    fn no_clause_keyword_starts_a_statement() {
        for k in spec::KINDS {
            for f in k.fields {
                assert!(
                    !spec::STATEMENTS.contains(&f.kw),
                    "`{}` of `{}`",
                    f.kw,
                    k.kw
                );
            }
        }
        for c in spec::COMMON_CLAUSES {
            assert!(!spec::STATEMENTS.contains(c), "{c}");
        }
    }

    /// What the printer writes bare, the lexer reads as one name.
    #[test]
    fn bare_names_lex_as_one_token() {
        for s in ["a", "GamePlay/StartPlay/valid", "j0/external", "x_1/2", "_"] {
            assert!(lex::is_ident(s), "{s}");
            let t = lex::lex(s, 0).unwrap();
            assert_eq!(t.tok, lex::Tok::Ident(s.to_owned()));
            assert_eq!(t.end, s.len());
        }
        for s in ["", "1a", "a/", "a//b", "/a", "a-b", "a.b", "ж", "a b"] {
            assert!(!lex::is_ident(s), "{s}");
        }
    }

    #[test]
    fn names_resolve_back_to_their_ids() {
        let ctx = Ctx {
            ns: Some("urn:x".to_owned()),
            ..Ctx::default()
        };
        for id in [
            "urn:x#game",
            "urn:law:std#Integer",
            "urn:x#Integer",
            "urn:x#rule",
            "urn:y#game",
            "urn:x#has space",
            "urn:x#a/b",
            "urn:x#",
            "plain",
        ] {
            let n = ctx.name(id);
            let back = if let Some(q) = n.strip_prefix('"') {
                serde_json::from_str::<String>(&format!("\"{q}")).unwrap()
            } else {
                ctx.resolve(&n)
            };
            assert_eq!(back, id, "{id} written as {n}");
        }
        assert_eq!(ctx.name("urn:x#game"), "game");
        assert_eq!(ctx.name("urn:law:std#Integer"), "Integer");
        assert_eq!(ctx.name("urn:x#rule"), "\"urn:x#rule\"");
    }

    #[test]
    fn text_blocks_strip_the_closing_indentation_exactly() {
        let src = "fragment F\n  text \"\"\"\n    line one\n\n      indented\n    \"\"\"\n";
        let p = parse(src).unwrap();
        assert_eq!(
            p.json["nodes"][0]["texts"][0]["text"],
            "line one\n\n  indented"
        );
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_col("ab\nжx", 5), (2, 2));
        assert_eq!(line_col("ab", 99), (1, 3));
    }
}
