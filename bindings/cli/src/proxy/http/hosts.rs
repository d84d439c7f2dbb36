//! Who may talk to `mcpgen proxy --listen`: DNS-rebinding protection on `Host` and `Origin`.

use hyper::header::{self, HeaderMap};
use hyper::{Response, StatusCode};

use super::body::ProxyBody;
use super::text_response;

/// The names `Host` and `Origin` may carry: loopback names (with the proxy's port, for
/// `Host`), and `--allow-host` names.
pub(super) struct AllowedHosts {
    pub port: u16,
    pub names: Vec<String>,
}

impl AllowedHosts {
    fn listed(&self, host: &str) -> bool {
        self.names.iter().any(|n| {
            n.eq_ignore_ascii_case(host)
                || host.rsplit_once(':').is_some_and(|(name, _)| !host.ends_with(']') && n.eq_ignore_ascii_case(name))
        })
    }

    /// DNS-rebinding protection, as the reference server's: `Host` names a loopback host on
    /// our port (or an allowed name), and `Origin`, when sent (once), a loopback origin (or an
    /// allowed name).
    fn allowed(&self, headers: &HeaderMap) -> bool {
        let loopback = |host: &str| matches!(host, "localhost" | "127.0.0.1" | "[::1]");
        let host_ok = headers.get(header::HOST).and_then(|h| h.to_str().ok()).is_some_and(|h| {
            self.listed(h)
                || match h.rsplit_once(':') {
                    Some((name, p)) if !name.is_empty() && !h.ends_with(']') => {
                        loopback(name) && p.parse() == Ok(self.port)
                    }
                    _ => loopback(h),
                }
        });
        let mut origins = headers.get_all(header::ORIGIN).iter();
        let origin_ok = match (origins.next().map(|o| o.to_str()), origins.next()) {
            (None, _) => true,
            (Some(_), Some(_)) | (Some(Err(_)), None) => false,
            (Some(Ok(o)), None) => {
                let rest = o.strip_prefix("http://").or_else(|| o.strip_prefix("https://")).unwrap_or("");
                let host = match rest.rsplit_once(':') {
                    Some((name, p)) if !rest.ends_with(']') && p.chars().all(|c| c.is_ascii_digit()) => name,
                    _ => rest,
                };
                loopback(host) || self.listed(rest)
            }
        };
        host_ok && origin_ok
    }

    /// A repeated `Host` (400), then the allow-list (403).
    pub(super) fn refuse(&self, headers: &HeaderMap) -> Option<Response<ProxyBody>> {
        if headers.get_all(header::HOST).iter().nth(1).is_some() {
            return Some(text_response(
                StatusCode::BAD_REQUEST,
                "Bad Request: more than one Host header".into(),
                false,
            ));
        }
        if !self.allowed(headers) {
            let text = "Forbidden: Host or Origin is not an allowed name (DNS-rebinding protection; see --allow-host)";
            return Some(text_response(StatusCode::FORBIDDEN, text.into(), false));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderValue;

    use super::*;

    fn h(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            m.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        m
    }

    #[test]
    fn host_and_origin_admit_loopback_names_and_allowed_hosts_only() {
        let hosts = AllowedHosts { port: 8080, names: vec!["mcp.example.com".into()] };
        assert!(hosts.allowed(&h("127.0.0.1:8080", None)));
        assert!(hosts.allowed(&h("localhost:8080", Some("http://localhost:3000"))));
        assert!(hosts.allowed(&h("[::1]:8080", Some("http://[::1]"))));
        assert!(hosts.allowed(&h("mcp.example.com:8080", Some("https://mcp.example.com"))));
        assert!(!hosts.allowed(&h("evil.example.com", Some("http://evil.example.com"))));
        assert!(!hosts.allowed(&h("127.0.0.1:8080", Some("http://evil.example.com"))));
        assert!(!hosts.allowed(&h("localhost:9999", None)));
        assert!(!hosts.allowed(&HeaderMap::new()));
    }
}
