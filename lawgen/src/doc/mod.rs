//! `lawgen doc`: the review document of a package — every node of the
//! package and of its import closure read back in controlled Russian or
//! English, as plain text, Markdown or a self-contained HTML page.
//!
//! The document is generated from the checked package, never written beside
//! it, so it cannot drift from the rules. It is total by construction: the
//! verbalizer matches every node kind of the syntax tree exhaustively, and
//! [`render`] refuses (with [`DocError::Internal`]) a document in which some
//! node of the closure does not have exactly one entry. The same package
//! gives the same bytes on any machine. docs/review-document.md lists every
//! sentence template in both languages.
//!
//! From a build script or a tool:
//!
//! ```
//! use lawgen::doc::{Format, Lang};
//!
//! let page = lawgen::doc::Builder::new()
//!     .package("../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json")
//!     .lang(Lang::Ru)
//!     .format(Format::Text)
//!     .render()?;
//! assert!(page.contains("Ревью-документ: пакет «fide.laws.chess» 0.1.0"));
//! # Ok::<(), lawgen::doc::DocError>(())
//! ```
//!
//! or, on a package already loaded with [`crate::driver`],
//! [`render`]`(&loaded, &Options::default())`.

mod editions;
mod html;
mod scenarios;
mod text;
mod tree;
mod verbalize;
mod words;

pub use scenarios::Scenarios;

use crate::driver::{self, LoadError, Loaded};
use crate::syntax::ReadLimits;
use lawgen_runtime::Policy;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The language of the document (lawgen's words; labels and article texts
/// are shown as the package writes them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lang {
    /// Russian, in the register of the chess package's published review rendering.
    #[default]
    Ru,
    /// English: the same document, sentence for sentence.
    En,
}

impl FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Lang, String> {
        match s {
            "ru" => Ok(Lang::Ru),
            "en" => Ok(Lang::En),
            other => Err(format!(
                "unknown document language `{other}`: use `ru` or `en`"
            )),
        }
    }
}

/// How the document is written out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Paragraphs separated by blank lines.
    #[default]
    Text,
    /// The same paragraphs as CommonMark, with headings.
    Markdown,
    /// One self-contained page: no script, font or request of any kind.
    Html,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "text" | "txt" => Ok(Format::Text),
            "md" | "markdown" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            other => Err(format!(
                "unknown document format `{other}`: use `text`, `md` or `html`"
            )),
        }
    }
}

/// What to render.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// The language of lawgen's words (default Russian).
    pub lang: Lang,
    /// Text, Markdown or HTML (default text).
    pub format: Format,
    /// What happened to each rule in each scenario of a suite (the page
    /// shows it; the text and Markdown forms do not). See `Scenarios::collect`.
    pub scenarios: Option<Scenarios>,
}

impl Options {
    /// The document in `lang` and `format`, without scenarios (`Options`
    /// is `#[non_exhaustive]`, so outside lawgen it is built with this or
    /// with `Default`).
    pub fn new(lang: Lang, format: Format) -> Options {
        Options {
            lang,
            format,
            scenarios: None,
        }
    }
}

/// Why a document could not be made.
#[derive(Debug)]
#[non_exhaustive]
pub enum DocError {
    /// The package could not be read or is invalid.
    Load(LoadError),
    /// [`Builder::render`] was called without [`Builder::package`].
    NoPackage,
    /// The scenario suite could not be run (as `lawgen test` says it).
    Suite {
        /// The exit code ([`DocError::exit_code`]): 2 for an unreadable
        /// suite file, 1 for a malformed one or a scenario whose facts
        /// could not be read or evaluated.
        code: u8,
        /// The message, ready to print: which file or scenario, and what
        /// is wrong with it.
        message: String,
    },
    /// The document could not be written.
    Write {
        /// The file [`Builder::write`] was given.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A broken promise of the verbalizer (a node without exactly one
    /// entry): a lawgen bug, please report it.
    Internal(String),
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocError::Load(e) => write!(f, "{e}"),
            DocError::NoPackage => write!(
                f,
                "error: no package to document: call `doc::Builder::package(path)` before `render`"
            ),
            DocError::Suite { message, .. } => f.write_str(message),
            DocError::Write { path, source } => {
                write!(f, "error: cannot write {}: {source}", path.display())
            }
            DocError::Internal(m) => write!(
                f,
                "internal error: {m} (a lawgen bug; please report it with the package)"
            ),
        }
    }
}

impl std::error::Error for DocError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DocError::Load(e) => Some(e),
            DocError::Write { source, .. } => Some(source),
            DocError::NoPackage | DocError::Suite { .. } | DocError::Internal(_) => None,
        }
    }
}

impl DocError {
    /// The exit code the CLI uses: 2 unreadable input, 1 invalid input, 3 internal.
    pub fn exit_code(&self) -> i32 {
        match self {
            DocError::Load(e) => e.exit_code(),
            DocError::Write { .. } => 2,
            DocError::NoPackage => 1,
            DocError::Suite { code, .. } => i32::from(*code),
            DocError::Internal(_) => 3,
        }
    }
}

