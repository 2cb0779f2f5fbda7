//! The human-readable report of a benchmark.

use super::measure::si;
use super::result::{median, BenchResult};
use lawgen_runtime::text::{escape_for_display, Shown};

impl BenchResult {
    /// The human-readable report. Package strings (name, version,
    /// relations, literals) are shown through `text`.
    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "lawgen bench: {} {} — backend {}, policy {}",
            Shown(&self.package),
            Shown(&self.version),
            self.backend,
            self.policy
        );
        let what = if self.template {
            "every case the template".to_owned()
        } else {
            format!(
                "synthetic: seed {}, {} entities per type, density {}",
                self.seed, self.entities_per_type, self.density
            )
        };
        let _ = writeln!(
            o,
            "{} cases ({what}); {} input facts, {:.1} per case",
            self.cases,
            self.facts,
            self.facts as f64 / self.cases.max(1) as f64
        );
        let _ = writeln!(
            o,
            "{} thread(s), batch {}, {} run(s); times include drawing the cases",
            self.threads,
            self.batch,
            self.runs.len()
        );
        let _ = writeln!(o, "\n{:<16}{:>12}{:>12}{:>12}", "", "median", "min", "max");
        let row = |o: &mut String, name: &str, a: [f64; 3], fmt: &dyn Fn(f64) -> String| {
            let _ = writeln!(
                o,
                "{name:<16}{:>12}{:>12}{:>12}",
                fmt(a[0]),
                fmt(a[1]),
                fmt(a[2])
            );
        };
        row(&mut o, "cases/s", self.cases_per_sec(), &si);
        row(&mut o, "facts/s", self.facts_per_sec(), &si);
        row(&mut o, "µs per case", self.us_per_case(), &|x| {
            format!("{x:.2}")
        });
        let med = median(&self.runs);
        let _ = writeln!(o, "{:<16}{:>12}", "run (s)", format!("{med:.3}"));
        let gen_us = self.generation * 1e6 / self.cases.max(1) as f64;
        let _ = writeln!(
            o,
            "\ngeneration only: {:.3} s ({gen_us:.2} µs per case, {:.0}% of the median run); \
             without it ≈ {:.2} µs per case",
            self.generation,
            100.0 * self.generation / med.max(1e-12),
            (self.us_per_case()[0] - gen_us).max(0.0)
        );
        match self.peak_rss_kib {
            Some(k) => {
                let _ = writeln!(
                    o,
                    "peak memory: {:.1} MiB (VmHWM of the {} process)",
                    k as f64 / 1024.0,
                    if self.backend == "compiled" {
                        "compiled package's"
                    } else {
                        "lawgen"
                    }
                );
            }
            None => {
                let _ = writeln!(o, "peak memory: not available (no /proc/self/status)");
            }
        }
        let load = |l: Option<[f64; 3]>| {
            l.map_or("?".to_owned(), |l| {
                format!("{:.2} {:.2} {:.2}", l[0], l[1], l[2])
            })
        };
        let _ = writeln!(
            o,
            "load average: {} before, {} after ({} cores)",
            load(self.load_before),
            load(self.load_after),
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
        if let Some(strata) = &self.strata {
            let total: f64 = strata.iter().map(|s| s.us_per_case).sum();
            let _ = writeln!(o, "\ntime per stratum (µs per case, estimated):");
            for s in strata {
                let name = &s.label;
                let mut heads = s
                    .heads
                    .iter()
                    .take(4)
                    .map(|h| escape_for_display(h))
                    .collect::<Vec<_>>()
                    .join(", ");
                if s.heads.len() > 4 {
                    heads.push_str(&format!(", … ({} relations)", s.heads.len()));
                }
                let _ = writeln!(
                    o,
                    "  {name:>5} {:>10.2} {:>5.1}%  {} rules: {heads}",
                    s.us_per_case,
                    100.0 * s.us_per_case / total.max(1e-12),
                    s.rules
                );
            }
        }
        for n in &self.notes {
            let _ = writeln!(o, "note: {}", Shown(n));
        }
        let _ = writeln!(
            o,
            "\nconcluded (+∂) tuples per institutional literal, all cases:"
        );
        let counts: Vec<(String, _)> = self
            .counts
            .iter()
            .map(|(l, n)| (escape_for_display(l), n))
            .collect();
        let w = counts
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (l, n) in &counts {
            let _ = writeln!(o, "  {l:<w$}  {n:>12}");
        }
        let _ = writeln!(
            o,
            "{} of the {} literals with a strict or defeasible rule concluded at least once{}",
            self.concludable - self.never_concluded.len(),
            self.concludable,
            if self.never_concluded.is_empty() {
                String::new()
            } else {
                format!("; never: {}", Shown(&self.never_concluded.join(", ")))
            }
        );
        o
    }
}
