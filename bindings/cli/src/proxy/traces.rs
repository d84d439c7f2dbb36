//! `mcpgen proxy --otlp-endpoint URL` (or the standard `OTEL_EXPORTER_OTLP_*` variables):
//! OpenTelemetry traces of both proxies, exported over OTLP/HTTP (protobuf).
//!
//! One span per request/response exchange, made by the checker thread after both messages were
//! relayed (never on the relay's path), following the OpenTelemetry semantic conventions for
//! MCP: named `{mcp.method.name} {target}` (the tool or prompt name, when there is one), kind
//! SERVER (the proxy receives the request), with `mcp.method.name`, `jsonrpc.request.id`,
//! `mcp.session.id` (HTTP legacy sessions), `mcp.protocol.version`, `gen_ai.tool.name` and
//! `gen_ai.operation.name` (`tools/call`), `gen_ai.prompt.name` (`prompts/get`),
//! `network.transport`, and for an error response `rpc.response.status_code` and `error.type`
//! (the JSON-RPC code) with the span's status set to error. Each finding on the request or the
//! response is a span event `mcpgen.finding` (rule id, level, JSON pointer, clause). A request
//! whose `params._meta` carries a W3C `traceparent` (and `tracestate`) continues that trace;
//! with `--otlp-inject-traceparent` a request without one is given one by the relay
//! ([`super::inject`]) and its span is made with the injected ids. A cancellation or a progress
//! notification about an open request is an event `mcp.notification` on its span. Message
//! bodies are not exported unless `--otlp-include-bodies` asks for them (cut at [`MAX_BODY_BYTES`]).
//!
//! Export: the SDK's batch processor (its own thread, a queue of `OTEL_BSP_MAX_QUEUE_SIZE`,
//! 2048 by default; a full queue drops). Every span that is not exported — dropped at the
//! queue, or in a batch the collector did not take — is counted: live in
//! `mcpgen_proxy_spans_dropped_total` (`--metrics`), and in all on stderr at the end.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use mcpgen::conversation::{Finding, Sender};
use mcpgen::json::{Kind, Tape};
use mcpgen::JsonView;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{Span as _, SpanKind, Status, TraceContextExt, Tracer as _, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracer, SdkTracerProvider, SpanData};
use opentelemetry_sdk::Resource;

use super::inject::Injector;
use super::metrics::Metrics;
use crate::UsageError;

/// Requests with a span open at once (per proxy); past it a request gets no span (counted as
/// dropped).
pub const MAX_OPEN_SPANS: usize = 4096;
/// The longest peer-chosen text (method, tool, id, pointer) kept in an attribute; longer is cut.
pub const MAX_ATTRIBUTE_BYTES: usize = 256;
/// `--otlp-include-bodies`: the longest message body kept in an attribute; longer is cut.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// How long the end of the proxy waits for the last export.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the spans go: `--otlp-endpoint` (a base URL; `/v1/traces` is appended) or the
/// environment (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, `OTEL_EXPORTER_OTLP_ENDPOINT`
/// plus `/v1/traces`). `None`: tracing is off.
pub fn endpoint(flag: Option<&str>) -> Result<Option<String>, UsageError> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let protocol = env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL").or_else(|| env("OTEL_EXPORTER_OTLP_PROTOCOL"));
    let endpoint = match flag {
        Some(url) => Some(format!("{}/v1/traces", url.trim_end_matches('/'))),
        None => env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .or_else(|| env("OTEL_EXPORTER_OTLP_ENDPOINT").map(|u| format!("{}/v1/traces", u.trim_end_matches('/')))),
    };
    if let (Some(_), Some(p)) = (&endpoint, protocol) {
        if p != "http/protobuf" {
            return Err(UsageError(format!(
                "OTEL_EXPORTER_OTLP_PROTOCOL={p}: mcpgen proxy exports OTLP over HTTP with protobuf only (http/protobuf)"
            )));
        }
    }
    match endpoint {
        Some(url) if url.starts_with("http://") => Ok(Some(url)),
        Some(url) => Err(UsageError(format!("OTLP endpoint {url}: give an http:// URL (a collector or agent nearby)"))),
        None => Ok(None),
    }
}

