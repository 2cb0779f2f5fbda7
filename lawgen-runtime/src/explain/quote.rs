//! Which words of an article an anchor quotes.

/// What generated docs quote of an anchor's text: the paragraph the rule's
/// label cites, else the beginning of the text.
pub fn anchor_quote(text: &str, label: Option<&str>) -> String {
    label
        .and_then(|l| cited_paragraph(text, l))
        .unwrap_or_else(|| trim_quote(text.trim(), 240))
}

/// The paragraph of `text` that `label` cites ("Article 9.6.2. …" → the
/// paragraph starting with "9.6.2"), trimmed to a readable length.
pub fn cited_paragraph(text: &str, label: &str) -> Option<String> {
    let mut words = label.split_whitespace();
    let first = words.next()?;
    let token = if first.starts_with(|c: char| c.is_ascii_digit()) {
        first
    } else {
        words.next()?
    };
    let number: String = token
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut number = number.trim_end_matches('.').to_owned();
    if !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let paragraphs: Vec<&str> = text
        .split('\n')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    loop {
        let found = paragraphs.iter().find(|p| {
            p.strip_prefix(number.as_str()).is_some_and(|rest| {
                let mut cs = rest.chars();
                match cs.next() {
                    None => true,
                    Some(c) if c.is_ascii_digit() => false,
                    Some('.') => !cs.next().is_some_and(|c| c.is_ascii_digit()),
                    Some(_) => true,
                }
            })
        });
        if let Some(p) = found {
            return Some(trim_quote(p, 240));
        }
        match number.rfind('.') {
            Some(i) => number.truncate(i),
            None => return None,
        }
    }
}

fn trim_quote(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let cut: String = s.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_owned(),
        _ => cut,
    };
    format!("{cut} …")
}
