//! `lawgen eval --backend compiled`: any package through ascent from the CLI.
//!
//! The package is emitted into a standalone crate with a small `main` in a
//! cache directory, keyed by the generated source (so by the package and the
//! lawgen version), built once with cargo in release mode, and run. All
//! cached crates share one target directory, so ascent and the runtime are
//! compiled once per cache. A crate whose runtime is the lawgen source tree
//! next to this binary's sources starts from that tree's `Cargo.lock`: it
//! builds with the dependency versions lawgen is tested with, and every
//! cached crate resolves alike, so their dependencies' builds are shared.

use super::build::{write_crate_with, RuntimeDep};
use lawgen::driver::Loaded;
use lawgen::sha256_hex;
use lawgen::BuildError;
use lawgen::{EmitError, EmitOptions, Emitted, Engine};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(Debug)]
pub enum CompiledError {
    Emit(EmitError),
    Write(String),
    /// cargo could not be started.
    Cargo(std::io::Error),
    /// cargo failed; its stderr.
    Build(String),
    /// The compiled program could not be run.
    Run(std::io::Error),
}

impl std::fmt::Display for CompiledError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompiledError::Emit(e) => write!(f, "{e}"),
            CompiledError::Write(e) => write!(f, "{e}"),
            CompiledError::Cargo(e) => write!(
                f,
                "cannot run cargo ({e}); the compiled backend needs a Rust toolchain \
                 (set CARGO to its path, or use --backend interp)"
            ),
            CompiledError::Build(e) => write!(
                f,
                "internal error: the generated crate does not build (please report it with the package):\n{e}"
            ),
            CompiledError::Run(e) => write!(f, "cannot run the compiled package: {e}"),
        }
    }
}

impl std::error::Error for CompiledError {}

/// The cache directory: `$LAWGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/lawgen`,
/// else `~/.cache/lawgen`, else the system temporary directory.
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("LAWGEN_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("lawgen");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h).join(".cache/lawgen");
    }
    std::env::temp_dir().join("lawgen-cache")
}

/// A built package binary.
#[derive(Debug)]
pub struct Built {
    pub binary: PathBuf,
    pub crate_dir: PathBuf,
    /// Seconds spent in cargo (0 when the cache was fresh).
    pub build_secs: f64,
    pub cached: bool,
    /// The module evaluates its rules from the program it embeds (the
    /// lowered program is above the straight-line limit), whatever the
    /// engine asked for: its throughput is the reference evaluator's.
    pub from_program: bool,
    /// The engine whose code the module has: the one asked for, or Direct
    /// for a program above the Ascent limit asked for Ascent.
    pub engine: Engine,
    /// The SHA-256 of the generated module's source (lower-case hex): what
    /// the service's receipts name.
    pub source_sha256: String,
}

