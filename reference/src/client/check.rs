//! Self-checks: every message the client sends or receives goes through mcpgen's conversation
//! checker, and every response through `check_response` for the method it answers.

use mcpgen::conversation::{Conversation, Sender};
use mcpgen::methods::ResultFor;
use mcpgen::protocol::{check_response, CheckedResponse, ResponseError};
use mcpgen::{ResultOptions, Revision};

use crate::log::LineLimiter;

/// The findings of one connection, printed on stderr as they come (at most
/// [`crate::log::DEFAULT_LINES_PER_SECOND`] lines a second; the rest counted) and kept up to
/// [`MAX_FINDINGS`] (the rest counted: [`SelfCheck::finding_count`]).
#[derive(Debug)]
pub struct SelfCheck {
    conversation: Conversation,
    findings: Vec<String>,
    finding_count: u64,
    log: LineLimiter,
    quiet: bool,
    /// Print every message (`MCPGEN_CLIENT_TRACE=1`).
    trace: bool,
    /// Keep every message (tests: [`SelfCheck::recording`]), up to [`MAX_RECORDED`].
    recorded: Option<Vec<(Sender, String)>>,
}

/// The most messages a recording self-check keeps; later ones are not kept.
pub const MAX_RECORDED: usize = 10_000;
/// The most findings a self-check keeps; later ones are counted, not kept.
pub const MAX_FINDINGS: usize = 1_000;

impl Default for SelfCheck {
    fn default() -> SelfCheck {
        SelfCheck {
            conversation: Conversation::default(),
            findings: Vec::new(),
            finding_count: 0,
            log: LineLimiter::new("mcpgen-reference-client: ", crate::log::DEFAULT_LINES_PER_SECOND),
            quiet: false,
            trace: false,
            recorded: None,
        }
    }
}

impl SelfCheck {
    pub fn new() -> SelfCheck {
        let trace = std::env::var_os("MCPGEN_CLIENT_TRACE").is_some_and(|v| v != "0" && !v.is_empty());
        SelfCheck { trace, ..SelfCheck::default() }
    }

    /// The same checker printing at most `n` lines a second.
    pub fn with_lines_per_second(mut self, n: u32) -> SelfCheck {
        self.log = LineLimiter::new("mcpgen-reference-client: ", n);
        self
    }

    /// A checker that collects findings without printing them (tests).
    pub fn quiet() -> SelfCheck {
        SelfCheck { quiet: true, ..SelfCheck::default() }
    }

    /// A quiet checker that also keeps every message it observes (tests: what the one
    /// conversation of a connection saw, in order).
    pub fn recording() -> SelfCheck {
        SelfCheck { quiet: true, recorded: Some(Vec::new()), ..SelfCheck::default() }
    }

    /// The messages observed so far, with their senders (empty unless [`SelfCheck::recording`]).
    pub fn recorded(&self) -> &[(Sender, String)] {
        self.recorded.as_deref().unwrap_or_default()
    }

    /// One message on the wire, in order. The conversation checker follows the session
    /// itself: the legacy handshake fixes revision and capabilities, modern requests carry
    /// them in `_meta`; a result is checked against its request.
    pub fn observe(&mut self, from: Sender, bytes: &[u8]) {
        if self.trace {
            self.log.line(&format!("[{}] {}", from.as_str(), String::from_utf8_lossy(bytes)));
        }
        if let Some(r) = self.recorded.as_mut().filter(|r| r.len() < MAX_RECORDED) {
            r.push((from, String::from_utf8_lossy(bytes).into_owned()));
        }
        for f in self.conversation.observe(from, bytes) {
            self.record(format!("{} message: {f}", from.as_str()));
        }
    }

    /// A response to a request of `method` under `revision` (`task_augmented`: the request
    /// carried `params.task`, so its result is a `CreateTaskResult`).
    pub fn response(
        &mut self,
        bytes: &[u8],
        method: &str,
        task_augmented: bool,
        revision: Revision,
    ) -> Result<CheckedResponse, ResponseError> {
        let checked = check_response(
            revision,
            bytes,
            &ResultOptions::request(ResultFor::method(method).task_augmented(task_augmented)),
        );
        if let Err(e) = &checked {
            self.record(format!("response to {method} under {revision}: {e}"));
            for detail in e.errors.iter().skip(1) {
                self.record(format!("  also: {detail}"));
            }
        }
        checked
    }

    /// A response to a modern request that declared the Tasks extension: judged with the
    /// extension negotiated (a `CreateTaskResult` for `tools/call`, `tasks/*` results by status,
    /// a `tasks/get` task's `result` as a `tools/call` result).
    pub fn response_with_tasks(
        &mut self,
        bytes: &[u8],
        method: &str,
        revision: Revision,
    ) -> Result<CheckedResponse, ResponseError> {
        let tasks: Vec<mcpgen::ext::Extension> = mcpgen::ext::tasks::extension().into_iter().collect();
        let mut options = ResultOptions::method(method).negotiated(&tasks);
        if method == "tasks/get" {
            options = options.task_of("tools/call");
        }
        let checked = check_response(revision, bytes, &options);
        if let Err(e) = &checked {
            self.record(format!("response to {method} under {revision} (Tasks extension declared): {e}"));
        }
        checked
    }

    /// Something the client noticed itself (a tool it dropped, a stray message).
    pub fn note(&mut self, text: impl Into<String>) {
        self.record(text.into());
    }

    /// The findings kept (the first [`MAX_FINDINGS`]).
    pub fn findings(&self) -> &[String] {
        &self.findings
    }

    /// Every finding so far, kept or not.
    pub fn finding_count(&self) -> u64 {
        self.finding_count
    }

    /// Prints how many lines the rate limit held back since the last one printed.
    pub fn finish(&self) {
        self.log.finish();
    }

    fn record(&mut self, text: String) {
        if !self.quiet {
            self.log.line(&text);
        }
        self.finding_count += 1;
        if self.findings.len() < MAX_FINDINGS {
            self.findings.push(text);
        }
    }
}
