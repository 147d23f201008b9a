//! Shared harness for the seeded, time-budgeted fuzz tests (`tests/fuzz_*.rs` here and in
//! `crates/command-analysis/tests/`, which includes this file by path).
//!
//! Each target runs random cases until its budget is spent: `PRISM_FUZZ_SECONDS` (default 2, so
//! `cargo test` stays quick; `npm run fuzz` sets a long budget). The seed comes from
//! `PRISM_FUZZ_SEED` or is drawn and printed, so a finding can be replayed exactly.

use std::time::{Duration, Instant};

/// The time a fuzz target may spend, from `PRISM_FUZZ_SECONDS` (default 2 s).
pub fn budget() -> Duration {
    let secs = std::env::var("PRISM_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(2.0);
    Duration::from_secs_f64(secs)
}

/// Runs `case` with fresh generators until the budget is spent; returns how many cases ran.
///
/// Every case gets its own generator seeded from the run's seed and the case number, and the
/// pair is printed before a panic unwinds, so `PRISM_FUZZ_SEED=<seed>` replays the failing case.
pub fn run(target: &str, mut case: impl FnMut(&mut fastrand::Rng)) -> u64 {
    let seed = std::env::var("PRISM_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    let deadline = Instant::now() + budget();
    let mut n: u64 = 0;
    while n == 0 || Instant::now() < deadline {
        let mut rng = fastrand::Rng::with_seed(seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let guard = CaseGuard { target, seed, n };
        case(&mut rng);
        std::mem::forget(guard);
        n += 1;
    }
    eprintln!("fuzz {target}: {n} cases, seed {seed}");
    n
}

/// Prints the seed and case of a panicking case while it unwinds.
struct CaseGuard<'a> {
    target: &'a str,
    seed: u64,
    n: u64,
}

impl Drop for CaseGuard<'_> {
    fn drop(&mut self) {
        eprintln!(
            "fuzz {}: case {} failed; replay with PRISM_FUZZ_SEED={}",
            self.target, self.n, self.seed
        );
    }
}
