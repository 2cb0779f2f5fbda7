//! One `lawgen analyze` invocation: the queries of the command line (or a
//! properties file) answered over one encoding, and the report.

use super::domain::Named;
use super::pattern::{parse_goal, Goal};
use super::properties::{self, Expect};
use super::render::{facts_line, outcome_json, size_words, witness_text};
use super::{Analysis, Error, Options, Outcome};
use crate::{internal, read_other_input, Failure, Inputs, PolicyArg};
use lawgen_runtime::program::{Program, Section, Strength};
use lawgen_runtime::text::Shown;
use serde_json::{json, Value as J};
use std::path::PathBuf;
use std::time::Instant;

/// `lawgen analyze PACKAGE` with the questions to answer.
#[derive(clap::Args)]
pub struct Args {
    package: PathBuf,
    /// Fresh entities of each type besides the package's constants.
    #[arg(long, default_value_t = 2)]
    bound: usize,
    /// Each integer constant c of the rules brings c-N..=c+N.
    #[arg(long, default_value_t = 1)]
    spread: u32,
    #[arg(long, value_enum, default_value_t = PolicyArg::Blocking)]
    policy: PolicyArg,
    /// Two literals concluded for one binding: `--exclusive 'game_drawn(G)' 'game_lost_by(G, _)'`.
    #[arg(long, num_args = 2, value_names = ["LIT", "LIT"], action = clap::ArgAction::Append)]
    exclusive: Vec<String>,
    /// A conjunction `LIT, not LIT, …` that some input reaches.
    #[arg(long, value_name = "GOAL")]
    goal: Vec<String>,
    /// The section literals are read from: definitely, defeasibly (the default), supported, pending.
    #[arg(long)]
    level: Option<String>,
    /// An input under which the rule applies and concludes its head.
    #[arg(long, value_name = "RULE")]
    reachable: Vec<String>,
    /// Every rule: list those that can never apply, or never conclude.
    #[arg(long)]
    unreachable: bool,
    /// The fewest facts that conclude the literal.
    #[arg(long, value_name = "LIT")]
    requires: Vec<String>,
    /// Another package (often one this package imports): for each
    /// institutional literal, an input on which the two disagree.
    #[arg(long, value_name = "OTHER")]
    compare: Option<PathBuf>,
    /// Named properties (JSON, or the text form); exit 1 on a violation.
    #[arg(long, value_name = "FILE")]
    properties: Option<PathBuf>,
    /// Keep the first witness found instead of the one with fewest facts.
    #[arg(long)]
    no_minimize: bool,
    /// Seconds minimizing one witness may take (past them the smallest
    /// found so far is shown, not claimed to be the fewest).
    #[arg(long, default_value_t = 20.0, value_parser = parse_seconds)]
    minimize_seconds: f64,
    /// Seconds the whole analysis may take; past them it stops with an
    /// error, never a partial answer.
    #[arg(long, default_value_t = 600.0, value_parser = parse_seconds)]
    max_seconds: f64,
    /// Language of explanations (`en`, `ru`).
    #[arg(long, default_value = "en")]
    lang: String,
    /// Print the answers as JSON.
    #[arg(long)]
    json: bool,
    /// The date of the cases: what is in force is the law as of it
    /// (default: the package's current date).
    #[arg(long, value_name = "DATE")]
    as_of: Option<String>,
    /// For each institutional literal, an input on which the verdict
    /// differs between two dates, and the rules entering or leaving force
    /// that decide it.
    #[arg(long, num_args = 2, value_names = ["D1", "D2"])]
    compare_dates: Vec<String>,
}

