//! Code generation for builds: the `build.rs` [`Builder`] (in the manner of
//! `prost-build`) and the standalone crate of `lawgen build`.
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
pub enum BuildError {
    /// The package could not be read or does not check.
    Package(LoadError),
    Emit {
        package: PathBuf,
        error: EmitError,
    },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// `OUT_DIR` is not set and no `out_dir` was given (not in a build script?).
    NoOutDir,
    /// Two packages would be written to the same module file.
    DuplicateModule(String),
    /// The package cannot become a Python module as asked (see `python`).
    Python(String),
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
                "lawgen: two packages generate the module `{m}`; give one a different Builder::module_name"
            ),
            BuildError::Python(m) => write!(f, "lawgen: {m}"),
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

impl std::error::Error for BuildError {}

/// Configures and runs code generation from a build script.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    /// Each package with its module name and engine.
    packages: Vec<(PathBuf, Option<String>, Engine)>,
    /// The engine of packages added from now on.
    engine: Engine,
    out_dir: Option<PathBuf>,
    limits: ReadLimits,
    emit_rerun: bool,
    import_path: Vec<PathBuf>,
    python: bool,
    /// See [`Builder::doc_language`].
    doc_language: Option<String>,
}

impl Builder {
    pub fn new() -> Self {
        Builder {
            emit_rerun: true,
            ..Default::default()
        }
    }

    /// Adds a package file. Its module is named after the package
    /// (`fide.laws.chess` → `fide_laws_chess`) unless [`Builder::module_name`]
    /// follows.
    pub fn package(mut self, path: impl AsRef<Path>) -> Self {
        self.packages
            .push((path.as_ref().to_owned(), None, self.engine));
        self
    }

    /// The engine behind the generated API (default [`Engine::Ascent`]):
    /// for the package added last, and for the packages added after this
    /// call. With [`Builder::module_name`], one crate can include the same
    /// package compiled by both engines:
    ///
    /// ```no_run
    /// # fn main() -> Result<(), lawgen::BuildError> {
    /// let chess = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";
    /// lawgen::Builder::new()
    ///     .package(chess)
    ///     .package(chess)
    ///     .module_name("chess_direct")
    ///     .engine(lawgen::Engine::Direct)
    ///     .compile()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = engine;
        if let Some(last) = self.packages.last_mut() {
            last.2 = engine;
        }
        self
    }

    /// The language of the generated rustdoc (`en`, `ru`, …): each label and
    /// article text in that language where the package has one, otherwise
    /// the node's first. Applies to every package of this Builder.
    ///
    /// ```no_run
    /// lawgen::Builder::new()
    ///     .package("laws/ru.chess.competition-0.2.0.ir.json")
    ///     .import_path("laws")
    ///     .doc_language("ru")
    ///     .compile()
    ///     .unwrap();
    /// ```
    pub fn doc_language(mut self, lang: &str) -> Self {
        self.doc_language = Some(lang.to_owned());
        self
    }

    /// Names the module of the package added last.
    pub fn module_name(mut self, name: &str) -> Self {
        if let Some(last) = self.packages.last_mut() {
            last.1 = Some(name.to_owned());
        }
        self
    }

    /// Where `<module>.rs` files go (default: `$OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Limits on package size (defaults as the CLI).
    pub fn limits(mut self, limits: ReadLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Adds a directory to search for imported packages (docs/reference.md#imports), after
    /// the importing file's own directory; directories are searched in the
    /// order they are added. The generated module covers the whole import
    /// closure.
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
    /// bindings (see [`crate::python`]), for a crate of one's own that
    /// builds a Python module: `lawgen_runtime::include_package!(NAME);`
    /// and `include!(concat!(env!("OUT_DIR"), "/NAME_python.rs"));` in its
    /// `lib.rs`, with the dependencies of a `lawgen build --python` project.
    pub fn python(mut self, yes: bool) -> Self {
        self.python = yes;
        self
    }

    /// Generates every package's module. Files are rewritten only when their
    /// bytes change (their modification times then stay put for tools that
    /// watch them; cargo itself recompiles the including crate whenever the
    /// build script reruns, i.e. whenever the package file is touched).
    pub fn compile(&self) -> Result<Vec<PathBuf>, BuildError> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::NoOutDir)?,
        };
        let mut written = Vec::new();
        let mut modules = std::collections::BTreeSet::new();
        for (path, module, engine) in &self.packages {
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
            }
            let loaded = loaded.map_err(BuildError::Package)?;
            let e = emit_with(
                path,
                &loaded,
                module.as_deref(),
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
                let bindings = crate::python::bindings(&loaded.model, &e)?;
                write_if_changed(&file, bindings.as_bytes())?;
                written.push(file);
            }
        }
        Ok(written)
    }
}

