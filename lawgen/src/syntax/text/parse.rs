//! Text form → package JSON. A hand-written recursive-descent parser that
//! writes the JSON value directly, records where each part came from (for
//! diagnostics of later stages), and recovers from an error at the next
//! statement that starts a line, so one run reports every broken statement.

use super::lex::{lex, skip_trivia, Tok, Token};
use super::spec::{self, KindSpec, Val, STATEMENTS};
use super::{rehash_node, Comments, Ctx, SourceMap, TextError, INTEGER};
use crate::diagnostics::pointer_push;
use serde_json::{json, Map, Value};

/// What parsing produced.
pub(super) struct Output {
    pub json: Value,
    pub map: SourceMap,
    pub comments: Comments,
}

pub(super) fn parse(src: &str) -> Result<Output, Vec<TextError>> {
    let mut p = Parser::new(src, Ctx::default());
    let mut top = Map::new();
    let mut nodes = Vec::new();
    let mut imports: Option<Vec<Value>> = None;
    let mut comments = Comments::default();
    loop {
        let start = p.peek_start();
        let pending = p.take_comments();
        let t = p.peek().clone();
        match &t.tok {
            Tok::Eof => {
                comments.trailing = pending;
                break;
            }
            Tok::Ident(kw) if STATEMENTS.contains(&kw.as_str()) => {
                let is_node = !matches!(
                    kw.as_str(),
                    "schema" | "package" | "set" | "import" | "default"
                );
                if is_node {
                    if !pending.is_empty() {
                        comments.nodes.insert(nodes.len(), pending);
                    }
                } else {
                    comments.header.extend(pending);
                }
                let ptr = format!("/nodes/{}", nodes.len());
                p.lex_error = false;
                let lex_errors = p.errors.len();
                let r = match kw.as_str() {
                    "schema" => p.schema(&mut top, nodes.is_empty()),
                    "package" => p.package(&mut top, nodes.is_empty()),
                    "set" => p.set(&mut top),
                    "import" => p.import(&mut imports, &top),
                    "default" => p.default(nodes.is_empty()),
                    _ => p.node(&ptr).map(|n| {
                        p.map.nodes.push(start);
                        nodes.push(n)
                    }),
                };
                match r {
                    Ok(()) => {
                        // Comments inside the statement, and one after it
                        // on its last line, go before it.
                        let eol = p.src[p.pos..].find('\n').map_or(p.src.len(), |i| p.pos + i);
                        let inner = p.comments_before(eol);
                        if !inner.is_empty() {
                            if is_node {
                                comments
                                    .nodes
                                    .entry(nodes.len() - 1)
                                    .or_default()
                                    .extend(inner);
                            } else {
                                comments.header.extend(inner);
                            }
                        }
                    }
                    Err(e) => {
                        // A token the lexer refused is reported already; what
                        // the parser then misses is a consequence, not a
                        // second error.
                        if p.errors.len() == lex_errors {
                            p.errors.push(e);
                        }
                        p.recover();
                    }
                }
            }
            _ => {
                let e = TextError::new(
                    t.start..t.end.max(t.start + 1),
                    format!("expected a statement, found {}", t.tok.describe()),
                    "a statement starts with one of: schema, package, import, set, default, type, relation, constant, rule, priority, closure, external, work, edition, publication, fragment, node",
                );
                p.errors.push(e);
                p.advance();
                p.recover();
            }
        }
    }
    if let Some(list) = imports {
        if top.contains_key("imports") {
            p.errors.push(TextError::new(
                0..0,
                "both `import` statements and `set imports` are given",
                "list the imports once: `import` statements, or one `set imports = [...]`",
            ));
        } else {
            top.insert("imports".to_owned(), Value::Array(list));
        }
    }
    top.insert("nodes".to_owned(), Value::Array(nodes));
    if !p.errors.is_empty() {
        return Err(p.errors);
    }
    Ok(Output {
        json: Value::Object(top),
        map: p.map,
        comments,
    })
}

/// Parses one node statement with a given context (the printer's check that
/// what it wrote reads back as the node it printed).
pub(super) fn parse_node(src: &str, ctx: &Ctx) -> Option<Value> {
    let mut p = Parser::new(src, ctx.clone());
    let n = p.node("/nodes/0").ok()?;
    (p.errors.is_empty() && matches!(p.peek().tok, Tok::Eof)).then_some(n)
}

pub(super) struct Parser<'s> {
    src: &'s str,
    pos: usize,
    peeked: Vec<Token>,
    comments: Vec<(usize, String)>,
    errors: Vec<TextError>,
    ctx: Ctx,
    map: SourceMap,
    /// A lexer error was reported in the current statement.
    lex_error: bool,
    /// Recovering: lexer errors are not reported.
    quiet: bool,
}

type R<T> = Result<T, TextError>;

