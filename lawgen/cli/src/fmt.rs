//! `lawgen fmt` (and the conversion `lawgen convert` runs): a package file
//! rewritten in canonical form. Package JSON becomes the reference
//! package's own serialization (compact, keys sorted) with every content
//! hash recomputed; a `.law` file becomes the canonical layout of the text
//! form (comments kept). Both work on syntax only, so they repair a package
//! the checker refuses for its hashes.

use super::{read_input, Failure, Inputs};
use lawgen::diagnostics::Diagnostics;
use lawgen::driver::is_text_form;
use lawgen::internals::syntax::canon::{self, HashChange};
use lawgen::internals::syntax::text::{self, Comments, PrintError, SyntaxErrors};
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// `lawgen fmt FILE [--check]`.
#[derive(clap::Args)]
pub struct Args {
    file: PathBuf,
    /// Write nothing; exit 1 if the file is not in canonical form.
    #[arg(long)]
    check: bool,
}

/// Rewrites the file in canonical form (or, with `--check`, fails if it is not).
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let file = &args.file;
    let bytes = read_input(file, &inputs.limits)?;
    let r = format(file, &bytes).map_err(|e| Failure::new(1, e.render(file)))?;
    let canonical = r.output.as_bytes() == bytes.as_slice();
    eprint!("{}", describe_changes(&r.changes));
    if args.check {
        if !canonical {
            return Err(Failure::new(
                1,
                format!(
                    "error: {} is not in canonical form\n  = help: run `lawgen fmt {}`",
                    file.display(),
                    file.display()
                ),
            ));
        }
    } else if canonical {
        eprintln!("lawgen: {} is already in canonical form", file.display());
    } else {
        std::fs::write(file, r.output.as_bytes())
            .map_err(|e| Failure::new(2, format!("error: cannot write {}: {e}", file.display())))?;
        eprintln!("lawgen: rewrote {}", file.display());
    }
    Ok(())
}

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
pub enum FmtError {
    /// The JSON does not parse.
    Json(Diagnostics),
    /// The text form does not parse.
    Syntax(SyntaxErrors),
    /// The JSON is not a package (the text form needs a `nodes` array).
    NotAPackage(PrintError),
}

impl FmtError {
    /// Renders the error for `path`.
    pub fn render(&self, path: &Path) -> String {
        match self {
            FmtError::Json(d) => format!(
                "{}error: {} is not package JSON",
                d.render(),
                path.display()
            ),
            FmtError::Syntax(e) => format!(
                "{}error: {} is not a valid text-form package",
                e.render(&path.display().to_string()),
                path.display()
            ),
            FmtError::NotAPackage(e) => format!("error: {}: {e}", path.display()),
        }
    }
}

impl fmt::Display for FmtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Path::new("<input>")))
    }
}

impl std::error::Error for FmtError {}

/// Reads a package file of either form as package JSON, hashes recomputed.
fn read(path: &Path, bytes: &[u8]) -> Result<(Value, Vec<HashChange>, Option<Comments>), FmtError> {
    if is_text_form(path) {
        let src = std::str::from_utf8(bytes).map_err(|_| match text::to_json(bytes) {
            Err(e) => FmtError::Syntax(e),
            Ok(_) => FmtError::Json(Diagnostics::new()),
        })?;
        let parsed = text::parse(src).map_err(FmtError::Syntax)?;
        Ok((parsed.json, Vec::new(), Some(parsed.comments)))
    } else {
        let mut v = canon::parse(bytes).map_err(FmtError::Json)?;
        let changes = canon::rehash(&mut v);
        Ok((v, changes, None))
    }
}

fn write(path: &Path, v: &Value, comments: Option<&Comments>) -> Result<String, FmtError> {
    if is_text_form(path) {
        text::print_with_comments(v, comments.unwrap_or(&Comments::default()))
            .map_err(FmtError::NotAPackage)
    } else {
        Ok(canon::serialize(v))
    }
}

/// The canonical form of a package file (the form stays the same).
pub fn format(path: &Path, bytes: &[u8]) -> Result<Rewritten, FmtError> {
    let (v, changes, comments) = read(path, bytes)?;
    let output = write(path, &v, comments.as_ref())?;
    Ok(Rewritten { output, changes })
}

/// Converts a package file into the form `output`'s extension names
/// (`.law`: the text form; anything else: package JSON).
pub fn convert(input: &Path, bytes: &[u8], output: &Path) -> Result<Rewritten, FmtError> {
    let (v, changes, comments) = read(input, bytes)?;
    let out = write(output, &v, comments.as_ref())?;
    Ok(Rewritten {
        output: out,
        changes,
    })
}

/// One line per changed hash, for the CLI.
pub fn describe_changes(changes: &[HashChange]) -> String {
    let mut out = String::new();
    for c in changes {
        let node = c.id.as_deref().map_or_else(
            || format!("node {}", c.index),
            |id| format!("node `{}`", lawgen::diagnostics::escape_for_display(id)),
        );
        let what = match c.text {
            None => "contentHash".to_owned(),
            Some(t) => format!("text {t} hash"),
        };
        out.push_str(&format!(
            "lawgen: recomputed the {what} of {node} ({})\n",
            c.pointer()
        ));
    }
    out
}