/// Loads, checks and emits one package for the default engine (imports
/// searched for in its own directory).
pub fn generate(
    path: &Path,
    module: Option<&str>,
    limits: &ReadLimits,
) -> Result<Emitted, BuildError> {
    generate_with(path, module, Engine::default(), limits, &[])
}

/// Loads, checks and emits one package for `engine`, with its import
/// closure: imports searched for in its own directory, then in `import_path`.
pub fn generate_with(
    path: &Path,
    module: Option<&str>,
    engine: Engine,
    limits: &ReadLimits,
    import_path: &[PathBuf],
) -> Result<Emitted, BuildError> {
    load_and_emit(path, module, engine, limits, import_path).map(|(_, e)| e)
}

/// [`generate_with`], and the loaded package (what the Python bindings document).
pub fn load_and_emit(
    path: &Path,
    module: Option<&str>,
    engine: Engine,
    limits: &ReadLimits,
    import_path: &[PathBuf],
) -> Result<(crate::driver::Loaded, Emitted), BuildError> {
    let loaded = load_file_with(path, limits, import_path).map_err(BuildError::Package)?;
    let emitted = emit_loaded(path, &loaded, module, engine)?;
    Ok((loaded, emitted))
}

fn emit_loaded(
    path: &Path,
    loaded: &Loaded,
    module: Option<&str>,
    engine: Engine,
) -> Result<Emitted, BuildError> {
    emit_with(path, loaded, module, engine, None)
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
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool, BuildError> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
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

/// Where a standalone crate finds `lawgen-runtime` (`lawgen build
/// --runtime path=DIR | git=URL | version=X`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeDep {
    /// A path dependency, written as an absolute path so the crate still
    /// builds after it is moved (the default: this lawgen's own source tree).
    Path(PathBuf),
    /// A git dependency (the lawgen repository; cargo finds the
    /// `lawgen-runtime` package in it).
    Git(String),
    /// A registry version requirement.
    Version(String),
}

impl std::str::FromStr for RuntimeDep {
    type Err = String;

    /// `path=DIR` (relative to the current directory), `git=URL`, `version=X`.
    fn from_str(s: &str) -> Result<Self, String> {
        let help = "write `path=DIR` (a lawgen-runtime source directory), `git=URL` (a \
                    repository holding lawgen-runtime) or `version=X` (a registry version)";
        let Some((kind, value)) = s.split_once('=') else {
            return Err(format!(
                "`{s}` does not say where lawgen-runtime is; {help}"
            ));
        };
        if value.is_empty() {
            return Err(format!("`{s}` has an empty {kind}; {help}"));
        }
        match kind {
            "path" => {
                let p = Path::new(value);
                let manifest = p.join("Cargo.toml");
                let is_runtime = std::fs::read_to_string(&manifest)
                    .is_ok_and(|t| t.contains("name = \"lawgen-runtime\""));
                if !is_runtime {
                    return Err(format!(
                        "{} is not the lawgen-runtime crate (no Cargo.toml naming `lawgen-runtime`); \
                         give the directory of lawgen-runtime's Cargo.toml",
                        p.display()
                    ));
                }
                let abs = p
                    .canonicalize()
                    .map_err(|e| format!("{}: {e}", p.display()))?;
                Ok(RuntimeDep::Path(abs))
            }
            "git" => Ok(RuntimeDep::Git(value.to_owned())),
            "version" => Ok(RuntimeDep::Version(value.to_owned())),
            other => Err(format!("unknown runtime source `{other}`; {help}")),
        }
    }
}

