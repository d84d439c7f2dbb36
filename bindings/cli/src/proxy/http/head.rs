//! `--max-header-bytes`, exact: hyper's read buffer bounds the memory a header section takes,
//! but not exactly (with a 64 KiB buffer it accepted sections of ~114 KB), so the section is
//! also counted as sent — the request or status line and each `name: value` line with its
//! CRLF, and the blank line — and refused past the limit. `--max-answer-bytes` on an answer's
//! declared `Content-Length` is here too.

use hyper::header::{self, HeaderMap};
use hyper::http::response::Parts;
use hyper::{Request, Response, StatusCode};

use super::body::ProxyBody;
use super::{text_response, Proxy};

/// hyper's read buffer for a header limit of `max`: room for a section of exactly `max` bytes
/// and the start of what follows it, so that the count of our own decides at the limit.
pub(super) fn buffer_for(max: usize) -> usize {
    max.max(8192).saturating_add(8192)
}

/// The bytes of the header lines as sent: `name: value\r\n` each, and the blank line.
fn header_lines(headers: &HeaderMap) -> usize {
    headers.iter().map(|(k, v)| k.as_str().len() + 2 + v.len() + 2).sum::<usize>() + 2
}

/// A request's header section (request line `METHOD target HTTP/1.1\r\n` and the header
/// lines).
fn request_head<B>(request: &Request<B>) -> usize {
    let target = request.uri().path_and_query().map_or(1, |p| p.as_str().len());
    request.method().as_str().len() + 1 + target + 1 + "HTTP/1.1\r\n".len() + header_lines(request.headers())
}

/// An answer's header section (status line `HTTP/1.1 200 OK\r\n` and the header lines).
fn answer_head(parts: &Parts) -> usize {
    let reason = parts
        .extensions
        .get::<hyper::ext::ReasonPhrase>()
        .map_or_else(|| parts.status.canonical_reason().unwrap_or("").len(), |r| r.as_bytes().len());
    "HTTP/1.1 200 ".len() + reason + 2 + header_lines(&parts.headers)
}

/// 431 for a request whose header section is longer than `max`.
pub(super) fn refuse_request<B>(request: &Request<B>, max: usize) -> Option<Response<ProxyBody>> {
    let n = request_head(request);
    (n > max).then(|| {
        let text =
            format!("Request Header Fields Too Large: {n} bytes, more than {max} (mcpgen proxy --max-header-bytes)");
        text_response(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, text, true)
    })
}

/// 502 for an answer whose header section is longer than `--max-header-bytes`, or whose
/// declared body is longer than `--max-answer-bytes` (said in the report: transport trouble,
/// not a finding).
pub(super) fn refuse_answer(proxy: &Proxy, parts: &Parts) -> Option<Response<ProxyBody>> {
    let (n, max) = (answer_head(parts), proxy.http.max_header_bytes);
    if n > max {
        let text = format!("the upstream's header section has {n} bytes, more than {max} (--max-header-bytes)");
        proxy.checker.note("upstream-too-large", text.clone());
        return Some(text_response(StatusCode::BAD_GATEWAY, format!("Bad Gateway: mcpgen proxy: {text}"), false));
    }
    let declared = parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let cap = proxy.http.max_answer_bytes;
    match declared {
        Some(len) if len > cap => {
            let text = format!("the upstream's answer declares {len} bytes, more than {cap} (--max-answer-bytes)");
            proxy.checker.note("upstream-too-large", text.clone());
            Some(text_response(StatusCode::BAD_GATEWAY, format!("Bad Gateway: mcpgen proxy: {text}"), true))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_head_is_counted_as_its_bytes_on_the_wire() {
        let request = Request::post("/mcp?x=1").header("host", "127.0.0.1:1").header("x-a", "bc").body(()).unwrap();
        let wire = "POST /mcp?x=1 HTTP/1.1\r\nhost: 127.0.0.1:1\r\nx-a: bc\r\n\r\n";
        assert_eq!(request_head(&request), wire.len());
        assert!(refuse_request(&request, wire.len()).is_none());
        assert_eq!(
            refuse_request(&request, wire.len() - 1).map(|r| r.status()),
            Some(StatusCode::from_u16(431).unwrap())
        );
    }
}
