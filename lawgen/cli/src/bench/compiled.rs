//! The compiled backend, parent side: the package's cached crate (see
//! [`crate::compiled`]) is built once and its binary runs the
//! benchmark ([`super::child`]); this process renders what it prints.

use super::config::{BenchConfig, BenchError};
use super::measure::load_average;
use super::protocol::child_args;
use super::result::{count_literals, make_synth, BenchResult};
use lawgen::driver::Loaded;
use serde_json::Value as J;

// The compiled backend: the parent side.

/// Runs the benchmark through the package's compiled crate (built in `cache`
/// if needed; `progress` gets one-line build messages).
pub fn run_compiled(
    loaded: &Loaded,
    cfg: &BenchConfig,
    cache: &std::path::Path,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchResult, BenchError> {
    run_compiled_with(loaded, cfg, lawgen::Engine::default(), cache, progress)
}

/// [`run_compiled`] with the package compiled by `engine`.
pub fn run_compiled_with(
    loaded: &Loaded,
    cfg: &BenchConfig,
    engine: lawgen::Engine,
    cache: &std::path::Path,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchResult, BenchError> {
    use std::process::{Command, Stdio};
    cfg.validate()?;
    // The same errors as the interp backend, before any build.
    make_synth(loaded, cfg)?;
    let load_before = load_average();
    let built = crate::compiled::ensure_built_with(loaded, engine, cache, progress, true)
        .map_err(BenchError::internal)?;
    let out = Command::new(&built.binary)
        .arg("--bench")
        .args(child_args(cfg))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| BenchError::internal(format!("cannot run {}: {e}", built.binary.display())))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let code = out.status.code().unwrap_or(3);
        return Err(BenchError {
            code: if code == 1 || code == 2 {
                code as u8
            } else {
                3
            },
            message: format!(
                "error: the compiled package's benchmark failed ({}); see its messages above{}",
                out.status,
                if stdout.trim().is_empty() {
                    String::new()
                } else {
                    format!("\n{stdout}")
                }
            ),
        });
    }
    let json: J = serde_json::from_str(stdout.trim()).map_err(|e| {
        BenchError::internal(format!(
            "the compiled package's benchmark printed no result ({e}):\n{stdout}"
        ))
    })?;
    let mut r = BenchResult::from_json(&json).map_err(BenchError::internal)?;
    let want = count_literals(&loaded.catalog);
    let got: Vec<&String> = r.counts.iter().map(|(l, _)| l).collect();
    if got.len() != want.len() || got.iter().zip(&want).any(|(a, b)| *a != b) {
        return Err(BenchError::internal(
            "the compiled package's count table does not list the package's institutional literals",
        ));
    }
    r.load_before = load_before;
    r.load_after = load_average();
    r.coverage(&loaded.catalog);
    r.notes.push(if built.from_program {
        format!(
            "engine: the embedded program, evaluated by the runtime (more lowered rules than the \
             straight-line limit; {engine} was asked for)"
        )
    } else if built.engine != engine {
        format!(
            "engine: {} (more lowered rules than the {engine} engine's limit; {engine} was asked for)",
            built.engine
        )
    } else {
        format!("engine: {engine}")
    });
    if !built.cached && built.build_secs > 0.0 {
        r.notes.push(format!(
            "the package was compiled first ({:.1} s, not included)",
            built.build_secs
        ));
    }
    Ok(r)
}