impl RuntimeDep {
    /// The `lawgen-runtime` next to the lawgen sources this binary was built
    /// from, if it is still there; otherwise the crates.io version.
    pub fn default_for_this_build() -> Self {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lawgen-runtime");
        match p.canonicalize() {
            Ok(p) if p.join("Cargo.toml").exists() => RuntimeDep::Path(p),
            _ => RuntimeDep::Version(env!("CARGO_PKG_VERSION").to_owned()),
        }
    }

    pub(crate) fn toml(&self) -> String {
        match self {
            RuntimeDep::Path(p) => format!("{{ path = {} }}", toml_string(&p.to_string_lossy())),
            RuntimeDep::Git(url) => format!("{{ git = {} }}", toml_string(url)),
            RuntimeDep::Version(v) => toml_string(v),
        }
    }

    /// [`RuntimeDep::toml`] with `features` of `lawgen-runtime` enabled.
    pub(crate) fn toml_with_features(&self, features: &[&str]) -> String {
        let list = features
            .iter()
            .map(|f| toml_string(f))
            .collect::<Vec<_>>()
            .join(", ");
        match self {
            RuntimeDep::Path(p) => format!(
                "{{ path = {}, features = [{list}] }}",
                toml_string(&p.to_string_lossy())
            ),
            RuntimeDep::Git(url) => {
                format!("{{ git = {}, features = [{list}] }}", toml_string(url))
            }
            RuntimeDep::Version(v) => {
                format!("{{ version = {}, features = [{list}] }}", toml_string(v))
            }
        }
    }

    /// `lawgen` from the same place, without its CLI and code generation
    /// (the features `lawgen-runtime` enables, so cargo builds it once).
    pub(crate) fn lawgen_toml(&self) -> String {
        match self {
            RuntimeDep::Path(p) => {
                let lawgen = p.parent().map(|d| d.join("lawgen"));
                match lawgen {
                    Some(l) if l.join("Cargo.toml").exists() => format!(
                        "{{ path = {}, default-features = false, features = [\"bench\"] }}",
                        toml_string(&l.to_string_lossy())
                    ),
                    _ => format!(
                        "{{ version = {}, default-features = false, features = [\"bench\"] }}",
                        toml_string(env!("CARGO_PKG_VERSION"))
                    ),
                }
            }
            RuntimeDep::Git(url) => {
                format!(
                    "{{ git = {}, default-features = false, features = [\"bench\"] }}",
                    toml_string(url)
                )
            }
            RuntimeDep::Version(v) => {
                format!(
                    "{{ version = {}, default-features = false, features = [\"bench\"] }}",
                    toml_string(v)
                )
            }
        }
    }
}

pub(crate) fn toml_string(s: &str) -> String {
    // serde_json's string escaping is valid TOML basic-string escaping.
    serde_json::to_string(s).expect("strings serialize")
}

/// The version of ascent generated code is written for.
pub const ASCENT_VERSION: &str = "=0.8.1";

/// The `ascent` dependency of the crates lawgen writes: [`ASCENT_VERSION`]
/// without ascent's default `par` feature (rayon, dashmap and crossbeam),
/// which generated code, sequential `ascent!` programs, never uses.
pub const ASCENT_DEPENDENCY: &str = "{ version = \"=0.8.1\", default-features = false }";

/// What the `main.rs` of a package crate needs for `--bench` (`lawgen
/// bench --backend compiled`) beyond the generated module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchHooks {
    /// Per entity type of the model, by index: the generated `Facts` method
    /// that interns an entity of that type (`game` for `Game`).
    pub entity_methods: Vec<String>,
    /// The package text the bench child draws its cases from (written into
    /// the crate beside the module: the module itself embeds no package).
    pub package_source: String,
}

impl BenchHooks {
    /// What the bench child of `loaded`'s crate needs: the entity
    /// constructors the emitter named, and the package text.
    pub fn for_package(loaded: &crate::driver::Loaded, emitted: &Emitted) -> BenchHooks {
        BenchHooks {
            entity_methods: emitted.entity_methods.clone(),
            package_source: loaded.source.clone(),
        }
    }
}

