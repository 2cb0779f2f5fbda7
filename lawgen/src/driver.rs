//! The one function that runs the front of the pipeline: read (with the
//! import closure) → check → size, with a gate after each stage, so no
//! stage ever sees input an earlier one refused ([`load_file`]); then
//! lower ([`lower`]) and the reference evaluator ([`evaluate`]).

use crate::check;
use crate::diagnostics::Diagnostics;
use crate::imports;
use crate::model::Model;
use crate::syntax::{self, Package};
use lawgen_runtime::interp::Facts;
use lawgen_runtime::interp::{Conclusions, Store};
use lawgen_runtime::program::{Catalog, Program};
use lawgen_runtime::Policy;
use std::fmt;
use std::path::{Path, PathBuf};

pub use crate::lower::InternalError;

/// Why [`evaluate`] gave no conclusions.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum EvalError {
    /// A lowering bug.
    Internal(InternalError),
    /// No edition of a work some rule is anchored to is in force on the
    /// case's date (docs/reference.md#as-of-evaluation).
    NoLaw(lawgen_runtime::law::NoLaw),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::Internal(e) => e.fmt(f),
            EvalError::NoLaw(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EvalError {}

impl From<InternalError> for EvalError {
    fn from(e: InternalError) -> Self {
        EvalError::Internal(e)
    }
}
pub use crate::syntax::text::{SyntaxErrors, TextError};
pub use crate::syntax::ReadLimits;

/// Why a package could not be loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read at all.
    Io {
        /// The package file, as given.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The package was read but is invalid: every problem found.
    Invalid {
        /// The package file, as given; a diagnostic about an imported
        /// package names that package in its location.
        path: PathBuf,
        /// Every problem, each with its code, location and how to fix it;
        /// [`Diagnostics::render`] prints them as the CLI does.
        diagnostics: Diagnostics,
    },
    /// A text-form (`.law`) file does not parse.
    Syntax {
        /// The `.law` file, as given.
        path: PathBuf,
        /// Every syntax error of the file, with its source to render them
        /// against ([`SyntaxErrors::render`]).
        errors: syntax::text::SyntaxErrors,
    },
}

impl LoadError {
    /// Process exit code the CLI uses: 2 for unreadable input, 1 for an invalid package.
    pub fn exit_code(&self) -> i32 {
        match self {
            LoadError::Io { .. } => 2,
            LoadError::Invalid { .. } | LoadError::Syntax { .. } => 1,
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io { path, source } => {
                write!(f, "error: cannot read {}: {source}", path.display())
            }
            LoadError::Invalid { path, diagnostics } => {
                write!(f, "{}", diagnostics.render())?;
                write!(f, "error: {} is not a valid rule package", path.display())
            }
            LoadError::Syntax { path, errors } => {
                write!(f, "{}", errors.render(&path.display().to_string()))?;
                write!(f, "error: {} is not a valid rule package", path.display())
            }
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Io { source, .. } => Some(source),
            LoadError::Invalid { .. } | LoadError::Syntax { .. } => None,
        }
    }
}

/// A package that passed every check: what [`lower`], [`evaluate`],
/// [`crate::generate`] and [`crate::doc::render`] take. The checked package
/// itself is the compiler's and stays inside it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The root package as read (its own nodes; the model covers its closure).
    pub(crate) package: Package,
    pub(crate) model: Model,
    /// What run time needs of the package (names, labels, anchors); facts
    /// files are read against it.
    pub catalog: Catalog,
    /// The package JSON as read (for a `.law` file, the JSON it converts to)
    /// or, for a package with imports, a closure bundle holding every file of
    /// its closure (`syntax::files::write_bundle`); [`load_bytes`] reads
    /// either. `lawgen bench` gives its compiled child a copy.
    pub source: String,
    /// Every file of the import closure, the root first (empty for a
    /// package read from bytes without imports). A build script reruns
    /// when any of them changes.
    pub files: Vec<PathBuf>,
    /// Every package of the import closure as read, the root first, then
    /// the imports in closure order (each after the packages that import
    /// it); `lawgen doc` verbalizes each one's nodes.
    pub(crate) closure: Vec<Package>,
}

