//! Streamable HTTP header rules for a modern request (the body carries
//! `_meta["io.modelcontextprotocol/protocolVersion"]`): [`super::check_http_headers`].

use crate::error_codes;
use crate::http::{decode_header_value, name_header, param_value, HeaderBinding};
use crate::json::{JsonView, Tape, Value};
use crate::rules::id;

use super::message::{read_id, IdRead};
use super::ProtocolError;

// The standard headers a modern HTTP request carries (names compare case-insensitively,
// HTTP-12).
use crate::http::{METHOD, NAME, PROTOCOL_VERSION as VERSION};

fn mismatch(id: Option<Value>, rule: &'static str, message: String) -> ProtocolError {
    ProtocolError::new(error_codes::HEADER_MISMATCH_ERROR, message, id, 400, rule)
}

/// A request's header pairs, read as HTTP-12 says: names case-insensitive; values compared
/// after removing optional whitespace (RFC 9110 §5.5), case-sensitively.
struct Headers<'h>(Vec<(&'h str, &'h str)>);

impl<'h> Headers<'h> {
    fn new(pairs: impl IntoIterator<Item = (&'h str, &'h str)>) -> Self {
        Headers(pairs.into_iter().collect())
    }

    fn get(&self, name: &str) -> Option<&'h str> {
        self.0.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim_matches([' ', '\t']))
    }
}

/// The request's id for the error response, when it can be read.
fn request_id<'v, V: JsonView<'v>>(v: &V) -> Option<Value> {
    match read_id(v) {
        IdRead::Valid(id) => Some(id),
        _ => None,
    }
}

pub(crate) fn check<'h>(
    headers: impl IntoIterator<Item = (&'h str, &'h str)>,
    body: &[u8],
) -> Result<(), ProtocolError> {
    // A body that is not JSON is check_request's to judge.
    Tape::with_parsed(body, |tape| check_view(headers, &tape.root())).unwrap_or(Ok(()))
}

/// [`check`] on a message already parsed: the standard headers of a modern request against its
/// body. A message that is not a modern request (no protocol version in `_meta`, no `method`)
/// passes: it is check_request's to judge.
pub(crate) fn check_view<'h, 'v, V: JsonView<'v>>(
    headers: impl IntoIterator<Item = (&'h str, &'h str)>,
    v: &V,
) -> Result<(), ProtocolError> {
    let params = v.get("params");
    let version = params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(crate::meta_keys::PROTOCOL_VERSION));
    let Some(version) = version.as_ref().and_then(|x| x.as_str()) else { return Ok(()) };
    let method = v.get("method");
    let Some(method) = method.as_ref().and_then(|m| m.as_str()) else { return Ok(()) };
    // A notification (no `id` member): the transport page defines no header requirements for
    // notification POSTs, so none is checked here.
    if v.get("id").is_none() {
        return Ok(());
    }
    let headers = Headers::new(headers);
    let fail = |rule, message| Err(mismatch(request_id(v), rule, message));
    if let Some((rule, message)) = version_header(&headers, &version).or_else(|| method_header(&headers, &method)) {
        return fail(rule, message);
    }
    let Some((param, rule)) = name_header(&method) else { return Ok(()) };
    let name = params.as_ref().and_then(|p| p.get(param));
    let Some(name) = name.as_ref().and_then(|n| n.as_str()) else { return Ok(()) };
    match name_header_mismatch(&headers, param, &name) {
        Some(message) => fail(rule, message),
        None => Ok(()),
    }
}

/// ERA-10 / HTTP-8: `MCP-Protocol-Version` present and equal to the body's protocol version.
fn version_header(headers: &Headers<'_>, version: &str) -> Option<(&'static str, String)> {
    match headers.get(VERSION) {
        None => Some((
            id::ERA_10,
            format!("Header mismatch: the MCP-Protocol-Version header is missing (the body names `{version}`)"),
        )),
        Some(h) if h != version => Some((
            id::HTTP_8,
            format!("Header mismatch: MCP-Protocol-Version `{h}` differs from the body's protocolVersion `{version}`"),
        )),
        Some(_) => None,
    }
}

