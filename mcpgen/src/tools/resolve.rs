//! Non-local `$ref`s: refused by default without any I/O (JSCHEMA-5, -7); fetched only through
//! an opt-in [`FetchPolicy`] (JSCHEMA-6) that vets the scheme, the host allowlist and every
//! address the host resolves to before the injected [`SchemaFetcher`] is called, then applies a
//! size cap and records each URI it fetched.
//!
//! mcpgen has no HTTP client of its own: the application injects one (a `ureq`/`reqwest` call
//! in a few lines) and must connect only to the vetted addresses it is given, which pins the
//! DNS answer that was checked (no rebinding between check and connect).

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::errors::{FetchError, SchemaErrorKind};

/// What the resolver hands the fetcher: a URI whose host and addresses passed every check.
#[derive(Debug)]
pub struct FetchRequest<'a> {
    pub uri: &'a str,
    pub host: &'a str,
    pub port: u16,
    /// The only addresses the fetcher may connect to (already checked).
    pub addrs: &'a [SocketAddr],
    pub timeout: Duration,
    /// Read at most this many bytes; more is an error.
    pub max_bytes: usize,
}

/// Performs the actual fetch of a vetted URI (injectable; tests use a fake).
pub trait SchemaFetcher: Send + Sync {
    /// Returns the body. Must connect only to `request.addrs`, honour `request.timeout`, send no
    /// credentials, follow no redirects, and stop reading past `request.max_bytes`.
    fn fetch(&self, request: &FetchRequest<'_>) -> Result<Vec<u8>, FetchError>;
}

impl<F: Fn(&FetchRequest<'_>) -> Result<Vec<u8>, FetchError> + Send + Sync> SchemaFetcher for F {
    fn fetch(&self, request: &FetchRequest<'_>) -> Result<Vec<u8>, FetchError> {
        self(request)
    }
}

/// Turns a host name into addresses (injectable; tests use a fake table).
pub trait HostResolver: Send + Sync {
    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<IpAddr>>;
}

/// The system resolver (`getaddrinfo` through `std`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

impl HostResolver for SystemResolver {
    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<IpAddr>> {
        Ok((host, port).to_socket_addrs()?.map(|a| a.ip()).collect())
    }
}

/// Opt-in fetching of non-local references (JSCHEMA-6).
#[derive(Clone)]
#[non_exhaustive]
pub struct FetchPolicy {
    /// Host names allowed (exact, case-insensitive). `None`: any host whose addresses are all
    /// public. Addresses are checked for allowlisted hosts too.
    pub allow_hosts: Option<Vec<String>>,
    /// Also allow `http:` (default: `https:` only).
    pub allow_http: bool,
    pub timeout: Duration,
    pub max_bytes: usize,
    pub fetcher: Arc<dyn SchemaFetcher>,
    pub resolver: Arc<dyn HostResolver>,
    /// Every URI fetched, in order (the log JSCHEMA-6 asks for).
    pub fetched: Arc<Mutex<Vec<String>>>,
}

/// Builders: `#[non_exhaustive]`, so start from `FetchPolicy::default()` (or its constructor) and set
/// what differs.
impl FetchPolicy {
    /// The same, with [`FetchPolicy::allow_http`] set.
    pub fn allow_http(mut self, allow_http: bool) -> Self {
        self.allow_http = allow_http;
        self
    }
    /// The same, with [`FetchPolicy::timeout`] set.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
    /// The same, with [`FetchPolicy::max_bytes`] set.
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
}

impl fmt::Debug for FetchPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FetchPolicy")
            .field("allow_hosts", &self.allow_hosts)
            .field("allow_http", &self.allow_http)
            .field("timeout", &self.timeout)
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

impl FetchPolicy {
    /// The timeout of [`FetchPolicy::new`].
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
    /// The size cap of [`FetchPolicy::new`] (1 MiB).
    pub const DEFAULT_MAX_BYTES: usize = 1 << 20;