/// What became of the spans: ended by the checker, exported, and the collector's last error.
#[derive(Default)]
struct Counts {
    ended: AtomicU64,
    exported: AtomicU64,
    refused: AtomicU64,
    last_error: Mutex<Option<String>>,
}

/// The OTLP exporter, counting what it could not deliver.
#[derive(Debug)]
struct Counting {
    inner: opentelemetry_otlp::SpanExporter,
    counts: Arc<CountsHandle>,
}

/// [`Counts`] and the metrics to tell (the exporter must be `Debug`).
struct CountsHandle {
    counts: Counts,
    metrics: Option<Arc<Metrics>>,
}

impl std::fmt::Debug for CountsHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountsHandle").finish_non_exhaustive()
    }
}

impl opentelemetry_sdk::trace::SpanExporter for Counting {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let n = batch.len() as u64;
        let result = self.inner.export(batch).await;
        match &result {
            Ok(()) => {
                self.counts.counts.exported.fetch_add(n, Ordering::Relaxed);
            }
            Err(e) => {
                self.counts.counts.refused.fetch_add(n, Ordering::Relaxed);
                *self.counts.counts.last_error.lock().unwrap_or_else(PoisonError::into_inner) = Some(e.to_string());
                if let Some(m) = &self.counts.metrics {
                    m.spans_dropped(n);
                }
            }
        }
        result
    }

    fn shutdown_with_timeout(&mut self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&mut self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The proxy's tracer: made once, handed to the checker thread.
pub struct Tracing {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    counts: Arc<CountsHandle>,
    endpoint: String,
    transport: &'static str,
    /// `--otlp-inject-traceparent`: shared with the relay that rewrites the requests.
    injector: Option<Arc<Injector>>,
    /// `--otlp-include-bodies`: each message's text as an attribute.
    bodies: bool,
}

impl Tracing {
    /// Starts the exporter (no connection is made until the first batch). `transport`:
    /// `pipe` (stdio) or `tcp` (HTTP), as `network.transport`.
    pub fn start(
        endpoint: String,
        transport: &'static str,
        metrics: Option<Arc<Metrics>>,
    ) -> Result<Tracing, UsageError> {
        use opentelemetry_otlp::WithExportConfig;
        let inner = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_endpoint(endpoint.clone())
            .build()
            .map_err(|e| UsageError(format!("OTLP endpoint {endpoint}: {e}")))?;
        let counts = Arc::new(CountsHandle { counts: Counts::default(), metrics });
        let exporter = Counting { inner, counts: Arc::clone(&counts) };
        // The SDK's defaults and `OTEL_BSP_*`: a queue of 2048 spans, batches of 512.
        let processor =
            BatchSpanProcessor::builder(exporter).with_batch_config(BatchConfigBuilder::default().build()).build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            .with_resource(Resource::builder().with_service_name("mcpgen-proxy").build())
            .build();
        let tracer = provider.tracer("mcpgen-proxy");
        Ok(Tracing { provider, tracer, counts, endpoint, transport, injector: None, bodies: false })
    }

    /// `--otlp-include-bodies`: the spans carry the messages' text (up to [`MAX_BODY_BYTES`]
    /// each): tool arguments, results, prompts, whatever the peers sent.
    pub fn include_bodies(&mut self) {
        self.bodies = true;
    }

    /// `--otlp-inject-traceparent`: the injector the relay uses; the spans of the requests it
    /// rewrote are made with the ids it wrote.
    pub fn inject_traceparent(&mut self) -> Arc<Injector> {
        Arc::clone(self.injector.get_or_insert_with(Default::default))
    }

    /// Exports what is left (within a few seconds) and says on stderr how many spans were not
    /// exported, if any.
    pub fn finish(self) {
        let _ = self.provider.force_flush();
        let _ = self.provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT);
        if let Some(skipped) = self.injector.as_ref().map(|i| i.skipped()).filter(|&n| n > 0) {
            eprintln!(
                "mcpgen proxy: {skipped} request(s) forwarded without an injected traceparent ({} were waiting for their span)",
                super::inject::MAX_PENDING_INJECTIONS
            );
        }
        let c = &self.counts.counts;
        let (ended, exported) = (c.ended.load(Ordering::Relaxed), c.exported.load(Ordering::Relaxed));
        if exported < ended {
            let lost = ended - exported;
            // Spans the queue dropped were never handed to the exporter: count them too.
            let refused = c.refused.load(Ordering::Relaxed);
            if let Some(m) = &self.counts.metrics {
                m.spans_dropped(lost.saturating_sub(refused));
            }
            let why = c.last_error.lock().unwrap_or_else(PoisonError::into_inner).clone();
            eprintln!(
                "mcpgen proxy: {lost} of {ended} span(s) not exported to {}{}",
                self.endpoint,
                why.map_or(String::new(), |e| format!(" ({e})"))
            );
        }
    }
}