/// A term as written, resolved once the rule's variables are known.
enum Proto {
    Ident(String),
    Var(String),
    Const(String),
    Int(i64),
    Value(String, Value),
}

enum ProtoItem {
    Status {
        status: &'static str,
        lit: ProtoLit,
    },
    Not {
        status: &'static str,
        lit: ProtoLit,
    },
    Cmp {
        left: Proto,
        op: &'static str,
        right: Proto,
    },
}

struct ProtoLit {
    pred: String,
    negative: bool,
    args: Vec<Proto>,
}

impl<'s> Parser<'s> {
    fn new(src: &'s str, ctx: Ctx) -> Self {
        Parser {
            src,
            pos: 0,
            peeked: Vec::new(),
            comments: Vec::new(),
            errors: Vec::new(),
            ctx,
            map: SourceMap::default(),
            lex_error: false,
            quiet: false,
        }
    }

    /// Fills the look-ahead buffer to `n` tokens. A character that starts
    /// no token is reported and skipped, so lexing always goes on.
    fn fill(&mut self, n: usize) {
        while self.peeked.len() < n {
            let mut at = self.peeked.last().map_or(self.pos, |t: &Token| t.end);
            loop {
                at = skip_trivia(self.src, at, &mut self.comments);
                match lex(self.src, at) {
                    Ok(t) => {
                        self.peeked.push(t);
                        break;
                    }
                    Err(e) => {
                        let end = next_char_boundary(self.src, e.span.end.max(at + 1));
                        // One per statement: what follows a bad token in the
                        // same statement is mostly its echo.
                        if !self.quiet && !self.lex_error {
                            self.errors.push(e);
                        }
                        self.lex_error = true;
                        at = end;
                    }
                }
            }
        }
    }

    fn peek(&mut self) -> &Token {
        self.fill(1);
        &self.peeked[0]
    }

    fn peek2(&mut self) -> &Token {
        self.fill(2);
        &self.peeked[1]
    }

    fn peek_start(&mut self) -> usize {
        self.peek().start
    }

    fn advance(&mut self) -> Token {
        self.fill(1);
        let t = self.peeked.remove(0);
        self.pos = t.end;
        t
    }

    fn take_comments(&mut self) -> Vec<String> {
        // Comments seen so far precede the peeked token.
        let limit = self.peek().start;
        self.comments_before(limit)
    }

    /// Takes the comments that start before byte `limit`.
    fn comments_before(&mut self, limit: usize) -> Vec<String> {
        let (before, after): (Vec<_>, Vec<_>) = std::mem::take(&mut self.comments)
            .into_iter()
            .partition(|(o, _)| *o < limit);
        self.comments = after;
        before.into_iter().map(|(_, c)| c).collect()
    }

    /// Skips to the next statement keyword at the start of a line.
    fn recover(&mut self) {
        self.quiet = true;
        self.recover_quietly();
        self.quiet = false;
    }

    fn recover_quietly(&mut self) {
        loop {
            let t = self.peek().clone();
            match &t.tok {
                Tok::Eof => return,
                Tok::Ident(k)
                    if STATEMENTS.contains(&k.as_str()) && at_line_start(self.src, t.start) =>
                {
                    return
                }
                _ => {
                    self.advance();
                }
            }
        }
    }

    fn err_at(&self, t: &Token, msg: impl Into<String>, help: impl Into<String>) -> TextError {
        TextError::new(t.start..t.end.max(t.start + 1), msg, help)
    }

    fn expected(&mut self, what: &str, help: &str) -> TextError {
        let t = self.peek().clone();
        self.err_at(
            &t,
            format!("expected {what}, found {}", t.tok.describe()),
            help,
        )
    }

    fn punct(&mut self, p: &'static str, help: &str) -> R<Token> {
        if self.peek().tok == Tok::Punct(p) {
            Ok(self.advance())
        } else {
            Err(self.expected(&format!("`{p}`"), help))
        }
    }

    fn eat_punct(&mut self, p: &'static str) -> bool {
        if self.peek().tok == Tok::Punct(p) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn is_kw(&mut self, kw: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(k) if k == kw)
    }

    fn string(&mut self, help: &str) -> R<String> {
        match self.peek().tok.clone() {
            Tok::Str(s) => {
                self.advance();
                Ok(s)
            }
            _ => Err(self.expected("a string", help)),
        }
    }

    /// A name (resolved against the namespace) or a quoted full id.
    fn reference(&mut self, what: &str) -> R<String> {
        match self.peek().tok.clone() {
            Tok::Ident(s) => {
                self.advance();
                Ok(self.ctx.resolve(&s))
            }
            Tok::Str(s) => {
                self.advance();
                Ok(s)
            }
            _ => Err(self.expected(
                what,
                "write a name (`game_drawn`, resolved in the package namespace) or a full id in quotes (\"urn:x#name\")",
            )),
        }
    }

