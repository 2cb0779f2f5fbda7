//! `lawgen test DIR`: a suite of hand-derived scenarios as a command, and
//! what the suite covers.
//!
//! The suite is read and run by the library (`lawgen::suite`, which the review
//! document's `--scenarios` runs too); this module adds up the coverage and
//! writes the reports (text, JSON, JUnit).
//!
//! Coverage is read off the same evaluations by
//! [`lawgen_runtime::explain::coverage`]: for every rule of the closure, what
//! happened to it in which scenarios. A rule counts as covered when some
//! scenario concluded it (at any level) or defeated it; a defeater when it
//! blocked something or was defeated; a rule a derogation set aside when its
//! conditions held somewhere (the derogation was exercised). Rules that
//! cannot be reached by design are listed, each with its reason, in the
//! suite's allow-list ([`ALLOW_LIST`]).

use super::{Failure, Inputs, PolicyArg};
use clap::ValueEnum;
use lawgen::diagnostics::escape_for_display;
use lawgen::driver::Loaded;
use lawgen::suite::bad;
pub use lawgen::suite::{
    discover, read_expected, run, run_with, Difference, Expected, Outcome, Scenario, Suite,
    SuiteError, ALLOW_LIST, SUITE_FILE,
};
use lawgen_runtime::program::{Level, PredId, RelationKind};
use serde_json::{json, Value as J};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

