//! What every run shares: the worker threads, the progress bar, the
//! determinism check of the counts, and the machine's readings (peak memory,
//! load average).

use super::config::BenchError;
use super::result::BenchResult;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub(super) fn add_template_note(out: &mut BenchResult) {
    if out.template {
        out.notes.push(
            "template: every case is the template with its entity names unchanged \
             (cases are evaluated independently, so renaming would change nothing)"
                .to_owned(),
        );
    }
}

pub(super) fn check_same_counts(
    first: &mut Option<Vec<u64>>,
    counts: Vec<u64>,
    run: usize,
    lits: &[String],
) -> Result<(), BenchError> {
    match first {
        None => {
            *first = Some(counts);
            Ok(())
        }
        Some(f) if *f == counts => Ok(()),
        Some(f) => {
            let k = f.iter().zip(&counts).position(|(a, b)| a != b).unwrap_or(0);
            Err(BenchError::internal(format!(
                "run {} concluded {} `{}` tuples, run 1 concluded {}: \
                 evaluation is not deterministic",
                run + 1,
                counts[k],
                lits.get(k).map_or("?", String::as_str),
                f[k]
            )))
        }
    }
}

/// Runs `work` over `0..n` in chunks on `threads` scoped threads, each with
/// its own accumulator; returns the accumulators.
pub(super) fn parallel<A: Send>(
    n: usize,
    threads: usize,
    chunk: usize,
    progress: Option<&Mutex<Progress>>,
    init: &(dyn Fn() -> A + Sync),
    work: &(dyn Fn(usize, &mut A) + Sync),
) -> Vec<A> {
    let chunk = chunk.max(1);
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, n.max(1)))
            .map(|_| {
                let (next, done) = (&next, &done);
                scope.spawn(move || {
                    let mut acc = init();
                    loop {
                        let lo = next.fetch_add(chunk, Ordering::Relaxed);
                        if lo >= n {
                            break;
                        }
                        let hi = (lo + chunk).min(n);
                        for i in lo..hi {
                            work(i, &mut acc);
                        }
                        let d = done.fetch_add(hi - lo, Ordering::Relaxed) + hi - lo;
                        if let Some(Ok(mut p)) = progress.map(Mutex::try_lock) {
                            p.update(d);
                        }
                    }
                    acc
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A one-line progress bar on stderr (`\r`, ANSI erase-line), drawn only
/// when stderr is a terminal, at most ten times a second.
pub(super) struct Progress {
    label: String,
    total: usize,
    start: Instant,
    last: Option<Instant>,
    enabled: bool,
}

impl Progress {
    pub(super) fn new(label: String, total: usize, wanted: bool) -> Self {
        Progress {
            label,
            total,
            start: Instant::now(),
            last: None,
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    pub(super) fn update(&mut self, done: usize) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self
            .last
            .is_some_and(|l| now.duration_since(l) < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(now);
        let frac = done as f64 / self.total.max(1) as f64;
        let width = 30;
        let filled = ((frac * width as f64) as usize).min(width);
        let secs = now.duration_since(self.start).as_secs_f64();
        let rate = done as f64 / secs.max(1e-9);
        let eta = (self.total.saturating_sub(done)) as f64 / rate.max(1e-9);
        eprint!(
            "\r\x1b[2K{} [{}{}] {:>3.0}% {}/{} cases, {}/s, {:.0} s left",
            self.label,
            "#".repeat(filled),
            " ".repeat(width - filled),
            frac * 100.0,
            done,
            self.total,
            si(rate),
            eta
        );
    }

    pub(super) fn finish(&mut self) {
        if self.enabled && self.last.is_some() {
            eprint!("\r\x1b[2K");
        }
    }
}

/// `VmHWM` of this process, in KiB (Linux).
pub fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The 1, 5 and 15 minute load averages (Linux).
pub fn load_average() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// 1234567 → `1.23M`.
pub(super) fn si(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.1}")
    }
}
