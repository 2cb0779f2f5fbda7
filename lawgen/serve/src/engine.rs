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
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

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

/// One running worker. Its process is shared with the pool's watchdog,
/// which stops it when it outlives the limit per request (the asking
/// thread then reads the end of its output and replaces it).
struct Worker {
    child: Arc<Mutex<Child>>,
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
            child: Arc::new(Mutex::new(child)),
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

    fn stop(self) {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The workers answering now, each with when it was asked, by request.
type Busy = Mutex<Vec<(u64, Arc<Mutex<Child>>, Instant)>>;

/// Stops every worker of `busy` asked more than `limit` ago, until the pool
/// is gone. A worker that never answers would otherwise hold its place for
/// ever: the service's timeout answers the client, not the worker. Killed,
/// it ends its output, and the request that asked it fails as a worker that
/// died does (and is neither answered with an output nor logged).
fn watch(busy: Weak<Busy>, limit: Duration) {
    let tick = (limit / 10).clamp(Duration::from_millis(10), Duration::from_millis(250));
    while let Some(busy) = busy.upgrade() {
        {
            let now = Instant::now();
            let busy = busy.lock().unwrap_or_else(|p| p.into_inner());
            for (_, child, since) in busy.iter() {
                if now.duration_since(*since) > limit {
                    let _ = child.lock().unwrap_or_else(|p| p.into_inner()).kill();
                }
            }
        }
        drop(busy);
        std::thread::sleep(tick);
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
    /// The workers answering now, for the watchdog.
    busy: Arc<Busy>,
    /// The longest a worker may take to answer.
    limit: Duration,
    /// Numbers the requests, to find one's entry in `busy`.
    next: std::sync::atomic::AtomicU64,
}

impl Pool {
    /// Starts `size` workers (at least one) of `compiled`, each stopped
    /// and replaced when it takes longer than `limit` to answer.
    pub(crate) fn start(compiled: &Compiled, size: usize, limit: Duration) -> Result<Pool, String> {
        let mut places = Vec::new();
        for _ in 0..size.max(1) {
            places.push(Some(Worker::start(&compiled.binary)?));
        }
        let busy: Arc<Busy> = Arc::default();
        let watched = Arc::downgrade(&busy);
        std::thread::Builder::new()
            .name("lawgen-serve-watchdog".into())
            .spawn(move || watch(watched, limit))
            .map_err(|e| format!("cannot start the workers' watchdog: {e}"))?;
        Ok(Pool {
            binary: compiled.binary.clone(),
            source_sha256: compiled.source_sha256.clone(),
            places: Mutex::new(places),
            freed: Condvar::new(),
            busy,
            limit,
            next: Default::default(),
        })
    }

    /// `w.ask`, under the watchdog's eye.
    fn ask_watched(
        &self,
        w: &mut Worker,
        facts: &str,
        policy: Policy,
    ) -> Result<Result<String, String>, String> {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let lock = || self.busy.lock().unwrap_or_else(|p| p.into_inner());
        lock().push((id, Arc::clone(&w.child), Instant::now()));
        let answer = w.ask(facts, policy);
        let mut busy = lock();
        let overdue = busy
            .iter()
            .position(|(i, ..)| *i == id)
            .map(|k| busy.swap_remove(k).2.elapsed() > self.limit)
            .unwrap_or(false);
        drop(busy);
        match answer {
            Err(e) if overdue => Err(format!(
                "it took longer than {} to answer and was stopped ({e})",
                humantime::format_duration(self.limit)
            )),
            other => other,
        }
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
            Ok(mut w) => match self.ask_watched(&mut w, facts, policy) {
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// Held by each test for its whole run. A script written while another
    /// test's thread forks a worker is still open in that child until it
    /// execs, and starting the script then fails with "Text file busy"
    /// (ETXTBSY); the pools also fork again when they replace a worker, so
    /// the tests run one at a time rather than only their writes.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A worker binary written as a shell script into the test's own
    /// directory.
    fn fake(name: &str, script: &str) -> Compiled {
        let dir = std::env::temp_dir().join(format!("lawgen-serve-engine-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let binary = dir.join(name);
        std::fs::write(&binary, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
        Compiled {
            binary,
            source_sha256: String::new(),
            cached: true,
            build_secs: 0.0,
            from_program: false,
        }
    }

    /// A worker that never answers is stopped after the limit, its request
    /// fails saying so, and its place is started again: the next request
    /// does not wait behind it (it meets the same fate, no sooner).
    #[test]
    fn a_worker_that_never_answers_is_stopped_after_the_limit() {
        let _serial = one_at_a_time();
        let limit = Duration::from_millis(300);
        let pool = Pool::start(&fake("hangs", "exec sleep 600"), 1, limit).unwrap();
        for _ in 0..2 {
            let asked = Instant::now();
            match pool.evaluate("{}", Policy::Blocking) {
                Err(Failure::Died(e)) => {
                    assert!(
                        e.starts_with("it took longer than 300ms to answer and was stopped"),
                        "{e}"
                    )
                }
                other => panic!("{other:?}"),
            }
            let took = asked.elapsed();
            assert!(took >= limit && took < Duration::from_secs(10), "{took:?}");
        }
    }

    /// A worker that answers within the limit is left running, however
    /// many requests it answers.
    #[test]
    fn a_worker_that_answers_in_time_is_kept() {
        let _serial = one_at_a_time();
        let answers = r#"while read -r verb policy len; do head -c "$len" >/dev/null; printf 'ok 2\n{}'; done"#;
        let pool = Pool::start(&fake("answers", answers), 1, Duration::from_millis(300)).unwrap();
        let pid = |p: &Pool| {
            let places = p.places.lock().unwrap();
            let w = places[0].as_ref().expect("a worker is up");
            let id = w.child.lock().unwrap().id();
            id
        };
        let first = pid(&pool);
        for _ in 0..5 {
            assert_eq!(
                pool.evaluate("{\"facts\": []}", Policy::Blocking).unwrap(),
                "{}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(pid(&pool), first, "the worker was replaced");
    }
}