    /// A JSON value, read by the JSON parser from the current position.
    fn json(&mut self) -> R<Value> {
        // The value starts after the last token taken, not at the peeked
        // token: the look-ahead lexed it by the text form's rules, which are
        // not JSON's (`-0.0`, `1e5` and `1e400` are malformed integers
        // there), and whatever it reported about it is no error here.
        let start = skip_trivia(self.src, self.pos, &mut self.comments);
        self.peeked.clear();
        let errors = self.errors.len();
        self.errors.retain(|e| e.span.start < start);
        if self.errors.len() < errors {
            self.lex_error = false;
        }
        // Comments seen while looking ahead into the JSON are not comments.
        self.comments.retain(|(o, _)| *o < start);
        let rest = &self.src[start..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => {
                let end = start + stream.byte_offset();
                self.pos = end;
                Ok(v)
            }
            // The stream wants a number, `true`, `false` or `null` followed
            // by white space or JSON punctuation; in the text form `)` may
            // follow (`value(Money, 1.5)`). The value then ends there.
            Some(Err(e)) if e.to_string().starts_with("trailing characters") => {
                let off = offset_of(rest, e.line(), e.column());
                let v = serde_json::from_str::<Value>(rest.get(..off).unwrap_or(rest)).map_err(|e| {
                    TextError::new(
                        start..start + off,
                        format!("invalid JSON value: {}", super::lex::strip_position(&e.to_string())),
                        "write the value as JSON: a string, number, true/false/null, [array] or {object}",
                    )
                })?;
                self.pos = start + off;
                Ok(v)
            }
            Some(Err(e)) => {
                // Point at where the JSON parser stopped.
                let off = offset_of(rest, e.line(), e.column());
                let at = (start + off).min(self.src.len());
                self.pos = next_char_boundary(self.src, at.max(start + 1).min(self.src.len()));
                Err(TextError::new(
                    at..next_char_boundary(self.src, (at + 1).min(self.src.len())),
                    format!("invalid JSON value: {}", super::lex::strip_position(&e.to_string())),
                    "write the value as JSON: a string, number, true/false/null, [array] or {object}",
                ))
            }
            None => Err(TextError::new(
                start..start,
                "expected a JSON value, found the end of the file",
                "write the value as JSON",
            )),
        }
    }

    fn json_object(&mut self, what: &str) -> R<Map<String, Value>> {
        let t = self.peek().clone();
        match self.json()? {
            Value::Object(m) => Ok(m),
            _ => Err(self.err_at(
                &t,
                format!("{what} must be a JSON object"),
                "write it as {\"key\": value, …}",
            )),
        }
    }

    fn key(&mut self) -> R<String> {
        match self.peek().tok.clone() {
            Tok::Ident(s) => {
                self.advance();
                Ok(s)
            }
            Tok::Str(s) => {
                self.advance();
                Ok(s)
            }
            _ => Err(self.expected("a field name", "write the JSON key as a name or a string")),
        }
    }

    fn schema(&mut self, top: &mut Map<String, Value>, before_nodes: bool) -> R<()> {
        let kw = self.advance();
        self.header_position(&kw, before_nodes)?;
        let s = self.string("write the schema version as a string: schema \"law.core.ir/0.2\"")?;
        self.once(top, &kw, "schemaVersion", Value::String(s))
    }

    fn once(&mut self, top: &mut Map<String, Value>, kw: &Token, key: &str, v: Value) -> R<()> {
        if top.insert(key.to_owned(), v).is_some() {
            return Err(self.err_at(
                kw,
                format!("`{key}` is given twice"),
                "keep one of the two statements",
            ));
        }
        Ok(())
    }

    fn header_position(&self, kw: &Token, before_nodes: bool) -> R<()> {
        if before_nodes {
            Ok(())
        } else {
            Err(self.err_at(
                kw,
                "this statement must come before the first node",
                "move the package header (schema, package, import, set, default) to the top of the file",
            ))
        }
    }

    fn package(&mut self, top: &mut Map<String, Value>, before_nodes: bool) -> R<()> {
        let kw = self.advance();
        self.header_position(&kw, before_nodes)?;
        let name = self
            .string("write the package name as a string: package \"my.rules\" version \"0.1.0\"")?;
        let mut m = Map::new();
        m.insert("name".to_owned(), Value::String(name));
        loop {
            let key = match &self.peek().tok {
                Tok::Ident(k) if k == "version" => "version",
                Tok::Ident(k) if k == "namespace" => "namespace",
                Tok::Ident(k) if k == "semantic_hash" => "semanticHash",
                Tok::Ident(k) if k == "with" => {
                    self.with(&mut m)?;
                    continue;
                }
                _ => break,
            };
            self.advance();
            let v = self.string("write the value as a string")?;
            m.insert(key.to_owned(), Value::String(v));
        }
        self.ctx.ns = m
            .get("namespace")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.once(top, &kw, "package", Value::Object(m))
    }

