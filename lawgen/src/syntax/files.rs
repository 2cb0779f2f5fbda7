//! Package files: which files are packages, their headers, reading one, and
//! the closure bundle generated code embeds; and reading any input file
//! within its size limit.
//!
//! Import resolution (`crate::imports`) reads every file through
//! [`read_header`] and [`read_package_file`] only, so a second package format
//! is one more arm in each, chosen by [`Format::of`].
//!
//! Every file lawgen opens as input is read through
//! [`lawgen_runtime::bounded`], here ([`read_limited`], [`read_facts_file`])
//! or in the driver: reading stops one byte past the limit, whatever the
//! file is (a symbolic link to a device, a FIFO), and the size error (E090)
//! comes at once (docs/security.md#bounded-reads).

use super::read::{read_package, scan, ReadLimits};
use super::Package;
use crate::diagnostics::{Code, Diagnostics, Location};
use lawgen_runtime::bounded::{self, Bounded, ReadError, TooLarge};
use lawgen_runtime::formats::facts::read_facts_from;
use lawgen_runtime::interp::Facts;
use lawgen_runtime::program::Catalog;
use serde_json::Value;
use std::path::Path;

/// Reads an input file of at most `limit` bytes ([`bounded::read_file`]).
pub fn read_limited(path: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
    bounded::read_file(path, limit as u64)
}

/// The size error of a package file over `ReadLimits::max_bytes` (E090),
/// whether its size was known or reading stopped at the limit.
pub fn package_too_large(t: TooLarge) -> Diagnostics {
    let mut d = Diagnostics::new();
    d.error(
        Code::Limit,
        Location::default(),
        format!("the package is {t}"),
        "split the package, or raise the limit (`--max-package-bytes`, `Builder::limits`)",
    );
    d
}

/// Why a facts file gave no facts.
#[derive(Debug)]
pub enum FactsFileError {
    /// It could not be opened or read.
    Io(std::io::Error),
    /// It is over its size limit (E090), or not a valid facts file for the
    /// package: every problem found.
    Invalid(Diagnostics),
}

/// Reads a facts file as a stream (never whole in memory), refusing it
/// with E090 as soon as it holds more than `limits.max_facts_bytes`.
pub fn read_facts_file(
    path: &Path,
    catalog: &Catalog,
    limits: &ReadLimits,
) -> Result<Facts, FactsFileError> {
    let too_large = |t: TooLarge| {
        let mut d = Diagnostics::new();
        d.error(
            Code::Limit,
            Location::default(),
            format!("the facts file is {t}"),
            "split the facts, or raise the limit (`--max-facts-bytes`, `ReadLimits::max_facts_bytes`)",
        );
        FactsFileError::Invalid(d)
    };
    let limit = limits.max_facts_bytes as u64;
    let file = std::fs::File::open(path).map_err(FactsFileError::Io)?;
    let meta = file.metadata().map_err(FactsFileError::Io)?;
    if meta.is_dir() {
        return Err(FactsFileError::Io(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(TooLarge {
            limit,
            size: Some(meta.len()),
        }));
    }
    let mut reader = Bounded::new(file, limit);
    let read = read_facts_from(&mut reader, catalog);
    if let Some(t) = reader.exceeded() {
        return Err(too_large(t));
    }
    read.map_err(FactsFileError::Invalid)
}

/// The formats lawgen reads packages in, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `*.json`: `law.core.ir/0.2` (docs/reference.md#a-package).
    Json,
    /// `*.law`: the text form (docs/text-form.md), read by converting it to
    /// package JSON.
    Law,
}

impl Format {
    /// The format of a file, or `None` when import resolution does not
    /// consider it a candidate.
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "json" => Some(Format::Json),
            super::text::EXTENSION => Some(Format::Law),
            _ => None,
        }
    }
}

/// What import resolution needs to know of a candidate before reading it in
/// full (docs/reference.md#imports): the fields an import entry names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    pub version: String,
    pub namespace: Option<String>,
    /// The top-level `semanticHash`.
    pub semantic_hash: Option<String>,
}

/// Reads the header of a package file, or `None` when the file is not a
/// package of a known format (a facts file, a broken file, another JSON
/// document): such files are not candidates.
pub fn read_header(path: &Path, bytes: &[u8], limits: &ReadLimits) -> Option<Header> {
    match Format::of(path)? {
        Format::Law => {
            if bytes.len() > limits.max_bytes {
                return None;
            }
            let json = law_to_json(bytes).ok()?;
            read_header(Path::new("converted.json"), &json, limits)
        }
        Format::Json => {
            if bytes.len() > limits.max_bytes || scan(bytes, limits).is_some() {
                return None;
            }
            let root: Value = serde_json::from_slice(bytes).ok()?;
            let header = root.get("package")?;
            let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
            Some(Header {
                name: s(header.get("name"))?,
                version: s(header.get("version"))?,
                namespace: s(header.get("namespace")),
                semantic_hash: s(root.get("semanticHash")),
            })
        }
    }
}

/// Reads and integrity-checks one package file (docs/reference.md#integrity).
pub fn read_package_file(
    path: &Path,
    bytes: &[u8],
    limits: &ReadLimits,
) -> Result<Package, Diagnostics> {
    match Format::of(path) {
        Some(Format::Law) if bytes.len() <= limits.max_bytes => {
            read_package(&law_to_json(bytes)?, limits)
        }
        Some(Format::Json | Format::Law) | None => read_package(bytes, limits),
    }
}

