//! Code generation for builds: the `build.rs` [`Builder`] (in the manner of
//! `prost-build`), each [`Package`] it compiles with that module's own
//! settings, and the `ascent` dependency of the crates lawgen writes
//! ([`ASCENT_DEPENDENCY`], which `lawgen build` writes too).
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), lawgen::BuildError> {
//!     lawgen::Builder::new()
//!         .package("packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json")
//!         .compile()?;
//!     Ok(())
//! }
//! ```
//! and in `src/lib.rs` (or `main.rs`):
//! ```ignore
//! lawgen_runtime::include_package!(fide_laws_chess);
//! ```
//! The consuming crate depends on `lawgen-runtime` and on `ascent` (whose
//! macros expand to `::ascent::…` paths; [`ASCENT_DEPENDENCY`]), and on
//! `lawgen` as a build-dependency.

use crate::diagnostics::Diagnostics;
use crate::driver::{load_file_with, LoadError, Loaded};
use crate::emit::{EmitError, EmitOptions, Emitted, Engine};
use crate::syntax::ReadLimits;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why code generation failed. `Debug` prints the same rendered diagnostics
/// as `Display`, so `fn main() -> Result<(), BuildError>` in a build script
/// fails `cargo build` with lawgen's message rather than a struct dump.
/// [`std::error::Error::source`] gives the underlying load, emit or
/// operating-system error.
#[non_exhaustive]
pub enum BuildError {
    /// The package could not be read or does not check.
    Package(LoadError),
    /// The package checks but no Rust could be generated for it: a construct
    /// the compiled engines cannot represent ([`EmitError::Unsupported`]
    /// says what to do instead), or a lawgen bug.
    Emit {
        /// The package file, as given to [`Package::new`].
        package: PathBuf,
        /// What went wrong.
        error: EmitError,
    },
    /// A generated file (a module, the Python bindings) or the directory it
    /// goes in could not be written.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// `OUT_DIR` is not set and no `out_dir` was given (not in a build script?).
    NoOutDir,
    /// Two packages would be written to the same module file.
    DuplicateModule(String),
    /// The package cannot become a Python module as asked (see `python`).
    Python(String),
    /// [`Builder::compile`] was called without any [`Builder::package`].
    NoPackage,
    /// A [`Package`] was given an empty path.
    EmptyPath,
    /// A [`Package`] was given an empty [`Package::module_name`].
    EmptyModuleName {
        /// The package file.
        package: PathBuf,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Package(LoadError::Invalid { path, diagnostics }) => write!(
                f,
                "lawgen: the package {} has errors; no code was generated.\n\n{}",
                path.display(),
                render(diagnostics)
            ),
            BuildError::Package(e) => write!(f, "lawgen: {e}"),
            BuildError::Emit { package, error } => {
                write!(f, "lawgen: generating code for {}: {error}", package.display())
            }
            BuildError::Io { path, error } => {
                write!(f, "lawgen: cannot write {}: {error}", path.display())
            }
            BuildError::NoOutDir => write!(
                f,
                "lawgen: OUT_DIR is not set; call Builder::out_dir, or run from a build script"
            ),
            BuildError::DuplicateModule(m) => write!(
                f,
                "lawgen: two packages generate the module `{m}`; give one a different Package::module_name"
            ),
            BuildError::Python(m) => write!(f, "lawgen: {m}"),
            BuildError::NoPackage => write!(
                f,
                "lawgen: no package to compile; add one with Builder::package before compile"
            ),
            BuildError::EmptyPath => write!(
                f,
                "lawgen: a package was added with an empty path; give Package::new the package file"
            ),
            BuildError::EmptyModuleName { package } => write!(
                f,
                "lawgen: the module name of {} is empty; give Package::module_name a Rust identifier, or leave it out for the package's own name",
                package.display()
            ),
        }
    }
}

fn render(d: &Diagnostics) -> String {
    d.render()
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Package(e) => Some(e),
            BuildError::Emit { error, .. } => Some(error),
            BuildError::Io { error, .. } => Some(error),
            BuildError::NoOutDir
            | BuildError::DuplicateModule(_)
            | BuildError::Python(_)
            | BuildError::NoPackage
            | BuildError::EmptyPath
            | BuildError::EmptyModuleName { .. } => None,
        }
    }
}