    fn set(&mut self, top: &mut Map<String, Value>) -> R<()> {
        let kw = self.advance();
        let key = self.key()?;
        if key == "nodes" {
            return Err(self.err_at(
                &kw,
                "`nodes` cannot be set: the node statements are the nodes",
                "write each node as a statement (or `node {…}` for a raw one)",
            ));
        }
        self.punct("=", "write `set KEY = JSON`")?;
        let v = self.json()?;
        if key == "package" {
            self.ctx.ns = v
                .get("namespace")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        self.once(top, &kw, &key, v)
    }

    fn import(&mut self, imports: &mut Option<Vec<Value>>, _top: &Map<String, Value>) -> R<()> {
        self.advance();
        let name = self.string("write the imported package's name as a string: import \"fide.laws.chess\" version \"0.1.0\" …")?;
        let mut m = Map::new();
        m.insert("name".to_owned(), Value::String(name));
        loop {
            let key = match &self.peek().tok {
                Tok::Ident(k) if k == "version" => "version",
                Tok::Ident(k) if k == "namespace" => "namespace",
                Tok::Ident(k) if k == "semantic_hash" => "semanticHash",
                Tok::Ident(k) if k == "with" => {
                    self.with(&mut m)?;
                    continue;
                }
                _ => break,
            };
            self.advance();
            let v = self.string("write the value as a string")?;
            m.insert(key.to_owned(), Value::String(v));
        }
        imports.get_or_insert_with(Vec::new).push(Value::Object(m));
        Ok(())
    }

    fn default(&mut self, before_nodes: bool) -> R<()> {
        let kw = self.advance();
        self.header_position(&kw, before_nodes)?;
        let t = self.peek().clone();
        let what = match &t.tok {
            Tok::Ident(k) => k.clone(),
            _ => String::new(),
        };
        match what.as_str() {
            "label" | "text" => {
                self.advance();
                let m = self.json_object("the default")?;
                if m.contains_key("text") || m.contains_key("contentHash") {
                    return Err(self.err_at(
                        &t,
                        "a default cannot set `text` or `contentHash`",
                        "give only the other fields, e.g. {\"language\": \"en\"}",
                    ));
                }
                if what == "label" {
                    self.ctx.label = Some(m);
                } else {
                    self.ctx.text = Some(m);
                }
            }
            "package" => {
                self.advance();
                self.ctx.package = Some(self.json()?);
            }
            "parameter_ids" => {
                self.advance();
                match self.json()? {
                    Value::Bool(b) => self.ctx.param_ids = b,
                    _ => {
                        return Err(self.err_at(
                            &t,
                            "`default parameter_ids` takes true or false",
                            "write `default parameter_ids true`",
                        ))
                    }
                }
            }
            _ => {
                return Err(self.err_at(
                    &t,
                    format!("unknown default {}", t.tok.describe()),
                    "defaults exist for: label, text, package, parameter_ids",
                ))
            }
        }
        Ok(())
    }

    fn with(&mut self, m: &mut Map<String, Value>) -> R<()> {
        self.advance();
        let key = self.key()?;
        self.punct("=", "write `with KEY = JSON`")?;
        let v = self.json()?;
        m.insert(key, v);
        Ok(())
    }

    fn node(&mut self, ptr: &str) -> R<Value> {
        let kw_tok = self.advance();
        let Tok::Ident(kw) = kw_tok.tok.clone() else {
            return Err(self.err_at(
                &kw_tok,
                "expected a node statement",
                "start the node with its keyword",
            ));
        };
        if kw == "node" {
            let mut m = match self.json()? {
                Value::Object(m) => m,
                // Not a node at all: carried as written, for the JSON reader
                // to refuse with its own message.
                other => return Ok(other),
            };
            let hashed = !self.is_kw("unhashed");
            if !hashed {
                self.advance();
            }
            m.remove("contentHash");
            if hashed {
                m.insert("contentHash".to_owned(), Value::Null);
            }
            rehash_node(&mut m);
            return Ok(Value::Object(m));
        }
        let Some(spec) = spec::spec_by_kw(&kw) else {
            return Err(self.err_at(
                &kw_tok,
                format!("`{kw}` does not start a node"),
                "start the node with its keyword",
            ));
        };
        let mut m = Map::new();
        if kw == "relation" {
            let t = self.peek().clone();
            match t.tok {
                Tok::Ident(k) => {
                    self.advance();
                    m.insert("relationKind".to_owned(), Value::String(k));
                }
                Tok::Str(k) => {
                    self.advance();
                    m.insert("relationKind".to_owned(), Value::String(k));
                }
                _ => {
                    return Err(self.expected(
                        "the relation kind",
                        "write `relation empirical NAME(…)`, `relation institutional …` or `relation judgment …`",
                    ))
                }
            }
        }
        let id_tok = self.peek().clone();
        let id = self.reference("the node's name")?;
        let local = id
            .split_once('#')
            .map_or(id.as_str(), |(_, l)| l)
            .to_owned();
        m.insert("id".to_owned(), Value::String(id.clone()));
        m.insert("kind".to_owned(), Value::String(spec.kind.to_owned()));
        for (k, v) in spec::defaults(spec, &id, &local) {
            m.insert(k.to_owned(), v);
        }
        if let Some(p) = &self.ctx.package {
            m.insert("package".to_owned(), p.clone());
        }
        let mut rule_parts = None;
        match spec.kw {
            "relation" if self.eat_punct("(") => {
                let params = self.params(&id)?;
                m.insert("parameters".to_owned(), Value::Array(params));
            }
            "constant" => {
                self.punct(":", "write `constant NAME: Type`")?;
                let ty = self.reference("a type")?;
                m.insert("returnType".to_owned(), json!({ "name": ty }));
            }
            "rule" => {
                let t = self.peek().clone();
                let strength = match t.tok {
                    Tok::Ident(s) | Tok::Str(s) => s,
                    _ => return Err(self.expected(
                        "the rule's strength",
                        "write `rule NAME strict`, `rule NAME defeasible` or `rule NAME defeater`",
                    )),
                };
                self.advance();
                m.insert("strength".to_owned(), Value::String(strength));
                let head_at = self.peek_start();
                let head = self.literal()?;
                let body = if self.eat_punct(":-") {
                    let body_at = self.peek_start();
                    Some((body_at, self.body()?))
                } else {
                    None
                };
                rule_parts = Some((head_at, head, body));
            }
            "priority" => {
                self.punct(":", "write `priority NAME: HigherRule > LowerRule`")?;
                let hi = self.reference("the higher rule")?;
                self.punct(">", "write `priority NAME: HigherRule > LowerRule`")?;
                let lo = self.reference("the lower rule")?;
                m.insert("higher".to_owned(), json!({"kind": "const_ref", "id": hi}));
                m.insert("lower".to_owned(), json!({"kind": "const_ref", "id": lo}));
            }
            "derogation" => {
                self.punct(":", "write `derogation NAME: [ImportedRule, …]`")?;
                let rules = self.field_value(Val::IdList)?;
                let refs = rules
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|id| json!({"kind": "rule_ref", "id": id}))
                    .collect();
                m.insert("rules".to_owned(), Value::Array(refs));
            }
            "closure" => {
                self.punct(":", "write `closure NAME: predicate over domain`")?;
                let p = self.reference("the closed predicate")?;
                if !self.is_kw("over") {
                    return Err(
                        self.expected("`over`", "write `closure NAME: predicate over domain`")
                    );
                }
                self.advance();
                let d = self.reference("the domain predicate")?;
                m.insert("predicate".to_owned(), Value::String(p));
                m.insert("domain".to_owned(), json!({"kind": "const_ref", "id": d}));
            }
            "external" => {
                self.punct(":", "write `external NAME: judgment_predicate`")?;
                let s = self.reference("the judgment predicate")?;
                m.insert("symbol".to_owned(), Value::String(s));
            }
            "edition" | "publication" => {
                if !self.is_kw("of") {
                    return Err(self.expected(
                        "`of`",
                        "write `edition NAME of Work` / `publication NAME of Edition`",
                    ));
                }
                self.advance();
                let w = self.reference("the work or edition")?;
                let key = if spec.kw == "edition" {
                    "work"
                } else {
                    "edition"
                };
                m.insert(key.to_owned(), Value::String(w));
            }
            _ => {}
        }
        let _ = id_tok;
        let mut labels: Option<Vec<Value>> = None;
        let mut texts: Option<Vec<Value>> = None;
        let mut withs = Vec::new();
        let mut withouts = Vec::new();
        let mut hashed = true;
        let mut vars: Option<Vec<(String, String)>> = None;
        loop {
            let t = self.peek().clone();
            let Tok::Ident(k) = &t.tok else {
                if t.tok == Tok::Eof {
                    break;
                }
                return Err(self.err_at(
                    &t,
                    format!(
                        "expected a clause or the next statement, found {}",
                        t.tok.describe()
                    ),
                    clause_help(spec),
                ));
            };
            if STATEMENTS.contains(&k.as_str()) {
                break;
            }
            let clause_ptr = pointer_push(ptr, k);
            self.map.points.push((clause_ptr, t.start));
            match k.as_str() {
                "label" => {
                    self.advance();
                    let l = self.label_like(false)?;
                    labels.get_or_insert_with(Vec::new).push(l);
                }
                "text" => {
                    self.advance();
                    let l = self.label_like(true)?;
                    texts.get_or_insert_with(Vec::new).push(l);
                }
                "name" => {
                    self.advance();
                    let s = self.string("write the name as a string")?;
                    m.insert("name".to_owned(), Value::String(s));
                }
                "with" => {
                    let mut w = Map::new();
                    self.with(&mut w)?;
                    withs.extend(w);
                }
                "without" => {
                    self.advance();
                    withouts.push(self.key()?);
                }
                "unhashed" => {
                    self.advance();
                    hashed = false;
                }
                "vars" if spec.kw == "rule" => {
                    self.advance();
                    vars = Some(self.var_decls()?);
                }
                other => {
                    let Some(field) = spec.fields.iter().find(|f| f.kw == other) else {
                        let help = if spec.kw == "rule" && self.peek2().tok == Tok::Punct("(") {
                            "the body follows `:-`: write `head :- item, item`".to_owned()
                        } else {
                            clause_help(spec)
                        };
                        return Err(self.err_at(
                            &t,
                            format!("`{other}` is not a clause of `{}`", spec.kw),
                            help,
                        ));
                    };
                    self.advance();
                    let v = self.field_value(field.val)?;
                    m.insert(field.key.to_owned(), v);
                }
            }
        }
        if let Some((head_at, head, body)) = rule_parts {
            let var_names: Vec<String> = vars
                .as_ref()
                .map(|v| v.iter().map(|(n, _)| n.clone()).collect())
                .unwrap_or_default();
            if let Some(vs) = &vars {
                let list = vs
                    .iter()
                    .map(|(n, t)| json!({"id": n, "type": {"name": t}}))
                    .collect();
                m.insert("variables".to_owned(), Value::Array(list));
            }
            self.map.points.push((pointer_push(ptr, "head"), head_at));
            m.insert("head".to_owned(), self.lit_json(head, &var_names));
            if let Some((body_at, (items, and))) = body {
                self.map.points.push((pointer_push(ptr, "body"), body_at));
                let mut js = Vec::new();
                for (i, (at, item)) in items.into_iter().enumerate() {
                    let p = if and {
                        pointer_push(&pointer_push(&pointer_push(ptr, "body"), "items"), i)
                    } else {
                        pointer_push(ptr, "body")
                    };
                    self.map.points.push((p, at));
                    js.push(self.item_json(item, &var_names));
                }
                let body = if and {
                    json!({"kind": "and", "items": js})
                } else {
                    js.pop().expect("a body without `and` has one item")
                };
                m.insert("body".to_owned(), body);
            }
        }
        if let Some(l) = labels {
            m.insert("labels".to_owned(), Value::Array(l));
        }
        if let Some(t) = texts {
            m.insert("texts".to_owned(), Value::Array(t));
        }
        for (k, v) in withs {
            m.insert(k, v);
        }
        for k in withouts {
            m.remove(&k);
        }
        m.remove("contentHash");
        if hashed {
            m.insert("contentHash".to_owned(), Value::Null);
        }
        rehash_node(&mut m);
        Ok(Value::Object(m))
    }

