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
//! macros expand to `::ascent::…` paths), and on `lawgen` as a build-dependency.

use crate::diagnostics::Diagnostics;
use crate::driver::{load_file, LoadError};
use crate::emit::{emit, EmitError, EmitOptions, Emitted, Engine};
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

    /// Whether to print `cargo:rerun-if-changed` lines (default: yes).
    pub fn emit_rerun_if_changed(mut self, yes: bool) -> Self {
        self.emit_rerun = yes;
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
            if self.emit_rerun {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            let e = generate_with(path, module.as_deref(), *engine, &self.limits)?;
            if !modules.insert(e.module_name.clone()) {
                return Err(BuildError::DuplicateModule(e.module_name));
            }
            let file = out_dir.join(format!("{}.rs", e.module_name));
            write_if_changed(&file, e.source.as_bytes())?;
            written.push(file);
        }
        Ok(written)
    }
}

/// Loads, checks and emits one package for the default engine.
pub fn generate(
    path: &Path,
    module: Option<&str>,
    limits: &ReadLimits,
) -> Result<Emitted, BuildError> {
    generate_with(path, module, Engine::default(), limits)
}

/// Loads, checks and emits one package for `engine`.
pub fn generate_with(
    path: &Path,
    module: Option<&str>,
    engine: Engine,
    limits: &ReadLimits,
) -> Result<Emitted, BuildError> {
    let loaded = load_file(path, limits).map_err(BuildError::Package)?;
    emit(
        &loaded,
        &EmitOptions {
            module_name: module.map(str::to_owned),
            engine,
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

/// Where a standalone crate finds `lawgen-runtime`.
#[derive(Clone, Debug)]
pub enum RuntimeDep {
    /// A path dependency (the default while lawgen is not on crates.io: this
    /// lawgen's own source tree).
    Path(PathBuf),
    /// A crates.io version requirement.
    Version(String),
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

    fn toml(&self) -> String {
        match self {
            RuntimeDep::Path(p) => format!("{{ path = {} }}", toml_string(&p.to_string_lossy())),
            RuntimeDep::Version(v) => toml_string(v),
        }
    }

    /// `lawgen` from the same place, without its CLI and code generation
    /// (the features `lawgen-runtime` enables, so cargo builds it once).
    fn lawgen_toml(&self) -> String {
        match self {
            RuntimeDep::Path(p) => {
                let lawgen = p.parent().map(|d| d.join("lawgen"));
                match lawgen {
                    Some(l) if l.join("Cargo.toml").exists() => format!(
                        "{{ path = {}, default-features = false }}",
                        toml_string(&l.to_string_lossy())
                    ),
                    _ => format!(
                        "{{ version = {}, default-features = false }}",
                        toml_string(env!("CARGO_PKG_VERSION"))
                    ),
                }
            }
            RuntimeDep::Version(v) => {
                format!(
                    "{{ version = {}, default-features = false }}",
                    toml_string(v)
                )
            }
        }
    }
}

fn toml_string(s: &str) -> String {
    // serde_json's string escaping is valid TOML basic-string escaping.
    serde_json::to_string(s).expect("strings serialize")
}

/// The version of ascent generated code is written for.
pub const ASCENT_VERSION: &str = "=0.8.1";

/// What the `main.rs` of a package crate needs for `--bench` (`lawgen
/// bench --backend compiled`) beyond the generated module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchHooks {
    /// Per entity type of the model, by index: the generated `Facts` method
    /// that interns an entity of that type (`game` for `Game`).
    pub entity_methods: Vec<String>,
}

impl BenchHooks {
    /// The entity constructors of the generated `Facts` of `model`, named as
    /// the emitter names them (each type's `snake` name, claimed in type
    /// order after the fixed `Facts` methods). `None` if `emitted` does not
    /// have exactly those methods — the emitter's naming changed — in which
    /// case the crate is written without a bench mode.
    pub fn for_package(model: &crate::model::Model, emitted: &Emitted) -> Option<BenchHooks> {
        const FACTS_RESERVED: &[&str] = &[
            "new",
            "evaluate",
            "from_json",
            "name",
            "default",
            "clone",
            "fmt",
            "normalize",
            "contradiction",
            "get",
        ];
        let mut taken: std::collections::HashSet<String> =
            FACTS_RESERVED.iter().map(|s| (*s).to_owned()).collect();
        let mut entity_methods = Vec::with_capacity(model.types.len());
        for t in &model.types {
            let base = crate::emit::snake(&t.name);
            let name = if taken.insert(base.clone()) {
                base
            } else {
                let stem = base.trim_end_matches('_');
                (2..)
                    .map(|n| format!("{stem}_{n}"))
                    .find(|c| taken.insert(c.clone()))
                    .expect("an unbounded counter finds a free name")
            };
            if !has_interning_method(&emitted.source, &name) {
                return None;
            }
            entity_methods.push(name);
        }
        Some(BenchHooks { entity_methods })
    }
}

/// Does `source` define `pub fn NAME(&mut self, name: &str)` (however
/// prettyplease wrapped it)?
fn has_interning_method(source: &str, name: &str) -> bool {
    let head = format!("pub fn {name}(");
    source.match_indices(&head).any(|(i, _)| {
        let rest = &source[i + head.len()..];
        let params: String = rest
            .chars()
            .take_while(|c| *c != ')')
            .filter(|c| !c.is_whitespace())
            .collect();
        params.trim_end_matches(',') == "&mutself,name:&str"
    })
}

/// The `main.rs` of a package crate: `BIN FACTS.json [POLICY]` prints the
/// SPEC §3 output (`lawgen eval --backend compiled`); with `bench`,
/// `BIN --bench key=value…` runs `lawgen bench`'s compiled backend through
/// [`crate::bench::child_main`].
pub fn main_rs(name: &str, crate_ident: &str, bench: Option<&BenchHooks>) -> String {
    let c = crate_ident;
    let mut s =
        format!("//! `{name} FACTS.json [blocking|propagating]`: prints the SPEC §3 output.\n");
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
         \x20       {c}::SOURCE\n\
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
         \x20       policy: lawgen::interp::Policy,\n\
         \x20       batch: usize,\n\
         \x20       threads: usize,\n\
         \x20       make: &(dyn Fn(usize) -> {c}::Facts + Sync),\n\
         \x20       sink: &mut dyn FnMut(usize, Result<&[(&'static str, usize)], String>),\n\
         \x20   ) {{\n\
         \x20       let policy = match policy {{\n\
         \x20           lawgen::interp::Policy::Blocking => lawgen_runtime::Policy::Blocking,\n\
         \x20           lawgen::interp::Policy::Propagating => lawgen_runtime::Policy::Propagating,\n\
         \x20       }};\n\
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
/// `src/main.rs` that evaluates a facts file and prints the SPEC §3 output
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
         [dependencies]\nlawgen-runtime = {}\nascent = \"{ASCENT_VERSION}\"\n{lawgen_dep}\n\
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
    }
    Ok(name)
}
