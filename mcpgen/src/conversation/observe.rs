//! The pass over one message: its facts gathered once ([`Facts::gather`], which judges its
//! revision under the connection's era), per-message validation under that revision, then each
//! rule family in turn, in the order their findings are reported. Only this pass moves the era.

use crate::ext::{Negotiated, Registry};
use crate::json::{JsonView, Kind};
use crate::protocol::hook::ProtocolRegistry;
use crate::protocol::{self, Envelope};
use crate::rules::id;

use super::era::{self, Answered};
use super::facts::{Facts, Sender, Shape};
use super::finding::{judged_under, push_validation_errors, rule_finding, Finding};
use super::hook::ConversationRegistry;
use super::keys::IdKey;
use super::options::ConversationOptions;
use super::results::Verdict;
use super::state::{Pending, Session};
use super::{cancellation, capabilities, ids, logging, mrtr, progress, results, subscriptions, tools};

impl Session {
    /// `exchange`: the Streamable HTTP exchange whose ids the message's ids are (`None`: the
    /// session's).
    #[inline]
    pub fn observe<'v, V: JsonView<'v>>(
        &mut self,
        opts: &ConversationOptions,
        (from, exchange): (Sender, Option<u64>),
        v: &V,
    ) -> Vec<Finding> {
        let mut out = Vec::new();
        // The top level is read once, for the facts and for per-message validation.
        let mut env = Envelope::read(v);
        let pending = &self.pending[from.peer().ix()];
        let mut facts = Facts::gather(from, v, &env, (&self.era, exchange), |id| pending.get(id).map(|p| p.rev));
        let Some(f) = &mut facts else {
            out.push(rule_finding(id::SCHEMA, "", "", "no revision is compiled into this build".into()));
            return out;
        };
        // An extension's methods exist once a client request declared it.
        if f.from == Sender::Client {
            if let Some(caps) = &f.client_caps {
                self.negotiated = self.negotiated.union(Negotiated::declared_in(caps));
            }
        }
        if f.info.is_none() && !self.negotiated.is_empty() {
            f.info = f.method.as_deref().and_then(|m| Registry::method_row(self.negotiated, f.rev, m));
            // An extension's request answers the extension (its `inputResponses`, if any, are
            // not an MRTR retry).
            if f.info.is_some() {
                f.retry = false;
            }
        }
        let f = &*f;
        // What validation would read again: the id as a key, a complete `_meta`.
        env.id_valid = Some(f.id.is_some());
        env.meta_complete = Some(f.meta_complete);
        // Per-message validation, with the classification and the method row the facts hold;
        // an extension's results are judged by their request (`response`).
        let errors = match env.classify(v) {
            Ok(class) => {
                protocol::validate_classified(f.rev, v, &env, &class, f.info, opts.validation, (self.negotiated, true))
            }
            Err(e) => vec![e],
        };
        let structural = push_validation_errors(errors, &mut out);
        if structural {
            match f.shape {
                Shape::Request => self.request(f, &mut out),
                Shape::Notification => self.notification(opts, f, &mut out),
                Shape::Response => self.response(opts, f, &mut out),
                Shape::Other => {}
            }
        }
        judged_under(&mut out, Some(era::era_of(f.rev)), Some(f.rev));
        self.unreadable_ids(f, exchange, &mut out);
        out
    }

    /// An error response answering an invalid message of the other side — the other side's
    /// last message, or, over Streamable HTTP, one sent in the same exchange:
    /// - with `id: null` (or none): ID-4's exception. "Error responses MUST include the same ID
    ///   as the request they correspond to (except in error cases where the ID could not be
    ///   read due a malformed request)" (2025-11-25 on); JSON-RPC 2.0, which every revision
    ///   requires, says the id "MUST be Null" when "there was an error in detecting the id in
    ///   the Request object", while the schemas up to 2025-06-18 require a request id. Whether
    ///   the server could read the id is its reading: ID-4 on such an answer is a warning.
    /// - with the invalid message's own id: the id was readable, and JSON-RPC 2.0 says the
    ///   response's id "MUST be the same as the value of the id member in the Request Object";
    ///   the invalid message was never a pending request, so no ID-3 ("names no pending
    ///   request") is reported on that answer.
    fn unreadable_ids<'v, V: JsonView<'v>>(&mut self, f: &Facts<'v, V>, exchange: Option<u64>, out: &mut Vec<Finding>) {
        let is_response = f.answer_member;
        if !is_response {
            let invalid = out.iter().any(Finding::is_error);
            let side = f.from.ix();
            match exchange {
                None => self.malformed_last[side] = invalid.then(|| f.id.clone()),
                Some(x) if invalid => {
                    let seen = &mut self.malformed_in[side];
                    if seen.len() >= super::state::MAX_MALFORMED {
                        seen.pop_front();
                    }
                    seen.push_back((x, f.id.clone()));
                }
                Some(_) => {}
            }
            return;
        }
        let other = f.from.peer().ix();
        let is_error = f.error.is_some();
        let unread = is_error && f.id_unread;
        // The answered invalid message's id, when this error may answer one.
        let answered: Option<Option<IdKey>> = match exchange {
            None => std::mem::take(&mut self.malformed_last[other]),
            Some(x) => {
                let seen = &mut self.malformed_in[other];
                let at = seen.iter().position(|(e, id)| *e == x && (unread || (is_error && *id == f.id)));
                at.and_then(|at| seen.remove(at)).map(|(_, id)| id)
            }
        };
        let Some(invalid_id) = answered.filter(|_| is_error) else { return };
        if unread {
            for x in out.iter_mut().filter(|x| x.rule == Some(id::ID_4) && x.pointer == "/id" && x.is_error()) {
                x.level = super::Severity::Warning;
                x.message.push_str(
                    " (a warning: it answers an invalid message whose id may not have been readable to the server; JSON-RPC 2.0 then requires `null`)",
                );
            }
        } else if invalid_id.is_some() && invalid_id == f.id {
            out.retain(|x| !(x.rule == Some(id::ID_3) && x.pointer == "/id"));
        }
    }

