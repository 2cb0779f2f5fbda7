//! Scenario suites: a directory of `NAME.facts.json` files, each beside a
//! `NAME.expected.json` that lists the institutional conclusions the law's
//! text gives for those facts, section by section, and the judgment requests
//! (the shape of docs/testing.md#scenario-suites-lawgen-test). Each scenario is evaluated
//! by the reference evaluator; a scenario passes when the institutional part
//! of every section and the requests equal the expectation exactly.
//!
//! What `lawgen test` runs and reports, and what the review document
//! (`doc::Scenarios::collect`) shows for each rule: both read the outcomes
//! made here, with each scenario's coverage
//! ([`lawgen_runtime::explain::coverage`]) when asked.

use crate::diagnostics::escape_for_display;
use crate::driver::{self, Loaded};
use crate::syntax::files::{read_facts_file, read_limited, FactsFileError};
use crate::syntax::ReadLimits;
use lawgen_runtime::bounded::{Bounded, ReadError, TooLarge};
use lawgen_runtime::explain::coverage::{self, CaseCoverage};
use lawgen_runtime::program::RelationKind;
use lawgen_runtime::program::{Catalog, Section, Value};
use lawgen_runtime::Policy;
use serde_json::{json, Value as J};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The suite's allow-list: one rule (local name or full id) and its reason
/// per line; `#` at the start of a line or after a blank starts a comment.
pub const ALLOW_LIST: &str = "coverage.allow";

/// The optional suite file naming the package a suite is for.
pub const SUITE_FILE: &str = "suite.json";

const SECTIONS: [(Section, &str); 4] = [
    (Section::Definitely, "definitely"),
    (Section::Defeasibly, "defeasibly"),
    (Section::Supported, "supported"),
    (Section::Pending, "pending"),
];

/// Why a suite could not be run at all (as opposed to a failing scenario).
#[derive(Debug)]
pub struct SuiteError {
    /// 2: unreadable input; 1: a malformed suite file or package.
    pub code: u8,
    /// The error, ready to print: the file, what is wrong and, for a
    /// malformed file, how to fix it.
    pub message: String,
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A suite file that cannot be used (exit code 1): `path: what; help`.
pub fn bad(path: &Path, what: impl std::fmt::Display, help: &str) -> SuiteError {
    SuiteError {
        code: 1,
        message: format!("error: {}: {what}\n  = help: {help}", path.display()),
    }
}

/// One expected section: literal (`p` or `~p`) → rows (JSON arrays).
type Rows = BTreeMap<String, BTreeSet<String>>;

/// A `NAME.expected.json` file, read.
#[derive(Clone, Debug, Default)]
pub struct Expected {
    /// The file's `description`: what the scenario is about, for the
    /// people who read the suite (no report shows it).
    pub description: Option<String>,
    /// `None`: the suite's default policy.
    pub policy: Option<Policy>,
    /// By section name; rows as compact JSON.
    sections: BTreeMap<&'static str, Rows>,
    /// Requests as compact JSON objects (predicate, args, authority, capability).
    requests: BTreeSet<String>,
}

/// Reads an expectation file: an object with `description`, `policy`, the
/// four sections (objects of arrays of rows) and `requests`; every field
/// optional (an absent section expects nothing), nothing else allowed.
// `lawgen test` reads the files through `read_expected_file`; this is for
// callers holding the bytes (the fuzz target).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn read_expected(path: &Path, bytes: &[u8]) -> Result<Expected, SuiteError> {
    let v: J = serde_json::from_slice(bytes).map_err(|e| not_json(path, e))?;
    expected_from(path, v)
}

fn not_json(path: &Path, e: serde_json::Error) -> SuiteError {
    bad(
        path,
        format!("not JSON: {e}"),
        "an expectation file is a JSON object with `definitely`, `defeasibly`, `supported`, `pending` and `requests`",
    )
}