/// The checked package behind a [`Loaded`], for lawgen's own tests, fuzz
/// harness and benches (feature `internals`; not a stable API).
#[cfg(feature = "internals")]
#[doc(hidden)]
impl Loaded {
    /// The root package as read.
    pub fn package(&self) -> &Package {
        &self.package
    }

    /// The checked model of the closure.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Every package of the import closure as read, the root first.
    pub fn closure(&self) -> &[Package] {
        &self.closure
    }
}

impl Loaded {
    /// The root package's name (`fide.laws.chess`), as messages and
    /// generated code name it.
    pub fn name(&self) -> &str {
        &self.model.name
    }

    /// The root package's version.
    pub fn version(&self) -> &str {
        &self.model.version
    }
}

/// Reads and checks package bytes (no IO): a package without imports, or a
/// closure bundle as generated code embeds it. Imports of a package read
/// this way are searched for on no path (use [`load_file_with`]).
pub fn load_bytes(bytes: &[u8], limits: &ReadLimits) -> Result<Loaded, Diagnostics> {
    if let Some(files) = syntax::files::read_bundle(bytes, limits) {
        let mut files: Vec<(PathBuf, Vec<u8>)> = files?
            .into_iter()
            .map(|(name, b)| (PathBuf::from(name), b))
            .collect();
        let (root, mut root_bytes) = files.remove(0);
        // lawgen writes a bundle's root as package JSON whatever its name
        // (the root it read was converted); a bundle written otherwise may
        // hold a `.law` root in the text form, as it may hold imports.
        let text_root = matches!(
            syntax::files::Format::of(&root),
            Some(syntax::files::Format::Law)
        );
        if text_root && serde_json::from_slice::<serde::de::IgnoredAny>(&root_bytes).is_err() {
            root_bytes = syntax::files::law_to_json(&root_bytes)?;
        }
        let closure = imports::resolve(
            &root,
            root_bytes,
            &mut imports::InMemory::new(files),
            limits,
        )?;
        let mut loaded = finish(closure, limits)?;
        loaded.source = String::from_utf8_lossy(bytes).into_owned();
        return Ok(loaded);
    }
    load_from(Path::new(""), bytes.to_vec(), limits, &[])
}

/// Reads and checks the package `bytes` read from `path`, resolving its
/// imports on `path`'s directory and then `import_path` (docs/reference.md#imports).
fn load_from(
    path: &Path,
    bytes: Vec<u8>,
    limits: &ReadLimits,
    import_path: &[PathBuf],
) -> Result<Loaded, Diagnostics> {
    let mut files = imports::SearchPath::new(import_path);
    // After this point every file of the closure is read, its hashes verified.
    let closure = imports::resolve(path, bytes, &mut files, limits)?;
    finish(closure, limits)
}

