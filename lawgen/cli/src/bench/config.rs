//! What a benchmark runs ([`BenchConfig`]) and why it did not ([`BenchError`]).

use lawgen::synth::SynthOptions;
use lawgen_runtime::Policy;
use std::path::PathBuf;

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub cases: usize,
    pub threads: usize,
    /// Cases per engine run (compiled backend).
    pub batch: usize,
    pub policy: Policy,
    pub synth: SynthOptions,
    /// Every case is this facts file.
    pub template: Option<PathBuf>,
    pub repeat: usize,
    /// Draw a progress bar on stderr (when it is a terminal).
    pub progress: bool,
    /// Cases sampled for the interpreter's per-stratum estimate (0: none).
    pub strata_sample: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            cases: 10_000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            batch: 1024,
            policy: Policy::Blocking,
            synth: SynthOptions::default(),
            template: None,
            repeat: 3,
            progress: true,
            strata_sample: 32,
        }
    }
}

impl BenchConfig {
    /// Refuses settings that cannot run.
    pub fn validate(&self) -> Result<(), BenchError> {
        let bad = |what: &str| Err(BenchError::usage(what));
        if self.cases == 0 {
            return bad("--cases must be at least 1");
        }
        if self.threads == 0 {
            return bad("--threads must be at least 1");
        }
        if self.batch == 0 {
            return bad("--batch must be at least 1");
        }
        if self.repeat == 0 {
            return bad("--repeat must be at least 1");
        }
        if self.synth.entities_per_type == 0 {
            return bad("--entities must be at least 1");
        }
        if !(0.0..=1.0).contains(&self.synth.density) {
            return bad("--density must be between 0 and 1");
        }
        Ok(())
    }
}

/// Why a benchmark did not run. `code` is the CLI's exit code (1 invalid
/// input, 2 unreadable input, 3 internal error).
#[derive(Debug, Clone)]
pub struct BenchError {
    pub code: u8,
    pub message: String,
}

impl BenchError {
    pub(super) fn usage(m: &str) -> Self {
        BenchError {
            code: 1,
            message: format!("error: {m}"),
        }
    }

    pub(super) fn internal(m: impl std::fmt::Display) -> Self {
        BenchError {
            code: 3,
            message: format!("error: {m}"),
        }
    }
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BenchError {}
