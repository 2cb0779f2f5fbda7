//! `lawgen fmt`: a package file rewritten in canonical form by
//! [`lawgen::format`] (which `lawgen convert` calls too), and the lines that
//! say which hashes it recomputed.

use super::{read_input, Failure, Inputs};
use lawgen::format::HashChange;
use std::path::PathBuf;

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
    let r = lawgen::format::canonical(file, &bytes).map_err(|e| Failure::new(1, e.render(file)))?;
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
