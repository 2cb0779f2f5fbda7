//! `lawgen test DIR`: a suite of hand-derived scenarios as a command, and
//! what the suite covers.
//!
//! A suite is a directory of `NAME.facts.json` files, each beside a
//! `NAME.expected.json` that lists the institutional conclusions the law's
//! text gives for those facts, section by section, and the judgment requests
//! (the shape of docs/testing.md#scenario-suites). Each scenario is evaluated
//! by the reference evaluator; a scenario passes when the institutional part
//! of every section and the requests equal the expectation exactly.
//!
//! Coverage is read off the same evaluations by
//! [`lawgen_runtime::explain::coverage`]: for every rule of the closure, what
//! happened to it in which scenarios. A rule counts as covered when some
//! scenario concluded it (at any level) or defeated it; a defeater when it
//! blocked something or was defeated; a rule a derogation set aside when its
//! conditions held somewhere (the derogation was exercised). Rules that
//! cannot be reached by design are listed, each with its reason, in the
//! suite's allow-list ([`ALLOW_LIST`]).

use crate::diagnostics::escape_for_display;
use crate::driver::{self, Loaded};
use crate::program::{Catalog, Level, Section};
use lawgen_runtime::explain::coverage::{self, CaseCoverage};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::program::RelationKind;
use lawgen_runtime::Policy;
use serde_json::{json, Value as J};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
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
    pub message: String,
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn bad(path: &Path, what: impl std::fmt::Display, help: &str) -> SuiteError {
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
pub fn read_expected(path: &Path, bytes: &[u8]) -> Result<Expected, SuiteError> {
    let v: J = serde_json::from_slice(bytes).map_err(|e| {
        bad(
            path,
            format!("not JSON: {e}"),
            "an expectation file is a JSON object with `definitely`, `defeasibly`, `supported`, `pending` and `requests`",
        )
    })?;
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
    pub name: String,
    pub facts: PathBuf,
    pub expected: Expected,
}

/// A suite directory, read.
#[derive(Clone, Debug)]
pub struct Suite {
    pub dir: PathBuf,
    pub scenarios: Vec<Scenario>,
    /// From `suite.json`: the package (relative to the suite) and import path.
    pub package: Option<PathBuf>,
    pub import_path: Vec<PathBuf>,
    /// Allow-listed rules (as written) with their reasons.
    pub allowed: Vec<AllowEntry>,
}

/// Reads the suite in `dir`: every scenario (sorted by name), `suite.json`
/// and the allow-list if present.
pub fn discover(dir: &Path) -> Result<Suite, SuiteError> {
    let unreadable = |p: &Path, e: std::io::Error| SuiteError {
        code: 2,
        message: format!("error: cannot read {}: {e}", p.display()),
    };
    let entries = std::fs::read_dir(dir).map_err(|e| unreadable(dir, e))?;
    let mut facts = BTreeSet::new();
    let mut expected = BTreeSet::new();
    for e in entries {
        let name = e.map_err(|e| unreadable(dir, e))?.file_name();
        let name = name.to_string_lossy();
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
        let bytes = std::fs::read(&path).map_err(|e| unreadable(&path, e))?;
        scenarios.push(Scenario {
            facts: dir.join(format!("{name}.facts.json")),
            expected: read_expected(&path, &bytes)?,
            name,
        });
    }
    let (mut package, mut import_path) = (None, Vec::new());
    let suite_file = dir.join(SUITE_FILE);
    if let Ok(bytes) = std::fs::read(&suite_file) {
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
    if let Ok(text) = std::fs::read_to_string(&allow) {
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
    })
}

/// One line of the allow-list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowEntry {
    /// 1-based line number in the allow-list.
    pub line: usize,
    /// The rule as written: a local name or a full id.
    pub rule: String,
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
#[derive(Clone, Debug)]
pub struct Outcome {
    pub name: String,
    pub policy: Policy,
    /// Empty: it passed.
    pub differences: Vec<Difference>,
    /// The facts file or the evaluation failed.
    pub error: Option<String>,
    pub coverage: Option<CaseCoverage>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.differences.is_empty()
    }
}

/// Runs every scenario of `suite` on `loaded` (`policy`: the default for
/// expectation files that name none), collecting coverage if asked.
pub fn run(loaded: &Loaded, suite: &Suite, policy: Policy, with_coverage: bool) -> Vec<Outcome> {
    suite
        .scenarios
        .iter()
        .map(|s| {
            run_one(
                loaded,
                s,
                s.expected.policy.unwrap_or(policy),
                with_coverage,
            )
        })
        .collect()
}

