//! What each node statement of the text form writes, shared by the parser
//! and the printer so that the two cannot drift apart: the statement
//! keyword, the JSON `kind` it stands for, the clauses it accepts (each one
//! JSON key), and the fields it fills in unless told otherwise.

use serde_json::{json, Value};

/// How a clause writes its JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Val {
    /// A JSON string, written as a string literal.
    Str,
    /// An id held as a JSON string, written as a name (`lex_specialis`).
    Id,
    /// `{"kind":"const_ref","id":…}`, written as a name.
    ConstRef,
    /// `true` / `false`.
    Bool,
    /// An array of ids, written `[A, B]`.
    IdList,
    /// `{"authority": id}`, written as a name.
    Authority,
    /// Any JSON value, written as JSON.
    Json,
}

/// One optional clause: `keyword VALUE` ⇔ `"key": value`.
pub(super) struct Field {
    pub kw: &'static str,
    pub key: &'static str,
    pub val: Val,
}

/// A node statement.
pub(super) struct KindSpec {
    /// The statement keyword.
    pub kw: &'static str,
    /// The JSON `kind`.
    pub kind: &'static str,
    /// `symbolKind`, for the two kinds of `symbol_decl`.
    pub symbol_kind: Option<&'static str>,
    pub fields: &'static [Field],
    /// Whether `name` defaults to the id's local part.
    pub named: bool,
}

const fn f(kw: &'static str, key: &'static str, val: Val) -> Field {
    Field { kw, key, val }
}

pub(super) const KINDS: &[KindSpec] = &[
    KindSpec {
        kw: "type",
        kind: "type_decl",
        symbol_kind: None,
        fields: &[f("type_kind", "typeKind", Val::Str)],
        named: true,
    },
    KindSpec {
        kw: "relation",
        kind: "symbol_decl",
        symbol_kind: Some("relation"),
        fields: &[
            f("effect", "effect", Val::Str),
            f("decided_by", "judgment", Val::Authority),
        ],
        named: true,
    },
    KindSpec {
        kw: "constant",
        kind: "symbol_decl",
        symbol_kind: Some("constant"),
        fields: &[],
        named: true,
    },
    KindSpec {
        kw: "rule",
        kind: "rule",
        symbol_kind: None,
        fields: &[
            f("vars", "variables", Val::Json),
            f("anchors", "anchors", Val::IdList),
        ],
        named: false,
    },
    KindSpec {
        kw: "priority",
        kind: "priority_rule",
        symbol_kind: None,
        fields: &[
            f("reason", "reason", Val::Id),
            f("anchors", "anchors", Val::IdList),
        ],
        named: false,
    },
    KindSpec {
        kw: "derogation",
        kind: "derogation",
        symbol_kind: None,
        fields: &[f("anchors", "anchors", Val::IdList)],
        named: false,
    },
    KindSpec {
        kw: "deprecation",
        kind: "input_deprecation",
        symbol_kind: None,
        fields: &[
            f("deprecates", "predicate", Val::Id),
            f("validity", "validity", Val::Str),
            f("per_type", "perType", Val::Id),
            f("replaced_by", "replacedBy", Val::IdList),
            f("anchors", "anchors", Val::IdList),
        ],
        named: false,
    },
    KindSpec {
        kw: "closure",
        kind: "closure_policy",
        symbol_kind: None,
        fields: &[
            f("derive_negative", "deriveExplicitNegative", Val::Bool),
            f("snapshot", "snapshot", Val::Str),
            f("complete_as_of", "completeAsOf", Val::Str),
        ],
        named: false,
    },
    KindSpec {
        kw: "external",
        kind: "external_decl",
        symbol_kind: None,
        fields: &[
            f("authority", "authority", Val::ConstRef),
            f("capability", "capability", Val::Str),
            f("effect", "effect", Val::Str),
        ],
        named: false,
    },
    KindSpec {
        kw: "work",
        kind: "source_work",
        symbol_kind: None,
        fields: &[
            f("authority", "authority", Val::ConstRef),
            f("jurisdiction", "jurisdiction", Val::ConstRef),
            f("number", "number", Val::Str),
            f("source_kind", "sourceKind", Val::Id),
        ],
        named: false,
    },
    KindSpec {
        kw: "edition",
        kind: "source_edition",
        symbol_kind: None,
        fields: &[
            f("language", "language", Val::Str),
            f("officiality", "officiality", Val::Str),
            f("materialization", "materializationStatus", Val::Str),
            f("lifecycle", "lifecycle", Val::Json),
        ],
        named: false,
    },
    KindSpec {
        kw: "publication",
        kind: "publication",
        symbol_kind: None,
        fields: &[
            f("uri", "uri", Val::Str),
            f("media_type", "mediaType", Val::Str),
            f("retrieved_at", "retrievedAt", Val::Str),
            f("document_hash", "documentHash", Val::Str),
        ],
        named: false,
    },
    KindSpec {
        kw: "fragment",
        kind: "fragment",
        symbol_kind: None,
        fields: &[
            f("in", "edition", Val::Id),
            f("fragment_kind", "fragmentKind", Val::Str),
            f("locator", "locator", Val::Str),
        ],
        named: false,
    },
];

