//! Tokens of the text form, produced on demand so that the parser can hand
//! the rest of the input to the JSON parser where a JSON value is expected.

use super::TextError;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*`, with `/` allowed between such runs
    /// (`GamePlay/StartPlay/valid`).
    Ident(String),
    /// A JSON string literal, decoded.
    Str(String),
    /// A `"""` block: the lines between the delimiters, indentation stripped.
    Block(String),
    /// A decimal integer that fits `i64` (a leading `-` is part of it).
    Int(i64),
    /// Punctuation: `( ) [ ] , : :- ~ ? = != < <= > >= {`.
    Punct(&'static str),
    Eof,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Str(_) => "a string".to_owned(),
            Tok::Block(_) => "a text block".to_owned(),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "the end of the file".to_owned(),
        }
    }
}

/// A token with its byte range in the source.
#[derive(Clone, Debug)]
pub(super) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Is `s` a bare identifier of the text form?
pub(super) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars().peekable();
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if at_start {
            if !is_ident_start(c) {
                return false;
            }
            at_start = false;
        } else if c == '/' {
            // `/` joins two runs; it never ends an identifier or doubles.
            match chars.peek() {
                Some(&n) if is_ident_start(n) || n.is_ascii_digit() => {}
                _ => return false,
            }
        } else if !is_ident_char(c) {
            return false;
        }
    }
    !at_start
}

/// Skips whitespace and `//` comments from `pos`; returns the new position
/// and the comments passed (their text after `//`, with the offset of each).
pub(super) fn skip_trivia(src: &str, mut pos: usize, comments: &mut Vec<(usize, String)>) -> usize {
    let bytes = src.as_bytes();
    loop {
        while pos < bytes.len() && (bytes[pos] as char).is_ascii_whitespace() {
            pos += 1;
        }
        if src[pos..].starts_with("//") {
            let end = src[pos..].find('\n').map_or(src.len(), |i| pos + i);
            // Look-ahead can pass the same comment twice: keep it once.
            if comments.last().is_none_or(|(o, _)| *o < pos) {
                comments.push((pos, src[pos + 2..end].trim_end().to_owned()));
            }
            pos = end;
        } else {
            return pos;
        }
    }
}

/// Lexes one token at `pos` (which is past any trivia).
pub(super) fn lex(src: &str, pos: usize) -> Result<Token, TextError> {
    let rest = &src[pos..];
    let Some(c) = rest.chars().next() else {
        return Ok(Token {
            tok: Tok::Eof,
            start: pos,
            end: pos,
        });
    };
    let tok = |tok, len: usize| {
        Ok(Token {
            tok,
            start: pos,
            end: pos + len,
        })
    };
    if is_ident_start(c) {
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i] as char;
            // `/` joins two runs of name characters (`a/b`); `//` starts a comment.
            let joins = b == '/' && i + 1 < bytes.len() && is_ident_char(bytes[i + 1] as char);
            if !(is_ident_char(b) || joins) {
                break;
            }
            i += 1;
        }
        return tok(Tok::Ident(rest[..i].to_owned()), i);
    }
    if c.is_ascii_digit() || (c == '-' && rest[1..].starts_with(|d: char| d.is_ascii_digit())) {
        let len = 1 + rest[1..]
            .find(|d: char| !d.is_ascii_digit())
            .unwrap_or(rest.len() - 1);
        if rest[len..].starts_with(|d: char| is_ident_char(d) || d == '.') {
            return Err(TextError::new(
                pos..pos + len + 1,
                "malformed number",
                "integers are written in decimal digits, e.g. `75` or `-3`",
            ));
        }
        return match rest[..len].parse::<i64>() {
            Ok(i) => tok(Tok::Int(i), len),
            Err(_) => Err(TextError::new(
                pos..pos + len,
                "this integer does not fit in 64 bits",
                "integers range from -9223372036854775808 to 9223372036854775807; write other numbers as `value(TYPE, JSON)`",
            )),
        };
    }
    if rest.starts_with("\"\"\"") {
        return block(src, pos);
    }
    if c == '"' {
        return string(src, pos);
    }
    for p in [":-", "!=", "<=", ">="] {
        if rest.starts_with(p) {
            return tok(Tok::Punct(p), 2);
        }
    }
    for p in ["(", ")", "[", "]", ",", ":", "~", "?", "=", "<", ">", "{"] {
        if rest.starts_with(p) {
            return tok(Tok::Punct(p), 1);
        }
    }
    Err(TextError::new(
        pos..pos + c.len_utf8(),
        format!("unexpected character `{}`", c.escape_default()),
        "names are ASCII letters, digits and `_` (quote anything else as a string: \"urn:x#any name\")",
    ))
}

/// A JSON string literal: decoded by the JSON parser itself, so escapes mean
/// exactly what they mean in the package JSON.
fn string(src: &str, pos: usize) -> Result<Token, TextError> {
    let bytes = src.as_bytes();
    let mut i = pos + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => break,
            b'\n' => {
                return Err(TextError::new(
                    pos..i,
                    "this string is not closed on its line",
                    "close it with `\"`, write a line break as `\\n`, or use a `\"\"\"` block for several lines",
                ))
            }
            _ => i += 1,
        }
    }
    if i >= bytes.len() {
        return Err(TextError::new(
            pos..src.len(),
            "this string is not closed",
            "close it with `\"`",
        ));
    }
    let lit = &src[pos..=i];
    match serde_json::from_str::<String>(lit) {
        Ok(s) => Ok(Token {
            tok: Tok::Str(s),
            start: pos,
            end: i + 1,
        }),
        Err(e) => Err(TextError::new(
            pos..i + 1,
            format!("invalid string literal: {}", strip_position(&e.to_string())),
            "strings use JSON escapes: \\\" \\\\ \\n \\t \\uXXXX; control characters must be escaped",
        )),
    }
}

/// A `"""` block. The opening `"""` ends its line; the closing `"""` stands
/// alone on a line, and its indentation is removed from every line between
/// (which must all start with it, or be empty).
fn block(src: &str, pos: usize) -> Result<Token, TextError> {
    let after = pos + 3;
    let Some(nl) = src[after..].find('\n').map(|i| after + i) else {
        return Err(TextError::new(
            pos..src.len(),
            "this text block is not closed",
            "end the block with `\"\"\"` on a line of its own",
        ));
    };
    if !src[after..nl].trim_end_matches(' ').is_empty() {
        return Err(TextError::new(
            pos..nl,
            "a text block starts on the line after its opening `\"\"\"`",
            "break the line right after `\"\"\"`",
        ));
    }
    let body_start = nl + 1;
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = body_start;
    loop {
        if at > src.len() {
            return Err(TextError::new(
                pos..pos + 3,
                "this text block is not closed",
                "end the block with `\"\"\"` on a line of its own",
            ));
        }
        let end = src[at..].find('\n').map_or(src.len(), |i| at + i);
        let line = &src[at..end];
        let trimmed = line.trim_start_matches(' ');
        if trimmed.starts_with("\"\"\"") {
            let indent = line.len() - trimmed.len();
            let close_end = at + indent + 3;
            let mut text = String::new();
            for (k, (off, l)) in lines.iter().enumerate() {
                if k > 0 {
                    text.push('\n');
                }
                if l.is_empty() {
                    continue;
                }
                match l.get(..indent) {
                    Some(prefix) if prefix.bytes().all(|b| b == b' ') => {
                        text.push_str(&l[indent..])
                    }
                    _ => return Err(TextError::new(
                        *off..*off + l.len().min(indent.max(1)),
                        "this line of the text block is indented less than its closing `\"\"\"`",
                        "indent every line of the block at least as far as the closing `\"\"\"`",
                    )),
                }
            }
            if text.contains('\r') {
                return Err(TextError::new(
                    pos..close_end,
                    "a text block cannot hold carriage returns",
                    "write a text with `\\r` as a string with escapes",
                ));
            }
            return Ok(Token {
                tok: Tok::Block(text),
                start: pos,
                end: close_end,
            });
        }
        lines.push((at, line));
        if end == src.len() {
            return Err(TextError::new(
                pos..pos + 3,
                "this text block is not closed",
                "end the block with `\"\"\"` on a line of its own",
            ));
        }
        at = end + 1;
    }
}

/// serde_json messages end with " at line L column C" of the snippet it saw,
/// which would mislead here: the caller reports the position.
pub(super) fn strip_position(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) => &msg[..i],
        None => msg,
    }
}
