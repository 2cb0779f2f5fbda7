//! lawgen: compile `law.core.ir` rule packages into Rust, and evaluate them.
pub mod check;
pub mod diagnostics;
pub mod model;
pub mod syntax;
