//! `/metrics` in the Prometheus text format (0.0.4), written by hand: a few
//! counters and one histogram under a mutex, rendered on each scrape.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

/// The upper bounds of the latency histogram's buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
pub(crate) struct Metrics(Mutex<State>);

#[derive(Default)]
struct State {
    /// Requests by (route, status).
    requests: BTreeMap<(String, u16), u64>,
    /// Latency histogram by route: per-bucket counts (not cumulative),
    /// the count beyond the last bucket, the sum of seconds, the count.
    latency: BTreeMap<String, Histogram>,
    /// Error responses by code.
    errors: BTreeMap<&'static str, u64>,
    /// Cases evaluated by package.
    cases: BTreeMap<String, u64>,
}

#[derive(Default)]
struct Histogram {
    buckets: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

impl Metrics {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One request answered.
    pub(crate) fn request(
        &self,
        route: &str,
        status: u16,
        took: Duration,
        error: Option<&'static str>,
    ) {
        let mut s = self.state();
        *s.requests.entry((route.to_owned(), status)).or_default() += 1;
        let h = s.latency.entry(route.to_owned()).or_default();
        let secs = took.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|b| secs <= *b) {
            h.buckets[i] += 1;
        }
        h.sum += secs;
        h.count += 1;
        if let Some(code) = error {
            *s.errors.entry(code).or_default() += 1;
        }
    }

    /// `n` cases of `package` evaluated.
    pub(crate) fn cases(&self, package: &str, n: u64) {
        *self.state().cases.entry(package.to_owned()).or_default() += n;
    }

    /// The text a scrape gets.
    pub(crate) fn render(&self) -> String {
        let s = self.state();
        let mut o = String::new();
        o.push_str("# HELP lawgen_requests_total HTTP requests answered, by route and status.\n");
        o.push_str("# TYPE lawgen_requests_total counter\n");
        for ((route, status), n) in &s.requests {
            let _ = writeln!(
                o,
                "lawgen_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                escape(route)
            );
        }
        o.push_str("# HELP lawgen_request_duration_seconds Time to answer a request, by route.\n");
        o.push_str("# TYPE lawgen_request_duration_seconds histogram\n");
        for (route, h) in &s.latency {
            let route = escape(route);
            let mut cumulative = 0;
            for (b, n) in BUCKETS.iter().zip(h.buckets) {
                cumulative += n;
                let _ = writeln!(
                    o,
                    "lawgen_request_duration_seconds_bucket{{route=\"{route}\",le=\"{b}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                o,
                "lawgen_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(
                o,
                "lawgen_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                o,
                "lawgen_request_duration_seconds_count{{route=\"{route}\"}} {}",
                h.count
            );
        }
        o.push_str("# HELP lawgen_errors_total Refused requests, by error code.\n");
        o.push_str("# TYPE lawgen_errors_total counter\n");
        for (code, n) in &s.errors {
            let _ = writeln!(o, "lawgen_errors_total{{code=\"{code}\"}} {n}");
        }
        o.push_str("# HELP lawgen_cases_evaluated_total Cases evaluated, by package.\n");
        o.push_str("# TYPE lawgen_cases_evaluated_total counter\n");
        for (p, n) in &s.cases {
            let _ = writeln!(
                o,
                "lawgen_cases_evaluated_total{{package=\"{}\"}} {n}",
                escape(p)
            );
        }
        o
    }
}

/// A label value as the text format writes it.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
