//! JSON → [`Package`], with integrity checks.
//!
//! The reader is deliberately hand-written over `serde_json::Value` rather than
//! derived: it must report *every* problem with a JSON pointer and a fix, keep
//! going after the first one, and refuse unknown kinds by name instead of
//! skipping them.

use super::hash::{node_hash, sha256_hex};
use super::*;
use crate::diagnostics::{pointer_push, Code, Diagnostics, Location, RuntimeCode};
use lawgen_runtime::formats::json_error;
use serde_json::{Map, Value};

/// Size limits applied while reading, so hostile input fails with a message
/// instead of exhausting memory. `#[non_exhaustive]`: outside lawgen, start
/// from `ReadLimits::default()` and chain the setters of the same names as
/// the fields:
///
/// ```
/// let limits = lawgen::driver::ReadLimits::default().max_nodes(10).max_depth(5);
/// assert_eq!((limits.max_nodes, limits.max_depth), (10, 5));
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ReadLimits {
    /// Largest accepted package file, in bytes.
    pub max_bytes: usize,
    /// Largest number of nodes.
    pub max_nodes: usize,
    /// Deepest JSON nesting (arrays and objects). At most 128, the JSON
    /// parser's own bound.
    pub max_depth: usize,
    /// Longest JSON string, in bytes (labels and article texts included).
    pub max_string_bytes: usize,
    /// Most parameters of one predicate.
    pub max_arity: usize,
    /// Most items in one rule body, and two more than the most rules that
    /// may attack one literal (its +∂ rule needs an atom per attacker).
    /// Checked after the model is built (`check::size`). The default keeps
    /// generated ascent rules under rustc's recursion limit (a 126-item body
    /// builds, a 256-item one does not); the interpreter takes more, up to
    /// `check::size::MAX_RULE_BODY_CEILING` (2000), which no setting exceeds.
    pub max_rule_body: usize,
    /// Largest lowered program, in body items (an upper bound computed from
    /// the model), so a package cannot make lowering and code generation
    /// explode. Checked after the model is built (`check::size`).
    pub max_program_size: usize,
    /// Largest accepted facts file (and scenario expectation file), in
    /// bytes. Facts files are read as a stream, so this bounds the memory a
    /// facts file can make lawgen use, not the size it is read with.
    pub max_facts_bytes: usize,
}

impl ReadLimits {
    /// Sets the field `max_bytes`.
    pub fn max_bytes(mut self, max_bytes: usize) -> ReadLimits {
        self.max_bytes = max_bytes;
        self
    }

    /// Sets the field `max_nodes`.
    pub fn max_nodes(mut self, max_nodes: usize) -> ReadLimits {
        self.max_nodes = max_nodes;
        self
    }

    /// Sets the field `max_depth`.
    pub fn max_depth(mut self, max_depth: usize) -> ReadLimits {
        self.max_depth = max_depth;
        self
    }

    /// Sets the field `max_string_bytes`.
    pub fn max_string_bytes(mut self, max_string_bytes: usize) -> ReadLimits {
        self.max_string_bytes = max_string_bytes;
        self
    }

    /// Sets the field `max_arity`.
    pub fn max_arity(mut self, max_arity: usize) -> ReadLimits {
        self.max_arity = max_arity;
        self
    }

    /// Sets the field `max_rule_body`.
    pub fn max_rule_body(mut self, max_rule_body: usize) -> ReadLimits {
        self.max_rule_body = max_rule_body;
        self
    }

    /// Sets the field `max_program_size`.
    pub fn max_program_size(mut self, max_program_size: usize) -> ReadLimits {
        self.max_program_size = max_program_size;
        self
    }

    /// Sets the field `max_facts_bytes`.
    pub fn max_facts_bytes(mut self, max_facts_bytes: usize) -> ReadLimits {
        self.max_facts_bytes = max_facts_bytes;
        self
    }
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_bytes: 64 << 20,
            max_nodes: 200_000,
            max_depth: 64,
            max_string_bytes: 1 << 20,
            max_arity: 32,
            max_rule_body: 120,
            max_program_size: 4_000_000,
            max_facts_bytes: 1 << 30,
        }
    }
}

/// Reads and integrity-checks a package. On failure returns every diagnostic
/// found, sorted by location.
pub fn read_package(bytes: &[u8], limits: &ReadLimits) -> Result<Package, Diagnostics> {
    let mut diags = Diagnostics::new();
    if bytes.len() > limits.max_bytes {
        diags.error(
            Code::Limit,
            Location::default(),
            format!(
                "the package is {} bytes, more than the limit of {} bytes",
                bytes.len(),
                limits.max_bytes
            ),
            "split the package, or raise the limit (`--max-package-bytes`, `Builder::limits`)",
        );
        return Err(diags);
    }
    if let Some(d) = scan(bytes, limits) {
        diags.push(d);
        return Err(diags);
    }
    let root: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            diags.push(json_error(&e));
            return Err(diags);
        }
    };
    if let Some(d) = duplicate_key(bytes, &root) {
        diags.push(d);
        return Err(diags);
    }
    let mut r = Reader {
        diags: &mut diags,
        node: None,
        max_arity: limits.max_arity,
    };
    let pkg = r.package(&root, limits);
    diags.sort();
    match pkg {
        Some(p) if diags.is_empty() => Ok(p),
        _ => Err(diags),
    }
}

struct Reader<'d> {
    diags: &'d mut Diagnostics,
    /// Id of the node being read, for locations.
    node: Option<String>,
    max_arity: usize,
}

