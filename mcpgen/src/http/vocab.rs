//! The Streamable HTTP vocabulary every mcpgen peer shares: header names, the hop-by-hop
//! headers a relay drops, and the DNS-rebinding policy on `Host` and `Origin`. The core does
//! no I/O: callers pass header values as text and map the verdict onto their HTTP stack.
//!
//! ```
//! use mcpgen::http::{HostPolicy, HostRefusal};
//!
//! let policy = HostPolicy::loopback(8080);
//! assert_eq!(policy.check(&["127.0.0.1:8080"], &[Some("http://localhost:3000")]), Ok(()));
//! assert_eq!(policy.check(&["127.0.0.1:8080"], &[Some("http://evil.example")]), Err(HostRefusal::NotAllowed));
//! assert_eq!(policy.check(&["a", "b"], &[]).map_err(|r| r.status()), Err(400));
//! ```

/// `Mcp-Session-Id` (HTTP-5): the session a server assigned, echoed by the client.
pub const SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version` (ERA-10, HTTP-8): the revision of a request.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method` (HTTP-11): the request's `method`.
pub const METHOD: &str = "mcp-method";
/// `Mcp-Name` (HTTP-11): `params.name` or `params.uri` of the methods that have one.
pub const NAME: &str = "mcp-name";
/// `Last-Event-ID`: the SSE event a client resumes after.
pub const LAST_EVENT_ID: &str = "last-event-id";

/// Header names (lower case) that belong to one connection, not to the message: RFC 9110
/// §7.6.1 (`Connection`, `Proxy-Connection`, `Keep-Alive`, `TE`, `Transfer-Encoding`,
/// `Upgrade`), `Trailer`, and the proxy authentication pair of RFC 9110 §11.7. A relay drops
/// them and every name its `Connection` header lists ([`is_hop_by_hop`]).
pub const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Whether a relay drops the header `name` (any case): one of [`HOP_BY_HOP`], or named by the
/// message's `Connection` header (`connection`: its comma-separated tokens).
pub fn is_hop_by_hop(name: &str, connection: &[&str]) -> bool {
    HOP_BY_HOP.iter().any(|h| h.eq_ignore_ascii_case(name))
        || connection.iter().flat_map(|c| c.split(',')).any(|t| t.trim().eq_ignore_ascii_case(name))
}

/// DNS-rebinding protection (HTTP-2): the names `Host` and `Origin` may carry. `Host` names a
/// loopback host on the server's port (`localhost`, `127.0.0.1`, `[::1]`) or an allowed name
/// (with any port); `Origin`, when sent, a loopback origin or an allowed name.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostPolicy {
    /// The port the server listens on (a loopback `Host` must name it, or none).
    pub port: u16,
    /// Further names admitted (compared without case, with or without a port).
    pub names: Vec<String>,
}

/// Why [`HostPolicy::check`] refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostRefusal {
    /// More than one `Host` header: which one would the policy judge? (HTTP 400.)
    RepeatedHost,
    /// `Host` missing or not admitted, or `Origin` repeated, unreadable or not admitted
    /// (HTTP 403, what the transport names for an invalid `Origin` from 2025-11-25 on).
    NotAllowed,
}

impl HostRefusal {
    /// The HTTP status to answer with.
    pub fn status(self) -> u16 {
        match self {
            HostRefusal::RepeatedHost => 400,
            HostRefusal::NotAllowed => 403,
        }
    }
}