    fn request<'v, V: JsonView<'v>>(&mut self, f: &Facts<'v, V>, out: &mut Vec<Finding>) {
        let (Some(method), Some(id)) = (f.method.as_deref(), &f.id) else { return };
        if let Some(info) = f.info {
            ids::direction(f.from, info, out);
        }
        let client_initialize = method == "initialize" && f.from == Sender::Client && !f.modern;
        if f.from == Sender::Client {
            self.era.on_request(f.rev, &f.asked, out);
        }
        if client_initialize {
            capabilities::client_declared(f, self);
        }
        if !f.modern && f.from == Sender::Server && f.info.is_some() {
            capabilities::server_request(f, method, self, out);
        }
        ids::reused_id(f.from, id, self, out);
        mrtr::retry(f, method, id, self, out);
        progress::request(f, self, out);
        let log = logging::request(f, self);
        let caps = mrtr::caps_for(f);
        subscriptions::request(f, method, id, self, out);
        let page_scope = results::page_scope(self, f.info, f.cursor.as_ref().and_then(|c| c.as_str()));
        let negotiated = f.client_caps.as_ref().map_or(Negotiated::NONE, |c| Negotiated::declared_in(c));
        let ext = Registry::on_request(self.negotiated, f, method, &self.ext, out);
        let tool = if method == "tools/call" { tools::call(f, self, out) } else { None };
        let entry = Pending {
            info: f.info,
            rev: f.rev,
            versioned: f.versioned,
            task: !f.modern && f.task,
            progress_token: f.progress_token.clone(),
            log,
            caps,
            cancelled: false,
            page_scope,
            negotiated,
            ext,
            tool,
        };
        ids::track(f.from, id.clone(), entry, self, out);
    }

    fn notification<'v, V: JsonView<'v>>(
        &mut self,
        opts: &ConversationOptions,
        f: &Facts<'v, V>,
        out: &mut Vec<Finding>,
    ) {
        let Some(method) = f.method.as_deref() else { return };
        if let Some(info) = f.info {
            ids::direction(f.from, info, out);
        }
        subscriptions::off_stream(f, method, out);
        match method {
            "notifications/cancelled" => cancellation::notification(f, self, out),
            "notifications/progress" => progress::notification(f, self, out),
            "notifications/message" if f.from == Sender::Server => logging::message(f, self, out),
            _ => {}
        }
        Registry::on_notification(self.negotiated, f, opts, &mut self.ext, out);
        if f.from != Sender::Server {
            return;
        }
        if method == "notifications/tools/list_changed" {
            self.tools.list_changed();
        }
        match method {
            "notifications/resources/updated" if !f.modern => subscriptions::legacy_resource_updated(f, self, out),
            m => capabilities::list_changed(m, self, out),
        }
        if f.modern && protocol::LISTEN_STREAM_NOTIFICATIONS.contains(&method) {
            let Some(sid) = f.subscription_id.as_ref().and_then(IdKey::of).map(|k| k.in_exchange(f.exchange)) else {
                return;
            };
            subscriptions::stream_message(f, method, &sid, self, out);
        }
    }

