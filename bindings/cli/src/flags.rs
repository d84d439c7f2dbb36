//! The flags several commands take, each declared once and flattened into the commands'
//! `clap::Args` (`#[command(flatten)]`): `--policy` and `--strict-formats` ([`CheckFlags`]),
//! `--revision` ([`RevisionFlag`]), `--format` ([`FormatFlag`]), `--fail-on` ([`FailOnFlag`]),
//! `--max-sessions` ([`MaxSessionsFlag`]); and the value parsers and name lookups they share
//! (durations, revisions, extensions).

use std::time::Duration;

use clap::ValueEnum;
use mcpgen::{Policy, Revision};

use crate::UsageError;

/// `--policy`: the unknown-key policy.
#[derive(clap::Args)]
pub(crate) struct PolicyFlag {
    /// Unknown-key policy; in checks, `strict` also reports META-3 and non-core resultType
    /// (RESULT-3).
    #[arg(long, default_value = "lossless", value_parser = ["strict", "lenient", "lossless"])]
    policy: String,
}

impl PolicyFlag {
    pub(crate) fn policy(&self) -> Result<Policy, UsageError> {
        self.policy.parse().map_err(|e: mcpgen::UnknownPolicy| UsageError(e.to_string()))
    }
}

/// `--policy` and `--strict-formats`: how messages are checked.
#[derive(clap::Args)]
pub(crate) struct CheckFlags {
    /// Assert `format` (`uri`, `uri-template`, `byte`) instead of treating it as an annotation.
    #[arg(long)]
    strict_formats: bool,
    #[command(flatten)]
    policy: PolicyFlag,
}

impl CheckFlags {
    pub(crate) fn options(&self) -> Result<mcpgen::Options, UsageError> {
        let policy = self.policy.policy()?;
        Ok(mcpgen::Options::default().policy(policy).strict_formats(self.strict_formats))
    }
}

/// `--revision`.
#[derive(clap::Args)]
pub(crate) struct RevisionFlag {
    /// Schema revision (default: the newest of this build).
    #[arg(long, value_name = "REVISION")]
    revision: Option<String>,
}

impl RevisionFlag {
    /// The revision named, or the newest of this build.
    pub(crate) fn get(&self) -> Result<Revision, UsageError> {
        match &self.revision {
            Some(name) => revision(name),
            None => Revision::latest().ok_or_else(|| UsageError("this build has no revision".into())),
        }
    }

    /// Whether `--revision` was given.
    pub(crate) fn explicit(&self) -> bool {
        self.revision.is_some()
    }
}

/// `--format`: text for people, JSON for programs.
#[derive(clap::Args)]
pub(crate) struct FormatFlag {
    /// Output format (`json`: as the command's description says).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

impl FormatFlag {
    pub(crate) fn json(&self) -> bool {
        self.format == Format::Json
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

/// `--fail-on`.
#[derive(clap::Args)]
pub(crate) struct FailOnFlag {
    /// Exit 1 on a message with a finding at this level: `error`, or `warning` for either
    /// (`validate --conversation`: `error` by default; `proxy`: where the server itself exits
    /// 0, and without it the proxy exits with the server's status).
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub(crate) fail_on: Option<FailOn>,
}

/// `--fail-on`: the finding level that makes the exit status 1.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOn {
    /// MUST / MUST NOT and schema violations.
    Error,
    /// Also SHOULD (warning-level findings).
    Warning,
}

impl FailOn {
    /// Whether messages with errors / with warnings only reach this level.
    pub(crate) fn fails(self, errors: usize, warnings_only: usize) -> bool {
        errors > 0 || (self == FailOn::Warning && warnings_only > 0)
    }
}

/// `--max-sessions`: the conversation checker's session table.
#[derive(clap::Args)]
pub(crate) struct MaxSessionsFlag {
    /// Conversations checked at once [default: 1024] (the HTTP proxy: one per legacy session,
    /// plus the requests outside a session). A message of one more session evicts the least
    /// recently used: its findings stay reported, its state is forgotten, a note on stderr
    /// says so.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_sessions: Option<u64>,
}

impl MaxSessionsFlag {
    pub(crate) fn given(&self) -> bool {
        self.max_sessions.is_some()
    }

