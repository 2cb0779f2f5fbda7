//! `lawgen serve`: the decision service (`lawgen_serve`, docs/service.md)
//! on the packages given, until SIGTERM or ctrl-c.

use super::compiled::{self, CompiledError};
use super::{Failure, Inputs};
use clap::ValueEnum;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// `lawgen serve --package FILE… [--listen ADDR] [--decision-log FILE]`.
#[derive(clap::Args)]
pub struct Args {
    /// A package file to serve, with its import closure (repeatable).
    #[arg(long = "package", value_name = "FILE", required = true)]
    packages: Vec<PathBuf>,
    /// The address to listen on (port 0: any free port; the address is
    /// printed on standard output).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// The evaluator: `direct`, each package compiled at start (needs a
    /// Rust toolchain), or `interp`, the reference interpreter.
    #[arg(long, value_enum, default_value_t = ServeEngine::Direct)]
    engine: ServeEngine,
    /// With `--engine direct`: the worker processes per package (default:
    /// one per core).
    #[arg(long, value_name = "N")]
    workers: Option<usize>,
    /// With `--engine direct`: the compiled-package cache (as for `lawgen
    /// eval --backend compiled`; default `$LAWGEN_CACHE_DIR`, else the
    /// user's cache directory).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Append each answered decision's receipt to FILE, one JSON line,
    /// flushed per request.
    #[arg(long, value_name = "FILE")]
    decision_log: Option<PathBuf>,
    /// The largest request body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    max_body_bytes: usize,
    /// The longest a request may take, in seconds (body and evaluation).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    timeout: f64,
    /// The longest a request's head (request line and headers) may take to
    /// arrive, in seconds; also how long a kept-alive connection waits for
    /// its next request. The connection is closed after it.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    header_timeout: f64,
    /// The most `/v1/` requests answered at once; more get `overloaded`.
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_concurrent: usize,
    /// The most cases in one batch (`evaluate-batch`).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_cases: usize,
    /// Sign every receipt with this secret key (a file of `lawgen keygen`).
    #[arg(long, value_name = "FILE")]
    signing_key: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ServeEngine {
    /// Each package compiled with the Direct engine, evaluated by worker
    /// processes of its crate.
    Direct,
    /// The reference interpreter: no compiler or cargo at run time.
    Interp,
}

/// The service's compiler: `lawgen eval --backend compiled`'s cache, the
/// Direct engine.
#[derive(Debug)]
struct CacheCompiler {
    cache: PathBuf,
}

impl lawgen_serve::Compile for CacheCompiler {
    fn compile(&self, loaded: &lawgen::driver::Loaded) -> Result<lawgen_serve::Compiled, String> {
        let built = compiled::ensure_built_with(
            loaded,
            lawgen::Engine::Direct,
            &self.cache,
            &mut |_| {},
            false,
        )
        .map_err(|e| match e {
            CompiledError::Cargo(e) => no_toolchain(&e.to_string()),
            e => format!(
                "error: cannot build the Direct engine of {}: {e}",
                loaded.name()
            ),
        })?;
        Ok(lawgen_serve::Compiled {
            binary: built.binary,
            source_sha256: built.source_sha256,
            cached: built.cached,
            build_secs: built.build_secs,
            from_program: built.from_program,
        })
    }
}

fn no_toolchain(why: &str) -> String {
    format!(
        "error: cannot run cargo ({why}); `--engine direct`, the default, compiles each package at start and needs a Rust toolchain\n  = help: install one, or set CARGO to its cargo; or serve with `--engine interp`, the reference interpreter, which needs no compiler"
    )
}

/// Fails at once, before any package is read, when cargo cannot be run.
fn check_toolchain() -> Result<(), Failure> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let why = match std::process::Command::new(&cargo)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
    {
        Ok(s) if s.success() => return Ok(()),
        Ok(s) => format!("`{} --version` failed: {s}", cargo.to_string_lossy()),
        Err(e) => format!("`{}`: {e}", cargo.to_string_lossy()),
    };
    Err(Failure::new(1, no_toolchain(&why)))
}

/// Serves until stopped.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            Failure::new(
                1,
                format!(
                    "error: `--timeout {}` is not a duration\n  = help: give the seconds a request may take, more than 0 (e.g. --timeout 30)",
                    args.timeout
                ),
            )
        })?;
    let header_timeout = Duration::try_from_secs_f64(args.header_timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            Failure::new(
                1,
                format!(
                    "error: `--header-timeout {}` is not a duration\n  = help: give the seconds a request's head may take to arrive, more than 0 (e.g. --header-timeout 10)",
                    args.header_timeout
                ),
            )
        })?;
    let mut config = lawgen_serve::Config::new(args.packages);
    config.import_path = inputs.import_path.clone();
    config.limits = inputs.limits;
    config.listen = args.listen;
    config.decision_log = args.decision_log;
    config.max_body_bytes = args.max_body_bytes;
    config.timeout = timeout;
    config.header_timeout = header_timeout;
    config.max_concurrent = args.max_concurrent;
    config.signing_key = args.signing_key;
    config.max_cases = args.max_cases;
    config.engine = match args.engine {
        ServeEngine::Interp => lawgen_serve::Engine::Interp,
        ServeEngine::Direct => {
            check_toolchain()?;
            config.compile = Some(std::sync::Arc::new(CacheCompiler {
                cache: args.cache_dir.unwrap_or_else(compiled::default_cache_dir),
            }));
            if let Some(n) = args.workers {
                config.workers = n;
            }
            lawgen_serve::Engine::Direct
        }
    };
    lawgen_serve::run(config).map_err(|e| Failure::new(1, e.0))
}

/// `lawgen keygen --out NAME`.
#[derive(clap::Args)]
pub struct KeygenArgs {
    /// Write the secret key to NAME.key (readable by its owner only) and
    /// the public key to NAME.pub.
    #[arg(long, value_name = "NAME")]
    out: PathBuf,
}

/// Writes a new Ed25519 key pair for signed receipts; refuses to replace
/// an existing key.
pub fn keygen(args: KeygenArgs) -> Result<(), Failure> {
    let (secret, public) = lawgen_serve::signing::keygen().map_err(|e| Failure::new(3, e))?;
    let secret_path = args.out.with_extension("key");
    let public_path = args.out.with_extension("pub");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let write = |path: &std::path::Path, text: &str, options: &std::fs::OpenOptions| {
        use std::io::Write;
        options
            .open(path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| {
                Failure::new(
                    2,
                    format!(
                        "error: cannot write {}: {e}\n  = help: keygen never replaces a key; choose another `--out`",
                        path.display()
                    ),
                )
            })
    };
    write(&secret_path, &secret, &options)?;
    let mut public_options = std::fs::OpenOptions::new();
    public_options.write(true).create_new(true);
    write(&public_path, &public, &public_options)?;
    println!(
        "wrote {} (secret: keep it to the service) and {} (public: give it to whoever replays)",
        secret_path.display(),
        public_path.display()
    );
    Ok(())
}