/// Checks nesting depth and string lengths in one pass over the bytes,
/// before any tree is built, so a hostile file is refused in linear time and
/// constant memory. Syntax errors are left to the JSON parser.
pub(crate) fn scan(bytes: &[u8], limits: &ReadLimits) -> Option<crate::diagnostics::Diagnostic> {
    let max_depth = limits.max_depth.min(128);
    let (mut depth, mut line, mut col) = (0usize, 1usize, 0usize);
    let mut in_string = false;
    let mut escaped = false;
    let mut string_start = (0usize, 0usize, 0usize);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            line += 1;
            col = 0;
        } else {
            col += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            } else if i - string_start.0 > limits.max_string_bytes {
                let (_, l, c) = string_start;
                return Some(crate::diagnostics::Diagnostic::new(
                    Code::Limit,
                    Location::default(),
                    format!(
                        "the string starting at line {l}, column {c} is longer than the limit of {} bytes",
                        limits.max_string_bytes
                    ),
                    "shorten it (a label or article text never needs this much), or raise the limit (`--max-string-bytes`, `Builder::limits`)",
                ));
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                string_start = (i, line, col);
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Some(crate::diagnostics::Diagnostic::new(
                        RuntimeCode::TooDeep,
                        Location::default(),
                        format!(
                            "the JSON nests more than {max_depth} levels deep (line {line}, column {col})"
                        ),
                        "a package or facts file never needs this depth; the file is corrupt or hostile (the limit is `--max-depth`, `Builder::limits`, at most 128)",
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The first JSON object of `bytes` (parsed as `root`) that names a key
/// twice, as an error at that key naming its node. A JSON parser keeps one
/// of the two values (`serde_json` the last, others the first), so a
/// reviewer's tool and lawgen could read different packages, and the node
/// hash would be taken over only the value kept.
fn duplicate_key(bytes: &[u8], root: &Value) -> Option<crate::diagnostics::Diagnostic> {
    use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
    use std::cell::RefCell;

    type Found<'f> = &'f RefCell<Option<(String, String)>>;
    struct Walk<'f> {
        ptr: String,
        found: Found<'f>,
    }
    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0usize;
            while seq
                .next_element_seed(Walk {
                    ptr: pointer_push(&self.ptr, i),
                    found: self.found,
                })?
                .is_some()
            {
                i += 1;
            }
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if seen.contains(&key) {
                    *self.found.borrow_mut() = Some((self.ptr.clone(), key));
                    return Err(A::Error::custom("duplicate key"));
                }
                map.next_value_seed(Walk {
                    ptr: pointer_push(&self.ptr, &key),
                    found: self.found,
                })?;
                seen.insert(key);
            }
            Ok(())
        }
    }

    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let _ = Walk {
        ptr: String::new(),
        found: &found,
    }
    .deserialize(&mut de);
    let (object, key) = found.into_inner()?;
    // `/nodes/N…`: node N, named by its id.
    let node = object
        .strip_prefix("/nodes/")
        .and_then(|rest| rest.split('/').next()?.parse::<usize>().ok())
        .and_then(|n| root.get("nodes")?.get(n)?.get("id")?.as_str());
    let at = Location::new(node, pointer_push(&object, &key));
    Some(crate::diagnostics::Diagnostic::new(
        Code::DuplicateKey,
        at,
        format!(
            "the key `{key}` appears twice in one JSON object{}",
            match node {
                Some(id) => format!(" of node `{id}`"),
                None => String::new(),
            }
        ),
        "keep one of the two (JSON readers disagree on which one counts, so a reviewer's tool and lawgen could read different packages), then run `lawgen fmt FILE` if the node's hash must be recomputed",
    ))
}

/// Kinds of node this reader knows, for the "did you mean" list.
const NODE_KINDS: &str = "type_decl, symbol_decl, rule, priority_rule, closure_policy, external_decl, source_work, source_edition, publication, fragment, derogation, input_deprecation";