/// Reads an expectation file as [`read_expected`] does, from the file, as a
/// stream within `limit` bytes: a file that is not JSON (a link to
/// `/dev/zero`) is refused at its first byte, one over the limit (E090) at
/// the limit.
fn read_expected_file(path: &Path, limit: usize) -> Result<Expected, SuiteError> {
    let unreadable = |e: std::io::Error| SuiteError {
        code: 2,
        message: format!("error: cannot read {}: {e}", path.display()),
    };
    let limit = limit as u64;
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if meta.is_dir() {
        return Err(unreadable(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    if meta.is_file() && meta.len() > limit {
        let t = TooLarge {
            limit,
            size: Some(meta.len()),
        };
        return Err(too_large(path, t, RAISE_FACTS_LIMIT));
    }
    let mut reader = Bounded::new(file, limit);
    let v = serde_json::from_reader::<_, J>(std::io::BufReader::new(&mut reader));
    if let Some(t) = reader.exceeded() {
        return Err(too_large(path, t, RAISE_FACTS_LIMIT));
    }
    expected_from(path, v.map_err(|e| not_json(path, e))?)
}

fn expected_from(path: &Path, v: J) -> Result<Expected, SuiteError> {
    let J::Object(m) = v else {
        return Err(bad(
            path,
            "an expectation file must be a JSON object",
            "write `{\"definitely\": {…}, \"defeasibly\": {…}, \"supported\": {…}, \"pending\": {…}, \"requests\": […]}`",
        ));
    };
    let mut e = Expected::default();
    for (k, v) in &m {
        match (k.as_str(), v) {
            ("description", J::String(s)) => e.description = Some(s.clone()),
            ("description", J::Null) => {}
            ("policy", J::String(s)) => {
                e.policy = Some(s.parse().map_err(|_| {
                    bad(
                        path,
                        format!("`policy` is `{}`", escape_for_display(s)),
                        "write \"blocking\" or \"propagating\"",
                    )
                })?)
            }
            ("requests", J::Array(rs)) => {
                for (i, r) in rs.iter().enumerate() {
                    let ok = r.as_object().is_some_and(|o| {
                        o.get("predicate").is_some_and(J::is_string)
                            && o.get("args").is_some_and(J::is_array)
                            && o.keys().all(|k| {
                                ["predicate", "args", "authority", "capability"]
                                    .contains(&k.as_str())
                            })
                    });
                    if !ok {
                        return Err(bad(
                            path,
                            format!("`/requests/{i}` is not a request"),
                            "write a request as {\"predicate\": \"j\", \"args\": [...], \"authority\": \"A\", \"capability\": \"judgment:A\"}",
                        ));
                    }
                    e.requests.insert(request_key(r));
                }
            }
            ("requests", J::Null) => {}
            (s, v) if SECTIONS.iter().any(|(_, n)| *n == s) => {
                let name = SECTIONS.iter().find(|(_, n)| *n == s).map_or("", |(_, n)| n);
                let rows = e.sections.entry(name).or_default();
                let J::Object(preds) = v else {
                    if v.is_null() {
                        continue;
                    }
                    return Err(bad(
                        path,
                        format!("`{s}` must be an object of predicates"),
                        "write the section as {\"game_drawn\": [[\"g1\"]], …}",
                    ));
                };
                for (lit, rs) in preds {
                    let Some(rs) = rs.as_array().filter(|rs| rs.iter().all(J::is_array)) else {
                        return Err(bad(
                            path,
                            format!(
                                "`{s}/{}` must be an array of rows (arrays)",
                                escape_for_display(lit)
                            ),
                            "write the rows as [[\"g1\", \"white\"], …]",
                        ));
                    };
                    let set = rows.entry(lit.clone()).or_default();
                    set.extend(rs.iter().map(J::to_string));
                }
            }
            (k, _) => {
                return Err(bad(
                    path,
                    format!("unexpected field `{}`", escape_for_display(k)),
                    "an expectation file has `description`, `policy`, `definitely`, `defeasibly`, `supported`, `pending` and `requests` (a string, a policy name, objects and an array)",
                ))
            }
        }
    }
    Ok(e)
}

fn request_key(r: &J) -> String {
    json!({
        "predicate": r["predicate"],
        "args": r["args"],
        "authority": r.get("authority").cloned().unwrap_or(J::Null),
        "capability": r.get("capability").cloned().unwrap_or(J::Null),
    })
    .to_string()
}

/// One scenario of a suite.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `NAME`, the stem its two files share.
    pub name: String,
    /// `NAME.facts.json`, the facts it is evaluated on.
    pub facts: PathBuf,
    /// `NAME.expected.json`, read.
    pub expected: Expected,
}

/// A suite directory, read.
// What the review document does not show (the package, the allow-list) only
// `lawgen test` reads.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
#[derive(Clone, Debug)]
pub struct Suite {
    /// The suite directory, as given.
    pub dir: PathBuf,
    /// Every scenario, sorted by name.
    pub scenarios: Vec<Scenario>,
    /// From `suite.json`: the package (written relative to the suite,
    /// joined to `dir` here).
    pub package: Option<PathBuf>,
    /// From `suite.json`: where its imports are searched for, after the
    /// package's own directory (joined to `dir` like `package`).
    pub import_path: Vec<PathBuf>,
    /// Allow-listed rules (as written) with their reasons.
    pub allowed: Vec<AllowEntry>,
    /// The limits its files are read with: facts files are read when the
    /// scenarios run.
    pub limits: ReadLimits,
}

/// Reads one file of a suite within `limit` bytes: `Ok(None)` when it does
/// not exist and `optional`; an error naming the file otherwise (exit code
/// 2 if it cannot be read, 1 with E090 if it is larger than the limit).
fn read_suite_file(
    path: &Path,
    limit: usize,
    optional: bool,
    help: &str,
) -> Result<Option<Vec<u8>>, SuiteError> {
    match read_limited(path, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(ReadError::Io(e)) if optional && e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(ReadError::Io(e)) => Err(SuiteError {
            code: 2,
            message: format!("error: cannot read {}: {e}", path.display()),
        }),
        Err(ReadError::TooLarge(t)) => Err(too_large(path, t, help)),
    }
}

/// The size error (E090) of a suite file.
fn too_large(path: &Path, t: TooLarge, help: &str) -> SuiteError {
    SuiteError {
        code: 1,
        message: format!(
            "error[E090]: {}: the file is {t}\n  = help: {help}",
            path.display()
        ),
    }
}

const RAISE_FACTS_LIMIT: &str =
    "raise the limit with `--max-facts-bytes` (`ReadLimits::max_facts_bytes`)";
const RAISE_PACKAGE_LIMIT: &str =
    "a suite file is held to the package size limit: raise it with `--max-package-bytes`";

/// Reads the suite in `dir`: every scenario (sorted by name), `suite.json`
/// and the allow-list if present, each file within its limit
/// (expectation files `max_facts_bytes`, the others `max_bytes`).
pub fn discover(dir: &Path, limits: &ReadLimits) -> Result<Suite, SuiteError> {
    let unreadable = |p: &Path, e: std::io::Error| SuiteError {
        code: 2,
        message: format!("error: cannot read {}: {e}", p.display()),
    };
    let entries = std::fs::read_dir(dir).map_err(|e| unreadable(dir, e))?;
    let mut facts = BTreeSet::new();
    let mut expected = BTreeSet::new();
    for e in entries {
        let name = e.map_err(|e| unreadable(dir, e))?.file_name();
        let lossy = name.to_string_lossy();
        let scenario_file = lossy.ends_with(".facts.json") || lossy.ends_with(".expected.json");
        if scenario_file && name.to_str().is_none() {
            return Err(bad(
                &dir.join(&name),
                "the file name is not valid UTF-8",
                "rename the file: a scenario's name is UTF-8 text, shown in every report",
            ));
        }
        let name = lossy;
        if let Some(n) = name.strip_suffix(".facts.json") {
            facts.insert(n.to_owned());
        } else if let Some(n) = name.strip_suffix(".expected.json") {
            expected.insert(n.to_owned());
        }
    }
    if let Some(n) = facts.symmetric_difference(&expected).next() {
        let (has, lacks) = if facts.contains(n) {
            ("facts", "expected")
        } else {
            ("expected", "facts")
        };
        return Err(bad(
            &dir.join(format!("{n}.{has}.json")),
            format!("no {n}.{lacks}.json beside it"),
            "every scenario is a pair: NAME.facts.json and NAME.expected.json",
        ));
    }
    if facts.is_empty() {
        return Err(bad(
            dir,
            "no scenario (NAME.facts.json with NAME.expected.json) in the directory",
            "point `lawgen test` at a directory of scenarios",
        ));
    }
    let mut scenarios = Vec::new();
    for name in facts {
        let path = dir.join(format!("{name}.expected.json"));
        scenarios.push(Scenario {
            facts: dir.join(format!("{name}.facts.json")),
            expected: read_expected_file(&path, limits.max_facts_bytes)?,
            name,
        });
    }
    let (mut package, mut import_path) = (None, Vec::new());
    let suite_file = dir.join(SUITE_FILE);
    if let Some(bytes) = read_suite_file(&suite_file, limits.max_bytes, true, RAISE_PACKAGE_LIMIT)?
    {
        let help = "write {\"package\": \"PATH\", \"importPath\": [\"DIR\", …]}, paths relative to the suite";
        let v: J = serde_json::from_slice(&bytes)
            .map_err(|e| bad(&suite_file, format!("not JSON: {e}"), help))?;
        let Some(m) = v.as_object() else {
            return Err(bad(&suite_file, "must be a JSON object", help));
        };
        for (k, v) in m {
            match (k.as_str(), v) {
                ("package", J::String(p)) => package = Some(dir.join(p)),
                ("importPath", J::Array(ds)) if ds.iter().all(J::is_string) => {
                    import_path = ds
                        .iter()
                        .filter_map(J::as_str)
                        .map(|d| dir.join(d))
                        .collect();
                }
                _ => {
                    return Err(bad(
                        &suite_file,
                        format!("unexpected field `{}` or value", escape_for_display(k)),
                        help,
                    ))
                }
            }
        }
    }
    let mut allowed = Vec::new();
    let allow = dir.join(ALLOW_LIST);
    if let Some(bytes) = read_suite_file(&allow, limits.max_bytes, true, RAISE_PACKAGE_LIMIT)? {
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            bad(
                &allow,
                format!("line {line} is not valid UTF-8 (byte 0x{:02x})", bytes[at]),
                "save the allow-list as UTF-8",
            )
        })?;
        for (i, line) in text.lines().enumerate() {
            // `#` starts a comment at the start of a line or after a blank;
            // inside a word it is part of a full rule id (`urn:x#Rule`).
            let line = match line
                .char_indices()
                .find(|&(k, c)| c == '#' && (k == 0 || line[..k].ends_with(char::is_whitespace)))
            {
                Some((k, _)) => &line[..k],
                None => line,
            }
            .trim();
            if line.is_empty() {
                continue;
            }
            let (rule, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            if reason.trim().is_empty() {
                return Err(bad(
                    &allow,
                    format!(
                        "line {}: `{}` has no reason",
                        i + 1,
                        escape_for_display(rule)
                    ),
                    "write one rule and the reason it cannot be reached by design on each line",
                ));
            }
            allowed.push(AllowEntry {
                line: i + 1,
                rule: rule.to_owned(),
                reason: reason.trim().to_owned(),
            });
        }
    }
    Ok(Suite {
        dir: dir.to_owned(),
        scenarios,
        package,
        import_path,
        allowed,
        limits: *limits,
    })
}

/// Refuses an expectation that names a predicate the package's closure
/// does not declare, or one that is not institutional: the suite compares
/// institutional conclusions only, so such an entry could never be met, and
/// a misspelt name would make a scenario expect nothing of the predicate
/// meant.
pub fn check_expectations(suite: &Suite, loaded: &Loaded) -> Result<(), SuiteError> {
    let cat = &loaded.catalog;
    let help = "name a predicate of the package or its imports (its local name, such as `game_drawn`, or its full id), or remove the entry";
    for s in &suite.scenarios {
        let path = suite.dir.join(format!("{}.expected.json", s.name));
        let check = |at: String, pred: &str, judgment: bool| match cat.pred_by_name(pred) {
            None => Err(bad(
                &path,
                format!(
                    "{at}: {} and its imports declare no predicate `{}`",
                    escape_for_display(&loaded.model.name),
                    escape_for_display(pred)
                ),
                help,
            )),
            Some(p) if !judgment && cat.pred(p).kind != RelationKind::Institutional => Err(bad(
                &path,
                format!(
                    "{at}: `{}` is not an institutional predicate",
                    escape_for_display(pred)
                ),
                "an expectation lists institutional conclusions only: remove the entry",
            )),
            Some(_) => Ok(()),
        };
        for (section, rows) in &s.expected.sections {
            for lit in rows.keys() {
                let pred = lit.strip_prefix('~').unwrap_or(lit);
                check(
                    format!("`{section}/{}`", escape_for_display(lit)),
                    pred,
                    false,
                )?;
            }
        }
        for r in &s.expected.requests {
            let v: J = serde_json::from_str(r).unwrap_or(J::Null);
            let pred = v["predicate"].as_str().unwrap_or_default();
            check("`requests`".to_owned(), pred, true)?;
        }
    }
    Ok(())
}

/// One line of the allow-list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowEntry {
    /// 1-based line number in the allow-list.
    pub line: usize,
    /// The rule as written: a local name or a full id.
    pub rule: String,
    /// Why the rule needs no scenario, as written after the rule.
    pub reason: String,
}