/// Fields a statement fills in unless a `with`/`without` clause says
/// otherwise: what every node of that kind in the reference package carries.
pub(super) fn defaults(spec: &KindSpec, id: &str, local: &str) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    if let Some(sk) = spec.symbol_kind {
        out.push(("symbolKind", json!(sk)));
    }
    if spec.named {
        out.push(("name", json!(local)));
    }
    match spec.kind {
        "type_decl" => out.push(("typeKind", json!("entity"))),
        "rule" => {
            out.push(("scope", json!({"kind": "boolean", "value": true})));
            out.push(("interpretations", json!([])));
        }
        "priority_rule" => {
            out.push(("condition", json!({"kind": "boolean", "value": true})));
            out.push(("priorityKind", json!("direct")));
        }
        _ => {}
    }
    if spec.kw == "constant" {
        out.push(("parameters", json!([])));
        out.push(("value", json!({"kind": "entity_ref", "id": id})));
    }
    out
}

/// Statement keywords: a statement ends where the next one begins.
pub(super) const STATEMENTS: &[&str] = &[
    "schema",
    "package",
    "set",
    "import",
    "default",
    "node",
    "type",
    "relation",
    "constant",
    "rule",
    "priority",
    "derogation",
    "deprecation",
    "closure",
    "external",
    "work",
    "edition",
    "publication",
    "fragment",
];

/// Clause keywords every node statement accepts.
pub(super) const COMMON_CLAUSES: &[&str] =
    &["label", "text", "name", "with", "without", "unhashed"];

/// Words the printer never writes as a bare name (it quotes the full id),
/// so that no name can be read as a keyword.
pub(super) fn reserved(word: &str) -> bool {
    STATEMENTS.contains(&word)
        || COMMON_CLAUSES.contains(&word)
        || KINDS.iter().any(|k| k.fields.iter().any(|f| f.kw == word))
        || matches!(
            word,
            "not"
                | "supported"
                | "value"
                | "and"
                | "over"
                | "of"
                | "Integer"
                | "true"
                | "false"
                | "version"
                | "namespace"
                | "semantic_hash"
        )
}

pub(super) fn spec_by_kw(kw: &str) -> Option<&'static KindSpec> {
    KINDS.iter().find(|k| k.kw == kw)
}

/// The statement for a JSON node of `kind` (and `symbolKind`).
pub(super) fn spec_for(kind: &str, symbol_kind: Option<&str>) -> Option<&'static KindSpec> {
    KINDS
        .iter()
        .find(|k| k.kind == kind && (k.symbol_kind.is_none() || k.symbol_kind == symbol_kind))
}
