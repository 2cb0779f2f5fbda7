//! `--scenarios DIR`: what happened to each rule in each scenario of a suite.
//!
//! The suite is what `lawgen test` runs (`NAME.facts.json` beside
//! `NAME.expected.json`, an expectation's `policy` honoured), and what
//! happened to a rule is `lawgen test --coverage`'s reading of the evaluated
//! relations (`lawgen_runtime::explain::coverage`): concluded and at which
//! level, defeated by which rule under which priority, discarded, blocked by
//! a defeater, obstructing as a defeater, pending on which judgment, set
//! aside by a derogation. Nothing is derived here; this module only words it.

use super::Lang;
use lawgen_runtime::program::Level;
use std::collections::{BTreeMap, BTreeSet};

/// The outcomes of a suite, by rule id.
#[derive(Clone, Debug, Default)]
pub struct Scenarios {
    /// rule id → (scenario, whether it met its expectation, what happened).
    by_rule: BTreeMap<String, Vec<(String, bool, Vec<Event>)>>,
    /// How many scenarios were run.
    pub count: usize,
}

/// One thing that happened to a rule in one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Event {
    /// Its conclusion, at the strongest level it reached.
    Concluded(Level),
    /// Beaten by `rule` under `priority` (local names).
    Defeated { rule: String, priority: String },
    /// As an attacker, it did not apply at the level the policy asks.
    Discarded,
    /// A defeater (local name) kept its conclusion from being established.
    BlockedBy(String),
    /// As a defeater, it kept a conclusion from being established.
    Blocks,
    /// It applies only if open judgments are decided: the requests.
    Pending(Vec<String>),
    /// Its body held, and nothing above happened.
    Applicable,
    /// A derogation set it aside; its body would have held.
    SetAside,
}

impl Scenarios {
    /// Runs the suite in `dir` on `loaded`, with coverage (`policy` for
    /// the scenarios whose expectation names none).
    pub fn collect(
        loaded: &crate::driver::Loaded,
        dir: &std::path::Path,
        policy: lawgen_runtime::Policy,
        limits: &crate::syntax::ReadLimits,
    ) -> Result<Scenarios, super::DocError> {
        use super::DocError;
        use crate::suite;
        let fail = |e: suite::SuiteError| DocError::Suite {
            code: e.code,
            message: e.message,
        };
        let suite = suite::discover(dir, limits).map_err(fail)?;
        suite::check_expectations(&suite, loaded).map_err(fail)?;
        let outcomes = suite::run(loaded, &suite, policy, true);
        let cat = &loaded.catalog;
        let mut out = Scenarios {
            count: outcomes.len(),
            ..Scenarios::default()
        };
        for o in &outcomes {
            if let Some(e) = &o.error {
                return Err(DocError::Suite {
                    code: 1,
                    message: format!("error: scenario {} of {}: {e}", o.name, dir.display()),
                });
            }
            let Some(c) = &o.coverage else { continue };
            for (i, r) in c.rules.iter().enumerate() {
                let mut events = Vec::new();
                if let Some(l) = r.concluded.iter().min() {
                    events.push(Event::Concluded(*l));
                }
                for (by, p) in &r.defeated {
                    events.push(Event::Defeated {
                        rule: cat.rule(*by).local.clone(),
                        priority: cat
                            .priorities
                            .get(*p as usize)
                            .map_or_else(String::new, |p| p.local.clone()),
                    });
                }
                if r.discarded {
                    events.push(Event::Discarded);
                }
                for d in &r.blocked_by {
                    events.push(Event::BlockedBy(cat.rule(*d).local.clone()));
                }
                if r.blocks {
                    events.push(Event::Blocks);
                }
                if !r.pending_on.is_empty() {
                    // Named as the reader finds them: by their text.
                    let on: BTreeSet<String> =
                        r.pending_on.iter().map(ToString::to_string).collect();
                    events.push(Event::Pending(on.into_iter().collect()));
                }
                if events.is_empty() && r.applicable {
                    events.push(Event::Applicable);
                }
                if !events.is_empty() {
                    out.by_rule
                        .entry(cat.rule(i as u32).id.clone())
                        .or_default()
                        .push((o.name.clone(), o.passed(), events));
                }
            }
            for (j, would) in c.set_aside.iter().enumerate() {
                if let (true, Some(s)) = (*would, cat.set_aside.get(j)) {
                    out.by_rule.entry(s.rule.id.clone()).or_default().push((
                        o.name.clone(),
                        o.passed(),
                        vec![Event::SetAside],
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The page's lines for rule `id`: (scenario, what happened, in `lang`).
    pub(crate) fn outcomes(&self, id: &str, lang: Lang) -> Vec<(String, String)> {
        let clean = super::verbalize::clean;
        self.by_rule
            .get(id)
            .into_iter()
            .flatten()
            .map(|(name, passed, events)| {
                let mut what: Vec<String> = events.iter().map(|e| e.render(lang)).collect();
                if !passed {
                    what.push(
                        match lang {
                            Lang::Ru => "сценарий расходится со своим ожидаемым результатом",
                            Lang::En => "the scenario differs from its expected result",
                        }
                        .to_owned(),
                    );
                }
                (clean(name), clean(&what.join("; ")))
            })
            .collect()
    }
}

impl Event {
    fn render(&self, lang: Lang) -> String {
        let q = |s: &str| lang.quote(s);
        match (lang, self) {
            (Lang::Ru, Event::Concluded(Level::Definite)) => {
                "заключение выведено определённо".into()
            }
            (Lang::Ru, Event::Concluded(Level::Defeasible)) => {
                "заключение выведено по общему правилу".into()
            }
            (Lang::Ru, Event::Concluded(Level::Supported)) => {
                "для заключения есть лишь (оспариваемые) основания".into()
            }
            (Lang::Ru, Event::Defeated { rule, priority }) => {
                format!("уступило правилу {} по приоритету {}", q(rule), q(priority))
            }
            (Lang::Ru, Event::Discarded) => "как возражение отброшено".into(),
            (Lang::Ru, Event::BlockedBy(d)) => format!("заключению помешало препятствие {}", q(d)),
            (Lang::Ru, Event::Blocks) => "помешало выводу".into(),
            (Lang::Ru, Event::Pending(j)) => format!("ожидает суждения: {}", j.join(", ")),
            (Lang::Ru, Event::Applicable) => "условия выполнены".into(),
            (Lang::Ru, Event::SetAside) => {
                "не применяется по отступлению, хотя его условия были бы выполнены".into()
            }
            (Lang::En, Event::Concluded(Level::Definite)) => "concluded definitely".into(),
            (Lang::En, Event::Concluded(Level::Defeasible)) => "concluded defeasibly".into(),
            (Lang::En, Event::Concluded(Level::Supported)) => {
                "its conclusion has (contestable) grounds only".into()
            }
            (Lang::En, Event::Defeated { rule, priority }) => {
                format!(
                    "defeated by rule {} under priority {}",
                    q(rule),
                    q(priority)
                )
            }
            (Lang::En, Event::Discarded) => "discarded as an attacker".into(),
            (Lang::En, Event::BlockedBy(d)) => format!("blocked by the obstacle {}", q(d)),
            (Lang::En, Event::Blocks) => "obstructed a conclusion".into(),
            (Lang::En, Event::Pending(j)) => format!("pending on: {}", j.join(", ")),
            (Lang::En, Event::Applicable) => "its conditions held".into(),
            (Lang::En, Event::SetAside) => {
                "set aside by a derogation, though its conditions would have held".into()
            }
        }
    }
}
