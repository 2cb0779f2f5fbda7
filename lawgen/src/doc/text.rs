//! The plain-text and Markdown writers.
//!
//! Text: paragraphs separated by one blank line, in the seed's order —
//! header, then per package each section's title, then per entry its title,
//! its sentences and its identifier line. Markdown: the same paragraphs,
//! with headings for the title, parts, sections and entries, package
//! strings escaped and ids in code spans.

use super::tree::*;

pub(crate) fn text(doc: &Document) -> String {
    let mut paras: Vec<String> = doc.header.clone();
    for part in &doc.parts {
        paras.extend(part.heading.iter().cloned());
        for s in &part.sections {
            paras.push(s.title.clone());
            for e in &s.entries {
                paras.push(e.title.clone());
                paras.extend(e.paras.iter().map(|p| match p {
                    Para::Article(t) => list_item(t).to_owned(),
                    Para::Prose(_) => p.plain(),
                }));
                if let Some(id) = &e.node {
                    paras.push(id_line(doc, id, &e.anchors, &|s| s.to_owned()));
                }
            }
        }
    }
    let mut out = paras.join("\n\n");
    out.push('\n');
    out
}

/// An article paragraph that is an enumerated alternative (`1) If the
/// king…`) is written without its enumerator, as the seed rendering writes
/// list items in plain text; the page and Markdown keep it.
fn list_item(t: &str) -> &str {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    match t.get(digits..) {
        Some(rest) if digits > 0 && rest.starts_with(") ") => &rest[2..],
        _ => t,
    }
}

/// `Идентификатор: ID Анкер: A` with each id written by `code`.
fn id_line(doc: &Document, id: &str, anchors: &[String], code: &dyn Fn(&str) -> String) -> String {
    let l = doc.lang;
    let mut s = format!("{}{}", l.identifier(), code(&super::verbalize::clean(id)));
    if !anchors.is_empty() {
        s.push_str(l.anchors(anchors.len()));
        let list: Vec<String> = anchors
            .iter()
            .map(|a| code(&super::verbalize::clean(a)))
            .collect();
        s.push_str(&list.join(", "));
    }
    s
}

pub(crate) fn markdown(doc: &Document) -> String {
    let mut paras: Vec<String> = Vec::new();
    for (i, h) in doc.header.iter().enumerate() {
        if i == 1 {
            paras.push(format!("# {}", md(h)));
        } else {
            paras.push(md(h));
        }
    }
    for part in &doc.parts {
        for (i, h) in part.heading.iter().enumerate() {
            if i == 0 {
                paras.push(format!("# {}", md(h)));
            } else {
                paras.push(md(h));
            }
        }
        for s in &part.sections {
            paras.push(format!("## {}", md(&s.title)));
            for e in &s.entries {
                paras.push(format!("### {}", md(&e.title)));
                paras.extend(e.paras.iter().map(|p| md(&p.plain())));
                if let Some(id) = &e.node {
                    paras.push(id_line(doc, id, &e.anchors, &code_span));
                }
            }
        }
    }
    let mut out = paras.join("\n\n");
    out.push('\n');
    out
}

/// Escapes text for CommonMark: inline punctuation that could start markup
/// everywhere, block markers at the start of a line, leading spaces (an
/// indented code block) as entities.
pub(crate) fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for (n, line) in s.split('\n').enumerate() {
        if n > 0 {
            // A hard line break inside the paragraph, as the text has one.
            out.push_str("\\\n");
        }
        let trimmed = line.trim_start_matches(' ');
        for _ in 0..line.len() - trimmed.len() {
            out.push_str("&#32;");
        }
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        let chars: Vec<char> = trimmed.chars().collect();
        // An underscore inside a word (`game_drawn`) emphasizes nothing.
        let in_word = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
        };
        for (i, &c) in chars.iter().enumerate() {
            let at_start = i == 0 && matches!(c, '-' | '+' | '=' | '>');
            let list_number = digits > 0 && i == digits && matches!(c, '.' | ')');
            let loose_underscore = c == '_' && !(in_word(i.checked_sub(1)) && in_word(Some(i + 1)));
            if at_start
                || list_number
                || loose_underscore
                || matches!(
                    c,
                    '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '&' | '!'
                )
            {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

/// A code span that holds `s` whatever backticks it contains.
pub(crate) fn code_span(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {s} {fence}")
}
