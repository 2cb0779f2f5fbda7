//! `lawgen serve` as a service is used: the real binary on a loopback port,
//! driven by a real HTTP client. Every evaluation answers the canonical
//! output `lawgen eval` prints, byte for byte, inside a receipt whose
//! fields are checked (hashes, closure, date, engine) and whose facts
//! evaluate again to the same output; every explanation is the JSON
//! `lawgen explain --format json` prints; every bad input gets a JSON error
//! with its code and field, the service keeps answering, and the decision
//! log holds exactly one line per answered decision.

use lawgen_test_support as support;

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LAWGEN: &str = env!("CARGO_BIN_EXE_lawgen");
const CHESS: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";
const RU: &str = "packages/ru.chess.competition/ru.chess.competition-0.3.0.ir.json";
const CHESS_DIR: &str = "packages/fide.laws.chess";

/// A running `lawgen serve`, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    /// Starts `lawgen serve` on the chess and Russian packages on a free
    /// loopback port, with `extra` arguments (the interpreter unless they
    /// name an `--engine`), and waits for the address it prints.
    fn start(extra: &[&str]) -> Server {
        let engine: &[&str] = if extra.contains(&"--engine") {
            &[]
        } else {
            &["--engine", "interp"]
        };
        // Generated crates build as every test builds them (`lawgen_command`).
        let mut child = support::harness::lawgen_command(LAWGEN)
            .arg("serve")
            .args(engine)
            .arg("--package")
            .arg(support::path(CHESS))
            .arg("--package")
            .arg(support::path(RU))
            .arg("--import-path")
            .arg(support::path(CHESS_DIR))
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("lawgen serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("lawgen serve: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line of lawgen serve: {line:?}"))
            .to_owned();
        Server { child, base }
    }

    fn addr(&self) -> String {
        self.base.trim_start_matches("http://").to_owned()
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `POST path` with a JSON body: the status and the body.
    fn post(&self, path: &str, body: &[u8]) -> (u16, String) {
        self.post_as(path, "application/json", body)
    }

    fn post_as(&self, path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
        let r = agent()
            .post(&self.url(path))
            .header("Content-Type", content_type)
            .send(body)
            .unwrap_or_else(|e| panic!("POST {path}: {e}"));
        answer(r)
    }

    fn get(&self, path: &str) -> (u16, String) {
        let r = agent()
            .get(&self.url(path))
            .call()
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        answer(r)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn answer(mut r: ureq::http::Response<ureq::Body>) -> (u16, String) {
    let status = r.status().as_u16();
    let body = r
        .body_mut()
        .with_config()
        .limit(64 * 1024 * 1024)
        .read_to_string()
        .unwrap();
    (status, body)
}

/// `lawgen ARGS…`: its standard output, which must succeed.
fn lawgen(args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(LAWGEN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "lawgen {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn eval_cli(package: &str, facts: &Path) -> String {
    lawgen(&[
        "--import-path".as_ref(),
        support::path(CHESS_DIR).as_os_str(),
        "eval".as_ref(),
        support::path(package).as_os_str(),
        "--facts".as_ref(),
        facts.as_os_str(),
    ])
}

fn explain_cli(package: &str, facts: &Path, literal: &str) -> String {
    lawgen(&[
        "--import-path".as_ref(),
        support::path(CHESS_DIR).as_os_str(),
        "explain".as_ref(),
        support::path(package).as_os_str(),
        "--facts".as_ref(),
        facts.as_os_str(),
        literal.as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ])
}

fn facts_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(support::path(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".facts.json"))
        .collect();
    v.sort();
    v
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("serve-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The package's name, version and declared semantic hash, from its file.
fn identity(package: &str) -> Value {
    let pkg: Value = serde_json::from_slice(&support::read(package)).unwrap();
    serde_json::json!({
        "name": pkg["package"]["name"],
        "version": pkg["package"]["version"],
        "semanticHash": pkg["semanticHash"],
    })
}

/// The literals of a canonical output's first row in each section, as
/// `lawgen explain` takes them (`pred(a, b)`).
fn literals(output: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for sec in ["definitely", "defeasibly", "pending", "supported"] {
        let Some(preds) = output[sec].as_object() else {
            continue;
        };
        if let Some((lit, rows)) = preds.iter().next() {
            let row = rows[0].as_array().unwrap();
            let args: Vec<String> = row
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    v => v.to_string(),
                })
                .collect();
            out.push(format!("{lit}({})", args.join(", ")));
        }
    }
    out
}

fn error_of(status: u16, body: &str) -> (u16, String, Value, String) {
    let v: Value = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("error body is not JSON ({e}): {body}"));
    let err = &v["error"];
    assert!(
        err["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    (
        status,
        err["code"].as_str().unwrap().to_owned(),
        err["field"].clone(),
        err["message"].as_str().unwrap().to_owned(),
    )
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn evaluate_and_explain_answer_what_the_command_prints() {
    let dir = scratch("answers");
    let log = dir.join("decisions.jsonl");
    let server = Server::start(&["--decision-log", log.to_str().unwrap()]);

    let (status, listing) = server.get("/v1/packages");
    assert_eq!(status, 200, "{listing}");
    let listing: Value = serde_json::from_str(&listing).unwrap();
    let chess = identity(CHESS);
    let ru = identity(RU);
    let mut listed = listing["packages"].as_array().unwrap().clone();
    for p in &mut listed {
        assert_eq!(p["engine"], "interp");
        p.as_object_mut().unwrap().remove("engine");
    }
    let with = |id: &Value, closure: Vec<&Value>| {
        let mut v = id.clone();
        v["closure"] = closure.into_iter().cloned().collect();
        v
    };
    assert_eq!(
        listed,
        vec![with(&chess, vec![&chess]), with(&ru, vec![&ru, &chess])]
    );

    let mut answered = 0;
    let mut chess_cases = 0;
    // Every case is asked of the service; its output is compared with the
    // command's for every `eval_every`-th, its explanations for every
    // `explain_every`-th (each comparison is a run of the command, and the
    // Russian closure takes a tenth of a second to load in a debug build).
    for (package, name, scenarios, closure, eval_every, explain_every) in [
        (
            CHESS,
            "fide.laws.chess",
            "tests/scenarios/chess",
            vec![&chess],
            1,
            4,
        ),
        (
            RU,
            "ru.chess.competition",
            "tests/scenarios/ru",
            vec![&ru, &chess],
            3,
            15,
        ),
    ] {
        let files = facts_files(scenarios);
        assert!(files.len() > 10, "{scenarios}");
        for (i, facts) in files.iter().enumerate() {
            let body = std::fs::read(facts).unwrap();
            let (status, text) = server.post(&format!("/v1/packages/{name}/evaluate"), &body);
            assert_eq!(status, 200, "{}: {text}", facts.display());
            answered += 1;
            if name == "fide.laws.chess" {
                chess_cases += 1;
            }
            let receipt: Value = serde_json::from_str(&text).unwrap();
            let output = receipt["output"].as_str().unwrap();
            if i % eval_every == 0 {
                assert_eq!(
                    output,
                    eval_cli(package, facts),
                    "{}: the service's output differs from `lawgen eval`",
                    facts.display()
                );
            }
            // The receipt names what decided.
            assert_eq!(receipt["format"], "lawgen.receipt/0.1");
            assert_eq!(receipt["package"], *closure[0]);
            assert_eq!(
                receipt["closure"],
                Value::from(closure.iter().map(|v| (*v).clone()).collect::<Vec<_>>())
            );
            assert_eq!(receipt["engine"], "interp");
            assert_eq!(receipt["policy"], "blocking");
            assert_eq!(receipt["lawgen"], env!("CARGO_PKG_VERSION"));
            let out: Value = serde_json::from_str(output).unwrap();
            assert_eq!(receipt["asOf"], out["asOf"]);
            assert_eq!(receipt["editions"], out["editions"]);
            let made = receipt["madeAt"].as_str().unwrap();
            assert!(
                made.len() == 20 && made.ends_with('Z') && made.as_bytes()[10] == b'T',
                "madeAt is not RFC 3339 UTC: {made}"
            );
            let canonical = receipt["facts"].as_str().unwrap();
            assert_eq!(receipt["factsSha256"], sha256_hex(canonical.as_bytes()));
            // The receipt's own facts reproduce the decision.
            if i % (5 * eval_every) == 0 {
                let again = dir.join(format!("{name}-{i}.facts.json"));
                std::fs::write(&again, canonical).unwrap();
                assert_eq!(eval_cli(package, &again), output, "{}", facts.display());
            }
            // Explanations: the first literal of each section, and one of
            // the first case's that does not hold.
            if i % explain_every == 0 {
                let mut lits = literals(&out);
                if i == 0 {
                    lits.push("~game_drawn(nobody)".into());
                }
                for lit in lits {
                    let path = format!("/v1/packages/{name}/explain?literal={}", percent(&lit));
                    let (status, text) = server.post(&path, &body);
                    assert_eq!(status, 200, "{} {lit}: {text}", facts.display());
                    if name == "fide.laws.chess" {
                        chess_cases += 1;
                    }
                    assert_eq!(
                        text,
                        explain_cli(package, facts, &lit),
                        "{} {lit}: the service's explanation differs from `lawgen explain`",
                        facts.display()
                    );
                }
            }
        }
    }

    // One line per answered decision, each the receipt answered.
    let lines = log_lines(&log);
    assert_eq!(lines.len(), answered);
    for l in &lines {
        let r: Value = serde_json::from_str(l).unwrap();
        assert_eq!(r["format"], "lawgen.receipt/0.1");
    }

    // The log replays: every receipt reproduces on the packages given.
    let replay = |log: &Path| {
        Command::new(LAWGEN)
            .arg("--import-path")
            .arg(support::path(CHESS_DIR))
            .arg("replay")
            .arg(log)
            .arg("--package")
            .arg(support::path(CHESS))
            .arg("--package")
            .arg(support::path(RU))
            .output()
            .unwrap()
    };
    let out = replay(&log);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    assert_eq!(
        stdout,
        format!("replayed {answered} receipt(s): {answered} reproduce, 0 do not\n")
    );
    // A receipt whose output, facts or package was changed does not, and
    // the replay says which and why.
    let mut tampered: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let output = tampered[0]["output"]
        .as_str()
        .unwrap()
        .replacen("g1", "g2", 1);
    tampered[0]["output"] = output.into();
    let facts = tampered[1]["facts"]
        .as_str()
        .unwrap()
        .replacen("g1", "g2", 1);
    tampered[1]["facts"] = facts.into();
    tampered[2]["closure"][0]["version"] = "0.0.9".into();
    let bad = dir.join("tampered.jsonl");
    let text: String = tampered.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&bad, text).unwrap();
    let out = replay(&bad);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let problems: Vec<&str> = stdout.lines().collect();
    assert_eq!(problems.len(), 4, "{stdout}");
    let at = |n: usize, why: &str| {
        let prefix = format!("{}:{n}: does not reproduce: {why}", bad.display());
        assert!(problems[n - 1].starts_with(&prefix), "{}", problems[n - 1]);
    };
    at(1, "the output differs from the receipt's, from its line ");
    at(2, "the receipt's facts do not hash to its `factsSha256`");
    at(3, "the receipt's closure ");
    assert_eq!(
        problems[3],
        format!(
            "replayed {answered} receipt(s): {} reproduce, 3 do not",
            answered - 3
        )
    );

    let (status, metrics) = server.get("/metrics");
    assert_eq!(status, 200);
    assert!(
        metrics.contains(&format!(
            "lawgen_cases_evaluated_total{{package=\"fide.laws.chess\"}} {chess_cases}\n"
        )),
        "{metrics}"
    );
    assert!(
        metrics.contains(&format!(
            "lawgen_requests_total{{route=\"/v1/packages/{{name}}/evaluate\",status=\"200\"}} {answered}\n"
        )),
        "{metrics}"
    );
}

/// Percent-encodes a query parameter's value.
fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn bad_input_gets_a_json_error_and_the_service_keeps_answering() {
    let dir = scratch("refusals");
    let log = dir.join("decisions.jsonl");
    let server = Server::start(&[
        "--decision-log",
        log.to_str().unwrap(),
        "--max-body-bytes",
        "4096",
        "--timeout",
        "2",
        "--header-timeout",
        "1",
    ]);
    let good = support::read("tests/scenarios/chess/agreed_draw.facts.json");
    let eval = "/v1/packages/fide.laws.chess/evaluate";
    let explain = "/v1/packages/fide.laws.chess/explain";

    // (what, the answer, the status, code, field and message it must have)
    type Refusal<'a> = (&'a str, (u16, String), u16, &'a str, Value, &'a str);
    let cases: Vec<Refusal> = vec![
        (
            "malformed JSON",
            server.post(eval, b"{\"facts\": {"),
            400,
            "malformed_json",
            Value::Null,
            "the body is not JSON: EOF while parsing an object at line 1 column 11",
        ),
        (
            "a wrong content type",
            server.post_as(eval, "text/plain", &good),
            415,
            "unsupported_media_type",
            "content-type".into(),
            "the body must be a facts file sent as `application/json`, not `text/plain`; set the header `Content-Type: application/json`",
        ),
        (
            "an unknown package",
            server.post("/v1/packages/no.such.package/evaluate", &good),
            404,
            "unknown_package",
            "name".into(),
            "no package `no.such.package` is served; the service serves fide.laws.chess, ru.chess.competition",
        ),
        (
            "a facts file the checker refuses",
            server.post(eval, br#"{"facts": {"no_such_predicate": [["g1"]]}}"#),
            422,
            "invalid_facts",
            "/facts/no_such_predicate".into(),
            "error[E081]: unknown predicate `no_such_predicate`\n  --> node `no_such_predicate` at /facts/no_such_predicate\n  = help: use a predicate's local name (the part of its id after `#`) or its full id; `~` before it states the explicit negation\n\nerror: 1 error found\nerror: the request body is not a valid facts file for fide.laws.chess",
        ),
        (
            "a body over the limit",
            server.post(
                eval,
                format!("{{\"facts\": {{}}, \"pad\": \"{}\"}}", "x".repeat(8192)).as_bytes(),
            ),
            413,
            "body_too_large",
            Value::Null,
            "the request body is over the service's limit; send fewer facts per request, or raise `--max-body-bytes`",
        ),
        (
            "a date on which no edition is in force",
            server.post(
                eval,
                br#"{"asOf": "1900-01-01", "facts": {"draw_agreed": [["g1"]]}}"#,
            ),
            422,
            "no_law_in_force",
            "/asOf".into(),
            "no edition of the work `FIDE_LAWS_OF_CHESS` is in force on 1900-01-01: it has an edition in force from 2023-01-01; evaluate the case as of a date on which the work has an edition in force (the facts file's `asOf`)",
        ),
        (
            "an unknown policy",
            server.post(&format!("{eval}?policy=lenient"), &good),
            400,
            "invalid_parameter",
            "policy".into(),
            "unknown policy `lenient`: write `blocking` (the default) or `propagating`",
        ),
        (
            "an explanation without a literal",
            server.post(explain, &good),
            400,
            "missing_parameter",
            "literal".into(),
            "name the literal to explain: `?literal=game_drawn(g1)` (percent-encoded)",
        ),
        (
            "a literal the package does not declare",
            server.post(&format!("{explain}?literal=no_such(g1)"), &good),
            400,
            "invalid_literal",
            "literal".into(),
            "unknown predicate `no_such`; `lawgen check PACKAGE` lists the predicates",
        ),
        (
            "a path the service does not answer",
            server.get("/v2/packages"),
            404,
            "not_found",
            Value::Null,
            "no such path: the service answers `GET /v1/packages`, `POST /v1/packages/{name}/evaluate`, `POST /v1/packages/{name}/evaluate-batch`, `POST /v1/packages/{name}/explain`, `/healthz`, `/readyz` and `/metrics`",
        ),
        (
            "a method the path does not take",
            server.get(eval),
            405,
            "method_not_allowed",
            Value::Null,
            "this path does not take that method: `GET /v1/packages`; `POST /v1/packages/{name}/evaluate`, `/evaluate-batch` or `/explain`",
        ),
    ];
    for (what, (status, body), want_status, want_code, want_field, want_message) in cases {
        let (status, code, field, message) = error_of(status, &body);
        assert_eq!(
            (status, code.as_str(), &field, message.as_str()),
            (want_status, want_code, &want_field, want_message),
            "{what}: {body}"
        );
    }
    assert!(log_lines(&log).is_empty(), "a refusal was logged");

    // A client that trickles its body, a byte every 100 ms, is cut at the
    // time limit (2 s) with an answer, though it is still sending.
    let mut slow = TcpStream::connect(server.addr()).unwrap();
    write!(
        slow,
        "POST {eval} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        good.len()
    )
    .unwrap();
    let mut trickle = slow.try_clone().unwrap();
    let body = good.clone();
    let sent = Instant::now();
    let writer = std::thread::spawn(move || {
        for b in body {
            if trickle.write_all(&[b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let mut answer = String::new();
    slow.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = slow.read_to_string(&mut answer);
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "the trickled body was not cut: {answer}"
    );
    drop(slow);
    let _ = writer.join();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let (_, answer_body) = answer.split_once("\r\n\r\n").unwrap();
    assert_eq!(
        error_of(503, answer_body),
        (
            503,
            "timeout".to_owned(),
            Value::Null,
            "the request took longer than the service's limit per request (`--timeout`); send the body at once, or fewer facts".to_owned()
        )
    );

    // A client that sends part of a request head and waits: the connection
    // is closed at the head's time limit (1 s), with no answer (there is no
    // request yet to answer).
    let mut head = TcpStream::connect(server.addr()).unwrap();
    write!(head, "POST {eval} HTTP/1.1\r\nHost: x\r\nContent-Ty").unwrap();
    head.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let opened = Instant::now();
    let mut nothing = Vec::new();
    let read = head.read_to_end(&mut nothing);
    assert!(
        opened.elapsed() < Duration::from_secs(10),
        "a trickled head kept its connection open: {read:?}"
    );
    assert!(nothing.is_empty(), "{}", String::from_utf8_lossy(&nothing));

    // A client that disconnects mid-request.
    for _ in 0..20 {
        let mut gone = TcpStream::connect(server.addr()).unwrap();
        write!(
            gone,
            "POST {eval} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            good.len()
        )
        .unwrap();
        gone.write_all(&good[..good.len() / 2]).unwrap();
    }

    // Still answering, and only the answered decision is logged.
    let (status, text) = server.post(eval, &good);
    assert_eq!(status, 200, "{text}");
    assert_eq!(log_lines(&log), vec![text.trim_end().to_owned()]);
    let (status, _) = server.get("/healthz");
    assert_eq!(status, 200);
    let (status, _) = server.get("/readyz");
    assert_eq!(status, 200);
    let (_, metrics) = server.get("/metrics");
    for code in [
        "malformed_json",
        "unknown_package",
        "invalid_facts",
        "timeout",
    ] {
        assert!(
            metrics.contains(&format!("lawgen_errors_total{{code=\"{code}\"}} 1\n")),
            "{code}: {metrics}"
        );
    }
}

/// A time limit that is not a positive duration stops the service before
/// it listens, naming the option and how to fix it.
#[test]
fn a_time_limit_that_is_not_a_duration_is_refused() {
    for (option, value, help) in [
        (
            "--timeout",
            "0",
            "give the seconds a request may take, more than 0 (e.g. --timeout 30)",
        ),
        (
            "--header-timeout",
            "-1",
            "give the seconds a request's head may take to arrive, more than 0 (e.g. --header-timeout 10)",
        ),
    ] {
        let out = Command::new(LAWGEN)
            .arg("serve")
            .arg("--package")
            .arg(support::path(CHESS))
            .args(["--listen", "127.0.0.1:0"])
            .arg(format!("{option}={value}"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{option}");
        assert!(out.stdout.is_empty(), "{option}: it listened");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            format!("error: `{option} {value}` is not a duration\n  = help: {help}"),
        );
    }
}

/// A request that would pass the most allowed at once is refused with
/// `overloaded`, and answered once the one in flight is done.
#[test]
fn requests_over_the_concurrency_limit_are_refused() {
    let server = Server::start(&["--max-concurrent", "1"]);
    let good = support::read("tests/scenarios/chess/agreed_draw.facts.json");
    let eval = "/v1/packages/fide.laws.chess/evaluate";
    let mut held = TcpStream::connect(server.addr()).unwrap();
    write!(
        held,
        "POST {eval} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        good.len()
    )
    .unwrap();
    held.write_all(&good[..10]).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let (status, body) = server.post(eval, &good);
    let (status, code, _, _) = error_of(status, &body);
    assert_eq!((status, code.as_str()), (503, "overloaded"), "{body}");
    held.write_all(&good[10..]).unwrap();
    let mut answer = String::new();
    held.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (status, body) = server.post(eval, &good);
    assert_eq!(status, 200, "{body}");
}

/// SIGTERM stops the service after the request in flight is answered and
/// logged.
#[cfg(unix)]
#[test]
fn sigterm_finishes_the_requests_in_flight() {
    let dir = scratch("sigterm");
    let log = dir.join("decisions.jsonl");
    let mut server = Server::start(&["--decision-log", log.to_str().unwrap()]);
    let good = support::read("tests/scenarios/chess/agreed_draw.facts.json");
    let mut inflight = TcpStream::connect(server.addr()).unwrap();
    write!(
        inflight,
        "POST /v1/packages/fide.laws.chess/evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        good.len()
    )
    .unwrap();
    inflight.write_all(&good[..10]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let kill = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    std::thread::sleep(Duration::from_millis(300));
    inflight.write_all(&good[10..]).unwrap();
    let mut answer = String::new();
    inflight.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(log_lines(&log).len(), 1);
    // A new connection is no longer accepted.
    assert!(TcpStream::connect(server.addr()).is_err());
}

/// 10,000 connections opened at once and dropped without a request (as
/// many as the open-file limit allows, when it allows fewer): the service
/// keeps answering, and logs nothing for them.
#[test]
fn ten_thousand_connections_opened_and_dropped() {
    let dir = scratch("connections");
    let log = dir.join("decisions.jsonl");
    let server = Server::start(&["--decision-log", log.to_str().unwrap()]);
    let addr: std::net::SocketAddr = server.addr().parse().unwrap();
    // Opened from 8 threads, 1,250 each, stopping at the first refusal.
    let threads: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(move || {
                let mut open = Vec::new();
                while open.len() < 1_250 {
                    match TcpStream::connect_timeout(&addr, Duration::from_secs(5)) {
                        Ok(s) => open.push(s),
                        // The test's own open-file limit, or the listen
                        // backlog full.
                        Err(_) => break,
                    }
                }
                open
            })
        })
        .collect();
    let mut open: Vec<TcpStream> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert!(open.len() >= 500, "only {} connections opened", open.len());
    // Half of them send half a request first.
    for s in open.iter_mut().step_by(2) {
        let _ = s.write_all(b"POST /v1/packages/fide.laws.chess/evaluate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"fa");
    }
    drop(open);
    let good = support::read("tests/scenarios/chess/agreed_draw.facts.json");
    let (status, text) = server.post("/v1/packages/fide.laws.chess/evaluate", &good);
    assert_eq!(status, 200, "{text}");
    assert_eq!(log_lines(&log), vec![text.trim_end().to_owned()]);
    let (status, _) = server.get("/healthz");
    assert_eq!(status, 200);
}

/// With `--signing-key`, every receipt is signed; `lawgen replay
/// --verify-key` verifies each signature before it evaluates the receipt
/// again, and names a changed receipt, another key and a missing signature.
#[test]
fn signed_receipts_verify_on_replay() {
    let dir = scratch("signed");
    let key = dir.join("service");
    let other = dir.join("other");
    for k in [&key, &other] {
        lawgen(&["keygen".as_ref(), "--out".as_ref(), k.as_os_str()]);
    }
    // keygen never replaces a key.
    let again = Command::new(LAWGEN)
        .args(["keygen".as_ref(), "--out".as_ref(), key.as_os_str()])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    assert_eq!(public.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(key.with_extension("key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let log = dir.join("decisions.jsonl");
    let server = Server::start(&[
        "--decision-log",
        log.to_str().unwrap(),
        "--signing-key",
        key.with_extension("key").to_str().unwrap(),
    ]);
    for facts in facts_files("tests/scenarios/chess").iter().take(3) {
        let (status, text) = server.post(
            "/v1/packages/fide.laws.chess/evaluate",
            &std::fs::read(facts).unwrap(),
        );
        assert_eq!(status, 200, "{text}");
        let r: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(r["signature"]["algorithm"], "ed25519");
        assert_eq!(r["signature"]["publicKey"], public.trim());
    }
    let replay = |log: &Path, key: &Path| {
        let out = Command::new(LAWGEN)
            .arg("replay")
            .arg(log)
            .arg("--package")
            .arg(support::path(CHESS))
            .arg("--verify-key")
            .arg(key)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    assert_eq!(
        replay(&log, &key.with_extension("pub")),
        (
            Some(0),
            "replayed 3 receipt(s): 3 reproduce, 0 do not\n".into()
        )
    );
    let (code, out) = replay(&log, &other.with_extension("pub"));
    assert_eq!(code, Some(1));
    assert_eq!(
        out.matches("does not reproduce: the receipt is signed by another key\n")
            .count(),
        3,
        "{out}"
    );

    let mut lines: Vec<Value> = log_lines(&log)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let changed = lines[0]["madeAt"].as_str().unwrap().replacen('2', "1", 1);
    lines[0]["madeAt"] = changed.into();
    lines[1].as_object_mut().unwrap().remove("signature");
    let bad = dir.join("tampered.jsonl");
    let text: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&bad, text).unwrap();
    let (code, out) = replay(&bad, &key.with_extension("pub"));
    assert_eq!(code, Some(1));
    let bad = bad.display();
    assert_eq!(
        out,
        format!(
            "{bad}:1: does not reproduce: the signature does not verify: the receipt was changed after it was signed\n\
             {bad}:2: does not reproduce: the receipt is not signed\n\
             replayed 3 receipt(s): 1 reproduce, 2 do not\n"
        )
    );
}

/// A batch, one facts file a line: each receipt is the one a request of its
/// own gets (but for the time it was made), in the order of the cases, and
/// each is logged; a batch with one bad case is refused whole, naming the
/// line, and logs nothing.
#[test]
fn a_batch_answers_what_its_cases_answer_one_by_one() {
    let dir = scratch("batch");
    let log = dir.join("decisions.jsonl");
    let server = Server::start(&[
        "--decision-log",
        log.to_str().unwrap(),
        "--max-cases",
        "100",
    ]);
    let files = facts_files("tests/scenarios/chess");
    let lines: Vec<String> = files
        .iter()
        .map(|f| {
            let v: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
            v.to_string()
        })
        .collect();
    let batch = "/v1/packages/fide.laws.chess/evaluate-batch";
    let (status, text) = server.post_as(batch, "application/jsonl", lines.join("\n").as_bytes());
    assert_eq!(status, 200, "{text}");
    let answers: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), files.len());
    assert_eq!(log_lines(&log).len(), files.len());
    for (facts, mut answer) in files.iter().zip(answers) {
        let (status, one) = server.post(
            "/v1/packages/fide.laws.chess/evaluate",
            &std::fs::read(facts).unwrap(),
        );
        assert_eq!(status, 200, "{one}");
        let mut one: Value = serde_json::from_str(&one).unwrap();
        one.as_object_mut().unwrap().remove("madeAt");
        answer.as_object_mut().unwrap().remove("madeAt");
        assert_eq!(answer, one, "{}", facts.display());
    }
    let logged = log_lines(&log).len();

    let mut bad = lines[..5].to_vec();
    bad[2] = r#"{"facts": {"no_such_predicate": [["g1"]]}}"#.into();
    let refusals = [
        (
            server.post(batch, lines[0].as_bytes()),
            (
                415,
                "unsupported_media_type",
                Value::from("content-type"),
                "the body must be facts files, one a line, sent as `application/jsonl`, not `application/json`; set the header `Content-Type: application/jsonl`",
            ),
        ),
        (
            server.post_as(batch, "application/jsonl", bad.join("\n").as_bytes()),
            (
                422,
                "invalid_facts",
                "line 3 /facts/no_such_predicate".into(),
                "line 3: error[E081]: unknown predicate `no_such_predicate`\n  --> node `no_such_predicate` at /facts/no_such_predicate\n  = help: use a predicate's local name (the part of its id after `#`) or its full id; `~` before it states the explicit negation\n\nerror: 1 error found\nerror: the request body is not a valid facts file for fide.laws.chess",
            ),
        ),
        (
            server.post_as(
                batch,
                "application/jsonl",
                [lines[0].as_str(); 101].join("\n").as_bytes(),
            ),
            (
                413,
                "too_many_cases",
                Value::Null,
                "the batch holds 101 cases, over the limit of 100 (`--max-cases`); split it",
            ),
        ),
        (
            server.post_as(batch, "application/jsonl", b"\n \n"),
            (
                400,
                "empty_batch",
                Value::Null,
                "the batch holds no case: send one facts file a line",
            ),
        ),
    ];
    for ((status, body), (want_status, want_code, want_field, want_message)) in refusals {
        let (status, code, field, message) = error_of(status, &body);
        assert_eq!(
            (status, code.as_str(), field, message.as_str()),
            (want_status, want_code, want_field, want_message),
            "{body}"
        );
    }
    assert_eq!(log_lines(&log).len(), logged, "a refused batch was logged");
}

/// `lawgen serve --engine direct` on the tests' compiled-package cache (the
/// one `lawgen eval --backend compiled` and `lawgen bench` build in), with
/// `workers` workers per package, once `/readyz` says every package's
/// engine is up.
fn start_direct(workers: &str, extra: &[&str]) -> Server {
    let cache = support::harness::generated_dir();
    let mut args = vec![
        "--engine",
        "direct",
        "--workers",
        workers,
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let server = Server::start(&args);
    // The first start builds the crates: minutes on a cold cache.
    let deadline = std::time::Instant::now() + Duration::from_secs(40 * 60);
    loop {
        let (status, body) = server.get("/readyz");
        if status == 200 {
            assert_eq!(body, "{\"packages\":2,\"status\":\"ready\"}\n");
            return server;
        }
        assert_eq!(status, 503, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["status"], "starting", "{body}");
        assert!(
            std::time::Instant::now() < deadline,
            "the Direct engines did not start"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The worker processes of a server: its children, from /proc.
#[cfg(target_os = "linux")]
fn children(server: &Server) -> Vec<u32> {
    let mut out = Vec::new();
    let tasks = format!("/proc/{}/task", server.child.id());
    for t in std::fs::read_dir(tasks).unwrap() {
        let list = std::fs::read_to_string(t.unwrap().path().join("children")).unwrap_or_default();
        out.extend(list.split_whitespace().map(|p| p.parse::<u32>().unwrap()));
    }
    out.sort_unstable();
    out
}

/// With `--engine direct` the service answers what `lawgen eval` prints,
/// byte for byte, for every chess scenario and a third of the Russian
/// ones, one by one and in a batch; its receipts name the engine and the
/// generated source, and replay on the interpreter; the crates are the
/// cache entries `lawgen eval --backend compiled --engine direct` uses.
#[test]
fn the_direct_engine_answers_what_the_command_prints() {
    let dir = scratch("direct");
    let log = dir.join("decisions.jsonl");
    let server = start_direct("2", &["--decision-log", log.to_str().unwrap()]);

    let (status, listing) = server.get("/v1/packages");
    assert_eq!(status, 200, "{listing}");
    let listing: Value = serde_json::from_str(&listing).unwrap();
    let mut generated = std::collections::BTreeMap::new();
    for p in listing["packages"].as_array().unwrap() {
        assert_eq!(p["engine"], "direct", "{p}");
        let hash = p["generatedSha256"].as_str().unwrap();
        assert!(
            hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
            "{p}"
        );
        generated.insert(p["name"].as_str().unwrap().to_owned(), hash.to_owned());
    }
    assert_eq!(generated.len(), 2);

    let mut answered = 0;
    for (package, name, scenarios, every) in [
        (CHESS, "fide.laws.chess", "tests/scenarios/chess", 1),
        (RU, "ru.chess.competition", "tests/scenarios/ru", 3),
    ] {
        let files = facts_files(scenarios);
        assert!(files.len() > 10, "{scenarios}");
        for facts in files.iter().step_by(every) {
            let (status, text) = server.post(
                &format!("/v1/packages/{name}/evaluate"),
                &std::fs::read(facts).unwrap(),
            );
            assert_eq!(status, 200, "{}: {text}", facts.display());
            answered += 1;
            let receipt: Value = serde_json::from_str(&text).unwrap();
            let output = receipt["output"].as_str().unwrap();
            assert_eq!(
                output,
                eval_cli(package, facts),
                "{}: the Direct engine's output differs from `lawgen eval`",
                facts.display()
            );
            assert_eq!(receipt["engine"], "direct");
            assert_eq!(receipt["generatedSha256"], generated[name]);
            let out: Value = serde_json::from_str(output).unwrap();
            assert_eq!(receipt["asOf"], out["asOf"], "{}", facts.display());
            assert_eq!(receipt["editions"], out["editions"], "{}", facts.display());
        }
    }

    // A batch, evaluated by the workers, answers what its cases answer.
    let files = facts_files("tests/scenarios/ru");
    let lines: Vec<String> = files
        .iter()
        .map(|f| {
            serde_json::from_slice::<Value>(&std::fs::read(f).unwrap())
                .unwrap()
                .to_string()
        })
        .collect();
    let (status, text) = server.post_as(
        "/v1/packages/ru.chess.competition/evaluate-batch",
        "application/jsonl",
        lines.join("\n").as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    let batch: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(batch.len(), files.len());
    answered += files.len();
    for (i, (facts, r)) in files.iter().zip(&batch).enumerate() {
        assert_eq!(r["engine"], "direct");
        if i % 3 == 1 {
            assert_eq!(
                r["output"].as_str().unwrap(),
                eval_cli(RU, facts),
                "{}: the batch's output differs from `lawgen eval`",
                facts.display()
            );
        }
    }
    assert_eq!(log_lines(&log).len(), answered);

    // The log replays on the interpreter: the canonical output does not
    // depend on the engine.
    let out = Command::new(LAWGEN)
        .arg("--import-path")
        .arg(support::path(CHESS_DIR))
        .arg("replay")
        .arg(&log)
        .arg("--package")
        .arg(support::path(CHESS))
        .arg("--package")
        .arg(support::path(RU))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    assert_eq!(
        stdout,
        format!("replayed {answered} receipt(s): {answered} reproduce, 0 do not\n")
    );

    // The service's crate is `lawgen eval --backend compiled`'s cache
    // entry: evaluating with it builds nothing.
    let facts = support::path("tests/scenarios/chess/agreed_draw.facts.json");
    let cache = support::harness::generated_dir();
    let out = support::harness::lawgen_command(LAWGEN)
        .arg("eval")
        .arg(support::path(CHESS))
        .arg("--facts")
        .arg(&facts)
        .args(["--backend", "compiled", "--engine", "direct", "--cache-dir"])
        .arg(&cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr, "", "the cache entry was not the service's");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        eval_cli(CHESS, &facts)
    );
}

/// A worker killed while the service runs: the request it was to answer
/// gets a JSON error, a new worker takes its place, the next request is
/// answered, and the decision log holds the answered decisions only.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_worker_is_replaced_and_the_next_request_answers() {
    let dir = scratch("killed-worker");
    let log = dir.join("decisions.jsonl");
    let server = start_direct("1", &["--decision-log", log.to_str().unwrap()]);
    let facts = support::path("tests/scenarios/chess/agreed_draw.facts.json");
    let body = std::fs::read(&facts).unwrap();
    let want = eval_cli(CHESS, &facts);
    let eval = "/v1/packages/fide.laws.chess/evaluate";
    let output = |text: &str| {
        let r: Value = serde_json::from_str(text).unwrap();
        r["output"].as_str().unwrap().to_owned()
    };
    let (status, text) = server.post(eval, &body);
    assert_eq!((status, output(&text)), (200, want.clone()), "{text}");

    // One worker per package: kill both.
    let workers = children(&server);
    assert_eq!(workers.len(), 2, "{workers:?}");
    for pid in &workers {
        let kill = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
    }
    std::thread::sleep(Duration::from_millis(200));

    let (status, text) = server.post(eval, &body);
    let (status, code, field, message) = error_of(status, &text);
    assert_eq!(
        (status, code.as_str(), field),
        (503, "engine_failed", Value::Null)
    );
    assert!(
        message.starts_with(
            "the compiled engine of fide.laws.chess stopped while evaluating the case ("
        ) && message.ends_with("); it was started again: send the request again"),
        "{message}"
    );
    for _ in 0..3 {
        let (status, text) = server.post(eval, &body);
        assert_eq!((status, output(&text)), (200, want.clone()), "{text}");
    }
    let ru_facts = facts_files("tests/scenarios/ru").remove(0);
    let ru_body = std::fs::read(&ru_facts).unwrap();
    let ru_eval = "/v1/packages/ru.chess.competition/evaluate";
    let (status, text) = server.post(ru_eval, &ru_body);
    assert_eq!(error_of(status, &text).1, "engine_failed", "{text}");
    let (status, text) = server.post(ru_eval, &ru_body);
    assert_eq!(
        (status, output(&text)),
        (200, eval_cli(RU, &ru_facts)),
        "{text}"
    );
    let now = children(&server);
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(
        now.iter().all(|p| !workers.contains(p)),
        "{workers:?} {now:?}"
    );
    assert_eq!(log_lines(&log).len(), 5);
}

/// Without a Rust toolchain, the default engine cannot start: the service
/// says so before reading a package, names `--engine interp`, and exits 1.
#[test]
fn the_direct_engine_without_a_toolchain_is_a_start_up_error() {
    let out = Command::new(LAWGEN)
        .arg("serve")
        .arg("--package")
        .arg(support::path(CHESS))
        .args(["--listen", "127.0.0.1:0"])
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot run cargo (`/nonexistent/cargo`: No such file or directory (os error 2)); \
         `--engine direct`, the default, compiles each package at start and needs a Rust toolchain\n  \
         = help: install one, or set CARGO to its cargo; or serve with `--engine interp`, the \
         reference interpreter, which needs no compiler\n"
    );
}

/// A crate that does not build stops the service: it listened, said it was
/// starting, then exits 1 with cargo's message.
#[cfg(unix)]
#[test]
fn a_crate_that_does_not_build_stops_the_service() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("no-build");
    // A cargo that runs, and fails every build.
    let cargo = dir.join("cargo");
    std::fs::write(
        &cargo,
        "#!/bin/sh\n[ \"$1\" = --version ] && exit 0\necho 'error: no room left to build' >&2\nexit 101\n",
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(LAWGEN)
        .arg("serve")
        .arg("--package")
        .arg(support::path(CHESS))
        .args(["--listen", "127.0.0.1:0", "--cache-dir"])
        .arg(dir.join("cache"))
        .env("CARGO", &cargo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("lawgen serve: listening on http://"),
        "{out:?}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "lawgen serve: building fide.laws.chess 0.1.0 with the Direct engine…\n\
         error: cannot build the Direct engine of fide.laws.chess: internal error: the generated \
         crate does not build (please report it with the package):\nerror: no room left to build\n\n"
    );
}
