//! The surface tree: a rule package as written, one Rust type per JSON construct.
//!
//! This is the only module that knows JSON. [`read_package`] turns bytes into a
//! [`Package`], verifying every content hash on the way; every node, reference,
//! literal and term remembers its JSON pointer so later stages can say exactly
//! where a problem is. Names are not resolved here (that is `check`'s job), so
//! a `Ref` is just the id string as written plus where it was written.

pub mod canon;
pub mod files;
pub mod hash;
mod read;
pub mod text;

use lawgen_runtime::program::{CmpOp, Label, RelationKind, Status, Strength};

pub use read::{read_package, ReadLimits};

/// The built-in integer type (`i64`).
pub const INTEGER_TYPE: &str = "urn:law:std#Integer";

/// The only schema this reader accepts.
pub const SCHEMA_VERSION: &str = "law.core.ir/0.2";

/// A whole package as read.
#[derive(Clone, Debug)]
pub struct Package {
    pub name: String,
    pub namespace: String,
    pub version: String,
    /// The package-level `semanticHash`, shown in summaries and generated headers.
    pub semantic_hash: Option<String>,
    /// The packages this one builds on (docs/reference.md#imports), as written.
    pub imports: Vec<Import>,
    /// The package's `features` (e.g. `core-executable`), as written; shown by
    /// `lawgen doc`, not interpreted.
    pub features: Vec<String>,
    pub nodes: Vec<Node>,
}

/// An `imports` entry: which package, and the identity it must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Import {
    pub name: String,
    pub namespace: String,
    pub version: String,
    /// The imported package's top-level `semanticHash`, pinned.
    pub semantic_hash: String,
    /// JSON pointer of the entry, e.g. `/imports/0`.
    pub ptr: String,
}

/// One entry of `nodes`.
#[derive(Clone, Debug)]
pub struct Node {
    pub id: String,
    /// JSON pointer of the node object, e.g. `/nodes/12`.
    pub ptr: String,
    /// The node's `package` field (its package's namespace), if written.
    pub package: Option<String>,
    pub labels: Vec<Label>,
    pub kind: NodeKind,
}

/// Picks the label to show: English if present, else the first one.
pub fn pick_label(labels: &[Label]) -> Option<&str> {
    labels
        .iter()
        .find(|l| l.language == "en")
        .or_else(|| labels.first())
        .map(|l| l.text.as_str())
}

/// A reference to another node by id, with where the reference was written.
#[derive(Clone, Debug)]
pub struct Ref {
    pub id: String,
    pub ptr: String,
}

#[derive(Clone, Debug)]
pub enum NodeKind {
    TypeDecl {
        name: String,
    },
    Relation(RelationDecl),
    Constant {
        name: String,
        ty: Ref,
    },
    Rule(Rule),
    Priority {
        higher: Ref,
        lower: Ref,
        /// Free-standing name (e.g. `…#lex_specialis`), not resolved.
        reason: Option<String>,
        anchors: Vec<Ref>,
    },
    Closure(Closure),
    External {
        symbol: Ref,
        /// Free-standing name of the deciding authority.
        authority: String,
        capability: String,
    },
    SourceWork(SourceWork),
    SourceEdition {
        work: Ref,
        /// What `lawgen doc` shows of the edition; nothing else reads it.
        edition: Edition,
    },
    Publication {
        edition: Ref,
        /// Where the pinned copy is and what it hashes to, as written.
        publication: Publication,
    },
    Fragment(Fragment),
    /// lawgen extension (docs/reference.md#derogations): sets the listed
    /// rules of imported packages aside for this package's meaning.
    Derogation(Derogation),
    /// lawgen extension (docs/reference.md#deprecated-inputs): an input
    /// predicate of the closure that facts should no longer state, or state
    /// only in a file holding one entity of a type.
    InputDeprecation(InputDeprecation),
}

/// An `input_deprecation` node, as written (resolved by `check`).
#[derive(Clone, Debug)]
pub struct InputDeprecation {
    /// The input predicate it concerns (`predicate`), of this package or an
    /// imported one.
    pub predicate: Ref,
    /// `validity`: `deprecated` or `one_per_file`, as written.
    pub validity: Ref,
    /// `perType`: for `one_per_file`, the type of which a facts file may
    /// hold one entity.
    pub per_type: Option<Ref>,
    /// `replacedBy`: the predicates to state instead.
    pub replaced_by: Vec<Ref>,
    /// Fragments: the articles that make the input unfit.
    pub anchors: Vec<Ref>,
}

