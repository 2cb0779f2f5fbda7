//! The walls of the house, checked (ARCHITECTURE.md, "Walls"): the source
//! files of the workspace are read and every path they name is matched
//! against [`WALLS`], the arrows between parts that must never exist. A
//! `use` line (or a path written inline) that crosses a wall fails this test
//! with the file, the line and the arrow.
//!
//! Paths are read from code only: comments, string literals (generated code
//! is written as strings) and char literals are blanked first. A path is the
//! segment after a root (`crate::`, `lawgen::`, …), or each top-level
//! segment of a `{…}` group after it.
//!
//! No wall has exceptions: the CLI and the service name no stage through
//! `lawgen::internals`, whatever the file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One arrow that must never exist.
struct Wall {
    /// How ARCHITECTURE.md names it.
    arrow: &'static str,
    /// The files it applies to: those under any of these directories
    /// (relative to the workspace root).
    from: &'static [&'static str],
    /// The root whose paths it reads (`crate`, `lawgen`, …): a word on its
    /// own, followed by `::`.
    root: &'static str,
    /// The first segments after the root that cross the wall; empty: every
    /// segment.
    to: &'static [&'static str],
    /// What to do instead.
    why: &'static str,
}

/// The walls. ARCHITECTURE.md, "Walls", is this table in words; change both
/// together.
const WALLS: &[Wall] = &[
    Wall {
        arrow: "emit → check/syntax",
        from: &["lawgen/src/emit/"],
        root: "crate",
        to: &["check", "syntax", "model", "imports", "driver"],
        why: "code generation reads the lowered `Program` only; name run-time types by their \
              one path, `crate::program::…` (lawgen_runtime::program)",
    },
    Wall {
        arrow: "runtime → compiler",
        from: &["lawgen-runtime/src/"],
        root: "lawgen",
        to: &[],
        why: "lawgen-runtime never depends on lawgen: what both need lives in lawgen-runtime",
    },
    Wall {
        arrow: "stages → CLI",
        from: &["lawgen/src/"],
        root: "lawgen_cli",
        to: &[],
        why: "the library never uses the command; move what both need into the library",
    },
    Wall {
        arrow: "CLI → library internals",
        from: &["lawgen/cli/src/"],
        root: "internals",
        to: &[],
        why: "the command uses lawgen's public API (`driver`, `diagnostics`, `doc`, \
              `summary`, `synth`, `generate`, …); make what it needs a small documented public \
              function, or move it into the CLI",
    },
    Wall {
        arrow: "service → library internals",
        from: &["lawgen/serve/src/"],
        root: "internals",
        to: &[],
        why: "the service is a thin shell over lawgen's public API (`driver`) and \
              lawgen-runtime; make what it needs a small documented public function",
    },
];

/// A path that crosses a wall.
#[derive(Debug, PartialEq, Eq)]
struct Crossing {
    file: String,
    line: usize,
    /// `root::segment`.
    path: String,
    arrow: &'static str,
    why: &'static str,
}

impl std::fmt::Display for Crossing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: `{}` is the arrow {}, which must never exist (ARCHITECTURE.md, \"Walls\"): {}",
            self.file, self.line, self.path, self.arrow, self.why
        )
    }
}

