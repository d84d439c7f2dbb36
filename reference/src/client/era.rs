//! Which era to speak (ERA-1..5): chosen from the version the client prefers, and corrected by
//! what the server answers to the first modern request.

use mcpgen::protocol::{detect_era_from_http_400, is_modern, DetectedEra};
use mcpgen::Revision;

/// How the client starts a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// Per-request `_meta` under this modern version; fall back to `initialize` when the
    /// server turns out to be legacy (ERA-5).
    Modern(String),
    /// The `initialize` handshake, offering this legacy version.
    Legacy(String),
}

/// Why a preferred version cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl std::fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known: Vec<&str> = Revision::all().into_iter().map(Revision::as_str).collect();
        write!(f, "protocol version {:?} is not one this client speaks ({})", self.0, known.join(", "))
    }
}
impl std::error::Error for UnknownVersion {}

/// The start for a preferred version (`None`: the newest revision of this build).
pub fn start_for(preferred: Option<&str>) -> Result<Start, UnknownVersion> {
    let rev = match preferred {
        Some(v) => Revision::parse(v).ok_or_else(|| UnknownVersion(v.to_owned()))?,
        None => Revision::latest().ok_or_else(|| UnknownVersion(String::new()))?,
    };
    Ok(if is_modern(rev) { Start::Modern(rev.as_str().to_owned()) } else { Start::Legacy(rev.as_str().to_owned()) })
}

/// What to do after the first modern request was refused with this HTTP status and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A modern server: retry with one of these versions (already filtered to modern ones
    /// this client speaks, server's order).
    RetryWith(Vec<String>),
    /// A modern server that shares no modern version with this client.
    NoCommonVersion(Vec<String>),
    /// Not a recognized modern error: a legacy server (ERA-3/5); use `initialize`.
    Legacy,
    /// A recognized modern error that is not about the version (the request itself is wrong).
    ModernError,
}

/// ERA-5 on an HTTP 4xx answer to a modern request.
pub fn classify_refusal(status: u16, body: &[u8]) -> Refusal {
    let era = if status == 400 { detect_era_from_http_400(body) } else { DetectedEra::Legacy };
    match era {
        DetectedEra::Legacy if status == 404 && is_modern_method_not_found(body) => Refusal::ModernError,
        DetectedEra::Legacy => Refusal::Legacy,
        DetectedEra::Modern { supported } if supported.is_empty() => Refusal::ModernError,
        DetectedEra::Modern { supported } => {
            let usable: Vec<String> =
                supported.iter().filter(|v| Revision::parse(v).is_some_and(is_modern)).cloned().collect();
            if usable.is_empty() {
                Refusal::NoCommonVersion(supported)
            } else {
                Refusal::RetryWith(usable)
            }
        }
    }
}

/// A modern server answers an unknown method with 404 and a -32601 body (HTTP-9); a legacy
/// server's 404 has no such body.
fn is_modern_method_not_found(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.pointer("/error/code").and_then(serde_json::Value::as_i64))
        == Some(-32601)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preferred_version_picks_the_era() {
        assert_eq!(start_for(Some("2026-07-28")).unwrap(), Start::Modern("2026-07-28".into()));
        assert_eq!(start_for(Some("2025-11-25")).unwrap(), Start::Legacy("2025-11-25".into()));
        assert_eq!(start_for(Some("2025-03-26")).unwrap(), Start::Legacy("2025-03-26".into()));
        assert!(matches!(start_for(None).unwrap(), Start::Modern(_)));
        assert_eq!(start_for(Some("1999-01-01")), Err(UnknownVersion("1999-01-01".into())));
    }

    #[test]
    fn a_modern_version_error_means_retry_and_anything_else_means_legacy() {
        let unsupported = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"],"requested":"2027-01-01"}}}"#;
        assert_eq!(classify_refusal(400, unsupported), Refusal::RetryWith(vec!["2026-07-28".into()]));
        let legacy_only = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}"#;
        assert_eq!(classify_refusal(400, legacy_only), Refusal::NoCommonVersion(vec!["2025-11-25".into()]));
        // ERA-3: a legacy server's answer is never judged by one code.
        let legacy = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#;
        assert_eq!(classify_refusal(400, legacy), Refusal::Legacy);
        assert_eq!(classify_refusal(400, b""), Refusal::Legacy);
        assert_eq!(classify_refusal(405, b"Method Not Allowed"), Refusal::Legacy);
        let not_found = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#;
        assert_eq!(classify_refusal(404, not_found), Refusal::ModernError);
    }
}