/// The `main.rs` of a package crate: `BIN FACTS.json [POLICY]` prints the
/// canonical output (`lawgen eval --backend compiled`); with `bench`,
/// `BIN --bench key=value…` runs `lawgen bench`'s compiled backend through
/// [`crate::bench::child_main`].
pub fn main_rs(name: &str, crate_ident: &str, bench: Option<&BenchHooks>) -> String {
    let c = crate_ident;
    let mut s =
        format!("//! `{name} FACTS.json [blocking|propagating]`: prints the docs/reference.md#the-canonical-output output.\n");
    if bench.is_some() {
        s.push_str(&format!(
            "//! `{name} --bench key=value…`: `lawgen bench --backend compiled`, cases drawn in this process.\n"
        ));
    }
    s.push_str("fn main() {\n    let args: Vec<String> = std::env::args().collect();\n");
    if bench.is_some() {
        s.push_str(
            "    if args.get(1).map(String::as_str) == Some(\"--bench\") {\n\
             \x20       std::process::exit(lawgen::bench::child_main(&Package, &args[2..]));\n\
             \x20   }\n",
        );
    }
    s.push_str(&format!(
        "\x20   let (Some(path), policy) = (args.get(1), args.get(2).map(String::as_str).unwrap_or(\"blocking\")) else {{\n\
         \x20       eprintln!(\"usage: {name} FACTS.json [blocking|propagating]\");\n\
         \x20       std::process::exit(2);\n\
         \x20   }};\n\
         \x20   let policy: lawgen_runtime::Policy = policy.parse().unwrap_or_else(|e| {{ eprintln!(\"{{e}}\"); std::process::exit(2) }});\n\
         \x20   let bytes = std::fs::read(path).unwrap_or_else(|e| {{ eprintln!(\"error: cannot read {{path}}: {{e}}\"); std::process::exit(2) }});\n\
         \x20   let run = || -> Result<String, lawgen_runtime::Error> {{\n\
         \x20       let facts = {c}::Facts::from_json(&bytes)?;\n\
         \x20       facts.evaluate(policy)?.to_json()\n\
         \x20   }};\n\
         \x20   match run() {{\n\
         \x20       Ok(json) => print!(\"{{json}}\"),\n\
         \x20       Err(e) => {{ eprintln!(\"{{e}}\"); std::process::exit(1) }}\n\
         \x20   }}\n\
         }}\n"
    ));
    let Some(hooks) = bench else {
        return s;
    };
    let intern = if hooks.entity_methods.is_empty() {
        "        let _ = (facts, name);\n        unreachable!(\"the package has no entity type {ty}\")\n"
            .to_owned()
    } else {
        let mut arms = String::new();
        for (i, m) in hooks.entity_methods.iter().enumerate() {
            arms.push_str(&format!("            {i} => facts.{m}(name).id(),\n"));
        }
        format!(
            "        use lawgen_runtime::Entity as _;\n\
             \x20       i64::from(match ty {{\n{arms}\
             \x20           _ => unreachable!(\"the package has no entity type {{ty}}\"),\n\
             \x20       }})\n"
        )
    };
    s.push_str(&format!(
        "\n/// The generated module, as `lawgen bench` drives it.\n\
         struct Package;\n\n\
         impl lawgen::bench::CompiledPackage for Package {{\n\
         \x20   type Facts = {c}::Facts;\n\n\
         \x20   fn source(&self) -> &'static str {{\n\
         \x20       include_str!(\"package.ir.json\")\n\
         \x20   }}\n\n\
         \x20   fn new_facts(&self) -> {c}::Facts {{\n\
         \x20       {c}::Facts::new()\n\
         \x20   }}\n\n\
         \x20   fn intern(&self, facts: &mut {c}::Facts, ty: usize, name: &str) -> i64 {{\n\
         {intern}\
         \x20   }}\n\n\
         \x20   fn push(&self, facts: &mut {c}::Facts, rel: usize, row: &[i64]) {{\n\
         \x20       facts.__push(rel, row);\n\
         \x20   }}\n\n\
         \x20   fn evaluate_indexed(\n\
         \x20       &self,\n\
         \x20       n: usize,\n\
         \x20       policy: lawgen_runtime::Policy,\n\
         \x20       batch: usize,\n\
         \x20       threads: usize,\n\
         \x20       make: &(dyn Fn(usize) -> {c}::Facts + Sync),\n\
         \x20       sink: &mut dyn FnMut(usize, Result<&[(&'static str, usize)], String>),\n\
         \x20   ) {{\n\
         \x20       let mut batching = lawgen_runtime::Batching::default();\n\
         \x20       batching.batch_size = batch;\n\
         \x20       batching.threads = threads;\n\
         \x20       {c}::evaluate_indexed(\n\
         \x20           n,\n\
         \x20           policy,\n\
         \x20           &batching,\n\
         \x20           make,\n\
         \x20           |_, r| r.map(|c| c.concluded_counts()).map_err(|e| e.to_string()),\n\
         \x20           |i, r| match r {{\n\
         \x20               Ok(counts) => sink(i, Ok(&counts[..])),\n\
         \x20               Err(e) => sink(i, Err(e)),\n\
         \x20           }},\n\
         \x20       );\n\
         \x20   }}\n\
         }}\n"
    ));
    s
}

