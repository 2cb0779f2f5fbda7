//! Diagnostics: what went wrong, where in the package JSON, and how to fix it.
//!
//! Every stage reports problems as [`Diagnostic`] values collected in a
//! [`Diagnostics`] list; nothing in the pipeline panics or prints. The CLI and
//! the build-script builder render them the same way:
//!
//! ```text
//! error[E020]: `player_of` takes 2 arguments, this literal has 3
//!   --> node `urn:x#CheckmateWins` at /nodes/9/body/items/0/formula/args
//!   = help: pass exactly 2 arguments, in the order of the symbol_decl parameters
//! ```
//!
//! Rendering is shared; the codes are not. A [`Diagnostic`] carries a
//! [`CodeId`], the code as printed, and each crate converts its own catalogue
//! into it: this crate's [`Code`] for JSON and facts files, the compiler's
//! catalogue (in `lawgen`) for everything a package can get wrong.

use std::fmt;

/// The code a diagnostic is printed with: `E` and three digits for an
/// error, `W` and three digits for a warning (`E020`, `W003`). The crate that
/// reports a problem owns its code: each has a catalogue that converts into
/// this type — the runtime's own [`Code`] (JSON and facts files), the
/// compiler's `lawgen::diagnostics::Code` (packages, the text form, imports,
/// lints) — and rendering, sorting and the counts of [`Diagnostics::render`]
/// read only what this type holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CodeId(&'static str);

impl CodeId {
    /// A code as printed. Codes sort as their text, which for this shape is
    /// their number: errors before warnings, each in numeric order.
    pub const fn new(code: &'static str) -> CodeId {
        let b = code.as_bytes();
        assert!(
            b.len() == 4
                && (b[0] == b'E' || b[0] == b'W')
                && b[1].is_ascii_digit()
                && b[2].is_ascii_digit()
                && b[3].is_ascii_digit(),
            "a diagnostic code is E or W and three digits"
        );
        CodeId(code)
    }

    /// The code as printed, e.g. `E020`.
    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// `warning` for the `W0xx` codes of `lawgen lint`, `error` otherwise.
    pub fn severity(self) -> &'static str {
        if self.is_warning() {
            "warning"
        } else {
            "error"
        }
    }

    pub fn is_warning(self) -> bool {
        self.0.starts_with('W')
    }
}

impl fmt::Display for CodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The runtime's own codes: problems with a JSON document or a facts file
/// (docs/reference.md#facts-files), reported while a compiled package or the
/// reference evaluator reads its input. The numbering is shared with the
/// compiler's catalogue (`lawgen::diagnostics::Code`), which leaves these
/// numbers to this one: `E001`–`E002` reading JSON, `E08x` facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// The input is not JSON (syntax error, truncated file, invalid UTF-8).
    MalformedJson,
    /// The JSON nests deeper than the reader accepts.
    TooDeep,
    /// The facts file is not a JSON object of the shape of docs/reference.md#facts-files.
    FactsShape,
    /// A facts key names no predicate of the package.
    FactsUnknownPredicate,
    /// A fact row with the wrong number of values.
    FactsArity,
    /// A fact value of the wrong type.
    FactsType,
    /// A fact given for an institutional predicate.
    FactsInstitutional,
    /// Both `p(t)` and `~p(t)` are given.
    FactsContradiction,
    /// A facts key or constant names a local name two packages of the closure share.
    FactsAmbiguousName,
    /// `asOf` (or `--as-of`) is not a date `YYYY-MM-DD`.
    FactsDate,
    /// No edition of a work some rule is anchored to is in force on the case's date.
    NoLawInForce,
}

impl Code {
    /// Every code of the catalogue.
    pub const ALL: [Code; 11] = [
        Code::MalformedJson,
        Code::TooDeep,
        Code::FactsShape,
        Code::FactsUnknownPredicate,
        Code::FactsArity,
        Code::FactsType,
        Code::FactsInstitutional,
        Code::FactsContradiction,
        Code::FactsAmbiguousName,
        Code::FactsDate,
        Code::NoLawInForce,
    ];

