//! The benches' clock: the benchmark thread's CPU time by default, so that figures
//! taken on a shared 2-core machine under load measure the model's cost and not the
//! other processes' (wall time there is 2–6× higher and noisy). Set
//! `GPULAB_BENCH_CLOCK=wall` for criterion's usual wall time.
//!
//! CPU time is `/proc/thread-self/schedstat`'s first field (nanoseconds on CPU); where
//! it cannot be read (not Linux) the clock falls back to wall time.

use std::time::Instant;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput};

/// Thread CPU time, or wall time.
pub struct Clock {
    cpu: bool,
    start: Instant,
}

impl Clock {
    /// From `GPULAB_BENCH_CLOCK` (`cpu`, the default, or `wall`).
    pub fn from_env() -> Clock {
        let wall = std::env::var("GPULAB_BENCH_CLOCK").is_ok_and(|v| v == "wall");
        Clock { cpu: !wall && thread_cpu_ns().is_some(), start: Instant::now() }
    }

    /// What the figures mean, for the bench's output.
    pub fn describe(&self) -> &'static str {
        if self.cpu {
            "thread CPU time (GPULAB_BENCH_CLOCK=wall for wall time)"
        } else {
            "wall time"
        }
    }

    fn now_ns(&self) -> u64 {
        if self.cpu {
            thread_cpu_ns().unwrap_or(0)
        } else {
            u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
        }
    }
}

/// Nanoseconds this thread has run on a CPU.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Criterion configured with [`Clock::from_env`].
pub fn criterion() -> Criterion<Clock> {
    let clock = Clock::from_env();
    eprintln!("clock: {}", clock.describe());
    Criterion::default().with_measurement(clock)
}

impl Measurement for Clock {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        self.now_ns()
    }
    fn end(&self, start: u64) -> u64 {
        self.now_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanos
    }
}

/// Formats nanoseconds as criterion's wall-time formatter does.
struct Nanos;

impl ValueFormatter for Nanos {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e-3, "µs")
        } else if typical < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        for v in values.iter_mut() {
            *v *= factor;
        }
        unit
    }

    fn scale_throughputs(&self, _typical: f64, throughput: &Throughput, values: &mut [f64]) -> &'static str {
        let per = match throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => *n as f64,
        };
        for v in values.iter_mut() {
            *v = per * 1e9 / *v;
        }
        "elem/s"
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
