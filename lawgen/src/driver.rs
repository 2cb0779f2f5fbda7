//! The one function that runs the front of the pipeline: read → check, with a
//! gate after each stage, so no stage ever sees input an earlier one refused.

use crate::check;
use crate::diagnostics::Diagnostics;
use crate::model::Model;
use crate::syntax::{self, Package, ReadLimits};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a package could not be loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read at all.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The package was read but is invalid: every problem found.
    Invalid {
        path: PathBuf,
        diagnostics: Diagnostics,
    },
}

impl LoadError {
    /// Process exit code the CLI uses: 2 for unreadable input, 1 for an invalid package.
    pub fn exit_code(&self) -> i32 {
        match self {
            LoadError::Io { .. } => 2,
            LoadError::Invalid { .. } => 1,
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
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Io { source, .. } => Some(source),
            LoadError::Invalid { .. } => None,
        }
    }
}

/// A package that passed every check.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub package: Package,
    pub model: Model,
    /// What run time needs of the package (names, labels, anchors); facts
    /// files are read against it.
    pub catalog: crate::program::Catalog,
    /// The package file as read (valid UTF-8: it parsed as JSON). The emitter
    /// embeds it so generated code can explain itself.
    pub source: String,
}

/// Reads and checks package bytes (no IO).
pub fn load_bytes(bytes: &[u8], limits: &ReadLimits) -> Result<Loaded, Diagnostics> {
    let package = syntax::read_package(bytes, limits)?;
    // After this point every node is well-formed and its hash verified.
    let model = check::check(&package)?;
    // Before anything lowers it: would lowering explode?
    check::size::check(&model, limits)?;
    let source = String::from_utf8_lossy(bytes).into_owned();
    let catalog = crate::lower::catalog(&model);
    Ok(Loaded {
        package,
        model,
        catalog,
        source,
    })
}

/// Reads a package file and checks it.
pub fn load_file(path: &Path, limits: &ReadLimits) -> Result<Loaded, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    load_bytes(&bytes, limits).map_err(|diagnostics| LoadError::Invalid {
        path: path.to_owned(),
        diagnostics,
    })
}

/// A package evaluated on one facts file.
#[derive(Debug, Clone)]
pub struct Evaluated {
    pub program: crate::program::Program,
    pub store: crate::interp::Store,
    pub conclusions: crate::interp::Conclusions,
}

/// Lowers and evaluates a checked package on facts with the reference interpreter.
pub fn evaluate(
    loaded: &Loaded,
    facts: &crate::syntax::facts::Facts,
    policy: crate::interp::Policy,
) -> Result<Evaluated, crate::lower::InternalError> {
    let program = crate::lower::lower(&loaded.model)?;
    let store = crate::interp::evaluate(&program, facts, policy);
    let conclusions = crate::interp::conclusions(&program, &store, policy);
    Ok(Evaluated {
        program,
        store,
        conclusions,
    })
}
