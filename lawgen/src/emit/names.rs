//! Package names → Rust identifiers, deterministically and injectively.
//!
//! No string from a package reaches generated code except through here (as
//! an identifier) or as an escaped literal / escaped comment. Identifiers are
//! ASCII: other characters become `x<hex>` so that no Unicode lint
//! (confusables, mixed scripts, bidi controls) can fire on generated code.
//! Keywords get a trailing `_`. Collisions after sanitizing get `_2`, `_3`, …
//! in the order names are claimed, which is the package's declaration order.

use std::collections::HashSet;

const KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "union",
    "macro_rules",
];

/// Splits a name into lowercase ASCII words; other characters become
/// `x<hex>` words so distinct names stay distinct.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            // camelCase boundary
            if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            cur.push(c.to_ascii_lowercase());
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            if !matches!(c, '_' | '-' | '.' | ' ' | '/' | ':' | '#') {
                out.push(format!("x{:x}", c as u32));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `snake_case`, never empty, never a keyword, never starting with a digit.
pub fn snake(name: &str) -> String {
    let w = words(name);
    let mut s = if w.is_empty() {
        "unnamed".to_owned()
    } else {
        w.join("_")
    };
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'n');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// `CamelCase`, never empty, never a keyword, never starting with a digit.
pub fn camel(name: &str) -> String {
    let w = words(name);
    let mut s: String = w
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect();
    if s.is_empty() {
        s = "Unnamed".to_owned();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'T');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// `SCREAMING_SNAKE_CASE` for associated constants.
pub fn screaming(name: &str) -> String {
    let s = snake(name).trim_end_matches('_').to_ascii_uppercase();
    if s.is_empty() {
        "UNNAMED".to_owned()
    } else {
        s
    }
}

/// One namespace of generated identifiers: claims names in order, making
/// each unique.
#[derive(Default)]
pub struct Namespace {
    taken: HashSet<String>,
}

impl Namespace {
    /// A namespace in which `reserved` are already taken (the fixed API).
    pub fn with_reserved(reserved: &[&str]) -> Self {
        Namespace {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Claims `base`, or `base_2`, `base_3`, … if taken.
    pub fn claim(&mut self, base: String) -> String {
        if self.taken.insert(base.clone()) {
            return base;
        }
        let stem = base.trim_end_matches('_');
        for n in 2.. {
            let cand = format!("{stem}_{n}");
            if self.taken.insert(cand.clone()) {
                return cand;
            }
        }
        unreachable!("an unbounded counter always finds a free name")
    }
}

/// Text safe inside a `//` comment: printable ASCII only, the rest escaped,
/// so no newline, bidi control or other surprise ends or reorders the comment.
pub fn comment(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if (' '..='~').contains(&c) {
            s.push(c);
        } else {
            s.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    s
}

/// Markdown-safe rustdoc text: every ASCII punctuation character that
/// markdown or rustdoc could read as syntax is backslash-escaped, and lines
/// lose their leading whitespace, so a label can never open a code block
/// (which rustdoc would run as a doctest), a link, an HTML tag or a heading.
pub fn doc(text: &str) -> String {
    let mut s = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        for c in line.trim_start().chars() {
            if c.is_ascii_punctuation() && !matches!(c, ',' | '.' | ';' | ':' | '\'' | '?' | '%') {
                s.push('\\');
            }
            // Control characters other than the line breaks handled above
            // have no business in documentation.
            if c.is_control() || is_invisible(c) {
                s.push_str(&format!("\\u{{{:x}}}", c as u32));
            } else {
                s.push(c);
            }
        }
    }
    s
}

/// Bidi controls, zero-width and line-separator characters: rustc denies the
/// bidi ones in comments and literals (`text_direction_codepoint_in_*`), and
/// none of them belongs in generated documentation.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_valid_and_distinct() {
        assert_eq!(snake("game_drawn"), "game_drawn");
        assert_eq!(snake("fn"), "fn_");
        assert_eq!(snake("self"), "self_");
        assert_eq!(snake("9lives"), "n9lives");
        assert_eq!(snake(""), "unnamed");
        assert_eq!(snake("CastlingLegal"), "castling_legal");
        assert_eq!(camel("game"), "Game");
        assert_eq!(camel("Self"), "Self_");
        assert_eq!(camel("7up"), "T7up");
        assert_ne!(snake("партия"), snake("игра"));
        assert!(snake("партия").is_ascii());
        assert_eq!(
            snake("\"); std::process::exit(1); //"),
            "x22_x29_x3b_std_process_exit_x28_1_x29_x3b"
        );
        assert_eq!(screaming("Ended"), "ENDED");
        assert_eq!(screaming("self"), "SELF");
    }

    #[test]
    fn namespaces_disambiguate_in_claim_order() {
        let mut ns = Namespace::with_reserved(&["new"]);
        assert_eq!(ns.claim("new".into()), "new_2");
        assert_eq!(ns.claim("a".into()), "a");
        assert_eq!(ns.claim("a".into()), "a_2");
        assert_eq!(ns.claim("a_2".into()), "a_2_2");
    }

    #[test]
    fn comments_and_docs_cannot_escape() {
        assert_eq!(comment("a\nb */ \u{202e}"), "a\\u{a}b */ \\u{202e}");
        let d = doc("    fn main() {}\n```rust\n<script> [x](y) #h");
        assert!(!d.contains("```"));
        assert!(d.lines().all(|l| !l.starts_with(' ')));
        assert!(d.contains("\\<script\\>"));
    }
}