/// `lawgen test DIR [--package P] [--coverage] [--min-coverage N] [--format F]`.
#[derive(clap::Args)]
pub struct Args {
    /// The suite directory.
    dir: PathBuf,
    /// The package (default: `package` of DIR/suite.json).
    #[arg(long)]
    package: Option<PathBuf>,
    /// The policy of scenarios whose expectation names none.
    #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
    policy: PolicyArg,
    /// Report coverage: per rule, per priority, per judgment.
    #[arg(long)]
    coverage: bool,
    /// Exit 1 when fewer rules than N% were concluded or defeated (or
    /// allow-listed in DIR/coverage.allow); implies --coverage.
    #[arg(long, value_name = "N")]
    min_coverage: Option<f64>,
    #[arg(long, value_enum, default_value_t = TestFormat::Text)]
    format: TestFormat,
    /// Fail scenarios whose facts state inputs the package deprecates,
    /// instead of warning (docs/reference.md#deprecated-inputs).
    #[arg(long)]
    deny_deprecated: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TestFormat {
    Text,
    Json,
    Junit,
}

/// Runs the suite and prints the results (and the coverage); fails on any
/// failing scenario, or on coverage below `--min-coverage`.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let dir = &args.dir;
    let fail = |e: SuiteError| Failure::new(e.code, e.message);
    let suite = discover(dir, &inputs.limits).map_err(fail)?;
    let Some(package) = args.package.or_else(|| suite.package.clone()) else {
        return Err(Failure::new(
            2,
            format!(
                "error: no package for the suite {}\n  = help: pass `--package PACKAGE`, or name it in {}",
                dir.display(),
                dir.join(SUITE_FILE).display()
            ),
        ));
    };
    let mut import_path = suite.import_path.clone();
    import_path.extend(inputs.import_path.iter().cloned());
    let loaded = lawgen::driver::load_file_with(&package, &inputs.limits, &import_path)?;
    lawgen::suite::check_expectations(&suite, &loaded).map_err(fail)?;
    let min_coverage = args.min_coverage;
    let with_coverage = args.coverage || min_coverage.is_some();
    let outcomes = run_with(
        &loaded,
        &suite,
        args.policy.into(),
        with_coverage,
        args.deny_deprecated,
    );
    for o in outcomes.iter().filter(|o| !o.deprecated.is_empty()) {
        eprint!("in scenario {}:\n{}", o.name, o.deprecated);
    }
    let cov = if with_coverage {
        Some(coverage(&loaded, &suite, &outcomes).map_err(fail)?)
    } else {
        None
    };
    let name = format!("{} {}", loaded.name(), loaded.version());
    match args.format {
        TestFormat::Text => {
            print!("{}", render_results(&outcomes));
            if let Some(c) = &cov {
                print!("{}", render_coverage(c, min_coverage));
            }
        }
        TestFormat::Json => print!("{}", render_json(&name, &outcomes, cov.as_ref())),
        TestFormat::Junit => print!("{}", render_junit(&name, &outcomes)),
    }
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    if failed > 0 {
        return Err(Failure::new(
            1,
            format!("error: {failed} of {} scenarios failed", outcomes.len()),
        ));
    }
    if let (Some(min), Some(c)) = (min_coverage, &cov) {
        if c.percent() < min {
            let missing: Vec<&str> = c
                .rules
                .iter()
                .filter(|r| !r.covered() && r.allowed.is_none())
                .map(|r| r.name.as_str())
                .collect();
            return Err(Failure::new(
                1,
                format!(
                    "error: coverage {:.1}% is below the minimum {min}%: never concluded or defeated: {}\n  = help: add a scenario that reaches each, or list it with its reason in {}",
                    c.percent(),
                    missing.join(", "),
                    dir.join(ALLOW_LIST).display()
                ),
            ));
        }
    }
    Ok(())
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
    /// Per dated edition of the closure (docs/reference.md#as-of-evaluation):
    /// its local name, the day it enters into force, and the indices (into
    /// `rules`) of the rules anchored to it.
    pub editions: Vec<(String, String, Vec<usize>)>,
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
        .map(|(i, p)| (PredId(i as u32), p.local.clone()))
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
                    .entry(j.to_string())
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
                        loaded.name()
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
                        loaded.name(),
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
    let law = &prog_cat.law;
    let editions = law
        .editions
        .iter()
        .enumerate()
        .map(|(e, ed)| {
            let anchored = |anchors: &[lawgen_runtime::program::AnchorInfo]| {
                anchors.iter().any(|a| a.dated == Some(e as u32))
            };
            let of: Vec<usize> = prog_cat
                .rules
                .iter()
                .map(|r| &r.anchors)
                .chain(prog_cat.set_aside.iter().map(|a| &a.rule.anchors))
                .enumerate()
                .filter(|(_, a)| anchored(a))
                .map(|(i, _)| i)
                .collect();
            let from = ed
                .in_force
                .first()
                .map(|d| d.to_string())
                .unwrap_or_default();
            (ed.local.clone(), from, of)
        })
        .collect();
    Ok(Coverage {
        scenarios: outcomes.len(),
        rules,
        priorities,
        judgments,
        editions,
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
    if !c.editions.is_empty() {
        let _ = writeln!(out, "editions:");
        for (ed, from, of) in &c.editions {
            let covered = of.iter().filter(|&&i| c.rules[i].covered()).count();
            let _ = writeln!(
                out,
                "  {} (in force from {from}): {covered} of {} rules concluded or defeated",
                e(ed),
                of.len()
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
    // Per dated edition; left out for a package that dates nothing.
    let coverage = coverage.map(|mut j| {
        if let Some(c) = c.filter(|c| !c.editions.is_empty()) {
            j["editions"] = J::from(
                c.editions
                    .iter()
                    .map(|(ed, from, of)| {
                        json!({
                            "edition": ed, "inForce": from, "rules": of.len(),
                            "covered": of.iter().filter(|&&i| c.rules[i].covered()).count(),
                        })
                    })
                    .collect::<Vec<_>>(),
            );
        }
        j
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
            // Characters XML 1.0 cannot carry at all: controls other than
            // tab and line ends, and the noncharacters U+FFFE and U+FFFF
            // (https://www.w3.org/TR/xml/#charsets).
            c if ((c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
                || matches!(c, '\u{fffe}' | '\u{ffff}') =>
            {
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

#[cfg(test)]
mod tests {
    use super::*;
    use lawgen_runtime::Policy;

    /// XML 1.0 `Char` (https://www.w3.org/TR/xml/#charsets).
    fn is_xml_char(c: char) -> bool {
        matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
    }

    #[test]
    fn junit_carries_no_character_xml_forbids() {
        let outcome = Outcome {
            name: "s\u{fffe}\u{1b}".into(),
            policy: Policy::Blocking,
            differences: vec![Difference {
                section: "definitely",
                item: "p(e\u{ffff}<&>)".into(),
                missing: true,
            }],
            error: Some("e\u{0}\n".into()),
            coverage: None,
            deprecated: String::new(),
        };
        let xml = render_junit("pkg\u{fffe}\u{ffff} 1.0", &[outcome]);
        assert!(xml.chars().all(is_xml_char), "{xml}");
        assert!(
            xml.contains("<testsuite name=\"pkg\\u{fffe}\\u{ffff} 1.0\""),
            "{xml}"
        );
        assert!(
            xml.contains("name=\"s\\u{fffe}\\u{1b} (blocking)\""),
            "{xml}"
        );
        assert!(
            xml.contains(">e\\u{0}\n- definitely: p(e\\u{ffff}&lt;&amp;&gt;)\n</failure>"),
            "{xml}"
        );
    }
}
