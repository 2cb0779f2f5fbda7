//! `--scenarios DIR`: what became of each rule in each scenario of a suite.
//!
//! A suite is a directory of `NAME.facts.json` files (the shape the
//! repository's scenario suites use; `NAME.expected.json` beside them is not
//! read). Each is evaluated with the reference interpreter, and for every
//! rule the page shows the instances of the rule's conclusion — for a
//! defeater, of the conclusion it obstructs — in each section of the
//! canonical output. This is read off the evaluation's conclusions; nothing
//! is derived here. This module is the one place the page's scenario column
//! comes from, so a richer source (per-rule coverage of the evaluated
//! relations) replaces [`Scenarios::collect`] and nothing else.

use super::{DocError, Lang};
use crate::driver::Loaded;
use crate::interp::{self, Policy};
use crate::model::{Term, Value};
use crate::syntax::facts::read_facts;
use crate::syntax::Strength;
use lawgen_runtime::program::{Lit, Section};
use std::collections::BTreeMap;
use std::path::Path;

/// The outcomes of a suite, by rule id.
#[derive(Clone, Debug, Default)]
pub struct Scenarios {
    /// rule id → (scenario, what became of the rule's conclusion there).
    by_rule: BTreeMap<String, Vec<(String, Outcome)>>,
    /// How many scenarios were run.
    pub count: usize,
}

/// What a scenario concluded of one rule's conclusion: the matching rows in
/// each section that has any.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Outcome {
    /// The literal: `game_drawn` or `~game_drawn`.
    lit: String,
    /// The rule is a defeater: `lit` is what it obstructs.
    obstructs: bool,
    sections: Vec<(Section, Vec<String>)>,
}

/// Most rows shown per section.
const MAX_ROWS: usize = 6;

impl Scenarios {
    /// Evaluates every `*.facts.json` of `dir` (sorted by name) on `loaded`
    /// under `policy`.
    pub fn collect(loaded: &Loaded, dir: &Path, policy: Policy) -> Result<Scenarios, DocError> {
        let entries = std::fs::read_dir(dir).map_err(|source| DocError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let mut files = Vec::new();
        for e in entries {
            let e = e.map_err(|source| DocError::Io {
                path: dir.to_owned(),
                source,
            })?;
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".facts.json") {
                files.push((stem.to_owned(), e.path()));
            }
        }
        files.sort();
        let program = crate::lower::lower(&loaded.model)
            .map_err(|e| DocError::Internal(format!("lowering failed: {e}")))?;
        let model = &loaded.model;
        let mut out = Scenarios {
            count: files.len(),
            ..Scenarios::default()
        };
        for (name, path) in files {
            let bytes = std::fs::read(&path).map_err(|source| DocError::Io {
                path: path.clone(),
                source,
            })?;
            let facts =
                read_facts(&bytes, &loaded.catalog).map_err(|diagnostics| DocError::Facts {
                    path: path.clone(),
                    diagnostics,
                })?;
            let store = interp::evaluate(&program, &facts, policy);
            let c = interp::conclusions(&program, &store, policy);
            for r in &model.rules {
                let obstructs = r.strength == Strength::Defeater;
                let lit = Lit {
                    pred: r.head.pred,
                    negative: r.head.negative != obstructs,
                };
                let key = program.catalog.lit_name(lit);
                // Each instance once, in the strongest section it is in (a
                // definite conclusion is also defeasible and supported).
                let mut seen = std::collections::BTreeSet::new();
                let mut sections = Vec::new();
                for (section, preds) in &c.sections {
                    let Some(rows) = preds.get(&key) else {
                        continue;
                    };
                    let shown: Vec<String> = rows
                        .iter()
                        .filter(|row| matches(&r.head.args, row) && seen.insert(row.to_vec()))
                        .map(|row| {
                            let vals: Vec<String> = row.iter().map(value).collect();
                            format!("({})", vals.join(", "))
                        })
                        .collect();
                    if !shown.is_empty() {
                        sections.push((*section, shown));
                    }
                }
                if sections.is_empty() {
                    continue;
                }
                out.by_rule.entry(r.id.clone()).or_default().push((
                    name.clone(),
                    Outcome {
                        lit: key,
                        obstructs,
                        sections,
                    },
                ));
            }
        }
        Ok(out)
    }

    /// The page's lines for rule `id`: (scenario, outcome in `lang`).
    pub(crate) fn outcomes(&self, id: &str, lang: Lang) -> Vec<(String, String)> {
        self.by_rule
            .get(id)
            .into_iter()
            .flatten()
            .map(|(name, o)| (super::verbalize::clean(name), o.render(lang)))
            .collect()
    }
}

impl Outcome {
    fn render(&self, lang: Lang) -> String {
        let lit = super::verbalize::clean(&self.lit);
        let parts: Vec<String> = self
            .sections
            .iter()
            .map(|(s, rows)| {
                let mut shown = rows
                    .iter()
                    .take(MAX_ROWS)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                if rows.len() > MAX_ROWS {
                    shown.push_str(&format!(" … (+{})", rows.len() - MAX_ROWS));
                }
                format!(
                    "{} {}",
                    section_word(*s, lang),
                    super::verbalize::clean(&shown)
                )
            })
            .collect();
        match (lang, self.obstructs) {
            (Lang::Ru, false) => format!("{}: {}", lang.quote(&lit), parts.join("; ")),
            (Lang::Ru, true) => format!(
                "препятствует {}, которое {}",
                lang.quote(&lit),
                parts.join("; ")
            ),
            (Lang::En, false) => format!("{}: {}", lang.quote(&lit), parts.join("; ")),
            (Lang::En, true) => format!(
                "obstructs {}, which is {}",
                lang.quote(&lit),
                parts.join("; ")
            ),
        }
    }
}

fn section_word(s: Section, lang: Lang) -> &'static str {
    match (lang, s) {
        (Lang::Ru, Section::Definitely) => "установлено определённо",
        (Lang::Ru, Section::Defeasibly) => "установлено по общему правилу",
        (Lang::Ru, Section::Supported) => "лишь имеет основания",
        (Lang::Ru, Section::Pending) => "ожидает суждения",
        (Lang::En, Section::Definitely) => "definitely",
        (Lang::En, Section::Defeasibly) => "defeasibly",
        (Lang::En, Section::Supported) => "supported only",
        (Lang::En, Section::Pending) => "pending a judgment",
    }
}

/// Does an output row fit the rule's head (its constants, and a variable
/// that occurs twice bound once)?
fn matches(args: &[Term], row: &[Value]) -> bool {
    if args.len() != row.len() {
        return false;
    }
    let mut bound: Vec<(u32, &Value)> = Vec::new();
    for (a, v) in args.iter().zip(row) {
        match a {
            Term::Value(c) if c != v => return false,
            Term::Value(_) => {}
            Term::Var(x) => match bound.iter().find(|(y, _)| *y == x.0) {
                Some((_, w)) if *w != v => return false,
                Some(_) => {}
                None => bound.push((x.0, v)),
            },
        }
    }
    true
}

fn value(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Entity(e) => e.clone(),
    }
}