    fn response<'v, V: JsonView<'v>>(&mut self, opts: &ConversationOptions, f: &Facts<'v, V>, out: &mut Vec<Finding>) {
        let Some((id, p)) = ids::answered(f, self, out) else { return };
        let asked = Answered {
            client: f.from == Sender::Server,
            initialize: p.info.is_some_and(|i| i.method == "initialize"),
            versioned: p.versioned,
            rev: p.rev,
        };
        self.era.on_answer(asked, f.result.as_ref().filter(|r| r.kind() == Kind::Object), f.error.as_ref());
        let Some(info) = p.info else { return };
        let is_listen = info.method == "subscriptions/listen" && f.from == Sender::Server;
        let Some(result) = f.result.as_ref().filter(|r| r.kind() == Kind::Object) else {
            if is_listen {
                subscriptions::ended_by_error(id, self);
            }
            if let Some(error) = &f.error {
                let code = error.get("code").and_then(|c| c.as_f64()).filter(|c| c.fract() == 0.0).map(|c| c as i64);
                tools::error_answer(&p, code, out);
            }
            return;
        };
        if Registry::on_result(
            self.negotiated,
            opts,
            info,
            (p.rev, p.negotiated),
            &p.ext,
            &id,
            result,
            &mut self.ext,
            out,
        )
        .is_some()
        {
            return;
        }
        match results::check(opts, info, &p, result, out) {
            Verdict::Invalid => {
                if info.method == "tools/list" {
                    self.tools.invalid_list();
                }
                return;
            }
            Verdict::InputRequired => {
                mrtr::input_required(info, &p, id, result, self, out);
                return;
            }
            Verdict::Complete => {}
        }
        results::pages(self, info, &p, result, out);
        match info.method {
            "tools/list" if f.from == Sender::Server => tools::listed(f, result, self, out),
            "tools/call" => tools::answered(&p, result, out),
            _ => {}
        }
        match info.method {
            "initialize" | "server/discover" => capabilities::server_declared(result, self),
            "subscriptions/listen" if is_listen => subscriptions::closing_result(id, result, self, out),
            m => capabilities::declared_feature(m, self, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::conversation::{Conversation, Sender, Severity};

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn id_4(found: &[crate::conversation::Finding]) -> Vec<Severity> {
        found.iter().filter(|f| f.rule == Some(crate::rules::id::ID_4)).map(|f| f.level).collect()
    }

    /// Over Streamable HTTP an `id: null` error is a warning only in the exchange of the
    /// invalid request it may answer; in another exchange (another client's well-formed
    /// request) it stays an error.
    #[test]
    fn a_null_id_is_softened_only_in_the_exchange_of_an_invalid_request() {
        let invalid = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META},"cursor":5}}}}"#);
        let valid = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
        let null = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#;
        let mut c = Conversation::new();
        assert!(!c.observe_in(Sender::Client, Some(1), invalid.as_bytes()).is_empty());
        c.observe_in(Sender::Client, Some(2), valid.as_bytes());
        assert_eq!(id_4(&c.observe_in(Sender::Server, Some(2), null)), [Severity::Error]);
        assert_eq!(id_4(&c.observe_in(Sender::Server, Some(1), null)), [Severity::Warning]);
        // Used up: a second one in that exchange is an error.
        assert_eq!(id_4(&c.observe_in(Sender::Server, Some(1), null)), [Severity::Error]);
    }

    fn id_3(found: &[crate::conversation::Finding]) -> usize {
        found.iter().filter(|f| f.rule == Some(crate::rules::id::ID_3)).count()
    }

    /// An invalid message whose id is readable (`method` not a string) is no pending request;
    /// an error echoing its id is its answer (JSON-RPC 2.0: the same id), not ID-3. A result,
    /// another id, or a second answer still is.
    #[test]
    fn an_error_echoing_an_invalid_messages_readable_id_is_no_id_3() {
        let invalid = format!(r#"{{"jsonrpc":"2.0","id":7,"method":5,"params":{{{META}}}}}"#);
        let error =
            |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"Invalid Request"}}}}"#);
        // stdio: the other side's last message.
        let mut c = Conversation::new();
        assert!(!c.observe(Sender::Client, invalid.as_bytes()).is_empty());
        assert_eq!(id_3(&c.observe(Sender::Server, error(7).as_bytes())), 0);
        assert_eq!(id_3(&c.observe(Sender::Server, error(7).as_bytes())), 1, "used up");
        let mut c = Conversation::new();
        c.observe(Sender::Client, invalid.as_bytes());
        assert_eq!(id_3(&c.observe(Sender::Server, error(8).as_bytes())), 1, "another id");
        let mut c = Conversation::new();
        c.observe(Sender::Client, invalid.as_bytes());
        let result = br#"{"jsonrpc":"2.0","id":7,"result":{}}"#;
        assert_eq!(id_3(&c.observe(Sender::Server, result)), 1, "a result is no answer to it");
        // Streamable HTTP: only in the invalid message's exchange.
        let mut c = Conversation::new();
        c.observe_in(Sender::Client, Some(1), invalid.as_bytes());
        assert_eq!(id_3(&c.observe_in(Sender::Server, Some(2), error(7).as_bytes())), 1);
        assert_eq!(id_3(&c.observe_in(Sender::Server, Some(1), error(7).as_bytes())), 0);
    }
}