    /// `label STR`, `label {attrs} STR`, and `text [unhashed] [{attrs}] STR|BLOCK`.
    fn label_like(&mut self, is_text: bool) -> R<Value> {
        let mut hashed = true;
        if is_text && self.is_kw("unhashed") {
            self.advance();
            hashed = false;
        }
        let mut m = if self.peek().tok == Tok::Punct("{") {
            let t = self.peek().clone();
            let m = self.json_object("the attributes")?;
            if m.contains_key("text") || m.contains_key("contentHash") {
                return Err(self.err_at(
                    &t,
                    "the attributes cannot set `text` or `contentHash`",
                    "write the text after the attributes; its hash is computed",
                ));
            }
            m
        } else if is_text {
            self.ctx.text.clone().unwrap_or_default()
        } else {
            self.ctx.label.clone().unwrap_or_default()
        };
        let text = match self.peek().tok.clone() {
            Tok::Str(s) | Tok::Block(s) => {
                self.advance();
                s
            }
            _ => {
                return Err(self.expected(
                    "the text, as a string",
                    "write `label \"…\"` (or a `\"\"\"` block for a text of several lines)",
                ))
            }
        };
        m.insert("text".to_owned(), Value::String(text));
        if is_text && hashed {
            m.insert("contentHash".to_owned(), Value::Null);
        }
        Ok(Value::Object(m))
    }