/// Answers the questions and prints the report; fails when a property is
/// violated.
pub fn command(args: Args, inputs: &Inputs) -> Result<(), Failure> {
    let fail = |e: Error| Failure::new(e.code, e.to_string());
    let loaded = inputs.load(&args.package)?;
    let program = lawgen::driver::lower(&loaded).map_err(internal)?;
    let other = match &args.compare {
        Some(p) => {
            let l = inputs.load(p)?;
            Some(lawgen::driver::lower(&l).map_err(internal)?)
        }
        None => None,
    };
    let dates = super::dates::parse_args(
        &program,
        args.as_of.as_deref(),
        &args.compare_dates,
        other.is_some(),
    )
    .map_err(fail)?;
    let properties = match args.properties {
        Some(p) => {
            let help = "a properties file is held to the package size limit: raise it with `--max-package-bytes`";
            let bytes = read_other_input(&p, inputs.limits.max_bytes, help)?;
            Some((p.display().to_string(), bytes))
        }
        None => None,
    };
    let req = Request {
        exclusive: args
            .exclusive
            .chunks(2)
            .map(|c| (c[0].clone(), c[1].clone()))
            .collect(),
        goals: args.goal,
        level: args
            .level
            .map(|l| super::pattern::parse_level(&l))
            .transpose()
            .map_err(|m| fail(Error::usage(m)))?,
        reachable: args.reachable,
        unreachable: args.unreachable,
        requires: args.requires,
        compare: other.is_some(),
        compare_dates: dates.compare,
        properties,
        json: args.json,
    };
    let opts = Options {
        bound: super::domain::Bound {
            entities: args.bound,
            spread: args.spread,
        },
        policy: args.policy.into(),
        minimize: !args.no_minimize,
        symmetry: true,
        lang: args.lang,
        minimize_seconds: args.minimize_seconds,
        explain: true,
        max_seconds: Some(args.max_seconds),
        as_of: dates.as_of,
    };
    let report = run(&program, other.as_ref(), &req, &opts).map_err(fail)?;
    // The text names predicates and shows package strings: every line goes
    // through `text`, so none reaches the terminal raw.
    for line in report.text.split_inclusive('\n') {
        let (body, end) = line.split_at(line.trim_end_matches('\n').len());
        print!("{}{end}", Shown(body));
    }
    if report.code != 0 {
        return Err(Failure::new(
            report.code,
            "error: a property is violated (its witness is above)",
        ));
    }
    Ok(())
}

/// A number of seconds, 0 or more: `0` leaves no time (the first witness
/// found is shown, not minimized), `inf` or more than a clock holds no limit.
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    let bad = || {
        format!("`{s}` is not a number of seconds: give a number of seconds, 0 or more, such as 20 or 0.5 (`inf` for no limit)")
    };
    let x: f64 = s.trim().parse().map_err(|_| bad())?;
    // NaN is not `>= 0`.
    if x >= 0.0 {
        Ok(x)
    } else {
        Err(bad())
    }
}

/// What to ask.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// `--exclusive A B`, each pair.
    pub exclusive: Vec<(String, String)>,
    /// `--goal 'LIT, …'`.
    pub goals: Vec<String>,
    /// `--level`: the section `--goal`, `--exclusive` and `--requires` read.
    pub level: Option<Section>,
    /// `--reachable RULE`.
    pub reachable: Vec<String>,
    /// `--unreachable`: every rule, listing those that never apply or never conclude.
    pub unreachable: bool,
    /// `--requires 'LIT'`.
    pub requires: Vec<String>,
    /// `--compare OTHER` (the other program is passed to [`run`]).
    pub compare: bool,
    /// `--compare-dates D1 D2`: the program against itself, as of each date.
    pub compare_dates: Option<(lawgen_runtime::law::Date, lawgen_runtime::law::Date)>,
    /// `--properties FILE`: its name and bytes.
    pub properties: Option<(String, Vec<u8>)>,
    pub json: bool,
}

/// The report and the exit code (0 answered; 1 a property is violated).
pub struct Report {
    pub text: String,
    pub code: u8,
}

enum Ask {
    Goal { title: String, goal: Goal },
    Requires { title: String, goal: Goal },
    Reachable(u32),
    Property(properties::Property),
}

fn find_rule(prog: &Program, name: &str) -> Result<u32, Error> {
    let cat = &prog.catalog;
    if let Some(i) = cat
        .rules
        .iter()
        .position(|r| r.local == name || r.id == name)
    {
        return Ok(i as u32);
    }
    let close: Vec<&str> = cat
        .rules
        .iter()
        .filter(|r| r.local.to_lowercase().contains(&name.to_lowercase()))
        .map(|r| r.local.as_str())
        .take(5)
        .collect();
    let hint = if close.is_empty() {
        "`lawgen check PACKAGE` lists the rules".to_owned()
    } else {
        format!("did you mean {}?", close.join(", "))
    };
    Err(Error::usage(format!(
        "unknown rule `{name}` in {}\n  = help: name a rule by its local name or full id; {hint}",
        prog.package
    )))
}