#[derive(Clone, Debug)]
pub struct Derogation {
    /// The imported rules set aside, as `rule_ref`s.
    pub rules: Vec<Ref>,
    /// Fragments: the article that displaces them (at least one, checked).
    pub anchors: Vec<Ref>,
}

/// A `source_work`'s descriptive fields, as written (free-standing names are
/// not resolved).
#[derive(Clone, Debug, Default)]
pub struct SourceWork {
    /// `authority.id`: who issued the work.
    pub authority: Option<String>,
    /// `jurisdiction.id`.
    pub jurisdiction: Option<String>,
    /// `number`: the work's own designation.
    pub number: Option<String>,
    /// `sourceKind` (e.g. `…#regulation`).
    pub source_kind: Option<String>,
}

/// A `source_edition`'s descriptive fields.
#[derive(Clone, Debug, Default)]
pub struct Edition {
    pub language: Option<String>,
    /// `lifecycle[]`: the edition's states (`adopted`, `in_force`, …) with their extents.
    pub lifecycle: Vec<LifecycleState>,
    // Read (and type-checked) as the input has them; no stage shows them yet.
    #[allow(dead_code)]
    pub officiality: Option<String>,
    /// `materializationStatus` (e.g. `PINNED_UNOFFICIAL_COPY`).
    #[allow(dead_code)]
    pub materialization: Option<String>,
}

/// One `lifecycle` entry of an edition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifecycleState {
    pub status: String,
    /// `extent`: a date, or whatever the package writes.
    pub extent: String,
}

/// A `publication`'s descriptive fields.
#[derive(Clone, Debug, Default)]
pub struct Publication {
    pub uri: Option<String>,
    /// `documentHash`: the hash of the pinned document.
    pub document_hash: Option<String>,
    pub media_type: Option<String>,
    pub retrieved_at: Option<String>,
}

#[derive(Clone, Debug)]
pub struct RelationDecl {
    pub name: String,
    pub relation_kind: RelationKind,
    pub params: Vec<Param>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: Option<String>,
    pub ty: Ref,
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub head: Literal,
    pub body: Vec<Item>,
    pub variables: Vec<VarDecl>,
    pub strength: Strength,
    pub anchors: Vec<Ref>,
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub name: String,
    pub ty: Ref,
    pub ptr: String,
}

#[derive(Clone, Debug)]
pub struct Literal {
    pub predicate: Ref,
    pub negative: bool,
    pub args: Vec<Term>,
    pub ptr: String,
}

#[derive(Clone, Debug)]
pub enum Item {
    Status {
        status: Status,
        literal: Literal,
        ptr: String,
    },
    Comparison {
        left: Term,
        op: CmpOp,
        right: Term,
        ptr: String,
    },
    /// lawgen extension: negation as failure over a status item.
    Not {
        status: Status,
        literal: Literal,
        ptr: String,
    },
}

impl Item {
    pub fn ptr(&self) -> &str {
        match self {
            Item::Status { ptr, .. } | Item::Comparison { ptr, .. } | Item::Not { ptr, .. } => ptr,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Term {
    pub kind: TermKind,
    pub ptr: String,
}

#[derive(Clone, Debug)]
pub enum TermKind {
    Var(String),
    Const(Ref),
    Value { ty: Ref, value: Scalar },
}

/// A literal JSON value in a `value` term, before type checking.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Str(String),
    /// Anything else (float, bool, null, array, object, out-of-range integer), as JSON text.
    Other(String),
}

#[derive(Clone, Debug)]
pub struct Closure {
    pub predicate: Ref,
    pub domain: Ref,
    pub derive_negative: bool,
    pub snapshot: Option<String>,
    pub complete_as_of: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Fragment {
    pub edition: Option<Ref>,
    pub locator: String,
    pub texts: Vec<Label>,
    /// What else each text says of itself, by the index of [`Fragment::texts`].
    pub text_meta: Vec<TextMeta>,
}

/// A fragment text's `contentHash` (verified by the reader) and `status`
/// (`official`, `unofficial`, …), as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextMeta {
    pub content_hash: Option<String>,
    pub status: Option<String>,
}