/// One package for [`Builder::package`], with the settings that belong to
/// its module alone:
///
/// - the **engine** ([`Package::engine`]): a crate may compile one package
///   with the Direct engine and another (or the same one, under a second
///   name) with Ascent, so the engine is chosen per module;
/// - the **module name** ([`Package::module_name`]): it names one module.
///
/// What holds for every package of a build (where files go, the import
/// search path, size limits, the rustdoc language, `rerun-if-changed`
/// lines, Python bindings) is set on the [`Builder`]. A path converts into
/// a `Package` with the defaults, so `.package("laws/x.ir.json")` needs no
/// `Package::new`.
///
/// ```no_run
/// # fn main() -> Result<(), lawgen::BuildError> {
/// use lawgen::{Builder, Engine, Package};
///
/// let chess = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";
/// Builder::new()
///     .package(chess)
///     .package(Package::new(chess).engine(Engine::Direct).module_name("chess_direct"))
///     .compile()?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Package {
    path: PathBuf,
    module_name: Option<String>,
    engine: Engine,
}

impl Package {
    /// The package file (`.json` or `.law`), compiled with the Ascent engine
    /// into a module named after the package (`fide.laws.chess` →
    /// `fide_laws_chess`).
    pub fn new(path: impl AsRef<Path>) -> Package {
        Package {
            path: path.as_ref().to_owned(),
            module_name: None,
            engine: Engine::default(),
        }
    }

    /// The engine behind this package's generated API (default
    /// [`Engine::Ascent`]).
    pub fn engine(mut self, engine: Engine) -> Package {
        self.engine = engine;
        self
    }

    /// The name of this package's module and file (`<name>.rs`), instead of
    /// the package name in snake case.
    pub fn module_name(mut self, name: &str) -> Package {
        self.module_name = Some(name.to_owned());
        self
    }
}

impl<P: AsRef<Path>> From<P> for Package {
    fn from(path: P) -> Package {
        Package::new(path)
    }
}

/// Configures and runs code generation from a build script: the packages,
/// each with its own engine and module name ([`Package`]), and the
/// settings every package of the build shares.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    packages: Vec<Package>,
    out_dir: Option<PathBuf>,
    limits: ReadLimits,
    emit_rerun: bool,
    import_path: Vec<PathBuf>,
    python: bool,
    /// See [`Builder::doc_language`].
    doc_language: Option<String>,
}

impl Builder {
    /// A builder with no package yet, writing to `$OUT_DIR`, with the
    /// default size limits, and `cargo:rerun-if-changed` lines for every
    /// file of each package's import closure.
    pub fn new() -> Self {
        Builder {
            emit_rerun: true,
            ..Default::default()
        }
    }

    /// Adds a package: a path (its module named after the package, the
    /// Ascent engine), or a [`Package`] with its own engine and module name.
    pub fn package(mut self, package: impl Into<Package>) -> Self {
        self.packages.push(package.into());
        self
    }

    /// The language of the generated rustdoc (`en`, `ru`, …): each label and
    /// article text in that language where the package has one, otherwise
    /// the node's first. One setting for every package: a crate's
    /// documentation has one reader, and a package without the language
    /// falls back node by node.
    ///
    /// ```no_run
    /// lawgen::Builder::new()
    ///     .package("laws/ru.chess.competition-0.3.0.ir.json")
    ///     .import_path("laws")
    ///     .doc_language("ru")
    ///     .compile()
    ///     .unwrap();
    /// ```
    pub fn doc_language(mut self, lang: &str) -> Self {
        self.doc_language = Some(lang.to_owned());
        self
    }