    /// A policy with the system resolver, a 5 s timeout and a 1 MiB cap.
    pub fn new(fetcher: Arc<dyn SchemaFetcher>) -> FetchPolicy {
        FetchPolicy {
            allow_hosts: None,
            allow_http: false,
            timeout: FetchPolicy::DEFAULT_TIMEOUT,
            max_bytes: FetchPolicy::DEFAULT_MAX_BYTES,
            fetcher,
            resolver: Arc::new(SystemResolver),
            fetched: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn allow_hosts<I: IntoIterator<Item = S>, S: Into<String>>(mut self, hosts: I) -> FetchPolicy {
        self.allow_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    pub fn with_resolver(mut self, resolver: Arc<dyn HostResolver>) -> FetchPolicy {
        self.resolver = resolver;
        self
    }

    /// The URIs fetched so far.
    pub fn fetched(&self) -> Vec<String> {
        self.fetched.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Every check, then the fetch. `Err` is (kind, message).
    fn retrieve(&self, uri: &str) -> Result<Value, (SchemaErrorKind, String)> {
        let refused = |m: String| (SchemaErrorKind::RefRefused, m);
        let parsed = jsonschema::uri::from_str(uri).map_err(|e| refused(format!("{uri} is not a URI: {e}")))?;
        let scheme = parsed.scheme().as_str().to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "https" => 443,
            "http" if self.allow_http => 80,
            _ => {
                return Err(refused(format!(
                    "refusing to fetch {uri}: scheme `{scheme}` is not allowed (https only{})",
                    if self.allow_http { " or http" } else { "" }
                )))
            }
        };
        let authority = parsed.authority().ok_or_else(|| refused(format!("refusing to fetch {uri}: no host")))?;
        if authority.userinfo().is_some() {
            return Err(refused(format!("refusing to fetch {uri}: credentials in the URI")));
        }
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        let port = authority.port_to_u16().ok().flatten().unwrap_or(default_port);
        if let Some(allowed) = &self.allow_hosts {
            if !allowed.iter().any(|a| a.eq_ignore_ascii_case(&host)) {
                return Err(refused(format!("refusing to fetch {uri}: host `{host}` is not in the allowlist")));
            }
        }
        let addrs: Vec<IpAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => self
                .resolver
                .resolve(&host, port)
                .map_err(|e| refused(format!("refusing to fetch {uri}: cannot resolve `{host}`: {e}")))?,
        };
        if addrs.is_empty() {
            return Err(refused(format!("refusing to fetch {uri}: `{host}` has no address")));
        }
        // Every address must be public: an attacker controls which one a client would pick.
        for ip in &addrs {
            if let Some(why) = forbidden_address(*ip) {
                return Err(refused(format!("refusing to fetch {uri}: `{host}` resolves to {ip}, a {why} address")));
            }
        }
        let sockets: Vec<SocketAddr> = addrs.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
        let request =
            FetchRequest { uri, host: &host, port, addrs: &sockets, timeout: self.timeout, max_bytes: self.max_bytes };
        if let Ok(mut log) = self.fetched.lock() {
            log.push(uri.to_owned());
        }
        let body = self.fetcher.fetch(&request).map_err(|e| refused(format!("fetching {uri} failed: {e}")))?;
        if body.len() > self.max_bytes {
            return Err(refused(format!(
                "refusing {uri}: {} bytes exceed the {}-byte cap",
                body.len(),
                self.max_bytes
            )));
        }
        serde_json::from_slice(&body).map_err(|e| refused(format!("{uri} is not JSON: {e}")))
    }
}

/// Why an address must not be fetched from, or `None` when it is public: loopback
/// (127.0.0.0/8, ::1), unspecified (0.0.0.0, ::), private (10/8, 172.16/12, 192.168/16),
/// shared (100.64/10), link-local (169.254/16, fe80::/10), unique-local (fc00::/7), multicast,
/// broadcast, and IPv4-mapped/compatible IPv6 forms of those.
pub fn forbidden_address(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return forbidden_v4(v4);
            }
            let s = v6.segments();
            if v6.is_loopback() {
                Some("loopback")
            } else if v6.is_unspecified() {
                Some("unspecified")
            } else if s[0] & 0xffc0 == 0xfe80 {
                Some("link-local")
            } else if s[0] & 0xfe00 == 0xfc00 {
                Some("unique-local (private)")
            } else if v6.is_multicast() {
                Some("multicast")
            } else if s[..6] == [0, 0, 0, 0, 0, 0] {
                // IPv4-compatible (deprecated) ::a.b.c.d
                forbidden_v4(Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8))
            } else if is_nat64_of_forbidden(&v6) {
                Some("NAT64-mapped private")
            } else {
                None
            }
        }
    }
}