/// A `.law` file as package JSON; each syntax error becomes a diagnostic
/// with its line and column (the importing file's reader renders it).
pub(crate) fn law_to_json(bytes: &[u8]) -> Result<Vec<u8>, Diagnostics> {
    let src = String::from_utf8_lossy(bytes);
    match super::text::parse(&src) {
        Ok(parsed) => Ok(super::canon::serialize(&parsed.json).into_bytes()),
        Err(errors) => {
            let mut d = Diagnostics::new();
            for e in &errors.errors {
                let at = Location {
                    line: Some(super::text::line_col(&src, e.span.start)),
                    ..Location::default()
                };
                d.error(Code::TextSyntax, at, e.message.clone(), e.help.clone());
            }
            Err(d)
        }
    }
}

/// The first bytes of every closure bundle, written by [`write_bundle`].
const BUNDLE_PREFIX: &str = r#"{"schemaVersion":"lawgen.closure/1","#;

/// One text holding a package and every package of its import closure,
/// root first, so that a generated module can embed its whole closure and
/// read it back without a file system. Each file keeps its name (no
/// directory) for diagnostics, explanations and its format: a JSON package
/// is embedded as a JSON value, a file of another format as its text.
pub fn write_bundle(files: &[(String, &[u8])]) -> String {
    let entries: Vec<Value> = files
        .iter()
        .map(|(name, bytes)| {
            let json = matches!(Format::of(Path::new(name)), Some(Format::Json))
                .then(|| serde_json::from_slice::<Value>(bytes).ok())
                .flatten();
            match json {
                Some(package) => serde_json::json!({ "file": name, "package": package }),
                None => serde_json::json!({ "file": name, "text": String::from_utf8_lossy(bytes) }),
            }
        })
        .collect();
    let rest = serde_json::json!({ "files": entries }).to_string();
    // `{"files":…}` → `{"schemaVersion":"lawgen.closure/1","files":…}`.
    format!("{BUNDLE_PREFIX}{}", &rest[1..])
}

/// The files of a closure bundle: name and package JSON bytes, root first.
pub type BundleFiles = Vec<(String, Vec<u8>)>;

/// Reads a closure bundle: `None` when `bytes` is not one (an ordinary
/// package), else its files, root first, each as package JSON bytes.
pub fn read_bundle(bytes: &[u8], limits: &ReadLimits) -> Option<Result<BundleFiles, Diagnostics>> {
    if !bytes.starts_with(BUNDLE_PREFIX.as_bytes()) {
        return None;
    }
    let bad = |message: String| {
        let mut d = Diagnostics::new();
        d.error(
            Code::BadField,
            Location::default(),
            message,
            "regenerate the module with this version of lawgen",
        );
        d
    };
    if bytes.len() > limits.max_bytes.saturating_mul(64) {
        return Some(Err(bad("the closure bundle is too large".into())));
    }
    let root: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return Some(Err(bad(format!(
                "the closure bundle is not valid JSON: {e}"
            ))))
        }
    };
    let Some(files) = root.get("files").and_then(Value::as_array) else {
        return Some(Err(bad("the closure bundle has no `files` array".into())));
    };
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let Some(name) = f.get("file").and_then(Value::as_str) else {
            return Some(Err(bad("a closure bundle entry needs `file`".into())));
        };
        let bytes = match (f.get("package"), f.get("text").and_then(Value::as_str)) {
            (Some(package), _) => serde_json::to_vec(package).unwrap_or_default(),
            (None, Some(text)) => text.as_bytes().to_vec(),
            (None, None) => {
                return Some(Err(bad(format!(
                    "the closure bundle entry `{name}` has neither `package` nor `text`"
                ))))
            }
        };
        out.push((name.to_owned(), bytes));
    }
    if out.is_empty() {
        return Some(Err(bad("the closure bundle holds no package".into())));
    }
    Some(Ok(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_packages_only() {
        let l = ReadLimits::default();
        let p = Path::new("x.json");
        let pkg =
            br#"{"package":{"name":"a","version":"1","namespace":"urn:a"},"semanticHash":"h"}"#;
        let h = read_header(p, pkg, &l).unwrap();
        assert_eq!((h.name.as_str(), h.version.as_str()), ("a", "1"));
        assert_eq!(h.semantic_hash.as_deref(), Some("h"));
        assert_eq!(read_header(p, br#"{"facts":{}}"#, &l), None);
        assert_eq!(read_header(p, b"not json", &l), None);
        assert_eq!(read_header(Path::new("x.txt"), pkg, &l), None);
    }

    #[test]
    fn a_bundle_reads_back_its_files() {
        let a = br#"{"package":{"name":"a"}}"#;
        let b = br#"{"package":{"name":"b"}}"#;
        let text = write_bundle(&[
            ("a.json".into(), &a[..]),
            ("b.json".into(), &b[..]),
            ("c.law".into(), &b"package c"[..]),
        ]);
        let files = read_bundle(text.as_bytes(), &ReadLimits::default())
            .unwrap()
            .unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].0, "a.json");
        assert_eq!(files[1].1, b.to_vec());
        assert_eq!(files[2].1, b"package c".to_vec());
        assert!(read_bundle(a, &ReadLimits::default()).is_none());
    }
}