/// A difference between what a scenario expects and what the package says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// `definitely`, …, `requests`.
    pub section: &'static str,
    /// `p(args)` or a request as JSON.
    pub item: String,
    /// Expected but not concluded (`true`), or concluded but not expected.
    pub missing: bool,
}

/// One scenario, run.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The scenario's name.
    pub name: String,
    /// The policy it ran under: its expectation's, or the suite's default.
    pub policy: Policy,
    /// Empty: it passed.
    pub differences: Vec<Difference>,
    /// The facts file or the evaluation failed.
    pub error: Option<String>,
    /// What happened to each rule, when coverage was asked for.
    pub coverage: Option<CaseCoverage>,
    /// Facts of inputs the package deprecates, rendered
    /// (docs/reference.md#deprecated-inputs); empty when there are none.
    pub deprecated: String,
}

impl Outcome {
    /// Whether the scenario was evaluated and every section and the
    /// requests equal its expectation.
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.differences.is_empty()
    }
}

/// Runs every scenario of `suite` on `loaded` (`policy`: the default for
/// expectation files that name none), collecting coverage if asked.
pub fn run(loaded: &Loaded, suite: &Suite, policy: Policy, with_coverage: bool) -> Vec<Outcome> {
    run_with(loaded, suite, policy, with_coverage, false)
}

