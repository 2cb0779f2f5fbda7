//! `chess-arbiter [--json] [--policy blocking|propagating] SCENARIO`
//!
//! SCENARIO is the name of a bundled scenario (`chess-arbiter --list`) or the
//! path of a facts file (docs/reference.md#facts-files). Exit codes: 0 success, 1 unreadable or
//! invalid facts, 2 usage.

use chess_arbiter::{
    evaluate, findings, render, render_competition, scenario, RU_SCENARIOS, SCENARIOS,
};
use lawgen_runtime::Policy;
use std::process::ExitCode;

const USAGE: &str = "\
usage: chess-arbiter [--json] [--policy blocking|propagating] [--package fide|ru] [--lang LANG] SCENARIO
       chess-arbiter [--list]

SCENARIO is a bundled scenario (see --list) or the path of a facts file
(docs/reference.md#facts-files; write ./NAME for a file named like a bundled scenario).

  --json                 print the canonical conclusions (docs/reference.md#the-canonical-output) instead of the report
  --policy POLICY        conflict policy: blocking (default) or propagating
  --package fide|ru      the FIDE Laws (default), or the Russian competition rules
                         that import them (a ru-* scenario picks ru by itself)
  --lang LANG            language of the explanations (ru, en; default: ru for the
                         competition rules, en for the FIDE Laws)
  --list                 list the bundled scenarios
  -h, --help             print this help";

enum Command {
    List,
    Help,
    Run {
        json: bool,
        policy: Policy,
        scenario: String,
        russian: bool,
        lang: Option<String>,
    },
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut json = false;
    let mut policy = Policy::Blocking;
    let mut russian = None;
    let mut lang = None;
    let mut scenario = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list" => return Ok(Command::List),
            "-h" | "--help" => return Ok(Command::Help),
            "--json" => json = true,
            "--package" => {
                russian = Some(match args.next().as_deref() {
                    Some("fide") => false,
                    Some("ru") => true,
                    Some(other) => return Err(format!("unknown package `{other}`: fide or ru")),
                    None => return Err("--package needs a value: fide or ru".into()),
                })
            }
            "--lang" => lang = Some(args.next().ok_or("--lang needs a value, e.g. ru")?),
            "--policy" => {
                let value = args
                    .next()
                    .ok_or("--policy needs a value: blocking or propagating")?;
                policy = value.parse()?;
            }
            _ if arg.starts_with("--policy=") => policy = arg["--policy=".len()..].parse()?,
            _ if arg.starts_with('-') && arg != "-" => {
                return Err(format!("unknown option `{arg}`"))
            }
            _ if scenario.is_some() => {
                return Err(format!("unexpected argument `{arg}`: give one scenario"))
            }
            _ => scenario = Some(arg),
        }
    }
    Ok(match scenario {
        None => Command::List,
        Some(scenario) => Command::Run {
            json,
            policy,
            russian: russian.unwrap_or_else(|| RU_SCENARIOS.iter().any(|s| s.name == scenario)),
            scenario,
            lang,
        },
    })
}

fn list() {
    println!("Bundled scenarios (run `chess-arbiter NAME`):");
    let width = SCENARIOS
        .iter()
        .chain(RU_SCENARIOS)
        .map(|s| s.name.len())
        .max()
        .unwrap_or(0);
    for s in SCENARIOS {
        println!("  {:width$}  {}", s.name, s.description);
    }
    println!("The Russian competition rules (explained in Russian):");
    for s in RU_SCENARIOS {
        println!("  {:width$}  {}", s.name, s.description);
    }
}

fn run(
    json: bool,
    policy: Policy,
    name: &str,
    russian: bool,
    lang: Option<&str>,
) -> Result<(), String> {
    let (title, bytes) = match scenario(name) {
        Some(s) => (
            format!("Scenario `{}`: {}", s.name, s.description),
            s.facts.as_bytes().to_vec(),
        ),
        None => {
            let bytes = std::fs::read(name).map_err(|e| {
                format!(
                    "cannot read the facts file `{name}`: {e}\n\
                     (it is not a bundled scenario either; `chess-arbiter --list` lists them)"
                )
            })?;
            (format!("Facts file {name}"), bytes)
        }
    };
    let context = |e: lawgen_runtime::Error| format!("{name}: {e}");
    if russian {
        if json {
            let c = chess_arbiter::ru_chess_competition::Facts::from_json(&bytes)
                .and_then(|f| f.evaluate(policy))
                .map_err(context)?;
            print!("{}", c.to_json().map_err(context)?);
        } else {
            let lang = lang.unwrap_or("ru");
            print!(
                "{}",
                render_competition(&title, &bytes, policy, lang).map_err(context)?
            );
        }
        return Ok(());
    }
    if lang.is_some_and(|l| l != "en") {
        return Err(
            "the FIDE report is in English; --lang applies to the competition rules (--package ru)"
                .into(),
        );
    }
    let (_, conclusions) = evaluate(&bytes, policy).map_err(context)?;
    if json {
        print!("{}", conclusions.to_json().map_err(context)?);
    } else {
        let findings = findings(&conclusions).map_err(context)?;
        print!("{}", render(&title, &conclusions, &findings));
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse(std::env::args().skip(1)) {
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Ok(Command::Help) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Command::List) => {
            list();
            ExitCode::SUCCESS
        }
        Ok(Command::Run {
            json,
            policy,
            scenario,
            russian,
            lang,
        }) => match run(json, policy, &scenario, russian, lang.as_deref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