impl Reader<'_> {
    fn loc(&self, ptr: &str) -> Location {
        Location::new(self.node.as_deref(), ptr)
    }

    fn err(&mut self, code: Code, ptr: &str, msg: impl Into<String>, help: impl Into<String>) {
        let loc = self.loc(ptr);
        self.diags.error(code, loc, msg, help);
    }

    fn obj<'v>(&mut self, v: &'v Value, ptr: &str, what: &str) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            other => {
                self.err(
                    Code::BadField,
                    ptr,
                    format!(
                        "expected {what} (a JSON object), found {}",
                        json_type(other)
                    ),
                    format!("write {what} as a JSON object, as in the reference package"),
                );
                None
            }
        }
    }

    fn field<'v>(&mut self, m: &'v Map<String, Value>, ptr: &str, key: &str) -> Option<&'v Value> {
        match m.get(key) {
            Some(v) => Some(v),
            None => {
                self.err(
                    Code::BadField,
                    ptr,
                    format!("missing field `{key}`"),
                    format!("add the `{key}` field (see docs/reference.md#a-package and the reference package)"),
                );
                None
            }
        }
    }

    fn string(&mut self, v: &Value, ptr: &str, key: &str) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            other => {
                self.err(
                    Code::BadField,
                    ptr,
                    format!("`{key}` must be a string, found {}", json_type(other)),
                    format!("write `{key}` as a JSON string"),
                );
                None
            }
        }
    }

    fn str_field(&mut self, m: &Map<String, Value>, ptr: &str, key: &str) -> Option<String> {
        let v = self.field(m, ptr, key)?;
        self.string(v, &pointer_push(ptr, key), key)
    }

    fn opt_str_field(&mut self, m: &Map<String, Value>, ptr: &str, key: &str) -> Option<String> {
        match m.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => self.string(v, &pointer_push(ptr, key), key),
        }
    }

    fn array_field<'v>(
        &mut self,
        m: &'v Map<String, Value>,
        ptr: &str,
        key: &str,
    ) -> Option<&'v Vec<Value>> {
        let v = self.field(m, ptr, key)?;
        self.array(v, &pointer_push(ptr, key), key)
    }

    fn array<'v>(&mut self, v: &'v Value, ptr: &str, key: &str) -> Option<&'v Vec<Value>> {
        match v {
            Value::Array(a) => Some(a),
            other => {
                self.err(
                    Code::BadField,
                    ptr,
                    format!("`{key}` must be an array, found {}", json_type(other)),
                    format!("write `{key}` as a JSON array"),
                );
                None
            }
        }
    }

    /// An optional array; absent means empty.
    fn opt_array<'v>(&mut self, m: &'v Map<String, Value>, ptr: &str, key: &str) -> &'v [Value] {
        match m.get(key) {
            None | Some(Value::Null) => &[],
            Some(v) => self
                .array(v, &pointer_push(ptr, key), key)
                .map_or(&[], |a| a.as_slice()),
        }
    }

    /// A reference written as a plain id string.
    fn ref_str(&mut self, m: &Map<String, Value>, ptr: &str, key: &str) -> Option<Ref> {
        let id = self.str_field(m, ptr, key)?;
        Some(Ref {
            id,
            ptr: pointer_push(ptr, key),
        })
    }

    /// A reference written as `{"kind":"const_ref","id":…}`.
    fn ref_const(&mut self, m: &Map<String, Value>, ptr: &str, key: &str) -> Option<Ref> {
        let v = self.field(m, ptr, key)?;
        let p = pointer_push(ptr, key);
        let o = self.obj(v, &p, &format!("`{key}`"))?;
        let kind = self.str_field(o, &p, "kind")?;
        if kind != "const_ref" {
            self.err(
                Code::UnknownKind,
                &pointer_push(&p, "kind"),
                format!("`{key}` must be a `const_ref`, found kind `{kind}`"),
                format!(r#"write `{key}` as {{"kind":"const_ref","id":"…"}}"#),
            );
            return None;
        }
        let id = self.str_field(o, &p, "id")?;
        Some(Ref {
            id,
            ptr: pointer_push(&p, "id"),
        })
    }

    /// A type reference written as `{"name":…}`.
    fn ref_type(&mut self, m: &Map<String, Value>, ptr: &str, key: &str) -> Option<Ref> {
        let v = self.field(m, ptr, key)?;
        let p = pointer_push(ptr, key);
        let o = self.obj(v, &p, "a type reference")?;
        let id = self.str_field(o, &p, "name")?;
        Some(Ref {
            id,
            ptr: pointer_push(&p, "name"),
        })
    }

    fn labels(&mut self, m: &Map<String, Value>, ptr: &str) -> Vec<Label> {
        let mut out = Vec::new();
        let lp = pointer_push(ptr, "labels");
        for (i, l) in self.opt_array(m, ptr, "labels").iter().enumerate() {
            let p = pointer_push(&lp, i);
            let Some(o) = self.obj(l, &p, "a label") else {
                continue;
            };
            let text = self.str_field(o, &p, "text");
            let language = self.opt_str_field(o, &p, "language").unwrap_or_default();
            if let Some(text) = text {
                out.push(Label { language, text });
            }
        }
        out
    }

    fn package(&mut self, root: &Value, limits: &ReadLimits) -> Option<Package> {
        let m = self.obj(root, "", "the package")?;
        let schema = self.str_field(m, "", "schemaVersion");
        if let Some(s) = &schema {
            if s != SCHEMA_VERSION {
                self.err(
                    Code::SchemaVersion,
                    "/schemaVersion",
                    format!("unsupported schema version `{s}`"),
                    format!("lawgen reads `{SCHEMA_VERSION}`; convert the package or use a lawgen that reads `{s}`"),
                );
            }
        }
        let header = self
            .field(m, "", "package")
            .and_then(|v| self.obj(v, "/package", "the package header"));
        let (name, namespace, version) = match header {
            Some(h) => (
                self.str_field(h, "/package", "name"),
                self.opt_str_field(h, "/package", "namespace"),
                self.str_field(h, "/package", "version"),
            ),
            None => (None, None, None),
        };
        let semantic_hash = self.opt_str_field(m, "", "semanticHash");
        if !self.opt_array(m, "", "strata").is_empty() {
            self.err(
                Code::Unsupported,
                "/strata",
                "non-empty `strata` is not supported by this version of lawgen",
                "leave `strata` empty: lawgen computes the stratification itself (docs/reference.md#stratification)",
            );
        }
        let mut features = Vec::new();
        for (i, v) in self.opt_array(m, "", "features").iter().enumerate() {
            if let Some(f) = self.string(v, &format!("/features/{i}"), "features[]") {
                features.push(f);
            }
        }
        let mut imports = Vec::new();
        for (i, v) in self.opt_array(m, "", "imports").iter().enumerate() {
            if let Some(entry) = self.import(v, &format!("/imports/{i}")) {
                imports.push(entry);
            }
        }
        let nodes_v = self.array_field(m, "", "nodes")?;
        if nodes_v.len() > limits.max_nodes {
            self.err(
                Code::Limit,
                "/nodes",
                format!(
                    "the package has {} nodes, more than the limit of {}",
                    nodes_v.len(),
                    limits.max_nodes
                ),
                "split the package, or raise the limit (`--max-nodes`, `Builder::limits`)",
            );
            return None;
        }
        let mut nodes = Vec::with_capacity(nodes_v.len());
        let mut seen = std::collections::HashMap::new();
        for (i, v) in nodes_v.iter().enumerate() {
            let ptr = format!("/nodes/{i}");
            self.node = None;
            if let Some(n) = self.node(v, &ptr) {
                if let Some(first) = seen.insert(n.id.clone(), n.ptr.clone()) {
                    self.err(
                        Code::DuplicateId,
                        &pointer_push(&ptr, "id"),
                        format!("duplicate node id, first declared at {first}"),
                        "give every node a unique id",
                    );
                }
                nodes.push(n);
            }
            self.node = None;
        }
        Some(Package {
            name: name?,
            namespace: namespace.unwrap_or_default(),
            version: version?,
            semantic_hash,
            imports,
            features,
            nodes,
        })
    }

    /// One `imports` entry (docs/reference.md#imports): every field is required, since each
    /// takes part in finding or verifying the imported package.
    fn import(&mut self, v: &Value, ptr: &str) -> Option<Import> {
        let m = self.obj(v, ptr, "an import entry")?;
        let name = self.str_field(m, ptr, "name");
        let namespace = self.str_field(m, ptr, "namespace");
        let version = self.str_field(m, ptr, "version");
        let semantic_hash = self.str_field(m, ptr, "semanticHash");
        Some(Import {
            name: name?,
            namespace: namespace?,
            version: version?,
            semantic_hash: semantic_hash?,
            ptr: ptr.to_owned(),
        })
    }

    fn node(&mut self, v: &Value, ptr: &str) -> Option<Node> {
        let m = self.obj(v, ptr, "a node")?;
        let id = self.str_field(m, ptr, "id")?;
        self.node = Some(id.clone());
        let kind = self.str_field(m, ptr, "kind")?;
        // Integrity first: a node whose bytes changed is not read further.
        match m.get("contentHash") {
            None => self.err(
                Code::BadField,
                ptr,
                "missing field `contentHash`",
                "add `contentHash` (`lawgen fmt FILE` computes it): `sha256:` + hex SHA-256 of the node without that field, as compact JSON with sorted keys",
            ),
            Some(Value::String(expected)) => {
                let actual = node_hash(m);
                if *expected != actual {
                    self.err(
                        Code::HashMismatch,
                        &pointer_push(ptr, "contentHash"),
                        format!("content hash mismatch: the node says {expected}, its content hashes to {actual}"),
                        "the node was changed after hashing: restore it, or run `lawgen fmt FILE` to recompute every hash if the change is intended",
                    );
                    return None;
                }
            }
            Some(other) => self.err(
                Code::BadField,
                &pointer_push(ptr, "contentHash"),
                format!("`contentHash` must be a string, found {}", json_type(other)),
                "write `contentHash` as \"sha256:<64 hex digits>\"",
            ),
        }
        let labels = self.labels(m, ptr);
        let package = self.opt_str_field(m, ptr, "package");
        let kind = match kind.as_str() {
            "type_decl" => self.type_decl(m, ptr)?,
            "symbol_decl" => self.symbol_decl(m, ptr)?,
            "rule" => NodeKind::Rule(self.rule(m, ptr)?),
            "priority_rule" => self.priority(m, ptr)?,
            "closure_policy" => self.closure(m, ptr)?,
            "external_decl" => NodeKind::External {
                symbol: self.ref_str(m, ptr, "symbol")?,
                authority: self.ref_const(m, ptr, "authority")?.id,
                capability: self.str_field(m, ptr, "capability")?,
            },
            "source_work" => NodeKind::SourceWork(self.source_work(m, ptr)),
            "source_edition" => NodeKind::SourceEdition {
                work: self.ref_str(m, ptr, "work")?,
                edition: self.edition(m, ptr),
            },
            "publication" => NodeKind::Publication {
                edition: self.ref_str(m, ptr, "edition")?,
                publication: Publication {
                    uri: self.opt_str_field(m, ptr, "uri"),
                    document_hash: self.opt_str_field(m, ptr, "documentHash"),
                    media_type: self.opt_str_field(m, ptr, "mediaType"),
                    retrieved_at: self.opt_str_field(m, ptr, "retrievedAt"),
                },
            },
            "fragment" => NodeKind::Fragment(self.fragment(m, ptr)?),
            "derogation" => NodeKind::Derogation(self.derogation(m, ptr)?),
            "input_deprecation" => NodeKind::InputDeprecation(self.input_deprecation(m, ptr)?),
            other => {
                self.err(
                    Code::UnknownNodeKind,
                    &pointer_push(ptr, "kind"),
                    format!("unknown node kind `{other}`"),
                    format!("use one of: {NODE_KINDS}"),
                );
                return None;
            }
        };
        Some(Node {
            id,
            ptr: ptr.to_owned(),
            package,
            labels,
            kind,
        })
    }

    /// A free-standing name written as `{"kind":"const_ref","id":…}`, when present.
    fn opt_ref_const(&mut self, m: &Map<String, Value>, ptr: &str, key: &str) -> Option<String> {
        match m.get(key) {
            None | Some(Value::Null) => None,
            Some(_) => self.ref_const(m, ptr, key).map(|r| r.id),
        }
    }

    /// What `lawgen doc` shows of a source work: optional, but of the right type.
    fn source_work(&mut self, m: &Map<String, Value>, ptr: &str) -> SourceWork {
        SourceWork {
            authority: self.opt_ref_const(m, ptr, "authority"),
            jurisdiction: self.opt_ref_const(m, ptr, "jurisdiction"),
            number: self.opt_str_field(m, ptr, "number"),
            source_kind: self.opt_str_field(m, ptr, "sourceKind"),
        }
    }

    /// What `lawgen doc` shows of an edition: optional, but of the right type.
    fn edition(&mut self, m: &Map<String, Value>, ptr: &str) -> Edition {
        let lp = pointer_push(ptr, "lifecycle");
        let mut lifecycle = Vec::new();
        for (i, v) in self.opt_array(m, ptr, "lifecycle").iter().enumerate() {
            let p = pointer_push(&lp, i);
            let Some(o) = self.obj(v, &p, "a lifecycle state") else {
                continue;
            };
            let status = self.str_field(o, &p, "status");
            let extent = self.str_field(o, &p, "extent");
            if let (Some(status), Some(extent)) = (status, extent) {
                lifecycle.push(LifecycleState { status, extent });
            }
        }
        Edition {
            language: self.opt_str_field(m, ptr, "language"),
            lifecycle,
            officiality: self.opt_str_field(m, ptr, "officiality"),
            materialization: self.opt_str_field(m, ptr, "materializationStatus"),
        }
    }

    fn type_decl(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<NodeKind> {
        let name = self.str_field(m, ptr, "name")?;
        let tk = self.str_field(m, ptr, "typeKind")?;
        if tk != "entity" {
            self.err(
                Code::Unsupported,
                &pointer_push(ptr, "typeKind"),
                format!("type kind `{tk}` is not supported"),
                "declare entity types (`\"typeKind\": \"entity\"`); integers use the built-in urn:law:std#Integer",
            );
            return None;
        }
        Some(NodeKind::TypeDecl { name })
    }

    fn symbol_decl(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<NodeKind> {
        let sk = self.str_field(m, ptr, "symbolKind")?;
        match sk.as_str() {
            "relation" => {
                let name = self.str_field(m, ptr, "name")?;
                let rk = self.str_field(m, ptr, "relationKind")?;
                let relation_kind = match rk.as_str() {
                    "empirical" => RelationKind::Empirical,
                    "institutional" => RelationKind::Institutional,
                    "judgment" => RelationKind::Judgment,
                    other => {
                        self.err(
                            Code::UnknownKind,
                            &pointer_push(ptr, "relationKind"),
                            format!("unknown relation kind `{other}`"),
                            "use `empirical`, `institutional` or `judgment`",
                        );
                        return None;
                    }
                };
                let pp = pointer_push(ptr, "parameters");
                let mut params = Vec::new();
                let declared = self.array_field(m, ptr, "parameters")?;
                if declared.len() > self.max_arity {
                    self.err(
                        Code::Limit,
                        &pp,
                        format!(
                            "`{name}` has {} parameters, more than the limit of {}",
                            declared.len(),
                            self.max_arity
                        ),
                        "split the predicate, or raise the limit (`--max-arity`, `Builder::limits`)",
                    );
                    return None;
                }
                for (i, p) in declared.iter().enumerate() {
                    let p_ptr = pointer_push(&pp, i);
                    let o = self.obj(p, &p_ptr, "a parameter")?;
                    params.push(Param {
                        name: self.opt_str_field(o, &p_ptr, "name"),
                        ty: self.ref_type(o, &p_ptr, "type")?,
                    });
                }
                Some(NodeKind::Relation(RelationDecl {
                    name,
                    relation_kind,
                    params,
                }))
            }
            "constant" => {
                let name = self.str_field(m, ptr, "name")?;
                if !self.opt_array(m, ptr, "parameters").is_empty() {
                    self.err(
                        Code::Unsupported,
                        &pointer_push(ptr, "parameters"),
                        "constants with parameters (functions) are not supported",
                        "declare a relation instead, or leave `parameters` empty",
                    );
                    return None;
                }
                let ty = self.ref_type(m, ptr, "returnType")?;
                Some(NodeKind::Constant { name, ty })
            }
            other => {
                self.err(
                    Code::UnknownKind,
                    &pointer_push(ptr, "symbolKind"),
                    format!("unknown symbol kind `{other}`"),
                    "use `relation` or `constant`",
                );
                None
            }
        }
    }

    /// `scope` (rules) and `condition` (priorities): only boolean true is defined.
    fn trivial_condition(&mut self, m: &Map<String, Value>, ptr: &str, key: &str) {
        let Some(v) = m.get(key) else { return };
        let ok = v.get("kind").and_then(Value::as_str) == Some("boolean")
            && v.get("value") == Some(&Value::Bool(true));
        if !ok {
            self.err(
                Code::Unsupported,
                &pointer_push(ptr, key),
                format!("only `{{\"kind\":\"boolean\",\"value\":true}}` is defined for `{key}`"),
                format!("express the condition as body items of the rule, or drop `{key}`"),
            );
        }
    }

    fn rule(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<Rule> {
        self.trivial_condition(m, ptr, "scope");
        if !self.opt_array(m, ptr, "interpretations").is_empty() {
            self.err(
                Code::Unsupported,
                &pointer_push(ptr, "interpretations"),
                "non-empty `interpretations` is not supported",
                "leave `interpretations` empty; model the interpretation as its own rule",
            );
        }
        let strength = {
            let s = self.str_field(m, ptr, "strength");
            match s.as_deref() {
                Some("strict") => Some(Strength::Strict),
                Some("defeasible") => Some(Strength::Defeasible),
                Some("defeater") => Some(Strength::Defeater),
                Some(other) => {
                    self.err(
                        Code::UnknownKind,
                        &pointer_push(ptr, "strength"),
                        format!("unknown rule strength `{other}`"),
                        "use `strict`, `defeasible` or `defeater`",
                    );
                    None
                }
                None => None,
            }
        };
        let head = self
            .field(m, ptr, "head")
            .and_then(|h| self.literal(h, &pointer_push(ptr, "head")));
        let body = self
            .field(m, ptr, "body")
            .and_then(|b| self.body(b, &pointer_push(ptr, "body")));
        let vp = pointer_push(ptr, "variables");
        let mut variables = Vec::new();
        let mut vars_ok = true;
        for (i, v) in self.opt_array(m, ptr, "variables").iter().enumerate() {
            let p = pointer_push(&vp, i);
            let decl = self.obj(v, &p, "a variable declaration").and_then(|o| {
                Some(VarDecl {
                    name: self.str_field(o, &p, "id")?,
                    ty: self.ref_type(o, &p, "type")?,
                    ptr: p.clone(),
                })
            });
            match decl {
                Some(d) => variables.push(d),
                None => vars_ok = false,
            }
        }
        let ap = pointer_push(ptr, "anchors");
        let mut anchors = Vec::new();
        for (i, a) in self.opt_array(m, ptr, "anchors").iter().enumerate() {
            let p = pointer_push(&ap, i);
            if let Some(id) = self.string(a, &p, "anchors[]") {
                anchors.push(Ref { id, ptr: p });
            }
        }
        if !vars_ok {
            return None;
        }
        Some(Rule {
            head: head?,
            body: body?,
            variables,
            strength: strength?,
            anchors,
        })
    }

    fn body(&mut self, v: &Value, ptr: &str) -> Option<Vec<Item>> {
        let m = self.obj(v, ptr, "a rule body")?;
        if m.get("kind").and_then(Value::as_str) == Some("and") {
            let ip = pointer_push(ptr, "items");
            let items = self.array_field(m, ptr, "items")?;
            let mut out = Vec::with_capacity(items.len());
            let mut ok = true;
            for (i, it) in items.iter().enumerate() {
                match self.item(it, &pointer_push(&ip, i)) {
                    Some(x) => out.push(x),
                    None => ok = false,
                }
            }
            ok.then_some(out)
        } else {
            Some(vec![self.item(v, ptr)?])
        }
    }

    fn status(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<Status> {
        match self.str_field(m, ptr, "status")?.as_str() {
            "established" => Some(Status::Established),
            "supported" => Some(Status::Supported),
            other => {
                self.err(
                    Code::UnknownKind,
                    &pointer_push(ptr, "status"),
                    format!("unknown status `{other}`"),
                    "use `established` or `supported`",
                );
                None
            }
        }
    }

    fn item(&mut self, v: &Value, ptr: &str) -> Option<Item> {
        let m = self.obj(v, ptr, "a body item")?;
        let kind = self.str_field(m, ptr, "kind")?;
        match kind.as_str() {
            "status" => {
                let status = self.status(m, ptr);
                let literal = self
                    .field(m, ptr, "formula")
                    .and_then(|f| self.literal(f, &pointer_push(ptr, "formula")));
                Some(Item::Status {
                    status: status?,
                    literal: literal?,
                    ptr: ptr.to_owned(),
                })
            }
            "comparison" => {
                let left = self
                    .field(m, ptr, "left")
                    .and_then(|t| self.term(t, &pointer_push(ptr, "left")));
                let op = match self.str_field(m, ptr, "op").as_deref() {
                    Some("eq") => Some(CmpOp::Eq),
                    Some("ne") => Some(CmpOp::Ne),
                    Some("lt") => Some(CmpOp::Lt),
                    Some("le") => Some(CmpOp::Le),
                    Some("gt") => Some(CmpOp::Gt),
                    Some("ge") => Some(CmpOp::Ge),
                    Some(other) => {
                        self.err(
                            Code::UnknownKind,
                            &pointer_push(ptr, "op"),
                            format!("unknown comparison operator `{other}`"),
                            "use one of: eq, ne, lt, le, gt, ge",
                        );
                        None
                    }
                    None => None,
                };
                let right = self
                    .field(m, ptr, "right")
                    .and_then(|t| self.term(t, &pointer_push(ptr, "right")));
                Some(Item::Comparison {
                    left: left?,
                    op: op?,
                    right: right?,
                    ptr: ptr.to_owned(),
                })
            }
            "not" => {
                let ip = pointer_push(ptr, "item");
                let inner = self.field(m, ptr, "item")?;
                let im = self.obj(inner, &ip, "the negated item")?;
                let ik = self.str_field(im, &ip, "kind")?;
                if ik != "status" {
                    self.err(
                        Code::UnknownKind,
                        &pointer_push(&ip, "kind"),
                        format!("`not` applies to status items only, found kind `{ik}`"),
                        "negate a comparison by flipping its operator (eq ↔ ne, lt ↔ ge, le ↔ gt)",
                    );
                    return None;
                }
                let status = self.status(im, &ip);
                let literal = self
                    .field(im, &ip, "formula")
                    .and_then(|f| self.literal(f, &pointer_push(&ip, "formula")));
                Some(Item::Not {
                    status: status?,
                    literal: literal?,
                    ptr: ptr.to_owned(),
                })
            }
            other => {
                self.err(
                    Code::UnknownKind,
                    &pointer_push(ptr, "kind"),
                    format!("unknown body item kind `{other}`"),
                    "use `status`, `comparison`, `not`, or `and` for the whole body",
                );
                None
            }
        }
    }

    fn literal(&mut self, v: &Value, ptr: &str) -> Option<Literal> {
        let m = self.obj(v, ptr, "a literal")?;
        let kind = self.str_field(m, ptr, "kind")?;
        if kind != "literal" {
            self.err(
                Code::UnknownKind,
                &pointer_push(ptr, "kind"),
                format!("unknown formula kind `{kind}`"),
                "write the formula as {\"kind\":\"literal\",\"predicate\":…,\"polarity\":…,\"args\":[…]}",
            );
            return None;
        }
        let predicate = self.ref_str(m, ptr, "predicate");
        let negative = match self.str_field(m, ptr, "polarity").as_deref() {
            Some("positive") => Some(false),
            Some("negative") => Some(true),
            Some(other) => {
                self.err(
                    Code::UnknownKind,
                    &pointer_push(ptr, "polarity"),
                    format!("unknown polarity `{other}`"),
                    "use `positive` or `negative` (explicit negation)",
                );
                None
            }
            None => None,
        };
        let ap = pointer_push(ptr, "args");
        let mut args = Vec::new();
        let mut ok = true;
        for (i, a) in self.array_field(m, ptr, "args")?.iter().enumerate() {
            match self.term(a, &pointer_push(&ap, i)) {
                Some(t) => args.push(t),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        Some(Literal {
            predicate: predicate?,
            negative: negative?,
            args,
            ptr: ptr.to_owned(),
        })
    }

    fn term(&mut self, v: &Value, ptr: &str) -> Option<Term> {
        let m = self.obj(v, ptr, "a term")?;
        let kind = self.str_field(m, ptr, "kind")?;
        let kind = match kind.as_str() {
            "var" => TermKind::Var(self.str_field(m, ptr, "var")?),
            "const_ref" => TermKind::Const(Ref {
                id: self.str_field(m, ptr, "id")?,
                ptr: pointer_push(ptr, "id"),
            }),
            "value" => {
                let ty = self.ref_type(m, ptr, "type")?;
                let value = match self.field(m, ptr, "value")? {
                    Value::Number(n) => match n.as_i64() {
                        Some(i) => Scalar::Int(i),
                        None => Scalar::Other(n.to_string()),
                    },
                    Value::String(s) => Scalar::Str(s.clone()),
                    other => Scalar::Other(other.to_string()),
                };
                TermKind::Value { ty, value }
            }
            other => {
                self.err(
                    Code::UnknownKind,
                    &pointer_push(ptr, "kind"),
                    format!("unknown term kind `{other}`"),
                    "use `var`, `const_ref` or `value`",
                );
                return None;
            }
        };
        Some(Term {
            kind,
            ptr: ptr.to_owned(),
        })
    }

    fn priority(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<NodeKind> {
        self.trivial_condition(m, ptr, "condition");
        if let Some(pk) = self.opt_str_field(m, ptr, "priorityKind") {
            if pk != "direct" {
                self.err(
                    Code::Unsupported,
                    &pointer_push(ptr, "priorityKind"),
                    format!("priority kind `{pk}` is not supported"),
                    "use `direct` (only direct pairs count; list every pair you mean)",
                );
                return None;
            }
        }
        let ap = pointer_push(ptr, "anchors");
        let mut anchors = Vec::new();
        for (i, a) in self.opt_array(m, ptr, "anchors").iter().enumerate() {
            let p = pointer_push(&ap, i);
            if let Some(id) = self.string(a, &p, "anchors[]") {
                anchors.push(Ref { id, ptr: p });
            }
        }
        let higher = self.ref_const(m, ptr, "higher");
        let lower = self.ref_const(m, ptr, "lower");
        Some(NodeKind::Priority {
            higher: higher?,
            lower: lower?,
            reason: self.opt_str_field(m, ptr, "reason"),
            anchors,
        })
    }

    /// `rules` (required, `rule_ref`s) and `anchors` (fragment ids; that
    /// there is one is `check`'s to say, with the node's context).
    fn derogation(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<Derogation> {
        let rp = pointer_push(ptr, "rules");
        let mut rules = Vec::new();
        let mut ok = true;
        for (i, r) in self.array_field(m, ptr, "rules")?.iter().enumerate() {
            let p = pointer_push(&rp, i);
            match self.rule_ref(r, &p) {
                Some(r) => rules.push(r),
                None => ok = false,
            }
        }
        let ap = pointer_push(ptr, "anchors");
        let mut anchors = Vec::new();
        for (i, a) in self.opt_array(m, ptr, "anchors").iter().enumerate() {
            let p = pointer_push(&ap, i);
            if let Some(id) = self.string(a, &p, "anchors[]") {
                anchors.push(Ref { id, ptr: p });
            }
        }
        ok.then_some(Derogation { rules, anchors })
    }

    /// `predicate`, `validity` (required strings), `perType` (optional),
    /// `replacedBy` and `anchors` (arrays of ids): what they name, and
    /// whether they fit together, is `check`'s to say.
    fn input_deprecation(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<InputDeprecation> {
        let at = |key: &str| pointer_push(ptr, key);
        let predicate = self.str_field(m, ptr, "predicate").map(|id| Ref {
            id,
            ptr: at("predicate"),
        });
        let validity = self.str_field(m, ptr, "validity").map(|id| Ref {
            id,
            ptr: at("validity"),
        });
        let per_type = self.opt_str_field(m, ptr, "perType").map(|id| Ref {
            id,
            ptr: at("perType"),
        });
        let mut lists = [Vec::new(), Vec::new()];
        for (list, key) in lists.iter_mut().zip(["replacedBy", "anchors"]) {
            let lp = at(key);
            for (i, v) in self.opt_array(m, ptr, key).iter().enumerate() {
                let p = pointer_push(&lp, i);
                if let Some(id) = self.string(v, &p, key) {
                    list.push(Ref { id, ptr: p });
                }
            }
        }
        let [replaced_by, anchors] = lists;
        Some(InputDeprecation {
            predicate: predicate?,
            validity: validity?,
            per_type,
            replaced_by,
            anchors,
        })
    }

    /// `{"kind":"rule_ref","id":…}`.
    fn rule_ref(&mut self, v: &Value, ptr: &str) -> Option<Ref> {
        let o = self.obj(v, ptr, "a rule reference")?;
        let kind = self.str_field(o, ptr, "kind")?;
        if kind != "rule_ref" {
            self.err(
                Code::UnknownKind,
                &pointer_push(ptr, "kind"),
                format!("a derogation lists rules as `rule_ref`s, found kind `{kind}`"),
                r#"write each entry of `rules` as {"kind":"rule_ref","id":"…"}"#,
            );
            return None;
        }
        let id = self.str_field(o, ptr, "id")?;
        Some(Ref {
            id,
            ptr: pointer_push(ptr, "id"),
        })
    }

    fn closure(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<NodeKind> {
        let predicate = self.ref_str(m, ptr, "predicate");
        let domain = self.ref_const(m, ptr, "domain");
        let derive_negative = match self.field(m, ptr, "deriveExplicitNegative") {
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                self.err(
                    Code::BadField,
                    &pointer_push(ptr, "deriveExplicitNegative"),
                    format!(
                        "`deriveExplicitNegative` must be a boolean, found {}",
                        json_type(other)
                    ),
                    "write `true` or `false`",
                );
                None
            }
            None => None,
        };
        Some(NodeKind::Closure(Closure {
            predicate: predicate?,
            domain: domain?,
            derive_negative: derive_negative?,
            snapshot: self.opt_str_field(m, ptr, "snapshot"),
            complete_as_of: self.opt_str_field(m, ptr, "completeAsOf"),
        }))
    }

    fn fragment(&mut self, m: &Map<String, Value>, ptr: &str) -> Option<Fragment> {
        let locator = self.str_field(m, ptr, "locator")?;
        let edition = match m.get("edition") {
            None => None,
            Some(_) => self.ref_str(m, ptr, "edition"),
        };
        let tp = pointer_push(ptr, "texts");
        let mut texts = Vec::new();
        let mut text_meta = Vec::new();
        for (i, t) in self.opt_array(m, ptr, "texts").iter().enumerate() {
            let p = pointer_push(&tp, i);
            let Some(o) = self.obj(t, &p, "a fragment text") else {
                continue;
            };
            let Some(text) = self.str_field(o, &p, "text") else {
                continue;
            };
            let mut hash = None;
            if let Some(h) = o.get("contentHash") {
                let actual = format!("sha256:{}", sha256_hex(text.as_bytes()));
                let hp = pointer_push(&p, "contentHash");
                let Some(expected) = self.string(h, &hp, "contentHash") else {
                    continue;
                };
                hash = Some(expected.clone());
                if expected != actual {
                    self.err(
                        Code::TextHashMismatch,
                        &hp,
                        format!("fragment text hash mismatch: the text says {expected}, it hashes to {actual}"),
                        "the article text was changed after hashing: restore the official text, or run `lawgen fmt FILE` to recompute every hash if the change is intended",
                    );
                }
            }
            texts.push(Label {
                language: self.opt_str_field(o, &p, "language").unwrap_or_default(),
                text,
            });
            text_meta.push(TextMeta {
                content_hash: hash,
                status: self.opt_str_field(o, &p, "status"),
            });
        }
        Some(Fragment {
            edition,
            locator,
            texts,
            text_meta,
        })
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHESS: &[u8] =
        include_bytes!("../../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json");

    #[test]
    fn reads_the_reference_package_and_verifies_every_hash() {
        let pkg = read_package(CHESS, &ReadLimits::default())
            .unwrap_or_else(|d| panic!("{}", d.render()));
        assert_eq!(pkg.nodes.len(), 140);
        assert_eq!(pkg.name, "fide.laws.chess");
        let rules = pkg
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Rule(_)))
            .count();
        assert_eq!(rules, 47);
    }

    #[test]
    fn a_changed_node_is_reported_with_both_hashes() {
        let text = std::str::from_utf8(CHESS).unwrap().replacen(
            "Article 5.2.3. The game is drawn",
            "Article 5.2.3. The game is won",
            1,
        );
        let d = read_package(text.as_bytes(), &ReadLimits::default()).unwrap_err();
        assert_eq!(d.len(), 1, "{}", d.render());
        let d = d.iter().next().unwrap();
        assert_eq!(d.code, Code::HashMismatch);
        assert_eq!(
            d.location.node.as_deref(),
            Some("urn:fide:laws:clir:chess#AgreedDraw")
        );
        assert!(d.message.contains("sha256:7bdc51b1"), "{}", d.message);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "[".repeat(10_000) + &"]".repeat(10_000);
        let d = read_package(s.as_bytes(), &ReadLimits::default()).unwrap_err();
        assert_eq!(d.iter().next().unwrap().code, RuntimeCode::TooDeep);
    }
}
