//! Who may talk to `mcpgen proxy --listen`: DNS-rebinding protection on `Host` and `Origin`.

use hyper::header::{self, HeaderMap};
use hyper::{Response, StatusCode};
use mcpgen::http::{HostPolicy, HostRefusal};

use super::body::ProxyBody;
use super::text_response;

/// The names `Host` and `Origin` may carry: loopback names (with the proxy's port, for
/// `Host`), and `--allow-host` names ([`HostPolicy`], the reference server's policy too).
pub(super) struct AllowedHosts(pub HostPolicy);

impl AllowedHosts {
    /// A repeated `Host` (400), then the allow-list (403).
    pub(super) fn refuse(&self, headers: &HeaderMap) -> Option<Response<ProxyBody>> {
        let hosts: Vec<&str> = headers.get_all(header::HOST).iter().map(|h| h.to_str().unwrap_or("")).collect();
        let origins: Vec<Option<&str>> = headers.get_all(header::ORIGIN).iter().map(|o| o.to_str().ok()).collect();
        match self.0.check(&hosts, &origins) {
            Ok(()) => None,
            Err(HostRefusal::RepeatedHost) => {
                Some(text_response(StatusCode::BAD_REQUEST, "Bad Request: more than one Host header".into(), false))
            }
            Err(HostRefusal::NotAllowed) => {
                let text =
                    "Forbidden: Host or Origin is not an allowed name (DNS-rebinding protection; see --allow-host)";
                Some(text_response(StatusCode::FORBIDDEN, text.into(), false))
            }
        }
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

    fn allowed(hosts: &AllowedHosts, headers: &HeaderMap) -> bool {
        hosts.refuse(headers).is_none()
    }

    #[test]
    fn host_and_origin_admit_loopback_names_and_allowed_hosts_only() {
        let hosts = AllowedHosts(HostPolicy::with_names(8080, vec!["mcp.example.com".into()]));
        assert!(allowed(&hosts, &h("127.0.0.1:8080", None)));
        assert!(allowed(&hosts, &h("localhost:8080", Some("http://localhost:3000"))));
        assert!(allowed(&hosts, &h("[::1]:8080", Some("http://[::1]"))));
        assert!(allowed(&hosts, &h("mcp.example.com:8080", Some("https://mcp.example.com"))));
        assert!(!allowed(&hosts, &h("evil.example.com", Some("http://evil.example.com"))));
        assert!(!allowed(&hosts, &h("127.0.0.1:8080", Some("http://evil.example.com"))));
        assert!(!allowed(&hosts, &h("localhost:9999", None)));
        assert!(!allowed(&hosts, &HeaderMap::new()));
    }
}