/// [`run`], where a scenario whose facts state inputs the package
/// deprecates fails with `deny` (`--deny-deprecated`), and otherwise keeps
/// the warnings in [`Outcome::deprecated`].
pub fn run_with(
    loaded: &Loaded,
    suite: &Suite,
    policy: Policy,
    with_coverage: bool,
    deny: bool,
) -> Vec<Outcome> {
    suite
        .scenarios
        .iter()
        .map(|s| {
            run_one(
                loaded,
                s,
                &suite.limits,
                s.expected.policy.unwrap_or(policy),
                with_coverage,
                deny,
            )
        })
        .collect()
}

fn run_one(
    loaded: &Loaded,
    s: &Scenario,
    limits: &ReadLimits,
    policy: Policy,
    with_coverage: bool,
    deny: bool,
) -> Outcome {
    let mut out = Outcome {
        name: s.name.clone(),
        policy,
        differences: Vec::new(),
        error: None,
        coverage: None,
        deprecated: String::new(),
    };
    let facts = read_facts_file(&s.facts, &loaded.catalog, limits).map_err(|e| match e {
        FactsFileError::Invalid(d) => format!(
            "{}{} is not a valid facts file for {}",
            d.render(),
            s.facts.display(),
            loaded.model.name
        ),
        FactsFileError::Io(e) => format!("cannot read {}: {e}", s.facts.display()),
    });
    let facts = facts.and_then(|f| {
        let found = lawgen_runtime::formats::deprecated::check(&loaded.catalog, &f, deny);
        if found.is_empty() {
            Ok(f)
        } else if deny {
            Err(format!(
                "{}{} states inputs {} deprecates",
                found.render(),
                s.facts.display(),
                loaded.model.name
            ))
        } else {
            out.deprecated = found.render();
            Ok(f)
        }
    });
    let ev =
        match facts.and_then(|f| driver::evaluate(loaded, &f, policy).map_err(|e| e.to_string())) {
            Ok(ev) => ev,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
    let cat = &ev.program.catalog;
    for (section, name) in SECTIONS {
        let actual: Rows = ev.conclusions.sections[&section]
            .iter()
            .filter(|(lit, _)| institutional(cat, lit))
            .map(|(lit, rows)| {
                (
                    lit.clone(),
                    rows.iter().map(|r| row_json(r).to_string()).collect(),
                )
            })
            .collect();
        let empty = Rows::new();
        let want = s.expected.sections.get(name).unwrap_or(&empty);
        diff_rows(name, want, &actual, &mut out.differences);
    }
    let actual: BTreeSet<String> = ev
        .conclusions
        .requests
        .iter()
        .map(|r| {
            request_key(&json!({"predicate": r.predicate, "args": row_json(&r.args),
                                "authority": r.authority, "capability": r.capability}))
        })
        .collect();
    for r in s.expected.requests.difference(&actual) {
        out.differences.push(Difference {
            section: "requests",
            item: r.clone(),
            missing: true,
        });
    }
    for r in actual.difference(&s.expected.requests) {
        out.differences.push(Difference {
            section: "requests",
            item: r.clone(),
            missing: false,
        });
    }
    if with_coverage {
        out.coverage = Some(coverage::observe(&ev.program, &ev.store, policy));
    }
    out
}

fn institutional(cat: &Catalog, lit: &str) -> bool {
    cat.pred_by_name(lit.trim_start_matches('~'))
        .is_some_and(|p| cat.pred(p).kind == RelationKind::Institutional)
}

fn row_json(row: &[Value]) -> J {
    J::Array(
        row.iter()
            .map(|v| match v {
                Value::Int(i) => J::from(*i),
                Value::Entity(e) => J::from(e.as_str()),
            })
            .collect(),
    )
}

fn diff_rows(section: &'static str, want: &Rows, got: &Rows, out: &mut Vec<Difference>) {
    let lits: BTreeSet<&String> = want.keys().chain(got.keys()).collect();
    let none = BTreeSet::new();
    for lit in lits {
        let (w, g) = (
            want.get(lit).unwrap_or(&none),
            got.get(lit).unwrap_or(&none),
        );
        let literal = |row: &String| {
            let args: Vec<String> = serde_json::from_str::<Vec<J>>(row)
                .unwrap_or_default()
                .iter()
                .map(|v| match v {
                    J::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            format!("{lit}({})", args.join(", "))
        };
        for row in w.difference(g) {
            out.push(Difference {
                section,
                item: literal(row),
                missing: true,
            });
        }
        for row in g.difference(w) {
            out.push(Difference {
                section,
                item: literal(row),
                missing: false,
            });
        }
    }
}
