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

use std::fmt;

/// A stable error code. The numbering groups codes by the stage that reports them:
/// `E00x` reading, `E01x` names, `E02x` types, `E03x` safety, `E04x` priorities,
/// `E05x` closures, `E06x` judgments, `E07x` strata, `E08x` facts, `E09x` resource limits,
/// `E10x` imports, `E11x` the text form; `W0xx` are the warnings of `lawgen lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// The input is not JSON (syntax error, truncated file, invalid UTF-8).
    MalformedJson,
    /// The JSON nests deeper than the reader accepts.
    TooDeep,
    /// `schemaVersion` is not `law.core.ir/0.2`.
    SchemaVersion,
    /// A required field is missing or has the wrong JSON type.
    BadField,
    /// A node `kind` lawgen does not know.
    UnknownNodeKind,
    /// An unknown body item, term or literal kind, or an unknown enumerated value.
    UnknownKind,
    /// A node's `contentHash` does not match its content.
    HashMismatch,
    /// A fragment text's `contentHash` does not match the text.
    TextHashMismatch,
    /// A construct lawgen does not implement (imports, strata, interpretations, …).
    Unsupported,
    /// Two nodes share an id (or two predicates a local name, or two types a name).
    DuplicateId,
    /// A reference names no declared predicate.
    UnknownPredicate,
    /// A reference names no declared type.
    UnknownType,
    /// A reference names no declared constant.
    UnknownConstant,
    /// A priority names no declared rule.
    UnknownRule,
    /// An anchor, edition or work reference resolves to nothing.
    UnknownProvenance,
    /// A reference resolves to a node of the wrong kind.
    WrongNodeKind,
    /// A literal has the wrong number of arguments.
    Arity,
    /// An argument's type differs from the parameter's.
    TypeMismatch,
    /// A comparison between incompatible types, or an order comparison on entities.
    ComparisonType,
    /// A variable used in a rule is not declared in `variables`.
    UndeclaredVariable,
    /// A variable is declared twice in one rule.
    DuplicateVariable,
    /// A `value` term whose JSON value does not fit its type.
    BadValue,
    /// A head variable is not bound by a positive body literal.
    UnboundHeadVariable,
    /// A comparison variable is not bound by a positive body literal.
    UnboundComparisonVariable,
    /// A variable of a `not` item shared with the rule is not bound elsewhere.
    UnboundNegatedVariable,
    /// A rule concludes an empirical or judgment predicate.
    HeadNotInstitutional,
    /// A priority relates rules whose heads are not complementary.
    PriorityNoConflict,
    /// The priority relation has a cycle.
    PriorityCycle,
    /// A closure over a predicate that is not empirical.
    ClosureNotEmpirical,
    /// A closure domain whose parameter types differ from the predicate's.
    ClosureDomainType,
    /// A judgment predicate without an `external_decl`.
    JudgmentWithoutExternal,
    /// An `external_decl` for something that is not a judgment predicate, or a second one.
    BadExternal,
    /// No stratification exists.
    Unstratifiable,
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
    /// A resource limit (string length, arity, …) is exceeded.
    Limit,
    /// No package on the import search path has the imported name and version.
    ImportNotFound,
    /// The imported package has another namespace than its import entry says.
    ImportNamespace,
    /// The imported package has another `semanticHash` than its import entry pins.
    ImportSemanticHash,
    /// A package imports itself, directly or through others.
    ImportCycle,
    /// Two versions of one package name in one import closure.
    ImportVersionClash,
    /// A node of a layered package whose `package` field or id is not its package's namespace.
    ImportForeignNode,
    /// A derogation in a package that imports nothing.
    DerogationWithoutImports,
    /// A derogation lists a rule of its own package.
    DerogationOwnRule,
    /// A derogation without an anchor.
    DerogationWithoutAnchor,
    /// The text form (`.law`) does not parse.
    TextSyntax,
    /// Lint: a rule for one case reads a fact that does not name the case.
    CrossCaseLeak,
    /// Lint: a rule's head drops the case every body item hangs off.
    HeadDropsCase,
    /// Lint: a rule whose body can never hold.
    NeverFires,
    /// Lint: a declaration nothing refers to.
    UnusedDeclaration,
    /// Lint: a priority over a strict rule.
    PriorityOverStrict,
    /// Lint: a closure whose domain nothing can establish definitely.
    ClosureDomainEmpty,
    /// Lint: a judgment no rule reads.
    JudgmentNeverRead,
    /// Lint: a derogation that changes nothing (the rule would have concluded nothing anyway).
    DerogationWithoutEffect,
}

