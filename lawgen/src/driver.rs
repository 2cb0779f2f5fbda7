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
    /// A text-form (`.law`) file does not parse.
    Syntax {
        path: PathBuf,
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

/// A package that passed every check.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub package: Package,
    pub model: Model,
    /// What run time needs of the package (names, labels, anchors); facts
    /// files are read against it.
    pub catalog: crate::program::Catalog,
    /// The package JSON as read (valid UTF-8: it parsed as JSON; for a `.law`
    /// file, the JSON it converts to). `lawgen bench` gives its compiled
    /// child a copy.
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

/// Reads a package file of either form and checks it.
pub fn load_file(path: &Path, limits: &ReadLimits) -> Result<Loaded, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    let file = package_json(path, bytes, limits)?;
    load_bytes(&file.json, limits).map_err(|diagnostics| LoadError::Invalid {
        path: path.to_owned(),
        diagnostics: file.locate(diagnostics),
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
    pub map: Option<(syntax::text::SourceMap, String)>,
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