    fn field_value(&mut self, val: Val) -> R<Value> {
        Ok(match val {
            Val::Str => Value::String(self.string("write the value as a string")?),
            Val::Id => Value::String(self.reference("a name")?),
            Val::ConstRef => json!({"kind": "const_ref", "id": self.reference("a name")?}),
            Val::Authority => json!({"authority": self.reference("the authority")?}),
            Val::Bool => match self.peek().tok.clone() {
                Tok::Ident(b) if b == "true" || b == "false" => {
                    self.advance();
                    Value::Bool(b == "true")
                }
                _ => return Err(self.expected("`true` or `false`", "write true or false")),
            },
            Val::IdList => {
                self.punct("[", "write the list as [A, B]")?;
                let mut out = Vec::new();
                if !self.eat_punct("]") {
                    loop {
                        out.push(Value::String(self.reference("a name")?));
                        if self.eat_punct("]") {
                            break;
                        }
                        self.punct(
                            ",",
                            "separate the names with commas and close the list with `]`",
                        )?;
                    }
                }
                Value::Array(out)
            }
            Val::Json => self.json()?,
        })
    }

    fn params(&mut self, rel_id: &str) -> R<Vec<Value>> {
        let mut out = Vec::new();
        if self.eat_punct(")") {
            return Ok(out);
        }
        loop {
            let named = self.peek2().tok == Tok::Punct(":");
            let mut m = Map::new();
            if named {
                let name = self.key()?;
                self.advance(); // `:`
                if self.ctx.param_ids {
                    m.insert(
                        "id".to_owned(),
                        Value::String(format!("{rel_id}/arg/{name}")),
                    );
                }
                m.insert("name".to_owned(), Value::String(name));
            }
            let ty = self.reference("a parameter type")?;
            m.insert("type".to_owned(), json!({ "name": ty }));
            out.push(Value::Object(m));
            if self.eat_punct(")") {
                return Ok(out);
            }
            self.punct(
                ",",
                "separate parameters with commas: (game: Game, who: Player)",
            )?;
        }
    }