/// Renders the review document of a checked package and its closure.
pub fn render(loaded: &Loaded, options: &Options) -> Result<String, DocError> {
    let doc = verbalize::document(loaded, options.lang, options.scenarios.as_ref());
    total(loaded, &doc)?;
    Ok(match options.format {
        Format::Text => text::text(&doc),
        Format::Markdown => text::markdown(&doc),
        Format::Html => html::html(&doc),
    })
}

/// Every node of the closure has exactly one entry, and no entry names a
/// node the closure does not have.
fn total(loaded: &Loaded, doc: &tree::Document) -> Result<(), DocError> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    let packages: Vec<&crate::syntax::Package> = if loaded.closure.is_empty() {
        vec![&loaded.package]
    } else {
        loaded.closure.iter().collect()
    };
    for p in &packages {
        for n in &p.nodes {
            count.entry(n.id.as_str()).or_insert(0);
        }
    }
    for part in &doc.parts {
        for s in &part.sections {
            for e in &s.entries {
                if let Some(id) = &e.node {
                    match count.get_mut(id.as_str()) {
                        Some(c) => *c += 1,
                        None => {
                            return Err(DocError::Internal(format!(
                            "the document has an entry for `{id}`, which is no node of the package"
                        )))
                        }
                    }
                }
            }
        }
    }
    let mut wrong: Vec<String> = count
        .iter()
        .filter(|(_, c)| **c != 1)
        .map(|(id, c)| format!("`{id}` ({c} entries)"))
        .collect();
    if wrong.is_empty() {
        return Ok(());
    }
    wrong.sort();
    Err(DocError::Internal(format!(
        "nodes without exactly one entry in the document: {}",
        wrong.join(", ")
    )))
}

/// Renders a package file's document: reads and checks it with its imports
/// (and the suite, when given), then [`render`]s. What `lawgen doc` runs.
/// Set up by value and chained, as [`crate::Builder`] is; one document
/// per builder, so every setting is the document's.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    package: Option<PathBuf>,
    import_path: Vec<PathBuf>,
    lang: Lang,
    format: Format,
    scenarios: Option<PathBuf>,
    policy: Policy,
    limits: ReadLimits,
}

impl Builder {
    /// A builder with no package yet: Russian, plain text, no scenarios,
    /// the blocking policy and the default size limits.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The package file (`.json` or `.law`).
    pub fn package(mut self, path: impl AsRef<Path>) -> Builder {
        self.package = Some(path.as_ref().to_owned());
        self
    }

    /// A directory to look for imported packages in, after the package's
    /// own (repeatable).
    pub fn import_path(mut self, dir: impl AsRef<Path>) -> Builder {
        self.import_path.push(dir.as_ref().to_owned());
        self
    }

    /// The language of the document (default [`Lang::Ru`]).
    pub fn lang(mut self, lang: Lang) -> Builder {
        self.lang = lang;
        self
    }

    /// How the document is written out (default [`Format::Text`]).
    pub fn format(mut self, format: Format) -> Builder {
        self.format = format;
        self
    }

    /// A scenario suite, as `lawgen test` reads it, whose outcomes the page
    /// shows for each rule.
    pub fn scenarios(mut self, dir: impl AsRef<Path>) -> Builder {
        self.scenarios = Some(dir.as_ref().to_owned());
        self
    }

    /// The conflict policy of the scenarios whose expectation names none
    /// (default blocking).
    pub fn policy(mut self, policy: Policy) -> Builder {
        self.policy = policy;
        self
    }

    /// Limits on the size of the package and its imports (default: the
    /// CLI's, [`ReadLimits::default`]).
    pub fn limits(mut self, limits: ReadLimits) -> Builder {
        self.limits = limits;
        self
    }

    /// Reads, checks and renders.
    pub fn render(&self) -> Result<String, DocError> {
        let Some(path) = &self.package else {
            return Err(DocError::NoPackage);
        };
        let loaded = driver::load_file_with(path, &self.limits, &self.import_path)
            .map_err(DocError::Load)?;
        let scenarios = match &self.scenarios {
            Some(dir) => Some(Scenarios::collect(&loaded, dir, self.policy, &self.limits)?),
            None => None,
        };
        render(
            &loaded,
            &Options {
                lang: self.lang,
                format: self.format,
                scenarios,
            },
        )
    }

    /// [`Builder::render`], written to `out` when its bytes changed (so a
    /// build script does not touch an unchanged file).
    pub fn write(&self, out: impl AsRef<Path>) -> Result<(), DocError> {
        let text = self.render()?;
        let out = out.as_ref();
        // Read no more than the new text: a longer file differs anyway.
        let old = lawgen_runtime::bounded::read_file(out, text.len() as u64);
        if old.is_ok_and(|old| old == text.as_bytes()) {
            return Ok(());
        }
        std::fs::write(out, text).map_err(|source| DocError::Write {
            path: out.to_owned(),
            source,
        })
    }
}