fn is_loopback(host: &str) -> bool {
    matches!(host.to_ascii_lowercase().as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

/// `name:port` split where a port is there (`[::1]:80` → `[::1]`, `80`; `[::1]` alone has none).
fn split_port(host: &str) -> (&str, Option<&str>) {
    match host.rsplit_once(':') {
        Some((name, port)) if !name.is_empty() && !host.ends_with(']') => (name, Some(port)),
        _ => (host, None),
    }
}

impl HostPolicy {
    /// Loopback names on `port` only.
    pub fn loopback(port: u16) -> HostPolicy {
        HostPolicy { port, names: Vec::new() }
    }

    /// Loopback names on `port`, and `names`.
    pub fn with_names(port: u16, names: Vec<String>) -> HostPolicy {
        HostPolicy { port, names }
    }

    fn listed(&self, host: &str) -> bool {
        let (name, _) = split_port(host);
        self.names.iter().any(|n| n.eq_ignore_ascii_case(host) || n.eq_ignore_ascii_case(name))
    }

    fn host_ok(&self, host: &str) -> bool {
        if self.listed(host) {
            return true;
        }
        match split_port(host) {
            (name, Some(port)) => is_loopback(name) && port.parse() == Ok(self.port),
            (name, None) => is_loopback(name),
        }
    }

    fn origin_ok(&self, origin: &str) -> bool {
        let lower = origin.to_ascii_lowercase();
        let Some(rest) = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://")) else {
            return false;
        };
        let host = match split_port(rest) {
            (name, Some(port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
            _ => rest,
        };
        is_loopback(host) || self.listed(rest)
    }

    /// The verdict on a request's `Host` values and `Origin` values (`None`: a value that is
    /// not text). No `Origin` is admitted (a client that is no browser sends none).
    pub fn check(&self, hosts: &[&str], origins: &[Option<&str>]) -> Result<(), HostRefusal> {
        if hosts.len() > 1 {
            return Err(HostRefusal::RepeatedHost);
        }
        let host_ok = hosts.first().is_some_and(|h| self.host_ok(h));
        let origin_ok = match origins {
            [] => true,
            [Some(o)] => self.origin_ok(o),
            _ => false,
        };
        if host_ok && origin_ok {
            Ok(())
        } else {
            Err(HostRefusal::NotAllowed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_on_the_port_and_allowed_names_are_admitted() {
        let loopback = HostPolicy::loopback(8080);
        let named = HostPolicy::with_names(8080, vec!["mcp.example.com".into()]);
        let ok = Ok(());
        let no = Err(HostRefusal::NotAllowed);
        for (policy, hosts, origins, want) in [
            (&loopback, &["127.0.0.1:8080"][..], &[][..], ok),
            (&loopback, &["localhost:8080"], &[Some("http://localhost:3000")], ok),
            (&loopback, &["LOCALHOST:8080"], &[Some("HTTP://LocalHost")], ok),
            (&loopback, &["[::1]:8080"], &[Some("http://[::1]")], ok),
            (&loopback, &["[::1]"], &[Some("http://[::1]:9")], ok),
            (&loopback, &["127.0.0.1"], &[], ok),
            (&loopback, &["evil.example.com"], &[Some("http://evil.example.com")], no),
            (&loopback, &["127.0.0.1:8080"], &[Some("http://evil.example.com")], no),
            (&loopback, &["127.0.0.1:8080"], &[Some("null")], no),
            (&loopback, &["127.0.0.1:8080"], &[None], no),
            (&loopback, &["127.0.0.1:8080"], &[Some("http://localhost"), Some("http://localhost")], no),
            (&loopback, &["localhost:9999"], &[], no),
            (&loopback, &["mcp.example.com"], &[], no),
            (&loopback, &[], &[], no),
            (&named, &["mcp.example.com:8080"], &[Some("https://mcp.example.com")], ok),
            (&named, &["MCP.example.com"], &[], ok),
            (&named, &["127.0.0.1:8080"], &[Some("https://mcp.example.com:443")], ok),
            (&named, &["other.example.com"], &[], no),
        ] {
            assert_eq!(policy.check(hosts, origins), want, "{hosts:?} {origins:?} {:?}", policy.names);
        }
        assert_eq!(loopback.check(&["127.0.0.1:8080", "127.0.0.1:8080"], &[]), Err(HostRefusal::RepeatedHost));
        assert_eq!((HostRefusal::RepeatedHost.status(), HostRefusal::NotAllowed.status()), (400, 403));
    }

    #[test]
    fn hop_by_hop_names_and_those_connection_lists_are_dropped() {
        assert!(is_hop_by_hop("Transfer-Encoding", &[]));
        assert!(is_hop_by_hop("te", &[]));
        assert!(!is_hop_by_hop("mcp-session-id", &[]));
        assert!(!is_hop_by_hop("content-type", &[]));
        assert!(is_hop_by_hop("X-Trace", &["keep-alive, x-trace"]));
        assert!(!is_hop_by_hop("x-other", &["keep-alive, x-trace"]));
    }
}