    /// Where `<module>.rs` files go (default: `$OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Limits on the size of every package and its imports (defaults as
    /// the CLI).
    pub fn limits(mut self, limits: ReadLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Adds a directory to search for imported packages (docs/reference.md#imports), after
    /// the importing file's own directory; directories are searched in the
    /// order they are added. The generated module covers the whole import
    /// closure. One search path for every package: packages of one build
    /// that import the same package must find the same file.
    ///
    /// ```no_run
    /// // club/example.club-1.0.0.json imports example.laws, one directory up.
    /// lawgen::Builder::new()
    ///     .package("tests/imports/example/club/example.club-1.0.0.json")
    ///     .import_path("tests/imports/example")
    ///     .compile()
    ///     .unwrap();
    /// ```
    pub fn import_path(mut self, dir: impl AsRef<Path>) -> Self {
        self.import_path.push(dir.as_ref().to_owned());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines (default: yes).
    pub fn emit_rerun_if_changed(mut self, yes: bool) -> Self {
        self.emit_rerun = yes;
        self
    }

    /// Also writes `<module>_python.rs` next to each module: its PyO3
    /// bindings (a call of `lawgen_python::python_module!`), for a crate of
    /// one's own that builds a Python module:
    /// `lawgen_runtime::include_package!(NAME);` and
    /// `include!(concat!(env!("OUT_DIR"), "/NAME_python.rs"));` in its
    /// `lib.rs`, with the dependencies of a `lawgen build --python` project
    /// (`lawgen-runtime`, `ascent`, `lawgen-python`, `pyo3`). For every
    /// package: a crate includes the bindings it wants, and an unused file
    /// costs nothing.
    pub fn python(mut self, yes: bool) -> Self {
        self.python = yes;
        self
    }

    /// Generates every package's module, in the order added, and returns
    /// the files written. Files are rewritten only when their bytes change
    /// (their modification times then stay put for tools that watch them;
    /// cargo itself recompiles the including crate whenever the build
    /// script reruns, i.e. whenever the package file is touched).
    pub fn compile(&self) -> Result<Vec<PathBuf>, BuildError> {
        if self.packages.is_empty() {
            return Err(BuildError::NoPackage);
        }
        for p in &self.packages {
            if p.path.as_os_str().is_empty() {
                return Err(BuildError::EmptyPath);
            }
            if p.module_name.as_deref() == Some("") {
                return Err(BuildError::EmptyModuleName {
                    package: p.path.clone(),
                });
            }
        }
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::NoOutDir)?,
        };
        let mut written = Vec::new();
        let mut modules = std::collections::BTreeSet::new();
        for Package {
            path,
            module_name,
            engine,
        } in &self.packages
        {
            let loaded = load_file_with(path, &self.limits, &self.import_path);
            if self.emit_rerun {
                // Every file of the import closure; the package itself even
                // when it does not load, so fixing it reruns the build.
                let files = match &loaded {
                    Ok(l) => l.files.clone(),
                    Err(_) => vec![path.clone()],
                };
                for f in files {
                    println!("cargo:rerun-if-changed={}", f.display());
                }
                // The lock file that pins the imports, when there is one
                // (a path that does not exist would rerun every build).
                let lock = crate::imports::lock_path(path);
                if lock.is_file() {
                    println!("cargo:rerun-if-changed={}", lock.display());
                }
            }
            let loaded = loaded.map_err(BuildError::Package)?;
            let e = emit_with(
                path,
                &loaded,
                module_name.as_deref(),
                *engine,
                self.doc_language.clone(),
            )?;
            if !modules.insert(e.module_name.clone()) {
                return Err(BuildError::DuplicateModule(e.module_name));
            }
            let file = out_dir.join(format!("{}.rs", e.module_name));
            write_if_changed(&file, e.source.as_bytes())?;
            written.push(file);
            if self.python {
                let file = out_dir.join(format!("{}_python.rs", e.module_name));
                let bindings = crate::python::bindings(&loaded, &e)?;
                write_if_changed(&file, bindings.as_bytes())?;
                written.push(file);
            }
        }
        Ok(written)
    }
}

fn emit_with(
    path: &Path,
    loaded: &Loaded,
    module: Option<&str>,
    engine: Engine,
    doc_language: Option<String>,
) -> Result<Emitted, BuildError> {
    crate::generate(
        loaded,
        &EmitOptions {
            module_name: module.map(str::to_owned),
            engine,
            doc_language,
            ..EmitOptions::default()
        },
    )
    .map_err(|error| BuildError::Emit {
        package: path.to_owned(),
        error,
    })
}

/// Writes `bytes` to `path` unless it already holds exactly them.
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool, BuildError> {
    // Read no more than the new bytes: a longer file differs anyway.
    if lawgen_runtime::bounded::read_file(path, bytes.len() as u64).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|error| BuildError::Io {
            path: dir.to_owned(),
            error,
        })?;
    }
    std::fs::write(path, bytes).map_err(|error| BuildError::Io {
        path: path.to_owned(),
        error,
    })?;
    Ok(true)
}

/// The version of ascent generated code is written for.
pub const ASCENT_VERSION: &str = "=0.8.1";

/// The `ascent` dependency of the crates lawgen writes: [`ASCENT_VERSION`]
/// without ascent's default `par` feature (rayon, dashmap and crossbeam),
/// which generated code, sequential `ascent!` programs, never uses.
pub const ASCENT_DEPENDENCY: &str = "{ version = \"=0.8.1\", default-features = false }";