/// Answers `req` on `prog` (and `other`, for `--compare`).
pub fn run(
    prog: &Program,
    other: Option<&Program>,
    req: &Request,
    opts: &Options,
) -> Result<Report, Error> {
    let cat = &prog.catalog;
    let level = req.level.unwrap_or(Section::Defeasibly);
    let mut asks = Vec::new();
    let usage = |m: String| Error::usage(m);
    for (a, b) in &req.exclusive {
        let goal = parse_goal(cat, &format!("{a}, {b}"), level).map_err(usage)?;
        if goal.items.len() != 2 || goal.items.iter().any(|(n, _)| *n) {
            return Err(Error::usage(
                "`--exclusive` takes two literals without `not`\n  = help: use `--goal` for other conjunctions".into(),
            ));
        }
        asks.push(Ask::Goal {
            title: format!("exclusive {}", goal.show(cat)),
            goal,
        });
    }
    for g in &req.goals {
        let goal = parse_goal(cat, g, level).map_err(usage)?;
        asks.push(Ask::Goal {
            title: format!("goal {}", goal.show(cat)),
            goal,
        });
    }
    for g in &req.requires {
        let goal = parse_goal(cat, g, level).map_err(usage)?;
        if goal.items.len() != 1 || goal.items[0].0 {
            return Err(Error::usage(
                "`--requires` takes one literal\n  = help: write it like `--requires 'game_drawn(G)'`".into(),
            ));
        }
        asks.push(Ask::Requires {
            title: format!("requires {}", goal.show(cat)),
            goal,
        });
    }
    for r in &req.reachable {
        asks.push(Ask::Reachable(find_rule(prog, r)?));
    }
    if let Some((file, bytes)) = &req.properties {
        let json = file.ends_with(".json");
        for spec in properties::read(bytes, json, file)? {
            asks.push(Ask::Property(properties::resolve(&spec, cat, file)?));
        }
    }
    let mut named = Named::default();
    for a in &asks {
        match a {
            Ask::Goal { goal, .. } | Ask::Requires { goal, .. } => {
                goal.name_values(cat, &mut named)
            }
            Ask::Property(p) => p.goal.name_values(cat, &mut named),
            Ask::Reachable(_) => {}
        }
    }
    if asks.is_empty() && !req.unreachable && !req.compare && req.compare_dates.is_none() {
        return Err(Error::usage(
            "no query: give --exclusive, --goal, --reachable, --unreachable, --requires, --compare, --compare-dates or --properties".into(),
        ));
    }
    let mut opts = opts.clone();
    if let Some((d1, d2)) = req.compare_dates {
        opts.as_of = vec![Some(d1), Some(d2)];
    }
    let opts = &opts;
    let started = Instant::now();
    let progs: Vec<&Program> = match (req.compare, other) {
        _ if req.compare_dates.is_some() => vec![prog, prog],
        (true, Some(o)) => vec![prog, o],
        (true, None) => return Err(Error::usage("`--compare` needs the other package".into())),
        _ => vec![prog],
    };
    let names: Vec<String> = progs
        .iter()
        .enumerate()
        .map(|(i, p)| match opts.as_of.get(i).copied().flatten() {
            Some(d) => format!("{} {} as of {d}", Shown(&p.package), Shown(&p.version)),
            None => format!("{} {}", Shown(&p.package), Shown(&p.version)),
        })
        .collect();
    let mut an = Analysis::new(&progs, opts.clone(), &named)?;
    if let Some(secs) = opts.max_seconds {
        an.enc.sat.deadline = std::time::Duration::try_from_secs_f64(secs.max(0.0))
            .ok()
            .and_then(|d| started.checked_add(d));
        if an.enc.sat.past_deadline() {
            return Err(Error::time_limit(secs));
        }
    }
    let (atoms, insts, vars, clauses) = an.size();
    let mut text = format!(
        "lawgen analyze {} (policy {}; {})\nencoding: {atoms} ground atoms, {insts} rule instances, {vars} variables, {clauses} clauses ({:.2} s)\n",
        names.join(" against "),
        opts.policy.as_str(),
        an.dom.describe(),
        started.elapsed().as_secs_f64()
    );
    let mut answers: Vec<J> = Vec::new();
    let mut violated: Vec<String> = Vec::new();
    let (mut held, mut props) = (0usize, 0usize);
    let none_words = "none within the bound: the encoding is unsatisfiable, so no input within the bound has it (a proof, not a failed search)";
    for a in &asks {
        let t = Instant::now();
        match a {
            Ask::Goal { title, goal } | Ask::Requires { title, goal } => {
                let requires = matches!(a, Ask::Requires { .. });
                let o = if requires {
                    an.requires(goal)?
                } else {
                    an.goal(goal)?
                };
                let secs = t.elapsed().as_secs_f64();
                text.push_str(&format!("\n== {title} ({})\n", level_word(goal.section)));
                match &o {
                    Outcome::None => text.push_str(&format!("{none_words} ({secs:.2} s)\n")),
                    Outcome::Witness(w) => {
                        let what = if requires && w.minimum {
                            "a minimal set of facts: dropping any one of them loses it, checked"
                        } else if requires {
                            "the smallest set of facts found before `--minimize-seconds` ran out, not proved minimal; checked by the reference evaluator"
                        } else {
                            "checked by the reference evaluator"
                        };
                        text.push_str(&format!(
                            "WITNESS, {}; {what} ({secs:.2} s)\n",
                            size_words(w)
                        ));
                        text.push_str(&witness_text(w, &names));
                    }
                }
                let mut j = outcome_json(&o);
                j["query"] = J::from(title.as_str());
                j["seconds"] = J::from(secs);
                answers.push(j);
            }
            Ask::Reachable(r) => {
                let reach = an.reachable(*r)?;
                let secs = t.elapsed().as_secs_f64();
                let info = cat.rule(*r);
                text.push_str(&format!(
                    "\n== reachable {} ({})\n",
                    info.local,
                    info.strength.as_str()
                ));
                reach_text(&mut text, &reach, &names, secs, none_words);
                let mut j = json!({
                    "query": format!("reachable {}", info.local),
                    "no_effect": reach.no_effect,
                    "seconds": secs,
                });
                // A rule without effect is not analysed: nothing says
                // whether its body holds, so no `applies` answer is given.
                if !reach.no_effect {
                    j["applies"] = outcome_json(&reach.applies);
                }
                if let Some(c) = &reach.concludes {
                    j["concludes"] = outcome_json(c);
                }
                answers.push(j);
            }
            Ask::Property(p) => {
                props += 1;
                let o = an.goal(&p.goal)?;
                let secs = t.elapsed().as_secs_f64();
                let kind = if p.spec.exclusive {
                    "exclusive"
                } else if p.spec.expect == Expect::Never {
                    "never"
                } else {
                    "possible"
                };
                text.push_str(&format!(
                    "\n== property {} ({kind}: {}; {})\n",
                    p.spec.name,
                    p.goal.show(cat),
                    level_word(p.goal.section)
                ));
                if let Some(d) = &p.spec.description {
                    text.push_str(&format!("{d}\n"));
                }
                let ok = match (&o, p.spec.expect) {
                    (Outcome::None, Expect::Never) => {
                        text.push_str(&format!("HOLDS: {none_words} ({secs:.2} s)\n"));
                        true
                    }
                    (Outcome::Witness(w), Expect::Never) => {
                        text.push_str(&format!(
                            "VIOLATED: a witness with {}, checked by the reference evaluator ({secs:.2} s)\n",
                            size_words(w)
                        ));
                        text.push_str(&witness_text(w, &names));
                        false
                    }
                    (Outcome::Witness(w), Expect::Possible) => {
                        text.push_str(&format!(
                            "HOLDS: a witness with {} ({secs:.2} s): {}\n",
                            size_words(w),
                            facts_line(&w.facts[0], cat)
                        ));
                        true
                    }
                    (Outcome::None, Expect::Possible) => {
                        text.push_str(&format!(
                            "VIOLATED: no input within the bound reaches it; the encoding is unsatisfiable ({secs:.2} s)\n"
                        ));
                        false
                    }
                };
                if ok {
                    held += 1;
                } else {
                    violated.push(p.spec.name.clone());
                }
                let mut j = outcome_json(&o);
                j["property"] = J::from(p.spec.name.as_str());
                j["holds"] = J::from(ok);
                j["seconds"] = J::from(secs);
                answers.push(j);
            }
        }
    }
    if req.unreachable {
        let t = Instant::now();
        let (s, j) = unreachable(&mut an, &names)?;
        text.push_str(&s);
        text.push_str(&format!(
            "({} rules, {:.2} s)\n",
            cat.rules.len(),
            t.elapsed().as_secs_f64()
        ));
        answers.push(j);
    }
    if req.compare {
        let t = Instant::now();
        let rows = an.compare()?;
        let secs = t.elapsed().as_secs_f64();
        text.push_str(&format!("\n== compare {} with {}\n", names[0], names[1]));
        text.push_str(&format!(
            "| literal | differs on | {} | {} | witness |\n|---|---|---|---|---|\n",
            names[0], names[1]
        ));
        let mut js = Vec::new();
        for row in &rows {
            match (&row.outcome, &row.differs) {
                (Outcome::Witness(w), Some((ground, va, vb))) => text.push_str(&format!(
                    "| `{}` | `{ground}` | {va} | {vb} | {} |\n",
                    row.lit,
                    facts_line(&w.facts[0], cat)
                )),
                _ => text.push_str(&format!(
                    "| `{}` | none within the bound | | | |\n",
                    row.lit
                )),
            }
            let mut j = outcome_json(&row.outcome);
            j["literal"] = J::from(row.lit.as_str());
            if let Some((g, va, vb)) = &row.differs {
                j["ground"] = J::from(g.as_str());
                j["here"] = J::from(va.as_str());
                j["there"] = J::from(vb.as_str());
            }
            js.push(j);
        }
        text.push_str(&format!("({} literals, {secs:.2} s)\n", rows.len()));
        for row in &rows {
            if let Outcome::Witness(w) = &row.outcome {
                text.push_str(&format!("\n-- {}\n", row.lit));
                text.push_str(&witness_text(w, &names));
            }
        }
        answers.push(json!({"query": "compare", "literals": js, "seconds": secs}));
    }
    if let Some((d1, d2)) = req.compare_dates {
        let t = Instant::now();
        let (s, mut j) = super::dates::report(&mut an, d1, d2)?;
        let secs = t.elapsed().as_secs_f64();
        text.push_str(&s);
        text.push_str(&format!("({secs:.2} s)\n"));
        j["seconds"] = J::from(secs);
        answers.push(j);
    }
    if props > 0 {
        text.push_str(&format!(
            "\n{props} properties: {held} hold, {} violated{}\n",
            violated.len(),
            if violated.is_empty() {
                String::new()
            } else {
                format!(" ({})", violated.join(", "))
            }
        ));
    }
    let code = if violated.is_empty() { 0 } else { 1 };
    if req.json {
        let doc = json!({
            "package": prog.package,
            "version": prog.version,
            "policy": opts.policy.as_str(),
            "bound": {
                "entities": opts.bound.entities,
                "spread": opts.bound.spread,
                "integers": an.dom.int_values(),
                "types": an.dom.types.iter().map(|t| json!({
                    "type": t.id,
                    "members": t.members.iter().map(|&m| an.dom.values.value(m).to_string()).collect::<Vec<_>>(),
                    "fresh": t.fresh.iter().map(|&m| an.dom.values.value(m).to_string()).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            },
            "answers": answers,
            "violated": violated,
        });
        return Ok(Report {
            text: format!("{doc:#}\n"),
            code,
        });
    }
    Ok(Report { text, code })
}

fn level_word(s: Section) -> &'static str {
    s.as_str()
}

fn reach_text(
    text: &mut String,
    reach: &super::Reach,
    names: &[String],
    secs: f64,
    none_words: &str,
) {
    if reach.no_effect {
        text.push_str(&format!(
            "NO EFFECT: the literal it attacks has no rule concluding it, so nothing reads its body ({secs:.2} s)\n"
        ));
        return;
    }
    match &reach.applies {
        Outcome::None => text.push_str(&format!("NEVER APPLIES: {none_words} ({secs:.2} s)\n")),
        Outcome::Witness(w) => match &reach.concludes {
            Some(Outcome::None) => {
                text.push_str(&format!(
                    "APPLIES, BUT NEVER CONCLUDES its head within the bound (the encoding is unsatisfiable); where it applies, with {} ({secs:.2} s):\n",
                    size_words(w)
                ));
                text.push_str(&witness_text(w, names));
            }
            Some(Outcome::Witness(c)) => {
                text.push_str(&format!(
                    "CONCLUDES: a witness with {}, checked by the reference evaluator ({secs:.2} s)\n",
                    size_words(c)
                ));
                text.push_str(&witness_text(c, names));
            }
            None => {
                text.push_str(&format!(
                    "APPLIES: a witness with {}, checked by the reference evaluator ({secs:.2} s)\n",
                    size_words(w)
                ));
                text.push_str(&witness_text(w, names));
            }
        },
    }
}

/// `--unreachable`: every rule, with the ones that never apply or never
/// conclude listed.
fn unreachable(an: &mut Analysis, _names: &[String]) -> Result<(String, J), Error> {
    let cat = an.progs[0].catalog.clone();
    let (mut never, mut no_concl, mut no_effect, mut fine) = (vec![], vec![], vec![], 0usize);
    let mut js = Vec::new();
    // Witnesses are not minimized here: only whether one exists matters.
    let saved = (an.opts.minimize, an.opts.explain);
    an.opts.minimize = false;
    an.opts.explain = false;
    let result = (|| -> Result<(), Error> {
        let started = Instant::now();
        let mut shown = started;
        for (r, info) in cat.rules.iter().enumerate() {
            // A long run says how far it is, on stderr.
            if shown.elapsed().as_secs() >= 5 {
                shown = Instant::now();
                eprintln!(
                    "lawgen analyze --unreachable: {r} of {} rules ({:.0} s)",
                    cat.rules.len(),
                    started.elapsed().as_secs_f64()
                );
            }
            if an.enc.sat.past_deadline() {
                return Err(an.gave_up());
            }
            let reach = an.reachable(r as u32)?;
            let name = format!("{} ({})", info.local, info.strength.as_str());
            let status = if reach.no_effect {
                no_effect.push(name);
                "no effect"
            } else if reach.applies.witness().is_none() {
                never.push(name);
                "never applies"
            } else if matches!(reach.concludes, Some(Outcome::None)) {
                let w = reach
                    .applies
                    .witness()
                    .map(|w| facts_line(&w.facts[0], &cat));
                no_concl.push(format!("{name}: applies under {}", w.unwrap_or_default()));
                "applies, never concludes"
            } else {
                fine += 1;
                if info.strength == Strength::Defeater {
                    "applies"
                } else {
                    "concludes"
                }
            };
            js.push(json!({"rule": info.local, "status": status}));
        }
        Ok(())
    })();
    (an.opts.minimize, an.opts.explain) = saved;
    result?;
    let mut s = "\n== rules that can never apply, or never conclude, within the bound\n".to_owned();
    let list = |s: &mut String, title: &str, xs: &[String]| {
        s.push_str(&format!("{title}: {}\n", xs.len()));
        for x in xs {
            s.push_str(&format!("  {x}\n"));
        }
    };
    list(&mut s, "never apply (a proof within the bound)", &never);
    list(
        &mut s,
        "apply, but never conclude their head (a proof within the bound)",
        &no_concl,
    );
    list(
        &mut s,
        "no effect (defeaters of a literal no rule concludes)",
        &no_effect,
    );
    s.push_str(&format!(
        "every other rule ({fine}) applies, and concludes if it is not a defeater, under some input\n"
    ));
    Ok((s, json!({"query": "unreachable", "rules": js})))
}