    fn var_decls(&mut self) -> R<Vec<(String, String)>> {
        self.punct("[", "write the variables as [v0: Game, v1: Player]")?;
        let mut out = Vec::new();
        if self.eat_punct("]") {
            return Ok(out);
        }
        loop {
            let name = self.key()?;
            self.punct(":", "give each variable a type: v0: Game")?;
            let ty = self.reference("a type")?;
            out.push((name, ty));
            if self.eat_punct("]") {
                return Ok(out);
            }
            self.punct(
                ",",
                "separate the variables with commas and close the list with `]`",
            )?;
        }
    }

    fn literal(&mut self) -> R<ProtoLit> {
        let negative = self.eat_punct("~");
        let pred = self.reference("a predicate")?;
        self.punct(
            "(",
            "write a literal as predicate(arg, …); a predicate without arguments as p()",
        )?;
        let mut args = Vec::new();
        if !self.eat_punct(")") {
            loop {
                args.push(self.term()?);
                if self.eat_punct(")") {
                    break;
                }
                if !self.eat_punct(",") {
                    return Err(self.expected(
                        "`,` or `)` after an argument",
                        "separate the arguments with commas and close the literal with `)`",
                    ));
                }
            }
        }
        Ok(ProtoLit {
            pred,
            negative,
            args,
        })
    }