    /// The limit, or `default` (the conversation checker's, which this module does not name:
    /// the checker's modules import this one).
    pub(crate) fn get_or(&self, default: usize) -> usize {
        size_or(self.max_sessions, default)
    }
}

/// A count flag as a `usize` (saturating), or its default.
pub(crate) fn size_or(n: Option<u64>, default: usize) -> usize {
    n.map_or(default, |n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// A revision of this build by name.
pub(crate) fn revision(name: &str) -> Result<Revision, UsageError> {
    Revision::parse(name).ok_or_else(|| {
        let known: Vec<String> = Revision::all().iter().map(|r| r.to_string()).collect();
        UsageError(format!("unknown revision `{name}` (this build has: {})", known.join(", ")))
    })
}

/// An extension of this build by identifier or short name.
pub(crate) fn extension(name: &str) -> Result<mcpgen::ext::Extension, UsageError> {
    mcpgen::ext::Extension::parse(name).ok_or_else(|| {
        let known: Vec<&str> = mcpgen::ext::Extension::ALL.iter().map(|e| e.id()).collect();
        UsageError(format!("unknown extension `{name}` (this build has: {})", known.join(", ")))
    })
}

/// Every `--extension` given, looked up.
pub(crate) fn extensions(names: &[String]) -> Result<Vec<mcpgen::ext::Extension>, UsageError> {
    names.iter().map(|e| extension(e)).collect()
}

/// Why a duration flag's value was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DurationError {
    /// No number before the unit (`ms`, `-1s`, ``).
    NoNumber,
    /// A unit other than `ms`, `s`, `m`, `h`.
    UnknownUnit(String),
    /// Zero: a wait of no time at all.
    Zero,
    /// More than a `Duration` holds.
    TooLong,
}

impl std::fmt::Display for DurationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DurationError::NoNumber => write!(f, "give a positive number with a unit: 10s, 500ms, 2m"),
            DurationError::UnknownUnit(u) => write!(f, "unknown unit `{u}` (ms, s, m or h)"),
            DurationError::Zero => write!(f, "give a positive duration, not zero"),
            DurationError::TooLong => write!(f, "too long a duration"),
        }
    }
}

impl std::error::Error for DurationError {}

/// The unit of a duration given as a bare number (the unit the flag had before it took units).
#[derive(Debug, Clone, Copy)]
pub(crate) enum BareUnit {
    Seconds,
    Milliseconds,
}

/// A positive duration: a decimal number and a unit (`10s`, `500ms`, `2m`, `1.5h`), or a bare
/// number in `bare`'s unit.
pub(crate) fn parse_duration(text: &str, bare: BareUnit) -> Result<Duration, DurationError> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| DurationError::NoNumber)?;
    let seconds_per_unit = match (unit, bare) {
        ("ms", _) | ("", BareUnit::Milliseconds) => 0.001,
        ("s", _) | ("", BareUnit::Seconds) => 1.0,
        ("m", _) => 60.0,
        ("h", _) => 3600.0,
        (other, _) => return Err(DurationError::UnknownUnit(other.to_owned())),
    };
    let duration = Duration::try_from_secs_f64(value * seconds_per_unit).map_err(|_| DurationError::TooLong)?;
    if duration.is_zero() {
        return Err(DurationError::Zero);
    }
    Ok(duration)
}

/// The value parser of a duration flag whose bare numbers are seconds (the proxy's timeouts).
pub(crate) fn seconds_or_duration(text: &str) -> Result<Duration, DurationError> {
    parse_duration(text, BareUnit::Seconds)
}

/// The value parser of a duration flag whose bare numbers are milliseconds (`probe
/// --timeout`, `--budget`, once `--timeout-ms` and `--budget-ms`).
pub(crate) fn millis_or_duration(text: &str) -> Result<Duration, DurationError> {
    parse_duration(text, BareUnit::Milliseconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_units_and_bare_numbers_in_the_flags_old_unit() {
        let ms = Duration::from_millis;
        assert_eq!(seconds_or_duration("10s"), Ok(ms(10_000)));
        assert_eq!(seconds_or_duration("500ms"), Ok(ms(500)));
        assert_eq!(seconds_or_duration("2m"), Ok(ms(120_000)));
        assert_eq!(seconds_or_duration("1.5h"), Ok(ms(5_400_000)));
        assert_eq!(seconds_or_duration("30"), Ok(ms(30_000)));
        assert_eq!(seconds_or_duration("0.25"), Ok(ms(250)));
        assert_eq!(millis_or_duration("250"), Ok(ms(250)));
        assert_eq!(millis_or_duration("3s"), Ok(ms(3_000)));
    }

    #[test]
    fn bad_durations_are_typed_errors() {
        assert_eq!(seconds_or_duration(""), Err(DurationError::NoNumber));
        assert_eq!(seconds_or_duration("ms"), Err(DurationError::NoNumber));
        assert_eq!(seconds_or_duration("-1s"), Err(DurationError::NoNumber));
        assert_eq!(seconds_or_duration("1.2.3s"), Err(DurationError::NoNumber));
        assert_eq!(seconds_or_duration("10 s"), Err(DurationError::UnknownUnit(" s".into())));
        assert_eq!(seconds_or_duration("5d"), Err(DurationError::UnknownUnit("d".into())));
        assert_eq!(seconds_or_duration("0"), Err(DurationError::Zero));
        assert_eq!(seconds_or_duration("0ms"), Err(DurationError::Zero));
        assert_eq!(seconds_or_duration("0.0000000001s"), Err(DurationError::Zero));
        assert_eq!(seconds_or_duration("1e300"), Err(DurationError::UnknownUnit("e300".into())));
        let huge = format!("{}h", "9".repeat(30));
        assert_eq!(seconds_or_duration(&huge), Err(DurationError::TooLong));
    }

    #[test]
    fn a_policy_name_clap_accepts_is_one_the_core_knows() {
        for name in ["strict", "lenient", "lossless"] {
            let flag = PolicyFlag { policy: name.to_owned() };
            assert!(flag.policy().is_ok(), "{name}");
        }
    }
}
