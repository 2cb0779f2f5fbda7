//! The review document before it is written out: parts (one per package of
//! the closure), sections, entries (one per node), paragraphs of spans. The
//! text, Markdown and HTML writers all read this one tree, so they cannot
//! disagree on what is said, only on how it looks.

/// The whole document.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    pub lang: super::Lang,
    /// The header paragraphs (what generated it, title, disclaimer, hash).
    pub header: Vec<String>,
    /// The root package first, then each imported package.
    pub parts: Vec<Part>,
    /// Every package of the closure: name, version, namespace, semantic hash.
    pub packages: Vec<PackageRow>,
    /// Who overrides whom, across every layer (the page shows it as a table).
    pub overrides: Vec<Override>,
    /// The root package's `features`.
    pub features: Vec<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct PackageRow {
    pub name: String,
    pub version: String,
    pub namespace: String,
    pub hash: Option<String>,
    /// The html anchor of its part.
    pub anchor: String,
}

/// One package of the closure.
#[derive(Clone, Debug)]
pub(crate) struct Part {
    /// The html anchor of the part.
    pub anchor: String,
    /// Paragraphs before the sections (empty for the root package, whose
    /// header is the document's).
    pub heading: Vec<String>,
    pub sections: Vec<Section>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SectionKind {
    Imports,
    Sources,
    Publications,
    Fragments,
    Concepts,
    Relations,
    Externals,
    Closures,
    Rules,
    Priorities,
    Derogations,
    /// Input deprecations (docs/reference.md#deprecated-inputs).
    Deprecations,
}

impl SectionKind {
    /// The order of sections in a part (the seed's, with imports first and
    /// derogations last).
    pub const ALL: [SectionKind; 12] = [
        SectionKind::Imports,
        SectionKind::Sources,
        SectionKind::Publications,
        SectionKind::Fragments,
        SectionKind::Concepts,
        SectionKind::Relations,
        SectionKind::Externals,
        SectionKind::Closures,
        SectionKind::Rules,
        SectionKind::Priorities,
        SectionKind::Derogations,
        SectionKind::Deprecations,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            SectionKind::Imports => "imports",
            SectionKind::Sources => "sources",
            SectionKind::Publications => "publications",
            SectionKind::Fragments => "fragments",
            SectionKind::Concepts => "concepts",
            SectionKind::Relations => "relations",
            SectionKind::Externals => "externals",
            SectionKind::Closures => "closures",
            SectionKind::Rules => "rules",
            SectionKind::Priorities => "priorities",
            SectionKind::Derogations => "derogations",
            SectionKind::Deprecations => "deprecations",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Section {
    pub kind: SectionKind,
    pub title: String,
    pub anchor: String,
    pub entries: Vec<Entry>,
}

/// One node (or, in the imports section, one `imports` entry).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The node's id; `None` for an `imports` entry, which is not a node.
    pub node: Option<String>,
    /// The html anchor.
    pub anchor: String,
    pub title: String,
    pub paras: Vec<Para>,
    /// The identifier line's anchors (fragment ids), when it has a node.
    pub anchors: Vec<String>,
    /// What only the page shows.
    pub extra: Extra,
}

/// A paragraph: prose with links, or a paragraph of an article's text.
#[derive(Clone, Debug)]
pub(crate) enum Para {
    Prose(Vec<Span>),
    Article(String),
}

#[derive(Clone, Debug)]
pub(crate) enum Span {
    Text(String),
    /// Text that names node `to` (by id): a link on the page.
    Link {
        text: String,
        to: String,
    },
}

impl Para {
    pub fn text(s: impl Into<String>) -> Para {
        Para::Prose(vec![Span::Text(s.into())])
    }

    /// The paragraph as plain text.
    pub fn plain(&self) -> String {
        match self {
            Para::Article(s) => s.clone(),
            Para::Prose(spans) => spans
                .iter()
                .map(|s| match s {
                    Span::Text(t) | Span::Link { text: t, .. } => t.as_str(),
                })
                .collect(),
        }
    }
}

/// What the page adds to an entry: facts about it, as label–value lines,
/// and for a fragment the rules anchored to it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Extra {
    /// A badge: what kind of node this is (strict rule, input facts, …).
    pub kind: Option<String>,
    /// The node's label in the document's language (or its first label).
    pub label: Option<String>,
    /// `(what, value)` lines.
    pub facts: Vec<(String, Vec<Span>)>,
    /// For a fragment: the rules anchored to it, each with its sentence.
    pub anchored: Option<Vec<(String, Vec<Span>)>>,
    /// For a rule: the scenarios that exercised it (`--scenarios`).
    pub scenarios: Option<Vec<(String, String)>>,
}

/// One "who overrides whom" row.
#[derive(Clone, Debug)]
pub(crate) struct Override {
    /// The prevailing node: (text, node id, layer).
    pub winner: (String, String, String),
    /// How: the priority, defeater or derogation, as (kind word, text, node id).
    pub how: (String, String, String),
    /// What it prevails over: (text, node id, layer) each.
    pub over: Vec<(String, String, String)>,
}