/// Checks a resolved closure and sizes it.
fn finish(closure: imports::Closure, limits: &ReadLimits) -> Result<Loaded, Diagnostics> {
    let model = imports::check_closure(&closure)?;
    // Before anything lowers it: would lowering explode?
    check::size::check(&model, limits)?;
    // check_closure refused an empty closure, so there is a root.
    let Some(root) = closure.root() else {
        return Err(Diagnostics::new());
    };
    let source = if closure.layers.len() == 1 {
        String::from_utf8_lossy(&root.bytes).into_owned()
    } else {
        // Root first, then the imports in closure order.
        let mut files: Vec<(String, &[u8])> = Vec::new();
        for l in closure.layers.iter().rev() {
            let name = l
                .file
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            files.push((name, &l.bytes));
        }
        syntax::files::write_bundle(&files)
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for l in closure.layers.iter().rev() {
        if !l.file.as_os_str().is_empty() {
            files.push(l.file.clone());
        }
    }
    let catalog = crate::lower::catalog(&model);
    let packages = closure.layers.iter().rev().map(|l| l.package.clone());
    Ok(Loaded {
        package: root.package.clone(),
        model,
        catalog,
        source,
        files,
        closure: packages.collect(),
    })
}

/// Reads a package file and checks it; imports are searched for in the
/// file's own directory only.
pub fn load_file(path: &Path, limits: &ReadLimits) -> Result<Loaded, LoadError> {
    load_file_with(path, limits, &[])
}

/// Reads a package file and checks it, with its import closure: imports are
/// searched for in the file's own directory, then in each of `import_path`,
/// in order (docs/reference.md#imports; `--import-path`, `Builder::import_path`).
pub fn load_file_with(
    path: &Path,
    limits: &ReadLimits,
    import_path: &[PathBuf],
) -> Result<Loaded, LoadError> {
    let bytes = read_package_bytes(path, limits)?;
    let file = package_json(path, bytes, limits)?;
    load_package_json(path, &file, limits, import_path)
}

/// Reads a package file's bytes, stopping one byte past
/// `limits.max_bytes` whatever the file is (a device, a FIFO): over the
/// limit it is invalid (E090), as a package read from memory would be.
pub fn read_package_bytes(path: &Path, limits: &ReadLimits) -> Result<Vec<u8>, LoadError> {
    use lawgen_runtime::bounded::ReadError;
    syntax::files::read_limited(path, limits.max_bytes).map_err(|e| match e {
        ReadError::Io(source) => LoadError::Io {
            path: path.to_owned(),
            source,
        },
        ReadError::TooLarge(t) => LoadError::Invalid {
            path: path.to_owned(),
            diagnostics: syntax::files::package_too_large(t),
        },
    })
}

/// Checks a package file already read as package JSON (see
/// [`package_json`]), with its import closure; diagnostics of a `.law` file
/// carry their lines.
pub fn load_package_json(
    path: &Path,
    file: &PackageJson,
    limits: &ReadLimits,
    import_path: &[PathBuf],
) -> Result<Loaded, LoadError> {
    load_from(path, file.json.clone(), limits, import_path).map_err(|diagnostics| {
        LoadError::Invalid {
            path: path.to_owned(),
            diagnostics: file.locate(diagnostics),
        }
    })
}

pub use crate::syntax::files::FactsFileError;

/// Reads a facts file (docs/reference.md#facts-files) for a checked package
/// as a stream, never whole in memory, refusing it with E090 as soon as it
/// holds more than `limits.max_facts_bytes`: what `lawgen eval --facts` and
/// every other command given a facts file read it with.
pub fn read_facts_file(
    path: &Path,
    loaded: &Loaded,
    limits: &ReadLimits,
) -> Result<Facts, FactsFileError> {
    syntax::files::read_facts_file(path, &loaded.catalog, limits)
}

/// The lock file that pins a package's imports
/// (docs/reference.md#lock-files), made by [`lock`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Lock {
    /// Where it goes: beside the package, its name with `.lock` appended.
    pub path: PathBuf,
    /// Its contents.
    pub text: String,
    /// How many packages it pins (the root's imports, transitively).
    pub imports: usize,
}

/// The lock file of the package file `path` (read as `file`): its import
/// closure resolved on `path`'s directory, then `import_path`, and checked,
/// without verifying the lock file being replaced, which may be stale. What
/// `lawgen lock` writes; diagnostics of a `.law` file carry their lines.
pub fn lock(
    path: &Path,
    file: &PackageJson,
    limits: &ReadLimits,
    import_path: &[PathBuf],
) -> Result<Lock, LoadError> {
    let invalid = |d: Diagnostics| LoadError::Invalid {
        path: path.to_owned(),
        diagnostics: file.locate(d),
    };
    let mut files = imports::Unlocked(imports::SearchPath::new(import_path));
    let closure = imports::resolve(path, file.json.clone(), &mut files, limits).map_err(invalid)?;
    // Only a closure that checks is worth pinning.
    imports::check_closure(&closure).map_err(invalid)?;
    Ok(Lock {
        path: imports::lock_path(path),
        text: imports::write_lock(&closure),
        imports: closure.layers.len() - 1,
    })
}

/// Is `path` a text-form package (`.law`)? Every other file is package JSON.
pub fn is_text_form(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == syntax::text::EXTENSION)
}