fn run_one(loaded: &Loaded, s: &Scenario, policy: Policy, with_coverage: bool) -> Outcome {
    let mut out = Outcome {
        name: s.name.clone(),
        policy,
        differences: Vec::new(),
        error: None,
        coverage: None,
    };
    let facts = match std::fs::read(&s.facts) {
        Ok(bytes) => read_facts(&bytes, &loaded.catalog).map_err(|d| {
            format!(
                "{}{} is not a valid facts file for {}",
                d.render(),
                s.facts.display(),
                loaded.model.name
            )
        }),
        Err(e) => Err(format!("cannot read {}: {e}", s.facts.display())),
    };
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

fn row_json(row: &[crate::program::Value]) -> J {
    J::Array(
        row.iter()
            .map(|v| match v {
                crate::program::Value::Int(i) => J::from(*i),
                crate::program::Value::Entity(e) => J::from(e.as_str()),
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

// ---------------------------------------------------------------- coverage

/// What happened to one rule across the suite: the scenarios of each event.
#[derive(Clone, Debug, Default)]
pub struct RuleRecord {
    pub concluded: BTreeMap<Level, BTreeSet<String>>,
    /// `(rule, priority)` local names → scenarios.
    pub defeated: BTreeMap<(String, String), BTreeSet<String>>,
    pub discarded: BTreeSet<String>,
    pub blocked_by: BTreeMap<String, BTreeSet<String>>,
    pub blocks: BTreeSet<String>,
    pub pending: BTreeMap<String, BTreeSet<String>>,
    pub applicable: BTreeSet<String>,
}

/// One line of the coverage report: a rule of the program or set aside.
#[derive(Clone, Debug)]
pub struct RuleLine {
    pub id: String,
    pub name: String,
    pub package: String,
    pub strength: &'static str,
    pub record: RuleRecord,
    /// Set aside: the derogations (local names) and the scenarios where it would have applied.
    pub set_aside: Option<(Vec<String>, BTreeSet<String>)>,
    /// Allow-listed, with the reason.
    pub allowed: Option<String>,
}

impl RuleLine {
    /// Concluded or defeated somewhere (see the module docs).
    pub fn covered(&self) -> bool {
        match &self.set_aside {
            Some((_, would)) => !would.is_empty(),
            None => {
                !self.record.concluded.is_empty()
                    || !self.record.defeated.is_empty()
                    || !self.record.blocks.is_empty()
            }
        }
    }
}

/// The suite's coverage of the closure.
#[derive(Clone, Debug)]
pub struct Coverage {
    pub scenarios: usize,
    pub rules: Vec<RuleLine>,
    /// Priority local name (with its package) → scenarios where it was exercised.
    pub priorities: Vec<(String, String, BTreeSet<String>)>,
    /// Judgment local name → (undecided, yes, no) scenarios.
    pub judgments: Vec<(String, [BTreeSet<String>; 3])>,
}

impl Coverage {
    /// Rules covered or allow-listed, of all rules, in percent.
    pub fn percent(&self) -> f64 {
        if self.rules.is_empty() {
            return 100.0;
        }
        let ok = self
            .rules
            .iter()
            .filter(|r| r.covered() || r.allowed.is_some())
            .count();
        100.0 * ok as f64 / self.rules.len() as f64
    }
}

/// Adds up the coverage of every scenario of `outcomes` (run with coverage).
/// Allow-list entries that name no rule of the closure are an error.
pub fn coverage(
    loaded: &Loaded,
    suite: &Suite,
    outcomes: &[Outcome],
) -> Result<Coverage, SuiteError> {
    let prog_cat = &loaded.catalog;
    let layer = |p: u32| {
        prog_cat
            .packages
            .get(p as usize)
            .cloned()
            .unwrap_or_default()
    };
    let mut rules: Vec<RuleLine> = prog_cat
        .rules
        .iter()
        .map(|r| RuleLine {
            id: r.id.clone(),
            name: r.local.clone(),
            package: layer(r.package),
            strength: r.strength.as_str(),
            record: RuleRecord::default(),
            set_aside: None,
            allowed: None,
        })
        .collect();
    for a in &prog_cat.set_aside {
        let by =
            a.by.iter()
                .map(|&d| prog_cat.derogations[d as usize].local.clone())
                .collect();
        rules.push(RuleLine {
            id: a.rule.id.clone(),
            name: a.rule.local.clone(),
            package: layer(a.rule.package),
            strength: a.rule.strength.as_str(),
            record: RuleRecord::default(),
            set_aside: Some((by, BTreeSet::new())),
            allowed: None,
        });
    }
    let n = prog_cat.rules.len();
    let mut priorities: Vec<(String, String, BTreeSet<String>)> = prog_cat
        .priorities
        .iter()
        .map(|p| (p.local.clone(), layer(p.package), BTreeSet::new()))
        .collect();
    let judgment_preds: Vec<_> = prog_cat
        .preds
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == RelationKind::Judgment)
        .map(|(i, p)| (crate::program::PredId(i as u32), p.local.clone()))
        .collect();
    let mut judgments: Vec<(String, [BTreeSet<String>; 3])> = judgment_preds
        .iter()
        .map(|(_, l)| (l.clone(), Default::default()))
        .collect();
    for o in outcomes {
        let Some(c) = &o.coverage else { continue };
        let name = &o.name;
        for (i, r) in c.rules.iter().enumerate() {
            let rec = &mut rules[i].record;
            for &lv in &r.concluded {
                rec.concluded.entry(lv).or_default().insert(name.clone());
            }
            for &(by, p) in &r.defeated {
                let key = (
                    prog_cat.rule(by).local.clone(),
                    prog_cat.priorities[p as usize].local.clone(),
                );
                rec.defeated.entry(key).or_default().insert(name.clone());
            }
            if r.discarded {
                rec.discarded.insert(name.clone());
            }
            for &d in &r.blocked_by {
                rec.blocked_by
                    .entry(prog_cat.rule(d).local.clone())
                    .or_default()
                    .insert(name.clone());
            }
            if r.blocks {
                rec.blocks.insert(name.clone());
            }
            for j in &r.pending_on {
                rec.pending
                    .entry(j.clone())
                    .or_default()
                    .insert(name.clone());
            }
            if r.applicable {
                rec.applicable.insert(name.clone());
            }
        }
        for (k, &would) in c.set_aside.iter().enumerate() {
            if would {
                if let Some((_, s)) = &mut rules[n + k].set_aside {
                    s.insert(name.clone());
                }
            }
        }
        for (p, &ex) in c.priorities.iter().enumerate() {
            if ex {
                priorities[p].2.insert(name.clone());
            }
        }
        for (k, (pred, _)) in judgment_preds.iter().enumerate() {
            if let Some(seen) = c.judgments.get(pred) {
                for (slot, on) in [seen.undecided, seen.yes, seen.no].into_iter().enumerate() {
                    if on {
                        judgments[k].1[slot].insert(name.clone());
                    }
                }
            }
        }
    }
    let allow = suite.dir.join(ALLOW_LIST);
    for entry in &suite.allowed {
        let rule = &entry.rule;
        // A full id names one rule; a local name may name one in each
        // package of the closure, and then it names none in particular.
        let mut matches: Vec<usize> = (0..rules.len()).filter(|&i| rules[i].id == *rule).collect();
        if matches.is_empty() {
            matches = (0..rules.len())
                .filter(|&i| rules[i].name == *rule)
                .collect();
        }
        match matches[..] {
            [i] => rules[i].allowed = Some(entry.reason.clone()),
            [] => {
                return Err(bad(
                    &allow,
                    format!(
                        "line {}: `{}` is no rule of {}",
                        entry.line,
                        escape_for_display(rule),
                        loaded.model.name
                    ),
                    "name a rule of the package's closure by its local name or full id",
                ))
            }
            _ => {
                let ids: Vec<String> = matches
                    .iter()
                    .map(|&i| {
                        format!(
                            "{} ({})",
                            escape_for_display(&rules[i].id),
                            escape_for_display(&rules[i].package)
                        )
                    })
                    .collect();
                return Err(bad(
                    &allow,
                    format!(
                        "line {}: `{}` names {} rules of the closure of {}: {}",
                        entry.line,
                        escape_for_display(rule),
                        matches.len(),
                        loaded.model.name,
                        ids.join(", ")
                    ),
                    &format!(
                        "write the full id of the rule meant, e.g. `{}`",
                        escape_for_display(&rules[matches[0]].id)
                    ),
                ));
            }
        }
    }
    Ok(Coverage {
        scenarios: outcomes.len(),
        rules,
        priorities,
        judgments,
    })
}

// ---------------------------------------------------------------- reports

fn count(s: &BTreeSet<String>) -> usize {
    s.len()
}

/// The scenario results as text: a line per scenario, the differences of
/// each failure, and a summary line.
pub fn render_results(outcomes: &[Outcome]) -> String {
    let e = escape_for_display;
    let mut out = String::new();
    for o in outcomes {
        if o.passed() {
            let _ = writeln!(out, "ok     {} ({})", e(&o.name), o.policy.as_str());
            continue;
        }
        let _ = writeln!(out, "FAILED {} ({})", e(&o.name), o.policy.as_str());
        if let Some(err) = &o.error {
            for l in err.lines() {
                let _ = writeln!(out, "    {}", e(l));
            }
        }
        for d in &o.differences {
            let _ = writeln!(
                out,
                "    {} {}: {}",
                if d.missing { "-" } else { "+" },
                d.section,
                e(&d.item)
            );
        }
    }
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    let _ = writeln!(
        out,
        "{} scenarios: {} passed, {failed} failed{}",
        outcomes.len(),
        outcomes.len() - failed,
        if failed > 0 {
            " (- expected but not concluded, + concluded but not expected)"
        } else {
            ""
        }
    );
    out
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Definite => "definitely",
        Level::Defeasible => "defeasibly",
        Level::Supported => "supported",
    }
}

/// What happened to a rule, in words, with scenario counts.
fn events(r: &RuleLine) -> String {
    let rec = &r.record;
    let mut parts = Vec::new();
    if let Some((by, would)) = &r.set_aside {
        parts.push(format!(
            "set aside by {}; its conditions held in {}",
            by.join(", "),
            count(would)
        ));
        return parts.join("; ");
    }
    for (lv, s) in &rec.concluded {
        parts.push(format!("{} {}", level_word(*lv), count(s)));
    }
    for ((by, p), s) in &rec.defeated {
        parts.push(format!("defeated by {by} under {p} {}", count(s)));
    }
    for (d, s) in &rec.blocked_by {
        parts.push(format!("blocked by {d} {}", count(s)));
    }
    if !rec.blocks.is_empty() {
        parts.push(format!("blocks {}", count(&rec.blocks)));
    }
    if !rec.discarded.is_empty() {
        parts.push(format!("discarded {}", count(&rec.discarded)));
    }
    // Pending, by judgment (the atoms are in the JSON report).
    let mut by_judgment: BTreeMap<&str, BTreeSet<&String>> = BTreeMap::new();
    for (atom, s) in &rec.pending {
        let j = atom.split('(').next().unwrap_or(atom);
        by_judgment.entry(j).or_default().extend(s);
    }
    for (j, s) in by_judgment {
        parts.push(format!("pending on {j} {}", s.len()));
    }
    if rec.applicable.is_empty() {
        parts.push("never applicable".to_owned());
    }
    parts.join("; ")
}

/// The coverage report as an aligned text table (what the packages' READMEs quote).
pub fn render_coverage(c: &Coverage, min: Option<f64>) -> String {
    let e = escape_for_display;
    let mut out = String::new();
    let covered = c.rules.iter().filter(|r| r.covered()).count();
    let allowed = c
        .rules
        .iter()
        .filter(|r| r.allowed.is_some() && !r.covered())
        .count();
    let _ = writeln!(
        out,
        "coverage: {covered} of {} rules concluded or defeated in {} scenarios, {allowed} allowed by design: {:.1}%{}",
        c.rules.len(),
        c.scenarios,
        c.percent(),
        min.map_or(String::new(), |m| format!(" (minimum {m}%)"))
    );
    let w_name = c
        .rules
        .iter()
        .map(|r| e(&r.name).chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let w_pkg = c
        .rules
        .iter()
        .map(|r| e(&r.package).chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let _ = writeln!(
        out,
        "{:<w_name$}  {:<w_pkg$}  {:<10}  what happened (number of scenarios)",
        "rule", "package", "strength"
    );
    for r in &c.rules {
        let mut what = events(r);
        if let Some(reason) = &r.allowed {
            if r.covered() {
                what.push_str(" [allow-listed but covered: remove it from the allow-list]");
            } else {
                let _ = write!(what, " [allowed: {}]", e(reason));
            }
        }
        let _ = writeln!(
            out,
            "{:<w_name$}  {:<w_pkg$}  {:<10}  {what}",
            e(&r.name),
            e(&r.package),
            r.strength
        );
    }
    if !c.priorities.is_empty() {
        let _ = writeln!(out, "priorities:");
        for (p, pkg, s) in &c.priorities {
            let _ = writeln!(
                out,
                "  {} [{}]: {}",
                e(p),
                e(pkg),
                if s.is_empty() {
                    "never exercised".to_owned()
                } else {
                    format!("exercised in {}", s.len())
                }
            );
        }
    }
    if !c.judgments.is_empty() {
        let _ = writeln!(out, "judgments:");
        for (j, [u, y, n]) in &c.judgments {
            let _ = writeln!(
                out,
                "  {}: undecided in {}, decided yes in {}, decided no in {}",
                e(j),
                u.len(),
                y.len(),
                n.len()
            );
        }
    }
    out
}

/// The results (and coverage) as JSON.
pub fn render_json(package: &str, outcomes: &[Outcome], c: Option<&Coverage>) -> String {
    let scenarios: Vec<J> = outcomes
        .iter()
        .map(|o| {
            json!({
                "name": o.name,
                "policy": o.policy.as_str(),
                "passed": o.passed(),
                "error": o.error,
                "differences": o.differences.iter().map(|d| json!({
                    "section": d.section, "item": d.item,
                    "kind": if d.missing { "missing" } else { "unexpected" },
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let set = |s: &BTreeSet<String>| J::from(s.iter().cloned().collect::<Vec<_>>());
    let coverage = c.map(|c| {
        json!({
            "percent": c.percent(),
            "scenarios": c.scenarios,
            "rules": c.rules.iter().map(|r| json!({
                "id": r.id, "name": r.name, "package": r.package, "strength": r.strength,
                "covered": r.covered(),
                "allowed": r.allowed,
                "setAside": r.set_aside.as_ref().map(|(by, would)| json!({"by": by, "wouldApply": set(would)})),
                "concluded": r.record.concluded.iter().map(|(lv, s)| (level_word(*lv).to_owned(), set(s))).collect::<serde_json::Map<_, _>>(),
                "defeated": r.record.defeated.iter().map(|((by, p), s)| json!({"by": by, "priority": p, "scenarios": set(s)})).collect::<Vec<_>>(),
                "blockedBy": r.record.blocked_by.iter().map(|(d, s)| json!({"defeater": d, "scenarios": set(s)})).collect::<Vec<_>>(),
                "blocks": set(&r.record.blocks),
                "discarded": set(&r.record.discarded),
                "pending": r.record.pending.iter().map(|(j, s)| json!({"on": j, "scenarios": set(s)})).collect::<Vec<_>>(),
                "applicable": set(&r.record.applicable),
            })).collect::<Vec<_>>(),
            "priorities": c.priorities.iter().map(|(p, pkg, s)| json!({"name": p, "package": pkg, "exercised": set(s)})).collect::<Vec<_>>(),
            "judgments": c.judgments.iter().map(|(j, [u, y, n])| json!({"name": j, "undecided": set(u), "yes": set(y), "no": set(n)})).collect::<Vec<_>>(),
        })
    });
    let mut s = serde_json::to_string_pretty(&json!({
        "package": package,
        "scenarios": scenarios,
        "coverage": coverage,
    }))
    .expect("JSON values always serialize");
    s.push('\n');
    s
}

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The results as JUnit XML (one test case per scenario), for CI systems.
pub fn render_junit(package: &str, outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites><testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\">",
        xml(package),
        outcomes.len()
    );
    for o in outcomes {
        let _ = write!(
            out,
            "  <testcase classname=\"{}\" name=\"{} ({})\"",
            xml(package),
            xml(&o.name),
            o.policy.as_str()
        );
        if o.passed() {
            out.push_str("/>\n");
            continue;
        }
        let mut text = o.error.clone().unwrap_or_default();
        for d in &o.differences {
            let _ = writeln!(
                text,
                "{} {}: {}",
                if d.missing { "-" } else { "+" },
                d.section,
                d.item
            );
        }
        let _ = writeln!(
            out,
            "><failure message=\"{} difference(s)\">{}</failure></testcase>",
            o.differences.len(),
            xml(&text)
        );
    }
    out.push_str("</testsuite></testsuites>\n");
    out
}