    /// The code as printed, e.g. `E081`.
    pub const fn id(self) -> CodeId {
        CodeId::new(match self {
            Code::MalformedJson => "E001",
            Code::TooDeep => "E002",
            Code::FactsShape => "E080",
            Code::FactsUnknownPredicate => "E081",
            Code::FactsArity => "E082",
            Code::FactsType => "E083",
            Code::FactsInstitutional => "E084",
            Code::FactsContradiction => "E085",
            Code::FactsAmbiguousName => "E086",
            Code::FactsDate => "E087",
            Code::NoLawInForce => "E088",
        })
    }

    /// The code as printed, e.g. `E081`.
    pub fn as_str(self) -> &'static str {
        self.id().as_str()
    }
}

impl From<Code> for CodeId {
    fn from(c: Code) -> CodeId {
        c.id()
    }
}

impl PartialEq<Code> for CodeId {
    fn eq(&self, other: &Code) -> bool {
        *self == other.id()
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a problem is: the node it belongs to (if any) and a JSON pointer
/// (RFC 6901) into the input document. For facts files the "node" is the
/// facts key and the pointer names the row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Location {
    /// JSON pointer into the input, `""` for the whole document.
    pub pointer: String,
    /// The id of the enclosing node (or facts key), when there is one.
    pub node: Option<String>,
    /// Line and column (1-based) in a text-form (`.law`) file, when the
    /// package was read from one: the pointer then names the part of the
    /// package JSON the text stands for.
    pub line: Option<(usize, usize)>,
    /// For a problem inside an imported package: that package and its
    /// file, e.g. `` `fide.laws.chess` 0.1.0 (fide.laws.chess-0.1.0.ir.json) ``.
    /// `None` for the file being checked itself.
    pub package: Option<String>,
}

impl Location {
    pub fn new(node: Option<&str>, pointer: impl Into<String>) -> Self {
        Location {
            pointer: pointer.into(),
            node: node.map(str::to_owned),
            line: None,
            package: None,
        }
    }