/// Writes a standalone library crate for `emitted` into `dir`: `Cargo.toml`
/// and `src/lib.rs` including `src/<module>.rs`. With `main`, also a binary
/// `src/main.rs` that evaluates a facts file and prints the canonical output
/// (see [`main_rs`]). The crate is named `crate_name`, or after the module
/// (`fide-laws-chess`). Returns the name.
pub fn write_crate(
    dir: &Path,
    crate_name: Option<&str>,
    emitted: &Emitted,
    runtime: &RuntimeDep,
    main: bool,
) -> Result<String, BuildError> {
    write_crate_with(dir, crate_name, emitted, runtime, main, None)
}

/// [`write_crate`], and with `bench`, a `main.rs` with a `--bench` mode
/// (which needs `main`) and `lawgen` as a dependency of the crate (the
/// bench mode draws its cases with `lawgen::synth`; `lawgen-runtime` links
/// lawgen already, but does not re-export it).
pub fn write_crate_with(
    dir: &Path,
    crate_name: Option<&str>,
    emitted: &Emitted,
    runtime: &RuntimeDep,
    main: bool,
    bench: Option<&BenchHooks>,
) -> Result<String, BuildError> {
    let bench = bench.filter(|_| main);
    let name = crate_name.map_or_else(|| emitted.module_name.replace('_', "-"), str::to_owned);
    let bin = if main {
        format!(
            "\n[[bin]]\nname = {}\npath = \"src/main.rs\"\n",
            toml_string(&name)
        )
    } else {
        String::new()
    };
    let lawgen_dep = if bench.is_some() {
        format!("lawgen = {}\n", runtime.lawgen_toml())
    } else {
        String::new()
    };
    let cargo = format!(
        "# Generated by lawgen {} — regenerate with `lawgen build`.\n\
         [package]\nname = {}\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [lib]\npath = \"src/lib.rs\"\n{bin}\n\
         [dependencies]\nlawgen-runtime = {}\nascent = {ASCENT_DEPENDENCY}\n{lawgen_dep}\n\
         # A standalone crate, not a member of any enclosing workspace.\n[workspace]\n",
        env!("CARGO_PKG_VERSION"),
        toml_string(&name),
        runtime.toml(),
    );
    write_if_changed(&dir.join("Cargo.toml"), cargo.as_bytes())?;
    let m = &emitted.module_name;
    let lib = format!(
        "//! Generated by lawgen from a law.core.ir package; see `{m}.rs`.\n\
         #![allow(unused, non_camel_case_types, non_snake_case, non_upper_case_globals, clippy::all)]\n\n\
         include!(\"{m}.rs\");\n"
    );
    write_if_changed(&dir.join("src/lib.rs"), lib.as_bytes())?;
    write_if_changed(&dir.join(format!("src/{m}.rs")), emitted.source.as_bytes())?;
    if main {
        let crate_ident = name.replace('-', "_");
        let main_rs = main_rs(&name, &crate_ident, bench);
        write_if_changed(&dir.join("src/main.rs"), main_rs.as_bytes())?;
        if let Some(b) = bench {
            write_if_changed(
                &dir.join("src/package.ir.json"),
                b.package_source.as_bytes(),
            )?;
        }
    }
    Ok(name)
}
