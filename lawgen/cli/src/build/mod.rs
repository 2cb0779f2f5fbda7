//! `lawgen build`: a package as a standalone crate, or (`--python`) as a
//! maturin project for a Python module ([`python`]). The crate writer is
//! also what `lawgen eval --backend compiled` and `lawgen bench` compile
//! their cached crates from ([`super::compiled`]).

pub mod python;

use super::{EngineArg, Failure, Inputs};
use lawgen::driver::{Loaded, ReadLimits};
use lawgen::{BuildError, EmitOptions, Emitted, Engine, ASCENT_DEPENDENCY, ASCENT_VERSION};
use std::path::{Path, PathBuf};

/// `lawgen build PACKAGE --out DIR [--runtime R] [--python] [--engine E]`.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
    /// The crate directory to write (created if needed; files are rewritten only when changed).
    #[arg(long)]
    out: PathBuf,
    /// The module/crate name (default: the package name in snake case).
    #[arg(long)]
    module_name: Option<String>,
    /// Where the crate gets lawgen-runtime: `path=DIR`, `git=URL` or
    /// `version=X` (default: the lawgen-runtime of this lawgen's source tree).
    #[arg(long, value_parser = clap::value_parser!(RuntimeDep))]
    runtime: Option<RuntimeDep>,
    /// Write a maturin project for a Python module instead (`pip install DIR`; docs/python.md).
    #[arg(long)]
    python: bool,
    /// The engine behind the generated API.
    #[arg(long, value_enum, default_value_t = EngineArg::Ascent)]
    engine: EngineArg,
}

/// Writes the crate (or the Python project) and says what it wrote.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let fail = |e: BuildError| Failure {
        code: match &e {
            BuildError::Package(l) => l.exit_code() as u8,
            // The package cannot become what was asked (a module name that
            // is a Python keyword, a construct the engines cannot
            // represent): the user's to change, not a lawgen bug.
            BuildError::Python(_)
            | BuildError::DuplicateModule(_)
            | BuildError::Emit {
                error: lawgen::EmitError::Unsupported(_),
                ..
            } => 1,
            BuildError::Io { .. } | BuildError::NoOutDir => 2,
            _ => 3,
        },
        message: e.to_string(),
    };
    let out = &args.out;
    let runtime = args
        .runtime
        .unwrap_or_else(RuntimeDep::default_for_this_build);
    let (loaded, emitted) = load_and_emit(
        &args.package,
        args.module_name.as_deref(),
        args.engine.into(),
        &inputs.limits,
        &inputs.import_path,
    )
    .map_err(fail)?;
    if args.python {
        let name = python::write_project(out, &loaded, &emitted, &runtime).map_err(fail)?;
        eprintln!(
            "wrote the Python project `{name}` (module `{}`) to {}; `pip install {}` builds it",
            emitted.module_name,
            out.display(),
            out.display()
        );
        return Ok(());
    }
    let name = write_crate(out, None, &emitted, &runtime, false).map_err(fail)?;
    eprintln!(
        "wrote crate `{name}` to {} ({} relations, {} rules); it depends on lawgen-runtime and ascent {}",
        out.display(),
        emitted.relations,
        emitted.rules,
        ASCENT_VERSION
    );
    Ok(())
}

/// Loads, checks and emits one package for `engine`, with its import
/// closure: imports searched for in its own directory, then in
/// `import_path`.
pub fn load_and_emit(
    path: &Path,
    module: Option<&str>,
    engine: Engine,
    limits: &ReadLimits,
    import_path: &[PathBuf],
) -> Result<(Loaded, Emitted), BuildError> {
    let loaded =
        lawgen::driver::load_file_with(path, limits, import_path).map_err(BuildError::Package)?;
    let mut opts = EmitOptions::default().engine(engine);
    if let Some(m) = module {
        opts = opts.module_name(m);
    }
    let emitted = lawgen::generate(&loaded, &opts).map_err(|error| BuildError::Emit {
        package: path.to_owned(),
        error,
    })?;
    Ok((loaded, emitted))
}

/// Writes `bytes` to `path` unless it already holds exactly them (as
/// `lawgen::Builder` writes its modules), creating its directory.
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
                // A manifest is small: read no more than 1 MiB of whatever is there.
                let is_runtime =
                    lawgen_runtime::bounded::read_file(&manifest, 1 << 20).is_ok_and(|t| {
                        String::from_utf8_lossy(&t).contains("name = \"lawgen-runtime\"")
                    });
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
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lawgen-runtime");
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

    /// `lawgen-python` (the bindings of `lawgen build --python`) from the
    /// same place: the crate in the same source tree as a path runtime
    /// (`lawgen/python` beside `lawgen-runtime`), the same repository, or the
    /// same version.
    pub(crate) fn python_toml(&self) -> String {
        match self {
            RuntimeDep::Path(p) => {
                let python = p.parent().map(|d| d.join("lawgen").join("python"));
                match python {
                    Some(l) if l.join("Cargo.toml").exists() => {
                        format!("{{ path = {} }}", toml_string(&l.to_string_lossy()))
                    }
                    _ => toml_string(env!("CARGO_PKG_VERSION")),
                }
            }
            RuntimeDep::Git(url) => format!("{{ git = {} }}", toml_string(url)),
            RuntimeDep::Version(v) => toml_string(v),
        }
    }

    /// `lawgen-cli` from the same place, with only its `bench` feature (the
    /// child side of `lawgen bench`: no command line, no code generation).
    pub(crate) fn lawgen_cli_toml(&self) -> String {
        match self {
            RuntimeDep::Path(p) => {
                let cli = p.parent().map(|d| d.join("lawgen").join("cli"));
                match cli {
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

/// Writes a standalone library crate for `emitted` into `dir`: `Cargo.toml`
/// and `src/lib.rs` including `src/<module>.rs`. With `main`, also a binary
/// `src/main.rs` that evaluates a facts file and prints the canonical output
/// (see [`super::compiled::main_rs`]). The crate is named `crate_name`, or after the module
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
/// (which needs `main`) and `lawgen-cli` as a dependency of the crate (the
/// bench mode draws its cases with `lawgen::synth`).
pub fn write_crate_with(
    dir: &Path,
    crate_name: Option<&str>,
    emitted: &Emitted,
    runtime: &RuntimeDep,
    main: bool,
    bench: Option<&super::compiled::BenchHooks>,
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
        format!("lawgen-cli = {}\n", runtime.lawgen_cli_toml())
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
        let main_rs = super::compiled::main_rs(&name, &crate_ident, bench);
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