    /// The same place, inside the imported package `package`.
    pub fn in_package(mut self, package: impl Into<String>) -> Self {
        self.package = Some(package.into());
        self
    }
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: CodeId,
    /// What is wrong, lower case, no trailing period.
    pub message: String,
    pub location: Location,
    /// How to fix it.
    pub help: String,
}

impl Diagnostic {
    pub fn new(
        code: impl Into<CodeId>,
        location: Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Diagnostic {
            code: code.into(),
            message: message.into(),
            location,
            help: help.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Messages and help quote ids from the package: escape them too.
        writeln!(
            f,
            "{}[{}]: {}",
            self.code.severity(),
            self.code,
            escape_for_display(&self.message)
        )?;
        let at = if self.location.pointer.is_empty() {
            "the document root".to_owned()
        } else {
            self.location.pointer.clone()
        };
        let line = match self.location.line {
            Some((l, c)) => format!(" (line {l}, column {c})"),
            None => String::new(),
        };
        let package = match &self.location.package {
            Some(p) => format!("package {}, ", escape_for_display(p)),
            None => String::new(),
        };
        match &self.location.node {
            Some(node) => writeln!(
                f,
                "  --> {package}node `{}` at {}{line}",
                escape_for_display(node),
                at
            )?,
            None => writeln!(f, "  --> {package}{at}{line}")?,
        }
        write!(f, "  = help: {}", escape_for_display(&self.help))
    }
}

/// Makes an input string safe to print on one terminal line: control
/// characters (newlines, escapes) are shown escaped so a hostile id cannot
/// forge extra diagnostic lines or terminal sequences.
pub fn escape_for_display(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// An ordered collection of diagnostics from one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// Shorthand for `push(Diagnostic::new(..))`.
    pub fn error(
        &mut self,
        code: impl Into<CodeId>,
        location: Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.push(Diagnostic::new(code, location, message, help));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// Marks every diagnostic that names no package yet as being inside
    /// `package` (an imported package and its file).
    pub fn in_package(mut self, package: &str) -> Diagnostics {
        for d in &mut self.0 {
            if d.location.package.is_none() {
                d.location.package = Some(package.to_owned());
            }
        }
        self
    }

    /// Sorts by location in the document (JSON pointer order, numeric
    /// segments compared as numbers), then by code, and drops exact duplicates.
    pub fn sort(&mut self) {
        self.0.sort_by(|a, b| {
            // The checked file's own problems first, then each imported package's.
            (a.location.package.cmp(&b.location.package))
                .then_with(|| {
                    pointer_key(&a.location.pointer).cmp(&pointer_key(&b.location.pointer))
                })
                .then(a.code.cmp(&b.code))
                .then(a.message.cmp(&b.message))
        });
        self.0.dedup();
    }

    /// Every diagnostic rendered, separated by blank lines, with a closing count.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for d in &self.0 {
            out.push_str(&d.to_string());
            out.push_str("\n\n");
        }
        let warnings = self.0.iter().filter(|d| d.code.is_warning()).count();
        let errors = self.0.len() - warnings;
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        if errors > 0 || warnings == 0 {
            out.push_str(&format!("error: {errors} error{} found\n", plural(errors)));
        }
        if warnings > 0 {
            out.push_str(&format!(
                "warning: {warnings} warning{} found\n",
                plural(warnings)
            ));
        }
        out
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A sort key that orders `/nodes/10` after `/nodes/9`.
fn pointer_key(p: &str) -> Vec<(u64, String)> {
    p.split('/')
        .map(|seg| match seg.parse::<u64>() {
            Ok(n) => (n, String::new()),
            Err(_) => (u64::MAX, seg.to_owned()),
        })
        .collect()
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub fn pointer_push(base: &str, token: impl fmt::Display) -> String {
    let token = token.to_string().replace('~', "~0").replace('/', "~1");
    format!("{base}/{token}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_numeric_pointer_segments_numerically() {
        let mut ds = Diagnostics::new();
        for p in ["/nodes/10", "/nodes/9", "/nodes/9/body"] {
            ds.error(Code::FactsArity, Location::new(None, p), "m", "h");
        }
        ds.sort();
        let order: Vec<_> = ds.iter().map(|d| d.location.pointer.as_str()).collect();
        assert_eq!(order, ["/nodes/9", "/nodes/9/body", "/nodes/10"]);
    }

    #[test]
    fn hostile_ids_cannot_forge_lines() {
        let d = Diagnostic::new(
            Code::FactsShape,
            Location::new(Some("a\nerror[E000]: forged"), "/nodes/0"),
            "m",
            "h",
        );
        let s = d.to_string();
        assert_eq!(s.lines().count(), 3, "{s}");
        assert!(s.contains("a\\nerror[E000]: forged"));
        // Ids quoted in the message and help are escaped as well.
        let d = Diagnostic::new(
            Code::FactsUnknownPredicate,
            Location::new(None, "/nodes/0"),
            "`x\nerror[E000]: forged` is not declared",
            "declare `x\n  = help: forged`",
        );
        let s = d.to_string();
        assert_eq!(s.lines().count(), 3, "{s}");
    }

    #[test]
    fn codes_are_distinct_and_sort_by_number() {
        let ids: Vec<CodeId> = Code::ALL.iter().map(|c| c.id()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, ids, "declared in numeric order, each once");
        assert!(CodeId::new("E110") < CodeId::new("W001"));
        assert_eq!(CodeId::new("W003").severity(), "warning");
        assert_eq!(Code::FactsArity.id().severity(), "error");
    }

    #[test]
    #[should_panic(expected = "E or W and three digits")]
    fn malformed_codes_are_refused() {
        let _ = CodeId::new("E20");
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(pointer_push("/a", "x/y~z"), "/a/x~1y~0z");
    }
}
