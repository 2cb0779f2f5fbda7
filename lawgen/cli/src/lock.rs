//! `lawgen lock PACKAGE`: pins the packages a package imports, as
//! Cargo.lock pins a crate's dependencies (docs/reference.md#lock-files).
//! The lock file records the SHA-256 of the canonical bytes of every
//! package of the import closure; every command that loads the package
//! (`check`, `eval`, `build`, the `Builder`, …) verifies it when present.
//! The library makes it ([`lawgen::driver::lock`]); this command writes it.

use super::{Failure, Inputs};
use lawgen::driver::{self, LoadError};
use std::path::PathBuf;

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
    let lock = driver::lock(path, &file, &inputs.limits, &inputs.import_path)?;
    std::fs::write(&lock.path, &lock.text).map_err(|e| {
        Failure::new(
            2,
            format!("error: cannot write {}: {e}", lock.path.display()),
        )
    })?;
    let n = lock.imports;
    println!(
        "wrote {}: {n} imported package{} pinned",
        lock.path.display(),
        if n == 1 { "" } else { "s" }
    );
    Ok(())
}
