//! The whole `cargo xtask interop` step once the SDKs are installed (`mcpgen-interop all`):
//! the matrix ([`crate::run_all`]), its HTTP pairings again through `mcpgen proxy --listen`,
//! concurrent SDK clients through the proxies ([`crate::concurrent`]), SDK clients with invalid
//! tool arguments through the proxies ([`crate::gate`]) and the probes
//! ([`crate::probed::probe_all`]). All five run even when one fails, so one run of the step
//! reports everything; the step fails when any of them does.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::concurrent::run_concurrent;
use crate::gate::run_invalid_args;
use crate::plan::Places;
use crate::probed::probe_all;
use crate::run_all;

/// One of the step's five runs, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `mcpgen-interop run`: every pairing, tapped directly.
    Matrix,
    /// `mcpgen-interop run --via-proxy`: the HTTP pairings with the proxy between tap and server.
    ViaProxy,
    /// `mcpgen-interop concurrent`: SDK clients at once through one `proxy --listen` and
    /// through stdio proxies.
    Concurrent,
    /// `mcpgen-interop invalid-args`: SDK clients calling a tool with invalid arguments through
    /// both proxies, without and with `--enforce`.
    InvalidArgs,
    /// `mcpgen-interop probe`: `mcpgen probe` against every SDK server, the panel and the
    /// reference server.
    Probes,
}

impl Part {
    pub const ALL: [Part; 5] = [Part::Matrix, Part::ViaProxy, Part::Concurrent, Part::InvalidArgs, Part::Probes];

    /// The command line that runs this part alone.
    pub fn command(self) -> &'static str {
        match self {
            Part::Matrix => "mcpgen-interop run",
            Part::ViaProxy => "mcpgen-interop run --via-proxy",
            Part::Concurrent => "mcpgen-interop concurrent",
            Part::InvalidArgs => "mcpgen-interop invalid-args",
            Part::Probes => "mcpgen-interop probe",
        }
    }

    /// The places this part runs with (the proxy part: `via_proxy` set).
    fn places(self, places: &Places) -> Places {
        Places { via_proxy: self == Part::ViaProxy, ..places.clone() }
    }

    /// The results file this part writes.
    pub fn results_file(self, places: &Places) -> PathBuf {
        let places = self.places(places);
        match self {
            Part::Matrix | Part::ViaProxy => places.results_file(),
            Part::Concurrent => places.concurrent_results_file(),
            Part::InvalidArgs => places.invalid_args_results_file(),
            Part::Probes => places.probe_results_file(),
        }
    }

    /// The line printed before the part starts (none before the first).
    fn banner(self) -> Option<&'static str> {
        match self {
            Part::Matrix => None,
            Part::ViaProxy => Some("==> the HTTP pairings through `mcpgen proxy --listen` (tap → proxy → server)"),
            Part::Concurrent => {
                Some("==> SDK clients at once through one `mcpgen proxy --listen` and through stdio proxies")
            }
            Part::InvalidArgs => Some(
                "==> SDK clients calling a tool with invalid arguments through both proxies, without and with --enforce",
            ),
            Part::Probes => {
                Some("==> mcpgen probe against the SDK servers, the real-server panel and the reference server")
            }
        }
    }

    /// What the timing line calls this part.
    fn what(self) -> &'static str {
        match self {
            Part::Matrix => "the matrix",
            Part::ViaProxy => "through the proxy",
            Part::Concurrent => "the concurrent clients",
            Part::InvalidArgs => "the invalid tool arguments",
            Part::Probes => "the probes",
        }
    }
}

/// Why a part did not pass.
#[derive(Debug, Clone, PartialEq)]
pub enum PartProblem {
    /// It ran and found something its baseline does not list (details in its results file).
    Failed { part: Part, results: PathBuf },
    /// It could not run (an unreadable baseline, no pairing matching `--only`, …).
    NotRun { part: Part, error: String },
}