    fn term(&mut self) -> R<Proto> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Ident(s) if s == "value" && self.peek2().tok == Tok::Punct("(") => {
                self.advance();
                self.advance();
                let ty = self.reference("the value's type")?;
                self.punct(",", "write value(Type, JSON)")?;
                let v = self.json()?;
                self.punct(")", "write value(Type, JSON)")?;
                Ok(Proto::Value(ty, v))
            }
            Tok::Ident(s) => {
                self.advance();
                Ok(Proto::Ident(s))
            }
            Tok::Str(s) => {
                self.advance();
                Ok(Proto::Const(s))
            }
            Tok::Int(i) => {
                self.advance();
                Ok(Proto::Int(i))
            }
            Tok::Punct("?") => {
                self.advance();
                Ok(Proto::Var(self.key()?))
            }
            _ => Err(self.expected(
                "a term",
                "a term is a variable, a constant's name, an integer, ?name for a variable, or value(Type, JSON)",
            )),
        }
    }

    /// The body after `:-`: items separated by commas (an `and` of two or
    /// more), one item, or `and[…]` for an `and` of any length.
    fn body(&mut self) -> R<(Vec<(usize, ProtoItem)>, bool)> {
        if self.is_kw("and") && self.peek2().tok == Tok::Punct("[") {
            self.advance();
            self.advance();
            let mut items = Vec::new();
            if !self.eat_punct("]") {
                loop {
                    let at = self.peek_start();
                    items.push((at, self.item()?));
                    if self.eat_punct("]") {
                        break;
                    }
                    self.punct(",", "separate the items with commas and close with `]`")?;
                }
            }
            return Ok((items, true));
        }
        let mut items = Vec::new();
        loop {
            let at = self.peek_start();
            items.push((at, self.item()?));
            if !self.eat_punct(",") {
                break;
            }
            let t = self.peek().clone();
            if let Tok::Ident(k) = &t.tok {
                let keyword = STATEMENTS.contains(&k.as_str())
                    || spec::COMMON_CLAUSES.contains(&k.as_str())
                    || k == "vars"
                    || k == "anchors";
                if keyword && self.peek2().tok != Tok::Punct("(") {
                    return Err(self.err_at(
                        &t,
                        format!("expected another body item after `,`, found `{k}`"),
                        "remove the comma after the last item of the body",
                    ));
                }
            }
        }
        let and = items.len() > 1;
        Ok((items, and))
    }

    fn item(&mut self) -> R<ProtoItem> {
        let t = self.peek().clone();
        let next_paren = self.peek2().tok == Tok::Punct("(");
        if let Tok::Ident(k) = &t.tok {
            if k == "not" && !next_paren {
                self.advance();
                let status = self.status();
                let lit = self.literal()?;
                return Ok(ProtoItem::Not { status, lit });
            }
            if (k == "supported" || k == "established") && !next_paren {
                let status = self.status();
                let lit = self.literal()?;
                return Ok(ProtoItem::Status { status, lit });
            }
        }
        let is_lit = match &t.tok {
            Tok::Punct("~") => true,
            Tok::Ident(k) => next_paren && k != "value",
            Tok::Str(_) => next_paren,
            _ => false,
        };
        if is_lit {
            let lit = self.literal()?;
            return Ok(ProtoItem::Status {
                status: "established",
                lit,
            });
        }
        let left = self.term()?;
        let op = match self.peek().tok {
            Tok::Punct("=") => "eq",
            Tok::Punct("!=") => "ne",
            Tok::Punct("<") => "lt",
            Tok::Punct("<=") => "le",
            Tok::Punct(">") => "gt",
            Tok::Punct(">=") => "ge",
            _ => {
                return Err(self.expected(
                    "a comparison operator",
                    "a body item is a literal p(x), `supported p(x)`, `not p(x)`, or a comparison x >= 3 (= != < <= > >=)",
                ))
            }
        };
        self.advance();
        let right = self.term()?;
        Ok(ProtoItem::Cmp { left, op, right })
    }

    /// `supported`, or `established` (written or not).
    fn status(&mut self) -> &'static str {
        let next_paren = self.peek2().tok == Tok::Punct("(");
        if self.is_kw("supported") && !next_paren {
            self.advance();
            "supported"
        } else {
            if self.is_kw("established") && !next_paren {
                self.advance();
            }
            "established"
        }
    }

    fn term_json(&self, t: Proto, vars: &[String]) -> Value {
        match t {
            Proto::Ident(s) if vars.contains(&s) => json!({"kind": "var", "var": s}),
            Proto::Ident(s) => json!({"kind": "const_ref", "id": self.ctx.resolve(&s)}),
            Proto::Var(s) => json!({"kind": "var", "var": s}),
            Proto::Const(s) => json!({"kind": "const_ref", "id": s}),
            Proto::Int(i) => json!({"kind": "value", "type": {"name": INTEGER}, "value": i}),
            Proto::Value(ty, v) => json!({"kind": "value", "type": {"name": ty}, "value": v}),
        }
    }

    fn lit_json(&self, l: ProtoLit, vars: &[String]) -> Value {
        let args: Vec<Value> = l
            .args
            .into_iter()
            .map(|a| self.term_json(a, vars))
            .collect();
        json!({"kind": "literal", "predicate": l.pred,
               "polarity": if l.negative { "negative" } else { "positive" }, "args": args})
    }

    fn item_json(&self, i: ProtoItem, vars: &[String]) -> Value {
        match i {
            ProtoItem::Status { status, lit } => {
                json!({"kind": "status", "status": status, "formula": self.lit_json(lit, vars)})
            }
            ProtoItem::Not { status, lit } => json!({"kind": "not", "item":
                {"kind": "status", "status": status, "formula": self.lit_json(lit, vars)}}),
            ProtoItem::Cmp { left, op, right } => json!({"kind": "comparison",
                "left": self.term_json(left, vars), "op": op, "right": self.term_json(right, vars)}),
        }
    }
}

fn clause_help(spec: &KindSpec) -> String {
    let mut kws: Vec<&str> = spec.fields.iter().map(|f| f.kw).collect();
    kws.extend(["label", "text", "name", "with", "without", "unhashed"]);
    format!(
        "a `{}` takes the clauses: {} (or the next statement begins)",
        spec.kw,
        kws.join(", ")
    )
}

fn at_line_start(src: &str, pos: usize) -> bool {
    src[..pos]
        .rfind('\n')
        .map_or(&src[..pos], |i| &src[i + 1..pos])
        .is_empty()
}

fn next_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

/// Byte offset of 1-based `line`, `column` (serde_json counts columns in bytes).
fn offset_of(s: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (i, l) in s.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (off + column.saturating_sub(1)).min(s.len());
        }
        off += l.len();
    }
    s.len()
}