/// Text from the peer, cut to [`MAX_ATTRIBUTE_BYTES`] on a character boundary.
fn capped(s: &str) -> String {
    capped_to(s, MAX_ATTRIBUTE_BYTES)
}

/// `s` cut to `max` bytes on a character boundary, `…` marking the cut.
fn capped_to(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// A request's span, open until its response.
struct Open {
    span: opentelemetry_sdk::trace::Span,
    /// The request's `_meta.progressToken` (as [`id_text`] writes it), if any.
    token: Option<String>,
}

/// Which span a message belongs to: the scope ids are matched in, the request's sender, its id.
type SpanKey = (String, Sender, String);

/// The checker thread's side: opens a span at each request, adds the findings, ends it at the
/// response.
pub struct Spans {
    tracing: Tracing,
    open: HashMap<SpanKey, Open>,
    /// Progress tokens of open requests (scope, the request's sender, token) → their span;
    /// an entry lives as long as its span is open, so this is bounded by [`MAX_OPEN_SPANS`].
    progress: HashMap<SpanKey, SpanKey>,
}

/// An id or a progress token as a map key: a string as it is, a number as its JSON text.
fn id_text<'v, V: JsonView<'v>>(id: &V) -> Option<String> {
    match id.kind() {
        Kind::String => id.as_str().map(|s| s.into_owned()),
        Kind::Number => Some(id.to_value().to_json_string()),
        _ => None,
    }
}

impl Spans {
    pub fn new(tracing: Tracing) -> Spans {
        Spans { tracing, open: HashMap::new(), progress: HashMap::new() }
    }

    /// One message as relayed, with what the checker knows of it ([`Relayed`]).
    pub fn message(&mut self, text: &[u8], seen: &Relayed<'_>) {
        let Ok(tape) = Tape::parse_bytes(text) else { return };
        let root = tape.root();
        if root.kind() != Kind::Object {
            return;
        }
        let method = root.get("method").and_then(|m| m.as_str());
        let Some(id) = root.get("id").as_ref().and_then(id_text) else {
            if let (Some(method), None) = (method, root.get("id")) {
                self.notification(&root, &method, seen, self.body(text));
            }
            return;
        };
        let body = self.body(text);
        match method {
            Some(method) => self.open_span(&root, &method, id, seen, body),
            None => self.close_span(&root, id, seen, body),
        }
    }

    /// `--otlp-include-bodies`: the message's text, as an attribute named `name` later.
    fn body(&self, text: &[u8]) -> Option<String> {
        self.tracing.bodies.then(|| capped_to(String::from_utf8_lossy(text).trim_end(), MAX_BODY_BYTES))
    }

    /// A notification about an open request — `notifications/cancelled` from its sender,
    /// `notifications/progress` for its progress token — is an event `mcp.notification` on the
    /// request's span (the method, who sent it, progress and total; never the free text), with
    /// the notification's findings as events too. Others have no span.
    fn notification<'v, V: JsonView<'v>>(&mut self, note: &V, method: &str, seen: &Relayed<'_>, body: Option<String>) {
        let params = note.get("params");
        let key = match method {
            "notifications/cancelled" => params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .as_ref()
                .and_then(id_text)
                .map(|id| (seen.scope.to_owned(), seen.from, id)),
            "notifications/progress" => params
                .as_ref()
                .and_then(|p| p.get("progressToken"))
                .as_ref()
                .and_then(id_text)
                .and_then(|token| self.progress.get(&(seen.scope.to_owned(), seen.from.peer(), token)).cloned()),
            _ => None,
        };
        let Some(open) = key.and_then(|key| self.open.get_mut(&key)) else { return };
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", method.to_owned()),
            KeyValue::new("mcpgen.sender", seen.from.as_str()),
        ];
        for name in ["progress", "total"] {
            if let Some(n) = params.as_ref().and_then(|p| p.get(name)).and_then(|n| n.to_number()) {
                attributes.push(KeyValue::new(format!("mcp.progress.{name}"), n.as_f64()));
            }
        }
        attributes.extend(body.map(|b| KeyValue::new("mcpgen.notification.body", b)));
        open.span.add_event_with_timestamp("mcp.notification", seen.at, attributes);
        add_findings(&mut open.span, seen.findings, seen.at, seen.revision);
    }

    /// A request: its span starts (unless [`MAX_OPEN_SPANS`] are open).
    fn open_span<'v, V: JsonView<'v>>(
        &mut self,
        request: &V,
        method: &str,
        id: String,
        seen: &Relayed<'_>,
        body: Option<String>,
    ) {
        let key = (seen.scope.to_owned(), seen.from, id);
        if self.open.len() >= MAX_OPEN_SPANS && !self.open.contains_key(&key) {
            self.tracing.counts.counts.ended.fetch_add(1, Ordering::Relaxed);
            if let Some(m) = &self.tracing.counts.metrics {
                m.spans_dropped(1);
            }
            return;
        }
        let params = request.get("params");
        let token = params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get("progressToken"));
        let token = token.as_ref().and_then(id_text);
        let (name, mut attributes) = request_attributes(self.tracing.transport, params.as_ref(), method, &key.2, seen);
        attributes.extend(body.map(|b| KeyValue::new("mcpgen.request.body", b)));
        let meta = params.as_ref().and_then(|p| p.get("_meta"));
        let mut builder = self
            .tracing
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_start_time(seen.at)
            .with_attributes(attributes);
        let parent = match self.injected(meta.as_ref()) {
            // The relay gave the request this span's ids: a root span the server continues.
            Some((trace, span)) => {
                builder = builder.with_trace_id(trace).with_span_id(span);
                Context::new()
            }
            None => parent_context(meta.as_ref()),
        };
        let mut span = builder.start_with_context(&self.tracing.tracer, &parent);
        add_findings(&mut span, seen.findings, seen.at, seen.revision);
        if let Some(token) = &token {
            self.progress.insert((key.0.clone(), key.1, token.clone()), key.clone());
        }
        if let Some(old) = self.open.insert(key.clone(), Open { span, token: token.clone() }) {
            // An id reused while pending: the first exchange ends here, unanswered.
            if let Some(old_token) = old.token.as_ref().filter(|t| Some(*t) != token.as_ref()) {
                self.progress.remove(&(key.0.clone(), key.1, old_token.clone()));
            }
            self.end(old, seen.at);
        }
    }

    /// The ids of a `traceparent` this proxy injected into the request (claimed once).
    fn injected<'v, V: JsonView<'v>>(
        &self,
        meta: Option<&V>,
    ) -> Option<(opentelemetry::trace::TraceId, opentelemetry::trace::SpanId)> {
        let injector = self.tracing.injector.as_ref()?;
        let context = parent_context(meta);
        let span = context.span();
        let ids = span.span_context();
        (ids.is_valid() && injector.take(ids.span_id())).then(|| (ids.trace_id(), ids.span_id()))
    }

    /// A response: its request's span gets its findings and error, and ends.
    fn close_span<'v, V: JsonView<'v>>(&mut self, response: &V, id: String, seen: &Relayed<'_>, body: Option<String>) {
        let key = (seen.scope.to_owned(), seen.from.peer(), id);
        let Some(mut open) = self.open.remove(&key) else { return };
        if let Some(token) = open.token.take() {
            self.progress.remove(&(key.0, key.1, token));
        }
        add_findings(&mut open.span, seen.findings, seen.at, seen.revision);
        if let Some(body) = body {
            open.span.set_attribute(KeyValue::new("mcpgen.response.body", body));
        }
        if let Some(error) = response.get("error") {
            let code = error.get("code").and_then(|c| c.to_number()).map(|n| n.to_string());
            let code = code.as_deref().map_or("invalid", |c| c);
            open.span.set_attribute(KeyValue::new("rpc.response.status_code", capped(code)));
            open.span.set_attribute(KeyValue::new("error.type", capped(code)));
            open.span.set_status(Status::error(format!("JSON-RPC error {code}")));
        }
        self.end(open, seen.at);
    }

    fn end(&self, mut open: Open, at: SystemTime) {
        open.span.end_with_timestamp(at);
        self.tracing.counts.counts.ended.fetch_add(1, Ordering::Relaxed);
    }

    /// Ends the spans still open (requests never answered), then exports and reports.
    pub fn finish(mut self) {
        let now = SystemTime::now();
        for (_, mut open) in self.open.drain() {
            open.span.set_attribute(KeyValue::new("mcpgen.unanswered", true));
            open.span.end_with_timestamp(now);
            self.tracing.counts.counts.ended.fetch_add(1, Ordering::Relaxed);
        }
        self.tracing.finish();
    }
}