impl fmt::Display for PartProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartProblem::Failed { part, results } => {
                write!(f, "{} failed; details in {}", part.command(), results.display())
            }
            PartProblem::NotRun { part, error } => write!(f, "{} could not run: {error}", part.command()),
        }
    }
}

/// Runs the five parts in order (each on the pairings or targets whose id contains `only`,
/// when given), printing each one's time; the problems of those that did not pass.
pub async fn run_step(places: &Places, baseline: &Path, only: Option<&str>) -> Vec<PartProblem> {
    let start = Instant::now();
    let mut problems = Vec::new();
    for part in Part::ALL {
        if let Some(banner) = part.banner() {
            println!("{banner}");
        }
        let ran = Instant::now();
        let part_places = part.places(places);
        let outcome = match part {
            Part::Matrix | Part::ViaProxy => run_all(&part_places, baseline, only).await,
            Part::Concurrent => run_concurrent(&part_places, baseline, only).await,
            Part::InvalidArgs => run_invalid_args(&part_places, only).await,
            Part::Probes => probe_all(&part_places, baseline, only).await,
        };
        println!("interop: {} took {:.1?}", part.what(), ran.elapsed());
        match outcome {
            Ok(true) => {}
            Ok(false) => problems.push(PartProblem::Failed { part, results: part.results_file(places) }),
            Err(error) => problems.push(PartProblem::NotRun { part, error }),
        }
    }
    println!("interop: the five runs took {:.1?}", start.elapsed());
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(dir: &Path) -> Places {
        Places {
            root: dir.to_path_buf(),
            dir: dir.to_path_buf(),
            bin: dir.to_path_buf(),
            node: "node".into(),
            via_proxy: false,
        }
    }

    #[test]
    fn each_part_names_its_own_results_file() {
        let p = places(Path::new("/t"));
        assert_eq!(Part::Matrix.results_file(&p), Path::new("/t/results.json"));
        assert_eq!(Part::ViaProxy.results_file(&p), Path::new("/t/results-via-proxy.json"));
        assert_eq!(Part::Probes.results_file(&p), Path::new("/t/probe-results.json"));
        let failed = PartProblem::Failed { part: Part::ViaProxy, results: Part::ViaProxy.results_file(&p) };
        assert_eq!(failed.to_string(), "mcpgen-interop run --via-proxy failed; details in /t/results-via-proxy.json");
    }

    #[tokio::test]
    async fn a_part_that_cannot_run_does_not_stop_the_others() {
        let dir = std::env::temp_dir().join(format!("mcpgen-interop-step-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("no-such-baseline.toml");
        let problems = run_step(&places(&dir), &missing, None).await;
        let parts: Vec<Part> = problems
            .iter()
            .map(|p| match p {
                // The invalid-arguments part reads no baseline: it cannot run without the binaries.
                PartProblem::NotRun { part: Part::InvalidArgs, error } => {
                    assert!(error.contains("not built") && error.contains("mcpgen"), "{error}");
                    Part::InvalidArgs
                }
                PartProblem::NotRun { part, error } => {
                    assert!(error.contains("cannot read") && error.contains("no-such-baseline.toml"), "{error}");
                    *part
                }
                other => panic!("expected NotRun, got {other:?}"),
            })
            .collect();
        assert_eq!(parts, Part::ALL);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn an_only_that_matches_nothing_is_reported_per_part() {
        let dir = std::env::temp_dir().join(format!("mcpgen-interop-step-only-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let baseline = dir.join("baseline.toml");
        std::fs::write(&baseline, "").unwrap();
        let problems = run_step(&places(&dir), &baseline, Some("no pairing has this id")).await;
        assert_eq!(problems.len(), Part::ALL.len());
        for (problem, part) in problems.iter().zip(Part::ALL) {
            let PartProblem::NotRun { part: got, error } = problem else { panic!("{problem:?}") };
            assert_eq!(*got, part);
            assert!(error.contains("matches \"no pairing has this id\""), "{error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
