//! The Direct engine of the service (docs/service.md, "Which engine"): each
//! package compiled, the way a deployed `build.rs` user evaluates it, and
//! evaluated by long-lived worker processes of its compiled crate.
//!
//! The service does not generate or build code itself (it uses lawgen's
//! public API only): whoever starts it hands it a [`Compile`], which turns a
//! checked package into a built binary — `lawgen serve` hands it the
//! compiled-package cache of `lawgen eval --backend compiled`. The binary's
//! `--serve` mode is the worker: a request is a line `evaluate POLICY
//! LENGTH` and LENGTH bytes of a facts file on its standard input, the
//! answer a line `ok LENGTH` (or `error LENGTH`) and LENGTH bytes of the
//! canonical output (or of the message) on its standard output.

use lawgen::driver::Loaded;
use lawgen_runtime::Policy;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Condvar, Mutex};

/// Builds the compiled crate of a checked package, with the Direct engine.
pub trait Compile: Send + Sync + std::fmt::Debug {
    /// The built binary of `loaded` (built now, or found built), or why not,
    /// as a message (`error: …`).
    fn compile(&self, loaded: &Loaded) -> Result<Compiled, String>;
}

/// A package's built binary.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The binary; `BINARY --serve` is a worker.
    pub binary: PathBuf,
    /// The SHA-256 of the generated module's source, lower-case hex:
    /// receipts name it (`generatedSha256`).
    pub source_sha256: String,
    /// Found built in the cache: nothing was compiled.
    pub cached: bool,
    /// Seconds spent building (0 when cached).
    pub build_secs: f64,
    /// The module evaluates from the program it embeds (the package is
    /// above the straight-line limit), as it would in a `build.rs` user's
    /// crate: said at start, since its speed is the interpreter's.
    pub from_program: bool,
}

/// Why a worker did not answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The worker stopped or broke the protocol (it was replaced).
    Died(String),
    /// The compiled package refused the case (`error LENGTH`).
    Refused(String),
}

/// One running worker.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    fn start(binary: &PathBuf) -> Result<Worker, String> {
        let mut child = Command::new(binary)
            .arg("--serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("cannot talk to {}", binary.display()));
        };
        Ok(Worker {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    /// One request and its answer.
    fn ask(&mut self, facts: &str, policy: Policy) -> Result<Result<String, String>, String> {
        write!(
            self.stdin,
            "evaluate {} {}\n{facts}",
            policy.as_str(),
            facts.len()
        )
        .and_then(|()| self.stdin.flush())
        .map_err(|e| format!("cannot send it the case: {e}"))?;
        let mut head = String::new();
        let n = self
            .stdout
            .read_line(&mut head)
            .map_err(|e| format!("cannot read its answer: {e}"))?;
        if n == 0 {
            return Err("it stopped before answering".into());
        }
        let (tag, len) = head
            .trim_end()
            .split_once(' ')
            .and_then(|(t, n)| Some((t, n.parse::<usize>().ok()?)))
            .ok_or_else(|| format!("it answered {head:?}, not `ok LENGTH` or `error LENGTH`"))?;
        let mut body = vec![0; len];
        self.stdout
            .read_exact(&mut body)
            .map_err(|e| format!("it stopped in the middle of its answer: {e}"))?;
        let body = String::from_utf8(body).map_err(|_| "its answer is not UTF-8".to_owned())?;
        match tag {
            "ok" => Ok(Ok(body)),
            "error" => Ok(Err(body)),
            t => Err(format!("it answered `{t}`, not `ok` or `error`")),
        }
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The workers of one package: a fixed number of places, each holding a
/// running worker or none (one that died, started again when next taken).
/// A request takes a place, waiting while every place is taken; a worker
/// that dies is stopped and its place handed back empty, so no request
/// waits on it.
pub(crate) struct Pool {
    binary: PathBuf,
    /// The generated source's hash, for receipts.
    pub(crate) source_sha256: String,
    places: Mutex<Vec<Option<Worker>>>,
    freed: Condvar,
}

impl Pool {
    /// Starts `size` workers (at least one) of `compiled`.
    pub(crate) fn start(compiled: &Compiled, size: usize) -> Result<Pool, String> {
        let mut places = Vec::new();
        for _ in 0..size.max(1) {
            places.push(Some(Worker::start(&compiled.binary)?));
        }
        Ok(Pool {
            binary: compiled.binary.clone(),
            source_sha256: compiled.source_sha256.clone(),
            places: Mutex::new(places),
            freed: Condvar::new(),
        })
    }

    /// The canonical output of `facts` (a facts file) under `policy`, from
    /// a worker.
    pub(crate) fn evaluate(&self, facts: &str, policy: Policy) -> Result<String, Failure> {
        let place = {
            let mut places = self.places.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if let Some(p) = places.pop() {
                    break p;
                }
                places = self.freed.wait(places).unwrap_or_else(|p| p.into_inner());
            }
        };
        let (back, answer) = match place.map_or_else(|| Worker::start(&self.binary), Ok) {
            Err(e) => (None, Err(Failure::Died(e))),
            Ok(mut w) => match w.ask(facts, policy) {
                Ok(answer) => (Some(w), answer.map_err(Failure::Refused)),
                Err(e) => {
                    w.stop();
                    (None, Err(Failure::Died(e)))
                }
            },
        };
        // A dead worker's place is started again at once, so the next
        // request finds a worker up.
        let back = back.or_else(|| Worker::start(&self.binary).ok());
        self.places
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(back);
        self.freed.notify_one();
        answer
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let places = std::mem::take(self.places.get_mut().unwrap_or_else(|p| p.into_inner()));
        for w in places.into_iter().flatten() {
            w.stop();
        }
    }
}
