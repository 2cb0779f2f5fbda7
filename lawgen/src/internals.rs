//! The compiler's stages, for lawgen's own cross-stack tests, fuzz harness
//! and benches (feature `internals`). **Not a stable API**: anything here
//! may change in any release. A crate that uses lawgen needs only the crate
//! root's `Builder`, `generate`, `driver`, `diagnostics`, `doc`, `format`,
//! `graph`, `lint`, `suite`, `summary`, `synth` and `python`.
//!
//! Why a feature and not public modules: the stages are private so that
//! they can change freely (ARCHITECTURE.md, "API boundaries"), but tests that
//! cross stages — a package read, lowered, emitted and compiled, compared
//! with the reference evaluator — need to name them. This module is the one
//! door, opened only where lawgen's own workspace asks for it: the lawgen
//! package's tests (a dev-dependency of the package on itself), the fuzz
//! harness and the benches. Each stage is re-exported whole under its own
//! name; `driver::Loaded` gains `package()`, `model()` and `closure()`.

/// Reading package JSON and the text form (`lawgen::syntax`).
pub mod syntax {
    pub use crate::syntax::*;
}

/// Import resolution and the checking of a closure.
pub mod imports {
    pub use crate::imports::*;
}

/// The check passes and the compiler's diagnostic codes.
pub mod check {
    pub use crate::check::*;
}

/// The checked package.
pub mod model {
    pub use crate::model::*;
}

/// The defeasible overlay: a checked package to a `lawgen_runtime::program::Program`.
pub mod lower {
    pub use crate::lower::*;
}

/// Code generation (feature `emit`).
#[cfg(feature = "emit")]
pub mod emit {
    pub use crate::emit::*;
}