/// A relayed message as the checker knows it: who sent it, when, its findings. `scope` matches
/// ids as the checker does (a session, an HTTP exchange); `session` is the HTTP legacy session
/// id; `revision` the session's negotiated revision, when known.
pub struct Relayed<'a> {
    pub from: Sender,
    pub scope: &'a str,
    pub session: Option<&'a str>,
    pub revision: Option<&'a str>,
    pub at: SystemTime,
    pub findings: &'a [Finding],
}

/// A request's span name and attributes (the MCP and JSON-RPC semantic conventions).
fn request_attributes<'v, V: JsonView<'v>>(
    transport: &'static str,
    params: Option<&V>,
    method: &str,
    id: &str,
    seen: &Relayed<'_>,
) -> (String, Vec<KeyValue>) {
    let mut attributes = vec![
        KeyValue::new("mcp.method.name", capped(method)),
        KeyValue::new("jsonrpc.request.id", capped(id)),
        KeyValue::new("jsonrpc.protocol.version", "2.0"),
        KeyValue::new("network.transport", transport),
        KeyValue::new("mcpgen.sender", seen.from.as_str()),
    ];
    let text = |v: Option<V>| v.and_then(|v| v.as_str()).map(|v| v.into_owned());
    let meta = params.and_then(|p| p.get("_meta"));
    let version = text(meta.and_then(|m| m.get("io.modelcontextprotocol/protocolVersion")))
        .or_else(|| if method == "initialize" { text(params.and_then(|p| p.get("protocolVersion"))) } else { None })
        .or_else(|| seen.revision.map(str::to_owned));
    if let Some(v) = version {
        attributes.push(KeyValue::new("mcp.protocol.version", capped(&v)));
    }
    if let Some(s) = seen.session {
        attributes.push(KeyValue::new("mcp.session.id", capped(s)));
    }
    let mut name = capped(method);
    match (method, text(params.and_then(|p| p.get("name")))) {
        ("tools/call", Some(tool)) => {
            attributes.push(KeyValue::new("gen_ai.tool.name", capped(&tool)));
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            name = format!("{name} {}", capped(&tool));
        }
        ("prompts/get", Some(prompt)) => {
            attributes.push(KeyValue::new("gen_ai.prompt.name", capped(&prompt)));
            name = format!("{name} {}", capped(&prompt));
        }
        _ => {}
    }
    (name, attributes)
}