/// HTTP-11: `Mcp-Method` present and equal to the body's method.
fn method_header(headers: &Headers<'_>, method: &str) -> Option<(&'static str, String)> {
    match headers.get(METHOD) {
        None => Some((
            id::HTTP_11,
            format!("Header mismatch: the Mcp-Method header is missing (the body's method is `{method}`)"),
        )),
        Some(h) if h != method => {
            Some((id::HTTP_11, format!("Header mismatch: Mcp-Method `{h}` differs from the body's method `{method}`")))
        }
        Some(_) => None,
    }
}

/// XHDR-8/9: `Mcp-Name` present and, once decoded, equal to the body's `params.{param}`. A name
/// that is not header-safe travels in the Base64 sentinel form; a header that cannot be decoded
/// is refused. The mismatch's message, if any.
fn name_header_mismatch(headers: &Headers<'_>, param: &str, name: &str) -> Option<String> {
    let Some(h) = headers.get(NAME) else {
        return Some(format!(
            "Header mismatch: the Mcp-Name header is missing (the body's params.{param} is `{name}`)"
        ));
    };
    match decode_header_value(h) {
        Err(e) => Some(format!("Header mismatch: Mcp-Name cannot be read: {e}")),
        Ok(decoded) if decoded != name => {
            Some(format!("Header mismatch: Mcp-Name `{h}` differs from the body's params.{param} `{name}`"))
        }
        Ok(_) => None,
    }
}

/// What is wrong between one header binding and the `tools/call` arguments (XHDR-9), if anything.
fn binding_problem<'v, V: JsonView<'v>>(
    b: &HeaderBinding,
    arguments: Option<&V>,
    headers: &Headers<'_>,
) -> Option<String> {
    let name = b.header_name();
    let expected = match arguments.map(|a| param_value(b, a.clone())).transpose() {
        Ok(e) => e.flatten(),
        Err(e) => return Some(format!("Header mismatch: {name} cannot mirror the argument: {e}")),
    };
    let path = b.path.join(".");
    match (expected, headers.get(&name)) {
        (None, None) => None,
        (None, Some(h)) => {
            Some(format!("Header mismatch: {name} `{h}` is sent but the argument `{path}` is absent or null"))
        }
        (Some(want), None) => {
            Some(format!("Header mismatch: the {name} header is missing (the argument `{path}` is `{want}`)"))
        }
        (Some(want), Some(h)) => match decode_header_value(h) {
            Err(e) => Some(format!("Header mismatch: {name} cannot be read: {e}")),
            Ok(got) if got != want => {
                Some(format!("Header mismatch: {name} `{h}` differs from the argument `{path}` `{want}`"))
            }
            Ok(_) => None,
        },
    }
}