/// A package file as package JSON, whichever form it is written in.
#[derive(Debug, Clone)]
pub struct PackageJson {
    /// The package JSON: the file's bytes, or a `.law` file converted.
    pub json: Vec<u8>,
    /// For a `.law` file, where each part of the JSON came from.
    map: Option<(syntax::text::SourceMap, String)>,
}

impl PackageJson {
    /// Adds the line and column in the `.law` file to each diagnostic.
    pub fn locate(&self, diagnostics: Diagnostics) -> Diagnostics {
        let Some((map, src)) = &self.map else {
            return diagnostics;
        };
        let mut out = Diagnostics::new();
        for mut d in diagnostics {
            d.location.line = map
                .offset(&d.location.pointer)
                .map(|o| syntax::text::line_col(src, o));
            out.push(d);
        }
        out
    }
}

/// The one place that dispatches on a package file's form: a `.law` file is
/// parsed into package JSON (hashes computed), anything else is taken as
/// package JSON. What every command, the Builder, and an import resolver
/// call to read a package file of either form.
pub fn package_json(
    path: &Path,
    bytes: Vec<u8>,
    limits: &ReadLimits,
) -> Result<PackageJson, LoadError> {
    if !is_text_form(path) {
        return Ok(PackageJson {
            json: bytes,
            map: None,
        });
    }
    if bytes.len() > limits.max_bytes {
        // Refused by the JSON reader with the same message as a JSON file.
        return Ok(PackageJson {
            json: bytes,
            map: None,
        });
    }
    let syntax_error = |errors| LoadError::Syntax {
        path: path.to_owned(),
        errors,
    };
    let src = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            return Err(syntax_error(syntax::text::SyntaxErrors {
                errors: vec![syntax::text::TextError::new(
                    at..at + 1,
                    "the file is not valid UTF-8",
                    "save the file as UTF-8",
                )],
                source: String::from_utf8_lossy(e.as_bytes()).into_owned(),
            }));
        }
    };
    let parsed = syntax::text::parse(&src).map_err(syntax_error)?;
    Ok(PackageJson {
        json: syntax::canon::serialize(&parsed.json).into_bytes(),
        map: Some((parsed.map, src)),
    })
}

/// The lowered program of a checked package: plain stratified Datalog with
/// the whole defeasible overlay, what the reference evaluator runs and
/// [`crate::generate`] compiles. An error is a lawgen bug.
pub fn lower(loaded: &Loaded) -> Result<Program, InternalError> {
    crate::lower::lower(&loaded.model)
}

/// The editions of a checked package's closure and the days each is in
/// force (docs/reference.md#as-of-evaluation), as lowering reads them: what
/// `lawgen check` lists and what decides the law in force on a date.
pub fn law(loaded: &Loaded) -> lawgen_runtime::law::Law {
    crate::lower::law(&loaded.model)
}

/// A package evaluated on one facts file.
#[derive(Debug, Clone)]
pub struct Evaluated {
    /// The lowered program that was run (what [`lower`] returns), which
    /// names every relation of the store; the explainer reads the two
    /// together.
    pub program: Program,
    /// Every relation of the program as evaluated, intermediate ones
    /// included: what `lawgen_runtime::explain` reads a proof off.
    pub store: Store,
    /// The canonical conclusions, section by section (definitely,
    /// defeasibly, pending, supported), and the open judgment requests:
    /// what the canonical output (`lawgen_runtime::formats`) writes.
    pub conclusions: Conclusions,
}

/// Lowers and evaluates a checked package on facts with the reference interpreter.
pub fn evaluate(loaded: &Loaded, facts: &Facts, policy: Policy) -> Result<Evaluated, EvalError> {
    let program = lower(loaded)?;
    lawgen_runtime::interp::in_force(&program, facts).map_err(EvalError::NoLaw)?;
    let store = lawgen_runtime::interp::evaluate(&program, facts, policy);
    let conclusions = lawgen_runtime::interp::conclusions(&program, &store, policy);
    Ok(Evaluated {
        program,
        store,
        conclusions,
    })
}
