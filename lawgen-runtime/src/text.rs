//! Package text made safe to show: the one escaping every human-readable
//! rendering goes through (diagnostics, explanations, `verdicts`, `lower`,
//! `analyze`, `bench`, the review document, Python docstrings).
//!
//! A package is untrusted, and its strings (labels, article texts, ids,
//! locators, names, versions) reach terminals and documents. Two kinds of
//! characters are dangerous there, and both are made visible:
//!
//! - **control characters** (`Cc`: newline, carriage return, ESC, the C1
//!   controls such as CSI and OSC) could forge extra lines or send terminal
//!   escape sequences (colours, titles, hyperlinks, clearing the screen).
//!   They are written as Rust escapes: `\n`, `\r`, `\t`, `\u{1b}`;
//! - **format characters** (`Cf`: bidi embeddings, overrides and isolates,
//!   zero-width spaces and joiners, the byte-order mark, tag characters) and
//!   the line and paragraph separators (`Zl`, `Zp`) are invisible, yet can
//!   reorder or hide what is shown around them (`\u{202e}eud_enif` displays
//!   as `fine_due`). They are written as `<U+202E>`.
//!
//! Every other character, of any script, is shown as it is.

use std::fmt::{self, Write};
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Is `c` shown escaped by [`escape_for_display`]: a control character, a
/// format character, or a line or paragraph separator?
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || (!c.is_ascii()
            && matches!(
                c.general_category(),
                GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
            ))
}

/// Is `c` an invisible character that can change how the text around it is
/// shown (a format character, or a line or paragraph separator)? Control
/// characters are not counted: see [`is_hidden`].
pub fn is_format(c: char) -> bool {
    is_hidden(c) && !c.is_control()
}

/// `s` for one line of a terminal or a human-readable text: every
/// [hidden](is_hidden) character made visible (see the module docs).
pub fn escape_for_display(s: &str) -> String {
    Shown(s).to_string()
}

/// [`escape_for_display`], but a line break stays a line break (article
/// texts, which are paragraphs; a carriage return is still shown escaped).
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let _ = write_escaped(&mut out, s, true);
    out
}

/// Displays a string as [`escape_for_display`] writes it, without
/// allocating: `format!("rule {}", Shown(&r.id))`.
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0, false)
    }
}

fn write_escaped(out: &mut impl Write, s: &str, keep_newlines: bool) -> fmt::Result {
    let mut rest = s;
    while let Some(i) = rest.find(is_hidden) {
        out.write_str(&rest[..i])?;
        let c = rest[i..].chars().next().expect("found at a char boundary");
        if keep_newlines && c == '\n' {
            out.write_char('\n')?;
        } else if c.is_control() {
            for e in c.escape_default() {
                out.write_char(e)?;
            }
        } else {
            write!(out, "<U+{:04X}>", c as u32)?;
        }
        rest = &rest[i + c.len_utf8()..];
    }
    out.write_str(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped() {
        assert_eq!(escape_for_display("a\nb\r\t"), r"a\nb\r\t");
        // ESC [ 2 J (clear screen), an OSC 8 hyperlink, the C1 CSI.
        assert_eq!(escape_for_display("\u{1b}[2J"), r"\u{1b}[2J");
        assert_eq!(
            escape_for_display("\u{1b}]8;;http://x\u{7}y"),
            r"\u{1b}]8;;http://x\u{7}y"
        );
        assert_eq!(escape_for_display("\u{9b}31m"), r"\u{9b}31m");
        assert_eq!(escape_for_display("\0\u{7f}"), r"\u{0}\u{7f}");
    }

    #[test]
    fn format_characters_are_shown() {
        assert_eq!(
            escape_for_display("\u{202e}eud_enif\u{202c}"),
            "<U+202E>eud_enif<U+202C>"
        );
        assert_eq!(
            escape_for_display("a\u{200b}b\u{200d}c\u{2066}d\u{2069}\u{feff}"),
            "a<U+200B>b<U+200D>c<U+2066>d<U+2069><U+FEFF>"
        );
        assert_eq!(escape_for_display("\u{2028}\u{2029}"), "<U+2028><U+2029>");
        assert_eq!(escape_for_display("\u{e0041}"), "<U+E0041>");
        assert_eq!(escape_for_display("\u{ad}"), "<U+00AD>");
    }

    #[test]
    fn every_script_is_shown_as_it_is() {
        for s in [
            "fine_due",
            "ход_ферзя",
            "قانون",
            "חוק",
            "法律",
            "e\u{301}",
            "👍",
            "a \"b\" \\c",
        ] {
            assert_eq!(escape_for_display(s), s);
            assert_eq!(escape_text(s), s);
        }
    }

    #[test]
    fn texts_keep_their_lines() {
        assert_eq!(escape_text("1. a\n2. b\r\n"), "1. a\n2. b\\r\n");
        assert_eq!(escape_text("\u{1b}[31m\u{202e}"), r"\u{1b}[31m<U+202E>");
        assert_eq!(Shown("x\ny").to_string(), r"x\ny");
    }

    #[test]
    fn nothing_hidden_remains() {
        let all: String = (0..0x11_0000u32).filter_map(char::from_u32).collect();
        for out in [escape_for_display(&all), escape_text(&all)] {
            assert!(
                out.chars().all(|c| !is_hidden(c) || c == '\n'),
                "a hidden character survived"
            );
        }
        assert!(!escape_for_display(&all).contains('\n'));
    }
}
