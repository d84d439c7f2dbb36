//! How a benchmark sample is timed (`MCPGEN_BENCH_CLOCK`): the benchmark thread's CPU time by
//! default on Unix, or elapsed time.

use std::time::{Duration, Instant};

/// What a sample's time is measured with (`MCPGEN_BENCH_CLOCK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// CPU time of the benchmark thread: time the thread spends descheduled does not count,
    /// so a machine shared with other work still gives stable numbers. The default on Unix.
    ThreadCpu,
    /// Elapsed time (`std::time::Instant`).
    Wall,
}

impl Clock {
    pub fn from_env() -> Result<Clock, String> {
        match std::env::var("MCPGEN_BENCH_CLOCK").as_deref() {
            Ok("wall") => Ok(Clock::Wall),
            Ok("cpu") => Ok(Clock::ThreadCpu),
            Ok(other) => Err(format!("MCPGEN_BENCH_CLOCK={other}: expected `cpu` or `wall`")),
            Err(_) if cfg!(unix) => Ok(Clock::ThreadCpu),
            Err(_) => Ok(Clock::Wall),
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Clock::ThreadCpu => "thread CPU time (MCPGEN_BENCH_CLOCK=wall for elapsed time)",
            Clock::Wall => "elapsed wall-clock time",
        }
    }

    /// Runs `f` and returns how long it took on this clock.
    pub fn time(self, f: impl FnOnce()) -> Duration {
        match self {
            Clock::Wall => {
                let start = Instant::now();
                f();
                start.elapsed()
            }
            Clock::ThreadCpu => {
                let start = thread_cpu_time();
                f();
                thread_cpu_time().saturating_sub(start)
            }
        }
    }
}

#[cfg(unix)]
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the timespec we pass a valid, exclusive pointer to.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(not(unix))]
fn thread_cpu_time() -> Duration {
    unreachable!("Clock::ThreadCpu is only chosen on Unix")
}