fn is_nat64_of_forbidden(v6: &Ipv6Addr) -> bool {
    let s = v6.segments();
    s[..6] == [0x64, 0xff9b, 0, 0, 0, 0]
        && forbidden_v4(Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8)).is_some()
}

fn forbidden_v4(v4: Ipv4Addr) -> Option<&'static str> {
    let o = v4.octets();
    if v4.is_loopback() {
        Some("loopback")
    } else if v4.is_unspecified() || o[0] == 0 {
        Some("unspecified")
    } else if v4.is_private() {
        Some("private")
    } else if v4.is_link_local() {
        Some("link-local")
    } else if o[0] == 100 && (o[1] & 0xc0) == 64 {
        Some("shared (carrier-grade NAT)")
    } else if v4.is_broadcast() || v4.is_multicast() {
        Some("broadcast/multicast")
    } else {
        None
    }
}

/// A reference the retriever refused, for the error report.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub uri: String,
    pub kind: SchemaErrorKind,
    pub message: String,
}

/// The `jsonschema` retriever: called for every reference outside the document.
pub(crate) struct Retriever {
    policy: Option<FetchPolicy>,
    refusals: Arc<Mutex<Vec<Refusal>>>,
    /// Answer a refused URI with a placeholder document (`true`) instead of an error, so that
    /// `jsonschema` goes on asking for the others (see [`Retriever::placeholders`]).
    placeholders: bool,
}

impl Retriever {
    pub fn new(policy: Option<FetchPolicy>) -> Retriever {
        Retriever { policy, refusals: Arc::new(Mutex::new(Vec::new())), placeholders: false }
    }

    /// A retriever with no fetch policy that records the refusal of every URI it is asked for
    /// and answers each with `true`. `jsonschema` asks for external documents in hash order and
    /// stops at the first error, so a build with [`Retriever::new`] sees one refusal, a
    /// different one from run to run; a build with this one sees them all. Its result must
    /// never be used as a validator.
    pub fn placeholders() -> Retriever {
        Retriever { placeholders: true, ..Retriever::new(None) }
    }

    pub fn refusals(&self) -> Arc<Mutex<Vec<Refusal>>> {
        self.refusals.clone()
    }

    fn refuse(&self, uri: &str, kind: SchemaErrorKind, message: String) -> Box<dyn std::error::Error + Send + Sync> {
        if let Ok(mut r) = self.refusals.lock() {
            r.push(Refusal { uri: uri.to_owned(), kind, message: message.clone() });
        }
        message.into()
    }
}

impl jsonschema::Retrieve for Retriever {
    fn retrieve(&self, uri: &jsonschema::Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let text = uri.as_str();
        let scheme = uri.scheme().as_str().to_ascii_lowercase();
        let (kind, message) = if scheme == "json-schema" {
            // The placeholder base of a document without `$id`: a relative reference that
            // points outside the document.
            let shown = text.trim_start_matches("json-schema:///");
            (SchemaErrorKind::UnresolvedRef, format!("`$ref` {shown} is relative, and the schema has no `$id` to resolve it against: it names nothing in this document"))
        } else {
            match &self.policy {
                None => {
                    let what = if matches!(scheme.as_str(), "http" | "https" | "ftp" | "ws" | "wss") {
                        "network"
                    } else {
                        "non-local"
                    };
                    (SchemaErrorKind::NetworkRef, format!("`$ref` to the {what} URI {text} is not fetched (JSCHEMA-5): bundle it into the schema under `$defs`"))
                }
                Some(policy) => match policy.retrieve(text) {
                    Ok(document) => return Ok(document),
                    Err(refused) => refused,
                },
            }
        };
        let error = self.refuse(text, kind, message);
        if self.placeholders {
            return Ok(Value::Bool(true));
        }
        Err(error)
    }
}