/// Emits and builds `loaded` in `cache`, unless a build of the same
/// generated source is there. `progress` receives one-line status messages.
pub fn ensure_built(
    loaded: &Loaded,
    cache: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Built, CompiledError> {
    ensure_built_with(loaded, Engine::default(), cache, progress, false)
}

/// [`ensure_built`] for `lawgen bench`: the crate's `main.rs` must have its
/// `--bench` mode (an error otherwise), and cargo runs even when the cache
/// is fresh (a no-op then, well under a second), because the bench mode
/// links `lawgen` itself — its case generator must be the one of the
/// calling `lawgen`, or the two backends would not draw the same cases.
pub fn ensure_built_for_bench(
    loaded: &Loaded,
    cache: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Built, CompiledError> {
    ensure_built_with(loaded, Engine::default(), cache, progress, true)
}

/// [`ensure_built`] (or, with `bench`, [`ensure_built_for_bench`]) with the
/// package compiled by `engine`. Each engine's crate is cached on its own
/// (the key is the generated source, which names the engine).
pub fn ensure_built_with(
    loaded: &Loaded,
    engine: Engine,
    cache: &Path,
    progress: &mut dyn FnMut(&str),
    bench: bool,
) -> Result<Built, CompiledError> {
    let opts = EmitOptions::default().engine(engine);
    let emitted = lawgen::generate(loaded, &opts).map_err(CompiledError::Emit)?;
    let hooks = BenchHooks::for_package(loaded, &emitted);
    let source_sha256 = sha256_hex(emitted.source.as_bytes());
    // The key covers everything written: the module, the main.rs template
    // and the package copy the bench child reads.
    let key = sha256_hex(
        format!(
            "{}\n{}\n{}\n{}",
            env!("CARGO_PKG_VERSION"),
            emitted.source,
            main_rs("lawgen-pkg", "lawgen_pkg", Some(&hooks)),
            loaded.source
        )
        .as_bytes(),
    );
    let key = key.trim_start_matches("sha256:");
    let short = &key[..16.min(key.len())];
    let crate_name = format!("lawgen-pkg-{short}");
    let crate_dir = cache.join(&crate_name);
    let target = cache.join("target");
    let binary = target
        .join("release")
        .join(format!("{crate_name}{}", std::env::consts::EXE_SUFFIX));
    let stamp = crate_dir.join(".built");
    let fresh = stamp.exists() && binary.exists();
    if fresh && !bench {
        return Ok(Built {
            binary,
            crate_dir,
            build_secs: 0.0,
            cached: true,
            from_program: emitted.from_program,
            engine: emitted.engine,
            source_sha256,
        });
    }
    let runtime = RuntimeDep::default_for_this_build();
    write_crate_with(
        &crate_dir,
        Some(&crate_name),
        &emitted,
        &runtime,
        true,
        Some(&hooks),
    )
    .map_err(|e: BuildError| CompiledError::Write(e.to_string()))?;
    seed_lock_file(&crate_dir, &runtime);
    if !fresh {
        progress(&format!(
            "compiling {} {} {} ({} relations, {} rules) into {} — once per package version",
            loaded.name(),
            loaded.version(),
            if emitted.from_program {
                "evaluated from its embedded program (more lowered rules than the straight-line limit)".to_owned()
            } else if emitted.engine != engine {
                format!(
                    "with the {} engine (more lowered rules than the {engine} engine's limit of {})",
                    emitted.engine,
                    lawgen::ASCENT_RULES
                )
            } else {
                format!("with the {engine} engine")
            },
            emitted.relations,
            emitted.rules,
            crate_dir.display()
        ));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let start = Instant::now();
    let out = Command::new(cargo)
        .arg("build")
        .arg("--release")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .map_err(CompiledError::Cargo)?;
    let build_secs = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(CompiledError::Build(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    std::fs::write(&stamp, b"").map_err(|e| CompiledError::Write(e.to_string()))?;
    if !fresh {
        progress(&format!("built in {build_secs:.1} s"));
    }
    Ok(Built {
        binary,
        crate_dir,
        build_secs,
        cached: fresh,
        from_program: emitted.from_program,
        engine: emitted.engine,
        source_sha256,
    })
}

/// Starts the crate's `Cargo.lock` as a copy of the lock file of the lawgen
/// source tree its runtime comes from (when it is one and the crate has no
/// lock yet). Best effort: without it cargo resolves the versions itself.
fn seed_lock_file(crate_dir: &Path, runtime: &RuntimeDep) {
    let RuntimeDep::Path(runtime) = runtime else {
        return;
    };
    let lock = crate_dir.join("Cargo.lock");
    if lock.exists() {
        return;
    }
    if let Some(tree) = runtime.parent() {
        let _ = std::fs::copy(tree.join("Cargo.lock"), lock);
    }
}

/// The result of running a compiled package on a facts file.
#[derive(Debug)]
pub struct RunOutput {
    /// Exit code of the package binary (0 = ok, 1 = invalid facts).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs a built package on a facts file under a policy (`blocking` or
/// `propagating`), as of `as_of` (`YYYY-MM-DD`) if given, else as of the
/// facts file's own date.
pub fn run(
    built: &Built,
    facts: &Path,
    policy: &str,
    as_of: Option<&str>,
) -> Result<RunOutput, CompiledError> {
    let out = Command::new(&built.binary)
        .arg(facts)
        .arg(policy)
        .args(as_of)
        .output()
        .map_err(CompiledError::Run)?;
    Ok(RunOutput {
        code: out.status.code().unwrap_or(3),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// The `--serve` mode of a package crate's `main.rs` (`CRATE`: the crate's
/// identifier): the worker `lawgen serve --engine direct` starts. Each
/// request is a line `evaluate POLICY LENGTH` and LENGTH bytes of a facts
/// file; each answer a line `ok LENGTH` and the canonical output, or
/// `error LENGTH` and the message. The framing needs no JSON parser in the
/// crate, and a facts file or an output of many lines passes as it is.
const SERVE_LOOP: &str = r#"    if args.get(1).map(String::as_str) == Some("--serve") {
        use std::io::{BufRead as _, Read as _, Write as _};
        let mut input = std::io::stdin().lock();
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let mut head = String::new();
        loop {
            head.clear();
            match input.read_line(&mut head) {
                Ok(0) => std::process::exit(0),
                Ok(_) => {}
                Err(_) => std::process::exit(2),
            }
            let mut words = head.split_whitespace();
            let (Some("evaluate"), Some(policy), Some(len), None) = (words.next(), words.next(), words.next().and_then(|n| n.parse::<usize>().ok()), words.next()) else {
                eprintln!("error: a request is a line `evaluate POLICY LENGTH` and LENGTH bytes of facts, not {head:?}");
                std::process::exit(2);
            };
            let mut bytes = vec![0; len];
            if input.read_exact(&mut bytes).is_err() {
                std::process::exit(2);
            }
            let answer = policy.parse::<lawgen_runtime::Policy>().and_then(|policy| {
                CRATE::Facts::from_json(&bytes)
                    .and_then(|facts| facts.evaluate(policy)?.to_json())
                    .map_err(|e| e.to_string())
            });
            let (tag, body) = match &answer {
                Ok(json) => ("ok", json.as_str()),
                Err(e) => ("error", e.as_str()),
            };
            if write!(out, "{tag} {}
{body}", body.len()).and_then(|()| out.flush()).is_err() {
                std::process::exit(0);
            }
        }
    }
"#;

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
    pub fn for_package(loaded: &lawgen::driver::Loaded, emitted: &Emitted) -> BenchHooks {
        BenchHooks {
            entity_methods: emitted.entity_methods.clone(),
            package_source: loaded.source.clone(),
        }
    }
}

/// The `main.rs` of a package crate: `BIN FACTS.json [POLICY [AS_OF]]`
/// prints the canonical output (`lawgen eval --backend compiled`), as of
/// `AS_OF` when given (it overrides the facts file's `asOf`); with `bench`,
/// `BIN --bench key=value…` runs `lawgen bench`'s compiled backend through
/// `lawgen_cli::bench::child_main`.
pub fn main_rs(name: &str, crate_ident: &str, bench: Option<&BenchHooks>) -> String {
    let c = crate_ident;
    let mut s =
        format!("//! `{name} FACTS.json [blocking|propagating [YYYY-MM-DD]]`: prints the docs/reference.md#the-canonical-output output, as of the date if given.\n");
    if bench.is_some() {
        s.push_str(&format!(
            "//! `{name} --bench key=value…`: `lawgen bench --backend compiled`, cases drawn in this process.\n"
        ));
    }
    s.push_str(&format!(
        "//! `{name} --serve`: a worker of `lawgen serve --engine direct`, answering requests on standard input until it closes (docs/service.md#the-worker-protocol).\n"
    ));
    s.push_str("fn main() {\n    let args: Vec<String> = std::env::args().collect();\n");
    s.push_str(&SERVE_LOOP.replace("CRATE", c));
    if bench.is_some() {
        s.push_str(
            "    if args.get(1).map(String::as_str) == Some(\"--bench\") {\n\
             \x20       std::process::exit(lawgen_cli::bench::child_main(&Package, &args[2..]));\n\
             \x20   }\n",
        );
    }
    s.push_str(&format!(
        "\x20   let (Some(path), policy) = (args.get(1), args.get(2).map(String::as_str).unwrap_or(\"blocking\")) else {{\n\
         \x20       eprintln!(\"usage: {name} FACTS.json [blocking|propagating [YYYY-MM-DD]]\");\n\
         \x20       std::process::exit(2);\n\
         \x20   }};\n\
         \x20   let policy: lawgen_runtime::Policy = policy.parse().unwrap_or_else(|e| {{ eprintln!(\"{{e}}\"); std::process::exit(2) }});\n\
         \x20   let as_of = args.get(3).map(|d| lawgen_runtime::__private::Date::parse(d).unwrap_or_else(|| {{ eprintln!(\"error: the date `{{d}}` is not a date YYYY-MM-DD\"); std::process::exit(2) }}));\n\
         \x20   let bytes = std::fs::read(path).unwrap_or_else(|e| {{ eprintln!(\"error: cannot read {{path}}: {{e}}\"); std::process::exit(2) }});\n\
         \x20   let run = || -> Result<String, lawgen_runtime::Error> {{\n\
         \x20       let mut facts = {c}::Facts::from_json(&bytes)?;\n\
         \x20       if let Some(d) = as_of {{\n\
         \x20           facts.as_of(d)?;\n\
         \x20       }}\n\
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
         impl lawgen_cli::bench::CompiledPackage for Package {{\n\
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
