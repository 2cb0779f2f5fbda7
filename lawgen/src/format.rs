//! A package file rewritten in canonical form (`lawgen fmt`), or converted
//! to the other form (`lawgen convert`). Package JSON becomes the reference
//! package's own serialization (compact, keys sorted) with every content
//! hash recomputed; a `.law` file becomes the canonical layout of the text
//! form (docs/text-form.md), comments kept. Both work on syntax only, so
//! they repair a package the checker refuses for its hashes.

use crate::diagnostics::Diagnostics;
use crate::driver::is_text_form;
use crate::syntax::canon;
use crate::syntax::text::{self, Comments};
use serde_json::Value;
use std::fmt;
use std::path::Path;

// `SyntaxErrors` is named `driver::SyntaxErrors`, its one public path.
use crate::driver::SyntaxErrors;
pub use crate::syntax::canon::HashChange;
pub use crate::syntax::text::PrintError;

/// A file rewritten.
#[derive(Clone, Debug)]
pub struct Rewritten {
    /// The new contents.
    pub output: String,
    /// Hashes that differ from the ones the input carried (JSON input only:
    /// the text form has no hashes to differ).
    pub changes: Vec<HashChange>,
}

/// Why a file could not be rewritten.
#[derive(Debug)]
#[non_exhaustive]
pub enum FormatError {
    /// The JSON does not parse.
    Json(Diagnostics),
    /// The text form does not parse.
    Syntax(SyntaxErrors),
    /// The JSON is not a package (the text form needs a `nodes` array).
    NotAPackage(PrintError),
}

impl FormatError {
    /// Renders the error for `path`, as `lawgen fmt` prints it.
    pub fn render(&self, path: &Path) -> String {
        match self {
            FormatError::Json(d) => format!(
                "{}error: {} is not package JSON",
                d.render(),
                path.display()
            ),
            FormatError::Syntax(e) => format!(
                "{}error: {} is not a valid text-form package",
                e.render(&path.display().to_string()),
                path.display()
            ),
            FormatError::NotAPackage(e) => format!("error: {}: {e}", path.display()),
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Path::new("<input>")))
    }
}

impl std::error::Error for FormatError {}

/// Reads a package file of either form as package JSON, hashes recomputed.
fn read(
    path: &Path,
    bytes: &[u8],
) -> Result<(Value, Vec<HashChange>, Option<Comments>), FormatError> {
    if is_text_form(path) {
        let src = std::str::from_utf8(bytes).map_err(|_| match text::to_json(bytes) {
            Err(e) => FormatError::Syntax(e),
            Ok(_) => FormatError::Json(Diagnostics::new()),
        })?;
        let parsed = text::parse(src).map_err(FormatError::Syntax)?;
        Ok((parsed.json, Vec::new(), Some(parsed.comments)))
    } else {
        let mut v = canon::parse(bytes).map_err(FormatError::Json)?;
        let changes = canon::rehash(&mut v);
        Ok((v, changes, None))
    }
}

fn write(path: &Path, v: &Value, comments: Option<&Comments>) -> Result<String, FormatError> {
    if is_text_form(path) {
        text::print_with_comments(v, comments.unwrap_or(&Comments::default()))
            .map_err(FormatError::NotAPackage)
    } else {
        Ok(canon::serialize(v))
    }
}

/// The canonical form of the package file `path` holding `bytes` (the form
/// stays the one its extension names).
pub fn canonical(path: &Path, bytes: &[u8]) -> Result<Rewritten, FormatError> {
    convert(path, bytes, path)
}

/// Converts the package file `input` holding `bytes` into the form
/// `output`'s extension names (`.law`: the text form; anything else:
/// package JSON), in canonical form.
pub fn convert(input: &Path, bytes: &[u8], output: &Path) -> Result<Rewritten, FormatError> {
    let (v, changes, comments) = read(input, bytes)?;
    let output = write(output, &v, comments.as_ref())?;
    Ok(Rewritten { output, changes })
}
