//! Results of one benchmark run, printed side by side, plus the ratios the project sets goals
//! for, and the protocol for lines measured outside this process (`External`).

use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// One measured line of the table.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Short id used by ratios (`a`, `b`, `c`, `d`, …).
    pub id: String,
    /// What was measured.
    pub label: String,
    /// Seconds for one pass over the whole mix (criterion's samples, median).
    pub seconds_per_pass: f64,
}

/// A ratio printed under the table: how many times faster line `fast` is than line `slow`.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub fast: &'static str,
    pub slow: &'static str,
    /// The goal: `fast` must be at least this many times faster (`None`: informational).
    pub goal: Option<f64>,
    pub why: &'static str,
}

/// Renders the table: messages/s, MB/s (10^6 bytes), time per pass; then the ratios.
pub fn render(messages: usize, bytes: usize, lines: &[Measured], ratios: &[Ratio]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\nmix: {messages} messages, {:.2} MB (one pass = every message once)\n", bytes as f64 / 1e6);
    let width = lines.iter().map(|l| l.label.chars().count() + l.id.len() + 3).max().unwrap_or(10);
    let _ = writeln!(out, "{:<width$}  {:>14}  {:>10}  {:>12}", "line", "messages/s", "MB/s", "ms/pass");
    for l in lines {
        let name = format!("({}) {}", l.id, l.label);
        let _ = writeln!(
            out,
            "{name:<width$}  {:>14}  {:>10.1}  {:>12.2}",
            group_thousands(messages as f64 / l.seconds_per_pass),
            bytes as f64 / 1e6 / l.seconds_per_pass,
            l.seconds_per_pass * 1e3
        );
    }
    if !ratios.is_empty() {
        out.push('\n');
    }
    for r in ratios {
        let (Some(fast), Some(slow)) = (lines.iter().find(|l| l.id == r.fast), lines.iter().find(|l| l.id == r.slow))
        else {
            let _ = writeln!(out, "({}) vs ({}): not measured in this run", r.fast, r.slow);
            continue;
        };
        let x = slow.seconds_per_pass / fast.seconds_per_pass;
        let verdict = match r.goal {
            Some(goal) if x >= goal => format!("goal ≥ {goal}×: met"),
            Some(goal) => format!("goal ≥ {goal}×: MISSED"),
            None => "informational".to_owned(),
        };
        let _ = writeln!(out, "({}) vs ({}): ({}) is {x:.2}× faster  [{verdict}]  {}", r.fast, r.slow, r.fast, r.why);
    }
    out
}

/// A throughput goal for one line: at least `mb_per_s` MB/s (10^6 bytes) over the mix.
#[derive(Clone, Copy, Debug)]
pub struct SpeedGoal {
    pub id: &'static str,
    pub mb_per_s: f64,
    pub why: &'static str,
}

/// Renders the throughput goals under the table: each line's MB/s beside its goal, met or not.
pub fn render_speed_goals(bytes: usize, lines: &[Measured], goals: &[SpeedGoal]) -> String {
    let mut out = String::new();
    for g in goals {
        let Some(l) = lines.iter().find(|l| l.id == g.id) else {
            let _ = writeln!(out, "({}): not measured in this run", g.id);
            continue;
        };
        let mb = bytes as f64 / 1e6 / l.seconds_per_pass;
        let verdict = if mb >= g.mb_per_s { "met" } else { "MISSED" };
        let _ = writeln!(
            out,
            "({}) {} MB/s  [goal ≥ {} MB/s: {verdict}]  {}",
            g.id,
            group_thousands(mb),
            group_thousands(g.mb_per_s),
            g.why
        );
    }
    out
}

fn group_thousands(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A line measured by another program (a binding's own benchmark script), given the mix.
///
/// The runner writes the mix as TSV (see [`crate::mix::Mix::to_tsv`]) and runs
/// `command... MIX_TSV`. The program validates every message against its definition
/// (revision [`crate::mix::REVISION`]) as many passes as it likes, times them itself, and prints
/// one JSON object on the last line of its stdout:
///
/// ```json
/// {"seconds_per_pass": 0.0123, "passes": 20, "invalid": [17, 81]}
/// ```
///
/// `invalid` lists the 0-based indices of the messages it found invalid; the runner fails
/// when they differ from the mix's own verdicts, so a fast but wrong line cannot be reported.
#[derive(Clone, Copy, Debug)]
pub struct External {
    pub id: &'static str,
    pub label: &'static str,
    /// Program and leading arguments, run in the workspace root; the TSV path is appended.
    pub command: &'static [&'static str],
}

impl External {
    /// Runs the program and checks its verdicts against `expected_invalid`.
    pub fn run(&self, root: &Path, tsv: &Path, expected_invalid: &[usize]) -> Result<Measured, String> {
        let (program, args) = self.command.split_first().ok_or("empty command")?;
        let shown = format!("{} {}", self.command.join(" "), tsv.display());
        let out = Command::new(program)
            .args(args)
            .arg(tsv)
            .current_dir(root)
            .output()
            .map_err(|e| format!("({}) cannot run `{shown}`: {e}", self.id))?;
        if !out.status.success() {
            return Err(format!(
                "({}) `{shown}` exited with {}:\n{}",
                self.id,
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        let last = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
        let v: serde_json::Value = serde_json::from_str(last)
            .map_err(|e| format!("({}) `{shown}`: last stdout line is not the result JSON ({e}): {last}", self.id))?;
        let seconds = v
            .get("seconds_per_pass")
            .and_then(serde_json::Value::as_f64)
            .filter(|s| *s > 0.0)
            .ok_or_else(|| format!("({}) `{shown}`: missing positive `seconds_per_pass` in {last}", self.id))?;
        let invalid: Vec<usize> = v
            .get("invalid")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| format!("({}) `{shown}`: missing `invalid` array in {last}", self.id))?
            .iter()
            .map(|x| {
                x.as_u64().map(|n| n as usize).ok_or_else(|| format!("({}) `invalid` holds a non-index {x}", self.id))
            })
            .collect::<Result<_, _>>()?;
        if invalid != expected_invalid {
            return Err(format!(
                "({}) disagrees with the mix's verdicts: found invalid {:?}, expected {:?}",
                self.id,
                preview(&invalid),
                preview(expected_invalid)
            ));
        }
        Ok(Measured { id: self.id.to_owned(), label: self.label.to_owned(), seconds_per_pass: seconds })
    }
}

fn preview(xs: &[usize]) -> String {
    let shown: Vec<String> = xs.iter().take(10).map(|x| x.to_string()).collect();
    let more = if xs.len() > 10 { format!(", … ({} in all)", xs.len()) } else { String::new() };
    format!("[{}{more}]", shown.join(", "))
}