impl Code {
    /// The code as printed, e.g. `E020`.
    pub fn as_str(self) -> &'static str {
        use Code::*;
        match self {
            MalformedJson => "E001",
            TooDeep => "E002",
            SchemaVersion => "E003",
            BadField => "E004",
            UnknownNodeKind => "E005",
            UnknownKind => "E006",
            HashMismatch => "E007",
            TextHashMismatch => "E008",
            Unsupported => "E009",
            DuplicateId => "E010",
            UnknownPredicate => "E011",
            UnknownType => "E012",
            UnknownConstant => "E013",
            UnknownRule => "E014",
            UnknownProvenance => "E015",
            WrongNodeKind => "E016",
            Arity => "E020",
            TypeMismatch => "E021",
            ComparisonType => "E022",
            UndeclaredVariable => "E023",
            DuplicateVariable => "E024",
            BadValue => "E025",
            UnboundHeadVariable => "E030",
            UnboundComparisonVariable => "E031",
            UnboundNegatedVariable => "E032",
            HeadNotInstitutional => "E033",
            PriorityNoConflict => "E040",
            PriorityCycle => "E041",
            ClosureNotEmpirical => "E050",
            ClosureDomainType => "E051",
            JudgmentWithoutExternal => "E060",
            BadExternal => "E061",
            Unstratifiable => "E070",
            FactsShape => "E080",
            FactsUnknownPredicate => "E081",
            FactsArity => "E082",
            FactsType => "E083",
            FactsInstitutional => "E084",
            FactsContradiction => "E085",
            FactsAmbiguousName => "E086",
            Limit => "E090",
            ImportNotFound => "E100",
            ImportNamespace => "E101",
            ImportSemanticHash => "E102",
            ImportCycle => "E103",
            ImportVersionClash => "E104",
            ImportForeignNode => "E105",
            DerogationWithoutImports => "E106",
            DerogationOwnRule => "E107",
            DerogationWithoutAnchor => "E108",
            TextSyntax => "E110",
            CrossCaseLeak => "W001",
            HeadDropsCase => "W002",
            NeverFires => "W003",
            UnusedDeclaration => "W004",
            PriorityOverStrict => "W005",
            ClosureDomainEmpty => "W006",
            JudgmentNeverRead => "W007",
            DerogationWithoutEffect => "W008",
        }
    }
}

impl Code {
    /// `warning` for the `W0xx` codes of `lawgen lint`, `error` otherwise.
    pub fn severity(self) -> &'static str {
        if self.as_str().starts_with('W') {
            "warning"
        } else {
            "error"
        }
    }

    pub fn is_warning(self) -> bool {
        self.severity() == "warning"
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
    pub code: Code,
    /// What is wrong, lower case, no trailing period.
    pub message: String,
    pub location: Location,
    /// How to fix it.
    pub help: String,
}

impl Diagnostic {
    pub fn new(
        code: Code,
        location: Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Diagnostic {
            code,
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
        code: Code,
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
            ds.error(Code::Arity, Location::new(None, p), "m", "h");
        }
        ds.sort();
        let order: Vec<_> = ds.iter().map(|d| d.location.pointer.as_str()).collect();
        assert_eq!(order, ["/nodes/9", "/nodes/9/body", "/nodes/10"]);
    }

    #[test]
    fn hostile_ids_cannot_forge_lines() {
        let d = Diagnostic::new(
            Code::DuplicateId,
            Location::new(Some("a\nerror[E000]: forged"), "/nodes/0"),
            "m",
            "h",
        );
        let s = d.to_string();
        assert_eq!(s.lines().count(), 3, "{s}");
        assert!(s.contains("a\\nerror[E000]: forged"));
        // Ids quoted in the message and help are escaped as well.
        let d = Diagnostic::new(
            Code::UnknownPredicate,
            Location::new(None, "/nodes/0"),
            "`x\nerror[E000]: forged` is not declared",
            "declare `x\n  = help: forged`",
        );
        let s = d.to_string();
        assert_eq!(s.lines().count(), 3, "{s}");
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(pointer_push("/a", "x/y~z"), "/a/x~1y~0z");
    }
}