/// `text` with comments, string literals and char literals replaced by
/// spaces (newlines kept, so line numbers stay).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend(s.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (0usize, 0);
            while j < rest.len() {
                if rest[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if let Some(len) = raw_string_len(rest, i == 0 || !is_ident(b[i - 1])) {
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let len = (j + 1).min(rest.len());
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == b'\'' {
            // A char literal (`'x'`, `'\n'`, `'\u{1F600}'`, `'"'`), or a
            // lifetime or label (`'a`), which is kept.
            let len = if rest.get(1) == Some(&b'\\') {
                // The escaped character may itself be a quote (`'\''`).
                rest.get(3..)
                    .and_then(|r| r.iter().position(|&c| c == b'\''))
                    .map(|p| p + 4)
            } else {
                text[i + 1..]
                    .chars()
                    .next()
                    .map(char::len_utf8)
                    .filter(|&n| rest.get(1 + n) == Some(&b'\''))
                    .map(|n| n + 2)
            };
            let len = len.unwrap_or(1);
            if len == 1 {
                out.push(b'\'');
            } else {
                blank(&mut out, &rest[..len]);
            }
            i += len;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The length of a raw string (`r"…"`, `r#"…"#`, `br##"…"##`) at the start
/// of `s`, when one starts there.
fn raw_string_len(s: &[u8], at_word_start: bool) -> Option<usize> {
    if !at_word_start {
        return None;
    }
    let mut j = usize::from(s.first() == Some(&b'b'));
    if s.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = s[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if s.get(j) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let body = &s[j + 1..];
    let end = body
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(body.len(), |p| p + close.len());
    Some(j + 1 + end)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Each path named after `root::` in `code` (already [`code_only`]): the
/// line and the first segment (each top-level segment of a `{…}` group).
/// `root` written without `::` after it (`use lawgen::internals;`) names
/// the whole of it: segment `*`.
fn paths(code: &str, root: &str) -> Vec<(usize, String)> {
    let b = code.as_bytes();
    let line_at = |i: usize| 1 + b[..i].iter().filter(|&&c| c == b'\n').count();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find(root) {
        let at = from + p;
        from = at + root.len();
        let before_ok = at == 0 || !is_ident(b[at - 1]);
        let after = &code[from..];
        let after_ok = !after.bytes().next().is_some_and(is_ident);
        if !before_ok || !after_ok {
            continue;
        }
        let Some(rest) = after.trim_start().strip_prefix("::") else {
            // `lawgen_cli` as a word (an `extern crate`, `use lawgen_cli;`)
            // or `internals` on its own: the whole root.
            if root != "crate" && root != "lawgen" {
                found.push((line_at(at), "*".to_owned()));
            }
            continue;
        };
        let rest_trim = rest.trim_start();
        let seg_at = code.len() - rest_trim.len();
        if let Some(group) = rest_trim.strip_prefix('{') {
            // The top-level segments of the group.
            let mut depth = 0usize;
            let mut start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_alphanumeric() || c == '_') => {
                        let word: String = group[k..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        found.push((line_at(seg_at + 1 + k), word));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let word: String = rest_trim
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !word.is_empty() {
                found.push((line_at(seg_at), word));
            }
        }
    }
    found
}

/// Every crossing of `files` (path relative to the workspace root, text).
fn crossings(files: &[(String, String)]) -> Vec<Crossing> {
    let mut out = Vec::new();
    for (file, text) in files {
        let code = code_only(text);
        for wall in WALLS {
            if !wall.from.iter().any(|d| file.starts_with(*d)) {
                continue;
            }
            for (line, seg) in paths(&code, wall.root) {
                if !wall.to.is_empty() && !wall.to.contains(&seg.as_str()) {
                    continue;
                }
                out.push(Crossing {
                    file: file.clone(),
                    line,
                    path: format!("{}::{seg}", wall.root),
                    arrow: wall.arrow,
                    why: wall.why,
                });
            }
        }
    }
    out
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn workspace_sources() -> Vec<(String, String)> {
    let root = root();
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    for w in WALLS {
        dirs.extend(w.from.iter().copied());
    }
    let mut paths = Vec::new();
    for d in dirs {
        rust_files(&root.join(d), &mut paths);
    }
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The failure message for `crossings`, or `None` when there are none.
fn report(crossings: &[Crossing]) -> Option<String> {
    if crossings.is_empty() {
        return None;
    }
    let mut s = format!(
        "{} path(s) cross a wall of ARCHITECTURE.md (\"Walls\"; the table is `WALLS` in {}):\n",
        crossings.len(),
        file!()
    );
    for c in crossings {
        s.push_str(&format!("  {c}\n"));
    }
    Some(s)
}

#[test]
fn no_path_crosses_a_wall() {
    let files = workspace_sources();
    assert!(
        files.iter().any(|(f, _)| f.starts_with("lawgen/src/emit/"))
            && files.iter().any(|(f, _)| f.starts_with("lawgen/cli/src/"))
            && files
                .iter()
                .any(|(f, _)| f.starts_with("lawgen-runtime/src/")),
        "the tidy test found none of the sources it guards"
    );
    if let Some(msg) = report(&crossings(&files)) {
        panic!("{msg}");
    }
}

#[test]
fn a_wrong_import_fails_naming_the_file_the_line_and_the_arrow() {
    let files = vec![
        (
            "lawgen/src/emit/api.rs".to_owned(),
            "//! crate::check in a comment is no path\nuse crate::program::Lit;\n\
             use crate::check::strata;\nfn f() { let _ = \"crate::syntax\"; }\n"
                .to_owned(),
        ),
        (
            "lawgen/src/emit/plan.rs".to_owned(),
            "use crate::{\n    program::Ty,\n    syntax::CmpOp,\n};\n".to_owned(),
        ),
        (
            "lawgen-runtime/src/program.rs".to_owned(),
            "use lawgen_runtime::x;\nfn f() -> lawgen::driver::Loaded { todo!() }\n".to_owned(),
        ),
        (
            "lawgen/src/lower/mod.rs".to_owned(),
            "use lawgen_cli::lint;\nconst S: &str = r#\"lawgen_cli::x\"#;\n".to_owned(),
        ),
        (
            "lawgen/cli/src/eval.rs".to_owned(),
            "use lawgen::driver::Loaded;\nuse lawgen::internals::model::Model;\n".to_owned(),
        ),
        (
            "lawgen/cli/src/check.rs".to_owned(),
            "use lawgen::summary;\nuse lawgen::internals::{check::strata, model::Model};\n"
                .to_owned(),
        ),
        (
            "lawgen/serve/src/lib.rs".to_owned(),
            "use lawgen::driver;\nfn f(l: &driver::Loaded) { let _ = lawgen::internals::model::Model::default(); }\n"
                .to_owned(),
        ),
    ];
    let found = crossings(&files);
    let msg = report(&found).expect("the wrong imports fail");
    eprintln!("{msg}");
    let lines: Vec<(&str, usize, &str, &str)> = found
        .iter()
        .map(|c| (c.file.as_str(), c.line, c.path.as_str(), c.arrow))
        .collect();
    assert_eq!(
        lines,
        [
            (
                "lawgen/src/emit/api.rs",
                3,
                "crate::check",
                "emit → check/syntax"
            ),
            (
                "lawgen/src/emit/plan.rs",
                3,
                "crate::syntax",
                "emit → check/syntax"
            ),
            (
                "lawgen-runtime/src/program.rs",
                2,
                "lawgen::driver",
                "runtime → compiler"
            ),
            (
                "lawgen/src/lower/mod.rs",
                1,
                "lawgen_cli::lint",
                "stages → CLI"
            ),
            (
                "lawgen/cli/src/eval.rs",
                2,
                "internals::model",
                "CLI → library internals"
            ),
            (
                "lawgen/cli/src/check.rs",
                2,
                "internals::check",
                "CLI → library internals"
            ),
            (
                "lawgen/cli/src/check.rs",
                2,
                "internals::model",
                "CLI → library internals"
            ),
            (
                "lawgen/serve/src/lib.rs",
                2,
                "internals::model",
                "service → library internals"
            ),
        ]
    );
    assert!(msg.contains(
        "lawgen/src/emit/api.rs:3: `crate::check` is the arrow emit → check/syntax, which must \
         never exist (ARCHITECTURE.md, \"Walls\")"
    ));
}

#[test]
fn code_only_blanks_comments_strings_and_chars_but_keeps_lifetimes() {
    let code = code_only(
        "fn f<'a>(x: &'a str) -> char { /* crate::a /* nested */ */ let _ = '\"'; \
         let _ = r##\"crate::b\"##; 'q' } // crate::c\nuse crate::d;",
    );
    assert!(code.contains("<'a>") && code.contains("&'a str"));
    assert_eq!(paths(&code, "crate"), [(2, "d".to_owned())]);
}
