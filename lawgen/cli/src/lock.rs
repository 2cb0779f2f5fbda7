//! `lawgen lock PACKAGE`: pins the packages a package imports, as
//! Cargo.lock pins a crate's dependencies (docs/reference.md#lock-files).
//! The lock file records the SHA-256 of the canonical bytes of every
//! package of the import closure; every command that loads the package
//! (`check`, `eval`, `build`, the `Builder`, …) verifies it when present.

use super::{Failure, Inputs};
use lawgen::diagnostics::Diagnostics;
use lawgen::driver::ReadLimits;
use lawgen::driver::{self, LoadError};
use lawgen::internals::imports::{self, Closure, Files, Found, SearchPath};
use std::path::{Path, PathBuf};

/// `lawgen lock PACKAGE [--import-path DIR]…`.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
}

/// Resolves and checks the closure, then writes `PACKAGE.lock` beside the package.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let path = &args.package;
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.clone(),
        source,
    })?;
    let file = driver::package_json(path, bytes, &inputs.limits)?;
    let invalid = |d: Diagnostics| LoadError::Invalid {
        path: path.clone(),
        diagnostics: file.locate(d),
    };
    // The lock file being replaced is not verified: it may be stale.
    let mut files = Unlocked(SearchPath::new(&inputs.import_path));
    let closure =
        imports::resolve(path, file.json.clone(), &mut files, &inputs.limits).map_err(invalid)?;
    // Only a closure that checks is worth pinning.
    imports::check_closure(&closure).map_err(invalid)?;
    let lock = imports::lock_path(path);
    std::fs::write(&lock, write_lock(&closure))
        .map_err(|e| Failure::new(2, format!("error: cannot write {}: {e}", lock.display())))?;
    let n = closure.layers.len() - 1;
    println!(
        "wrote {}: {n} imported package{} pinned",
        lock.display(),
        if n == 1 { "" } else { "s" }
    );
    Ok(())
}

/// The search path, without the lock file it would verify.
struct Unlocked(SearchPath);

impl Files for Unlocked {
    fn search_path(&self, importer: &Path) -> Vec<String> {
        self.0.search_path(importer)
    }

    fn find(&mut self, importer: &Path, name: &str, version: &str, limits: &ReadLimits) -> Found {
        self.0.find(importer, name, version, limits)
    }
}

/// The lock file of a resolved closure: the root's name and version, and
/// the name, version and [`imports::canonical_digest`] of every package it imports,
/// transitively, in closure order.
fn write_lock(closure: &Closure) -> String {
    let Some(root) = closure.root() else {
        return String::new();
    };
    let imports: Vec<serde_json::Value> = closure.layers[..closure.layers.len() - 1]
        .iter()
        .map(|l| {
            serde_json::json!({
                "name": l.package.name,
                "version": l.package.version,
                "sha256": imports::canonical_digest(l),
            })
        })
        .collect();
    let lock = serde_json::json!({
        "schemaVersion": imports::LOCK_SCHEMA,
        "package": {"name": root.package.name, "version": root.package.version},
        "imports": imports,
    });
    let mut text = serde_json::to_string_pretty(&lock).unwrap_or_default();
    text.push('\n');
    text
}
