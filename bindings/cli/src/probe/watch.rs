//! What `mcpgen probe` shows while it runs: a line per step on stderr (unless `--quiet`), and
//! with `--record FILE` every message in the format `validate --conversation` replays (the
//! proxy's: `from`, the conversation as `session` for a legacy session, the `http` member with
//! what the transport carried).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use mcpgen::conversation::{HttpFacts, Sender};
use mcpgen_probe::Observer;

use crate::conversation::record_line_with;
use crate::UsageError;

pub struct Watch {
    progress: bool,
    record: Option<(BufWriter<File>, String)>,
    /// The first write that failed: reported when the run ends (the probe itself goes on).
    failed: Option<std::io::Error>,
}

impl Watch {
    pub fn new(progress: bool, record: Option<&Path>) -> Result<Watch, UsageError> {
        let record = record
            .map(|p| {
                File::create(p)
                    .map(|f| (BufWriter::new(f), p.display().to_string()))
                    .map_err(|e| UsageError(format!("cannot create record file {}: {e}", p.display())))
            })
            .transpose()?;
        Ok(Watch { progress, record, failed: None })
    }

    /// One line of progress.
    pub fn say(&self, what: &str) {
        if self.progress {
            eprintln!("mcpgen probe: {what}");
        }
    }

    /// Flushes the record; a write that failed is an error now.
    pub fn finish(mut self) -> Result<(), UsageError> {
        if let Some((w, path)) = &mut self.record {
            if let Some(e) = self.failed.take().or_else(|| w.flush().err()) {
                return Err(UsageError(format!("cannot write record file {path}: {e}")));
            }
        }
        Ok(())
    }
}

impl Observer for Watch {
    fn step(&mut self, check: &str) {
        self.say(check);
    }

    fn message(&mut self, from: Sender, conversation: Option<&str>, http: Option<&HttpFacts>, text: &[u8]) {
        let Some((w, _)) = &mut self.record else { return };
        if self.failed.is_none() {
            if let Err(e) = writeln!(w, "{}", record_line_with(from, conversation, http, text)) {
                self.failed = Some(e);
            }
        }
    }
}