/// The W3C Trace Context in a request's `_meta` (MCP reserves `traceparent` and `tracestate`),
/// read by the SDK's propagator; an empty context when there is none or it is invalid.
fn parent_context<'v, V: JsonView<'v>>(meta: Option<&V>) -> Context {
    let mut carrier = HashMap::new();
    for k in ["traceparent", "tracestate"] {
        if let Some(v) = meta.and_then(|m| m.get(k)).and_then(|v| v.as_str()) {
            carrier.insert(k.to_owned(), v.into_owned());
        }
    }
    let parent = TraceContextPropagator::new().extract_with_context(&Context::new(), &carrier);
    if parent.span().span_context().is_valid() {
        parent
    } else {
        Context::new()
    }
}

/// Each finding as a `mcpgen.finding` event: rule id, level, pointer, and the clause (its
/// address at the revision, and its sentence when the catalogue has it).
fn add_findings(
    span: &mut opentelemetry_sdk::trace::Span,
    findings: &[Finding],
    at: SystemTime,
    revision: Option<&str>,
) {
    for f in findings {
        let mut attributes = vec![
            KeyValue::new("mcpgen.rule.id", f.rule.unwrap_or("none")),
            KeyValue::new("mcpgen.finding.level", f.level.as_str()),
            KeyValue::new("mcpgen.finding.pointer", capped(&f.pointer)),
        ];
        let rev = f.revision.map(|r| r.as_str()).or(revision);
        if let (Some(rule), Some(rev)) = (f.rule.and_then(mcpgen::rules::lookup), rev) {
            if let Some(clause) = rule.at(rev) {
                let place = clause.url(rev).unwrap_or_else(|| clause.source.to_owned());
                attributes.push(KeyValue::new("mcpgen.finding.clause", place));
                if let Some(quote) = clause.quote {
                    attributes.push(KeyValue::new("mcpgen.finding.clause.text", quote));
                }
            }
        }
        if f.rule.is_none() && !f.schema_path.is_empty() {
            attributes.push(KeyValue::new("mcpgen.finding.schema_path", capped(&f.schema_path)));
        }
        span.add_event_with_timestamp("mcpgen.finding", at, attributes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_text_is_cut_at_the_cap_on_a_character_boundary() {
        assert_eq!(capped("tools/call"), "tools/call");
        let exact = "a".repeat(MAX_ATTRIBUTE_BYTES);
        assert_eq!(capped(&exact), exact);
        // 255 ASCII bytes then a 2-byte character across the cap: cut before it.
        let across = format!("{}é", "a".repeat(MAX_ATTRIBUTE_BYTES - 1));
        assert_eq!(capped(&across), format!("{}…", "a".repeat(MAX_ATTRIBUTE_BYTES - 1)));
    }

    fn relayed(from: Sender, at: SystemTime) -> Relayed<'static> {
        Relayed { from, scope: "", session: None, revision: None, at, findings: &[] }
    }

    #[test]
    fn past_max_open_spans_a_request_gets_no_span_and_is_counted() {
        let metrics = Arc::new(Metrics::new());
        // Port 1 on loopback: nothing listens; nothing is exported in this test anyway.
        let tracing = match Tracing::start("http://127.0.0.1:1/v1/traces".into(), "pipe", Some(Arc::clone(&metrics))) {
            Ok(t) => t,
            Err(e) => panic!("{}", e.0),
        };
        let mut spans = Spans::new(tracing);
        let at = SystemTime::now();
        for i in 0..MAX_OPEN_SPANS + 2 {
            let request = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#);
            spans.message(request.as_bytes(), &relayed(Sender::Client, at));
        }
        assert_eq!(spans.open.len(), MAX_OPEN_SPANS);
        assert!(metrics.encode().contains("mcpgen_proxy_spans_dropped_total 2\n"), "{}", metrics.encode());
        // An answer closes its span and makes room.
        spans.message(br#"{"jsonrpc":"2.0","id":0,"result":{}}"#, &relayed(Sender::Server, at));
        assert_eq!(spans.open.len(), MAX_OPEN_SPANS - 1);
        spans.finish();
    }
}
