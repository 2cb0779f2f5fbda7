//! The formats at the edges of evaluation: facts files in ([`facts`]), the
//! canonical output out ([`output`]). Both are defined in `docs/reference.md`
//! of the lawgen repository ("Facts files", "Canonical output").

#[cfg(feature = "serde")]
pub mod facts;
pub mod output;

/// JSON string escaping as `json.dumps(..., ensure_ascii=False)` and serde_json do it.
pub fn write_string(out: &mut String, s: &str) {
    use std::fmt::Write;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Turns a serde_json parse error into a diagnostic with line and column.
#[cfg(feature = "serde")]
pub fn json_error(e: &serde_json::Error) -> crate::diagnostics::Diagnostic {
    use crate::diagnostics::{Code, Location};
    let text = e.to_string();
    let (code, message, help) = if text.contains("recursion limit") {
        (
            Code::TooDeep,
            format!(
                "the JSON nests too deeply (line {}, column {}): more than 128 levels",
                e.line(),
                e.column()
            ),
            "a package or facts file never needs this depth; the file is corrupt or hostile",
        )
    } else if e.is_eof() {
        (
            Code::MalformedJson,
            format!(
                "the JSON ends early at line {}, column {} (truncated file?)",
                e.line(),
                e.column()
            ),
            "complete the file: every `{` and `[` needs its closing bracket",
        )
    } else {
        (
            Code::MalformedJson,
            format!("the input is not valid JSON: {text}"),
            "fix the JSON syntax at that line and column (a JSON linter shows it)",
        )
    };
    crate::diagnostics::Diagnostic::new(code, Location::default(), message, help)
}
