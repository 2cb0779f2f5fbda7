//! The `lawgen` command: one module per command, each with its arguments
//! (`Args`, parsed by clap) and one function, `command`, that runs it. The
//! binary (`src/main.rs`) only parses the command line and calls that
//! function, in the manner of bindgen-cli; tests call the same functions
//! and the tools they are built on.
//!
//! Everything here uses the compiler (a checked package, its lowered
//! program, the reference evaluator) and the compiler never uses anything
//! here: `lawgen` does not depend on `lawgen-cli`. It uses lawgen's public
//! API and nothing else: lawgen without its `internals` feature, and the
//! tidy test (`lawgen/tests/tidy.rs`) fails on a path through
//! `lawgen::internals`. Behind
//! the `cli` feature, except the child side of `lawgen bench` ([`bench`],
//! feature `bench`), which the crates the benchmark compiles link. Not a
//! stable API.

#[cfg(feature = "cli")]
pub mod analyze;
pub mod bench;
#[cfg(feature = "cli")]
pub mod build;
#[cfg(feature = "cli")]
pub mod check;
#[cfg(feature = "cli")]
pub mod compiled;
#[cfg(feature = "cli")]
pub mod convert;
#[cfg(feature = "cli")]
pub mod doc;
#[cfg(feature = "cli")]
pub mod eval;
#[cfg(feature = "cli")]
pub mod explain;
#[cfg(feature = "cli")]
pub mod fmt;
#[cfg(feature = "cli")]
pub mod graph;
#[cfg(feature = "cli")]
pub mod lint;
#[cfg(feature = "cli")]
pub mod lock;
#[cfg(feature = "cli")]
pub mod lower;
#[cfg(feature = "cli")]
pub mod replay;
#[cfg(feature = "cli")]
pub mod serve;
#[cfg(feature = "cli")]
pub mod test;
#[cfg(feature = "cli")]
pub mod verdicts;

#[cfg(feature = "cli")]
pub use common::{Backend, EngineArg, Failure, Inputs, LimitArgs, PolicyArg};

/// What the commands share: how packages and facts files are read, the
/// arguments several commands take, and how a command fails.
#[cfg(feature = "cli")]
mod common {
    use clap::ValueEnum;
    use lawgen::driver::FactsFileError;
    use lawgen::driver::ReadLimits;
    use lawgen::driver::{self, LoadError, Loaded};
    use lawgen_runtime::interp::Facts;
    use lawgen_runtime::Policy;
    use std::path::{Path, PathBuf};

    /// Why a command failed: the message it prints on standard error and the
    /// exit code (1 invalid input, 2 unreadable input, 3 internal error).
    #[derive(Debug)]
    pub struct Failure {
        pub message: String,
        pub code: u8,
    }

    impl Failure {
        pub fn new(code: u8, message: impl Into<String>) -> Failure {
            Failure {
                code,
                message: message.into(),
            }
        }
    }

    impl From<LoadError> for Failure {
        fn from(e: LoadError) -> Self {
            Failure::new(e.exit_code() as u8, e.to_string())
        }
    }

    impl From<lawgen::doc::DocError> for Failure {
        fn from(e: lawgen::doc::DocError) -> Self {
            Failure::new(e.exit_code() as u8, e.to_string())
        }
    }

    /// A broken promise of lowering: a lawgen bug, exit code 3.
    pub(crate) fn internal(e: impl std::fmt::Display) -> Failure {
        Failure::new(3, format!("error: {e}"))
    }

    /// The case's date: `--as-of` if given (it overrides the facts file's
    /// `asOf`), checked against the package's editions
    /// (docs/reference.md#as-of-evaluation): a malformed date, or one on
    /// which no edition of a work some rule is anchored to is in force, is
    /// refused here, before anything is evaluated.
    pub(crate) fn date_facts(
        facts: &mut Facts,
        as_of: Option<&str>,
        loaded: &Loaded,
    ) -> Result<(), Failure> {
        use lawgen_runtime::diagnostics::{Code, Diagnostics, Location};
        if let Some(s) = as_of {
            let Some(d) = lawgen_runtime::law::Date::parse(s) else {
                let mut d = Diagnostics::new();
                d.error(
                    Code::FactsDate,
                    Location::new(None, "--as-of"),
                    format!("`--as-of` is not a date: `{s}`"),
                    "write the case's date as `YYYY-MM-DD`, a real calendar day (e.g. --as-of 2024-05-01)",
                );
                return Err(Failure::new(1, d.render()));
            };
            facts.as_of = Some(d);
        }
        if let Err(e) = loaded.catalog.law.on(facts.as_of) {
            let at = match (as_of, facts.as_of) {
                (Some(_), _) => "--as-of",
                (None, Some(_)) => "/asOf",
                (None, None) => "",
            };
            let mut d = Diagnostics::new();
            d.error(
                Code::NoLawInForce,
                Location::new(None, at),
                e.to_string(),
                "evaluate the case as of a date on which the work has an edition in force (`--as-of` or the facts file's `asOf`), or add the edition in force on that date to the package",
            );
            return Err(Failure::new(1, d.render()));
        }
        Ok(())
    }

    /// How this invocation reads packages: its limits and its
    /// `--import-path` directories (from the global options, passed to
    /// every command).
    pub struct Inputs {
        pub limits: ReadLimits,
        pub import_path: Vec<PathBuf>,
    }

    impl Inputs {
        /// Reads and checks a package file with its imports.
        pub fn load(&self, path: &Path) -> Result<Loaded, Failure> {
            Ok(driver::load_file_with(
                path,
                &self.limits,
                &self.import_path,
            )?)
        }
    }

