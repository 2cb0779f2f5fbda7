//! Diagnostics: what went wrong, where in the package JSON, and how to fix
//! it. Every stage reports problems as [`Diagnostic`] values collected in
//! [`Diagnostics`]; nothing in the pipeline panics or prints.
//!
//! ```text
//! error[E020]: `player_of` takes 2 arguments, this literal has 3
//!   --> node `urn:fide:laws:clir:chess#CheckmateWins` at /nodes/9/body/items/0/formula/args
//!   = help: pass exactly 2 argument(s), in the order of the declaration: (game: Game, who: Player)
//! ```
//!
//! The types and their rendering are `lawgen_runtime`'s, shared with compiled
//! packages, which report problems with facts files the same way. The codes
//! are each crate's own: [`Code`] is the compiler's catalogue, [`RuntimeCode`]
//! the runtime's (reading JSON, facts files); a [`Diagnostic`] carries either
//! as the [`CodeId`] it prints.

pub use crate::check::codes::Code;
pub use lawgen_runtime::diagnostics::Code as RuntimeCode;
pub use lawgen_runtime::diagnostics::{
    escape_for_display, pointer_push, CodeId, Diagnostic, Diagnostics, Location,
};