/// XHDR-9, server side: the `Mcp-Param-*` headers of a `tools/call` against the arguments of
/// its body, for the tool's `bindings` ([`crate::http::header_bindings`] of its
/// `inputSchema`). A body that is not a `tools/call` passes.
pub(crate) fn check_params<'h>(
    headers: impl IntoIterator<Item = (&'h str, &'h str)>,
    bindings: &[HeaderBinding],
    body: &[u8],
) -> Result<(), ProtocolError> {
    let headers = Headers::new(headers);
    let Ok(outcome) = Tape::with_parsed(body, |tape| {
        let v = tape.root();
        if !v.get("method").is_some_and(|m| m.str_eq("tools/call")) {
            return Ok(());
        }
        let id = request_id(&v);
        let arguments = v.get("params").and_then(|p| p.get("arguments"));
        match bindings.iter().find_map(|b| binding_problem(b, arguments.as_ref(), &headers)) {
            Some(message) => Err(mismatch(id, id::XHDR_9, message)),
            None => Ok(()),
        }
    }) else {
        return Ok(());
    };
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, check_params};

    const BODY: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo",
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

    fn rule(headers: &[(&str, &str)], body: &[u8]) -> Option<&'static str> {
        check(headers.iter().copied(), body).err().map(|e| {
            assert_eq!((e.code, e.http_status), (-32020, 400));
            e.rule
        })
    }

    #[test]
    fn conformant_headers_pass_with_any_name_case_and_surrounding_whitespace() {
        let h = [("MCP-Protocol-Version", "2026-07-28"), ("mcp-method", "tools/call"), ("Mcp-Name", "  echo\t")];
        assert_eq!(rule(&h, BODY), None);
    }

    #[test]
    fn each_missing_or_differing_header_is_a_header_mismatch() {
        let ok = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "echo")];
        assert_eq!(rule(&ok[1..], BODY), Some("ERA-10"));
        assert_eq!(rule(&[("mcp-protocol-version", "2025-11-25"), ok[1], ok[2]], BODY), Some("HTTP-8"));
        assert_eq!(rule(&[ok[0], ok[2]], BODY), Some("HTTP-11"));
        assert_eq!(
            rule(&[ok[0], ("mcp-method", "TOOLS/CALL"), ok[2]], BODY),
            Some("HTTP-11"),
            "values are case-sensitive"
        );
        assert_eq!(rule(&ok[..2], BODY), Some("HTTP-11"));
        assert_eq!(rule(&[ok[0], ok[1], ("mcp-name", "other")], BODY), Some("HTTP-11"));
        let e = check(ok[1..].iter().copied(), BODY).unwrap_err();
        assert_eq!(
            e.to_response_json(),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: the MCP-Protocol-Version header is missing (the body names `2026-07-28`)"}}"#
        );
    }

    /// XHDR-8/9: `standard_headers` writes a name that is not header-safe in the Base64
    /// sentinel form; the check decodes it before comparing.
    #[test]
    fn an_encoded_name_is_compared_after_decoding() {
        let body = br#"{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"caf\u00e9 du monde",
            "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let params = serde_json::json!({"name": "café du monde"});
        let written = crate::http::standard_headers("prompts/get", Some(&params));
        assert_eq!(written[1].1, "=?base64?Y2Fmw6kgZHUgbW9uZGU=?=");
        let mut h: Vec<(&str, &str)> = vec![("mcp-protocol-version", "2026-07-28")];
        h.extend(written.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        assert_eq!(rule(&h, body), None);
        // The encoded form of another name, a payload that is not Base64, raw UTF-8: refused.
        for bad in ["=?base64?Y2Fmw6k=?=", "=?base64?***?=", "café du monde"] {
            let e = check([h[0], h[1], ("mcp-name", bad)].iter().copied(), body).unwrap_err();
            assert_eq!((e.code, e.http_status, e.rule), (-32020, 400, "HTTP-11"), "{bad}");
        }
    }

    #[test]
    fn legacy_and_unparseable_bodies_are_left_to_check_request() {
        assert_eq!(rule(&[], br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(rule(&[], b"{not json"), None);
    }

    const CALL: &[u8] = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"lookup",
        "arguments":{"region":"Hello","count":3},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

    fn param_rule(headers: &[(&str, &str)]) -> Option<&'static str> {
        let schema = serde_json::json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "note": {"type": "string", "x-mcp-header": "Note"}}});
        let bindings = crate::http::header_bindings(&schema).unwrap();
        check_params(headers.iter().copied(), &bindings, CALL).err().map(|e| {
            assert_eq!((e.code, e.http_status, e.id.is_some()), (-32020, 400, true));
            e.rule
        })
    }

    /// XHDR-9: decoded sentinel values compare with the argument; invalid Base64, a differing
    /// value, a missing header for a present argument, or a header for an absent one: -32020.
    #[test]
    fn param_headers_must_mirror_the_arguments() {
        assert_eq!(param_rule(&[("mcp-param-region", "Hello"), ("Mcp-Param-Count", " 3 ")]), None);
        assert_eq!(param_rule(&[("Mcp-Param-Region", "=?base64?SGVsbG8=?="), ("Mcp-Param-Count", "3")]), None);
        for bad in [
            vec![("Mcp-Param-Count", "3")],
            vec![("Mcp-Param-Region", "=?base64?SGVsbG8?="), ("Mcp-Param-Count", "3")],
            vec![("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), ("Mcp-Param-Count", "3")],
            vec![("Mcp-Param-Region", "hello"), ("Mcp-Param-Count", "3")],
            vec![("Mcp-Param-Region", "Hello"), ("Mcp-Param-Count", "4")],
            vec![("Mcp-Param-Region", "Hello"), ("Mcp-Param-Count", "3"), ("Mcp-Param-Note", "x")],
        ] {
            assert_eq!(param_rule(&bad), Some("XHDR-9"), "{bad:?}");
        }
        // Not a tools/call: nothing to mirror.
        assert!(check_params([].into_iter(), &[], br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
    }
}