    /// Resource limits on packages (docs/security.md).
    #[derive(clap::Args)]
    pub struct LimitArgs {
        /// Largest accepted package file, in bytes.
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_bytes)]
        max_package_bytes: usize,
        /// Most nodes in a package.
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_nodes)]
        max_nodes: usize,
        /// Deepest JSON nesting (at most 128).
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_depth)]
        max_depth: usize,
        /// Longest JSON string, in bytes.
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_string_bytes)]
        max_string_bytes: usize,
        /// Most parameters of one predicate.
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_arity)]
        max_arity: usize,
        /// Most items in one rule body (and two more than the most rules attacking one literal); at most 2000.
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_rule_body)]
        max_rule_body: usize,
        /// Largest lowered program, in body items (an upper bound computed before lowering).
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_program_size)]
        max_program_size: usize,
        /// Largest accepted facts file (and scenario expectation file), in bytes.
        #[arg(long, global = true, default_value_t = ReadLimits::default().max_facts_bytes)]
        max_facts_bytes: usize,
    }

    impl LimitArgs {
        pub fn limits(&self) -> ReadLimits {
            ReadLimits::default()
                .max_bytes(self.max_package_bytes)
                .max_nodes(self.max_nodes)
                .max_depth(self.max_depth)
                .max_string_bytes(self.max_string_bytes)
                .max_arity(self.max_arity)
                .max_rule_body(self.max_rule_body)
                .max_program_size(self.max_program_size)
                .max_facts_bytes(self.max_facts_bytes)
        }
    }

    #[derive(Clone, Copy, ValueEnum)]
    pub enum PolicyArg {
        /// Ambiguity blocking (default).
        Blocking,
        /// Ambiguity propagation.
        Propagating,
    }

    impl From<PolicyArg> for Policy {
        fn from(p: PolicyArg) -> Policy {
            match p {
                PolicyArg::Blocking => Policy::Blocking,
                PolicyArg::Propagating => Policy::Propagating,
            }
        }
    }

    #[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
    pub enum Backend {
        Interp,
        Compiled,
    }

    #[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
    pub enum EngineArg {
        /// Every rule in one `ascent!` program per batch (default).
        Ascent,
        /// Per-case Rust with small typed tables.
        Direct,
    }

    impl From<EngineArg> for lawgen::Engine {
        fn from(e: EngineArg) -> lawgen::Engine {
            match e {
                EngineArg::Ascent => lawgen::Engine::Ascent,
                EngineArg::Direct => lawgen::Engine::Direct,
            }
        }
    }

    /// Reads a package file the command was given, within
    /// `limits.max_bytes` (exit code 2 if it cannot be read, 1 with E090
    /// if it is larger).
    pub(crate) fn read_input(path: &Path, limits: &ReadLimits) -> Result<Vec<u8>, Failure> {
        Ok(driver::read_package_bytes(path, limits)?)
    }

    /// Reads another input file the command was given (not a package),
    /// within `limit` bytes: exit code 2 if it cannot be read, 1 with E090
    /// and `help` if it is larger.
    pub(crate) fn read_other_input(
        path: &Path,
        limit: usize,
        help: &str,
    ) -> Result<Vec<u8>, Failure> {
        use lawgen_runtime::bounded::ReadError;
        lawgen_runtime::bounded::read_file(path, limit as u64).map_err(|e| match e {
            ReadError::Io(e) => {
                Failure::new(2, format!("error: cannot read {}: {e}", path.display()))
            }
            ReadError::TooLarge(t) => Failure::new(
                1,
                format!(
                    "error[E090]: {}: the file is {t}\n  = help: {help}",
                    path.display()
                ),
            ),
        })
    }

    /// Reads a facts file streaming (never the whole file in memory), within
    /// `limits.max_facts_bytes`.
    pub(crate) fn read_facts_file(
        path: &Path,
        loaded: &Loaded,
        limits: &ReadLimits,
    ) -> Result<Facts, Failure> {
        read_facts_file_with(path, loaded, limits, false)
    }

    /// [`read_facts_file`], then the package's deprecated inputs
    /// (docs/reference.md#deprecated-inputs): printed as warnings, or with
    /// `deny` the file refused.
    pub(crate) fn read_facts_file_with(
        path: &Path,
        loaded: &Loaded,
        limits: &ReadLimits,
        deny: bool,
    ) -> Result<Facts, Failure> {
        let facts = read_facts_only(path, loaded, limits)?;
        let found = lawgen_runtime::formats::deprecated::check(&loaded.catalog, &facts, deny);
        if deny && !found.is_empty() {
            return Err(Failure::new(
                1,
                format!(
                    "{}error: {} states inputs {} deprecates",
                    found.render(),
                    path.display(),
                    loaded.name()
                ),
            ));
        }
        if !found.is_empty() {
            eprint!("{}", found.render());
        }
        Ok(facts)
    }

    fn read_facts_only(
        path: &Path,
        loaded: &Loaded,
        limits: &ReadLimits,
    ) -> Result<Facts, Failure> {
        let facts = driver::read_facts_file(path, loaded, limits).map_err(|e| match e {
            FactsFileError::Io(e) => {
                Failure::new(2, format!("error: cannot read {}: {e}", path.display()))
            }
            FactsFileError::Invalid(d) => Failure::new(
                1,
                format!(
                    "{}error: {} is not a valid facts file for {}",
                    d.render(),
                    path.display(),
                    loaded.name()
                ),
            ),
        })?;
        if facts.duplicates > 0 {
            eprintln!(
                "warning: {} duplicated fact row(s) in {} were counted once",
                facts.duplicates,
                path.display()
            );
        }
        Ok(facts)
    }
}

#[cfg(feature = "cli")]
pub(crate) use common::{
    date_facts, internal, read_facts_file, read_facts_file_with, read_input, read_other_input,
};
