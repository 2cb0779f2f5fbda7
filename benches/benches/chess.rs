//! Criterion benches of the chess package at 1k, 10k, 100k and 1M games:
//! the generated code on all threads and on one, the reference
//! interpreter (1k and 10k only: it is slow), and the plain-Rust evaluator.
//!
//! ```text
//! cargo bench -p lawgen-benches --bench chess
//! LAWGEN_BENCH_FULL=1 cargo bench -p lawgen-benches --bench chess   # + generated, 1 thread, 1M
//! ```
//!
//! The cases are generated before timing. The generated code's timed loop
//! includes building each game's typed `Facts` from its case (interning the
//! entity names, pushing rows) inside `evaluate_indexed`'s `make`: that is
//! part of what using the generated code costs. The interpreter's facts are
//! converted from JSON before timing. The default suite takes about ten
//! minutes on 2 cores (half of it the generated code at 1M games); 1M games
//! on one thread adds about five more.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use lawgen_benches::cases::{self, SEED};
use lawgen_benches::engines::{self, Interpreter};
use lawgen_runtime::{Batching, Policy};
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// Fast engines (plain Rust: microseconds to milliseconds per iteration) get
/// criterion's usual linear sampling; slow ones (tens of milliseconds to
/// tens of seconds per iteration) ten flat samples, usually of one iteration
/// each (criterion then warns that it cannot fit them into the target time:
/// expected, they take as long as they take).
fn tune(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, fast: bool) {
    if fast {
        g.sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
    } else {
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
    }
}

fn chess(c: &mut Criterion) {
    let full = std::env::var_os("LAWGEN_BENCH_FULL").is_some();
    let one = Batching {
        threads: 1,
        ..Batching::default()
    };
    let every = Batching::default();
    let interp = Interpreter::new();
    for n in SIZES {
        let all = cases::cases(SEED, n);

        let mut g = c.benchmark_group("chess/plain");
        g.throughput(Throughput::Elements(n as u64));
        tune(&mut g, true);
        g.bench_with_input(BenchmarkId::from_parameter(n), &all, |b, all| {
            b.iter(|| engines::plain(black_box(all)))
        });
        g.finish();

        let mut g = c.benchmark_group("chess/generated-all-threads");
        g.throughput(Throughput::Elements(n as u64));
        tune(&mut g, false);
        g.bench_with_input(BenchmarkId::from_parameter(n), &all, |b, all| {
            b.iter(|| engines::generated(all, Policy::Blocking, &every))
        });
        g.finish();

        if n < 1_000_000 || full {
            let mut g = c.benchmark_group("chess/generated-1-thread");
            g.throughput(Throughput::Elements(n as u64));
            tune(&mut g, false);
            g.bench_with_input(BenchmarkId::from_parameter(n), &all, |b, all| {
                b.iter(|| engines::generated(all, Policy::Blocking, &one))
            });
            g.finish();
        }

        if n <= 10_000 {
            let facts: Vec<_> = all.iter().map(|c| interp.facts(c)).collect();
            let mut g = c.benchmark_group("chess/interpreter");
            g.throughput(Throughput::Elements(n as u64));
            tune(&mut g, false);
            g.bench_with_input(BenchmarkId::from_parameter(n), &facts, |b, facts| {
                b.iter(|| interp.run(facts, Policy::Blocking))
            });
            g.finish();
        }
    }
}

criterion_group!(benches, chess);
criterion_main!(benches);
