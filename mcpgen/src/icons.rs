//! Icon safety (ICON-1..10): which `Icon.src` URIs a consumer accepts, which image types, and
//! whether the bytes are what they claim to be.
//!
//! Everything about an icon is untrusted (ICON-2). The default [`IconPolicy`]:
//! - accepts `https:` and `data:` sources only (ICON-3); `javascript:`, `file:`, `ftp:`, `ws:`,
//!   `wss:`, custom and app-local schemes are refused. The spec disagrees with itself about plain
//!   `http:` (AMB-3: `Icon.src` says "HTTP/HTTPS URL", the security list says "HTTPS or data:");
//!   the default refuses it and [`IconPolicy::allow_http`] admits it;
//! - allows PNG and JPEG (`image/jpg` read as `image/jpeg`) (ICON-1) and WebP; SVG only with
//!   [`IconPolicy::allow_svg`], because it is active content that can carry script (ICON-9);
//! - sniffs the bytes by magic number and rejects a mismatch with the declared type (ICON-8);
//! - caps the size at 1 MiB, checked on the Base64 length of a `data:` URI before decoding
//!   (ICON-7);
//! - offers [`same_origin`] and [`IconPolicy::check_origin`] for the "same origin as the server"
//!   rule (ICON-6; the schema's "same domain as the client/server or a trusted domain" is the
//!   `trusted_origins` list, AMB-4).
//!
//! ```
//! use mcpgen::icons::{IconPolicy, IconErrorKind};
//! let policy = IconPolicy::default();
//! assert!(policy.check_src("https://example.com/icon.png").is_ok());
//! assert_eq!(policy.check_src("javascript:alert(1)").unwrap_err().kind, IconErrorKind::SchemeNotAllowed);
//! // A PNG labelled as JPEG is refused.
//! let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
//! let err = policy.check_bytes(png, Some("image/jpeg")).unwrap_err();
//! assert_eq!(err.kind, IconErrorKind::TypeMismatch);
//! ```

use std::fmt;

use crate::rules::id;

/// An image type mcpgen can recognise by its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageType {
    Png,
    Jpeg,
    Gif,
    Webp,
    Svg,
}

impl ImageType {
    /// The canonical MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            ImageType::Png => "image/png",
            ImageType::Jpeg => "image/jpeg",
            ImageType::Gif => "image/gif",
            ImageType::Webp => "image/webp",
            ImageType::Svg => "image/svg+xml",
        }
    }

    /// Reads a MIME type (case-insensitive, parameters ignored; `image/jpg` is JPEG). `None` for
    /// anything else.
    pub fn from_mime(mime: &str) -> Option<ImageType> {
        let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        Some(match essence.as_str() {
            "image/png" => ImageType::Png,
            "image/jpeg" | "image/jpg" => ImageType::Jpeg,
            "image/gif" => ImageType::Gif,
            "image/webp" => ImageType::Webp,
            "image/svg+xml" => ImageType::Svg,
            _ => return None,
        })
    }
}

/// Recognises an image by its first bytes (ICON-8): PNG `89 50 4E 47 0D 0A 1A 0A`, JPEG
/// `FF D8 FF`, GIF `GIF87a`/`GIF89a`, WebP `RIFF` + 4 bytes + `WEBP`, SVG = XML text whose root
/// element is `svg` (after an optional BOM, XML declaration, comments, DOCTYPE, whitespace).
pub fn sniff(bytes: &[u8]) -> Option<ImageType> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(ImageType::Png);
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(ImageType::Jpeg);
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some(ImageType::Gif);
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some(ImageType::Webp);
    }
    if svg_root(bytes) {
        return Some(ImageType::Svg);
    }
    None
}

fn svg_root(bytes: &[u8]) -> bool {
    let mut s = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // Look at a bounded prefix only: the prologue of a real SVG is short.
    s = &s[..s.len().min(4096)];
    loop {
        while let [b, rest @ ..] = s {
            if b.is_ascii_whitespace() {
                s = rest;
            } else {
                break;
            }
        }
        if s.starts_with(b"<?") {
            match find(s, b"?>") {
                Some(end) => s = &s[end + 2..],
                None => return false,
            }
        } else if s.starts_with(b"<!--") {
            match find(s, b"-->") {
                Some(end) => s = &s[end + 3..],
                None => return false,
            }
        } else if s.starts_with(b"<!DOCTYPE") || s.starts_with(b"<!doctype") {
            match find(s, b">") {
                Some(end) => s = &s[end + 1..],
                None => return false,
            }
        } else {
            return s.starts_with(b"<svg")
                && s.get(4).is_some_and(|c| c.is_ascii_whitespace() || *c == b'>' || *c == b'/');
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Why an icon was refused. Stable names ([`IconErrorKind::as_str`]) for vectors and bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IconErrorKind {
    /// Not a URI at all.
    InvalidUri,
    /// A scheme other than `https:` / `data:` (`javascript:`, `file:`, `ftp:`, `ws:`, custom).
    SchemeNotAllowed,
    /// Plain `http:` while [`IconPolicy::allow_http`] is off (AMB-3).
    HttpNotAllowed,
    /// A `data:` URI that is malformed (no comma, bad Base64).
    InvalidDataUri,
    /// A MIME type outside the allowlist, or SVG while it is off.
    MimeNotAllowed,
    /// The bytes are no image type mcpgen recognises.
    UnrecognizedImage,
    /// The bytes are another type than the declared one (a PNG labelled as JPEG).
    TypeMismatch,
    /// Larger than [`IconPolicy::max_bytes`].
    TooLarge,
    /// Not from the server's origin nor a trusted one (ICON-6).
    CrossOrigin,
}

impl IconErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            IconErrorKind::InvalidUri => "invalid_uri",
            IconErrorKind::SchemeNotAllowed => "scheme_not_allowed",
            IconErrorKind::HttpNotAllowed => "http_not_allowed",
            IconErrorKind::InvalidDataUri => "invalid_data_uri",
            IconErrorKind::MimeNotAllowed => "mime_not_allowed",
            IconErrorKind::UnrecognizedImage => "unrecognized_image",
            IconErrorKind::TypeMismatch => "type_mismatch",
            IconErrorKind::TooLarge => "too_large",
            IconErrorKind::CrossOrigin => "cross_origin",
        }
    }

    pub fn rule(self) -> &'static str {
        match self {
            IconErrorKind::InvalidUri | IconErrorKind::SchemeNotAllowed | IconErrorKind::HttpNotAllowed => id::ICON_3,
            IconErrorKind::InvalidDataUri | IconErrorKind::UnrecognizedImage | IconErrorKind::TypeMismatch => {
                id::ICON_8
            }
            IconErrorKind::MimeNotAllowed => id::ICON_1,
            IconErrorKind::TooLarge => id::ICON_7,
            IconErrorKind::CrossOrigin => id::ICON_6,
        }
    }
}

impl fmt::Display for IconErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused icon: kind, rule (via the kind) and a message a person can act on.
/// `#[non_exhaustive]`; as a [`CoreError`](crate::CoreError), one entry with its rule and message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct IconError {
    pub kind: IconErrorKind,
    pub message: String,
}

impl IconError {
    fn new(kind: IconErrorKind, message: String) -> IconError {
        IconError { kind, message }
    }

    pub fn rule(&self) -> &'static str {
        self.kind.rule()
    }
}

impl fmt::Display for IconError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}; {}]", self.message, self.kind, self.kind.rule())
    }
}

impl std::error::Error for IconError {}

impl crate::CoreError for IconError {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }
    fn rule(&self) -> Option<&'static str> {
        Some(self.kind.rule())
    }
    fn errors(&self) -> std::borrow::Cow<'_, [crate::ValidationError]> {
        mcpgen_runtime::__rt::single("", "", Some(self.kind.rule()), self.message.clone())
    }
}

/// An accepted `Icon.src`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IconSource {
    /// To be fetched by the caller (ICON-4/5: no credentials, same-origin redirects only), then
    /// passed to [`IconPolicy::check_bytes`].
    Remote {
        /// `https` (or `http` when allowed).
        scheme: String,
        /// `scheme://host[:port]`, lower-cased, default port dropped.
        origin: String,
    },
    /// Inline data, already decoded and checked.
    Data { image: ImageType, bytes: Vec<u8> },
}

/// What a consumer accepts (ICON-3, -1, -7, -8, -9, -6).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct IconPolicy {
    /// Accept plain `http:` (AMB-3). Default off.
    pub allow_http: bool,
    /// Accept SVG (active content, ICON-9). Default off.
    pub allow_svg: bool,
    /// Accept WebP. Default on.
    pub allow_webp: bool,
    /// Accept GIF. Default off (animation; not in the spec's list).
    pub allow_gif: bool,
    /// Maximum icon size in bytes (default 1 MiB).
    pub max_bytes: usize,
    /// Origins (`https://cdn.example.com`) trusted besides the server's own (ICON-6, AMB-4).
    pub trusted_origins: Vec<String>,
}

/// Builders: `#[non_exhaustive]`, so start from `IconPolicy::default()` (or its constructor) and set
/// what differs.
impl IconPolicy {
    /// The same, with [`IconPolicy::allow_http`] set.
    pub fn allow_http(mut self, allow_http: bool) -> Self {
        self.allow_http = allow_http;
        self
    }
    /// The same, with [`IconPolicy::allow_svg`] set.
    pub fn allow_svg(mut self, allow_svg: bool) -> Self {
        self.allow_svg = allow_svg;
        self
    }
    /// The same, with [`IconPolicy::allow_webp`] set.
    pub fn allow_webp(mut self, allow_webp: bool) -> Self {
        self.allow_webp = allow_webp;
        self
    }
    /// The same, with [`IconPolicy::allow_gif`] set.
    pub fn allow_gif(mut self, allow_gif: bool) -> Self {
        self.allow_gif = allow_gif;
        self
    }
    /// The same, with [`IconPolicy::max_bytes`] set.
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
    /// The same, with [`IconPolicy::trusted_origins`] set.
    pub fn trusted_origins(mut self, trusted_origins: Vec<String>) -> Self {
        self.trusted_origins = trusted_origins;
        self
    }
}

impl Default for IconPolicy {
    fn default() -> Self {
        IconPolicy {
            allow_http: false,
            allow_svg: false,
            allow_webp: true,
            allow_gif: false,
            max_bytes: 1 << 20,
            trusted_origins: Vec::new(),
        }
    }
}

/// `scheme://host[:port]` of an absolute hierarchical URI, lower-cased, default port dropped.
pub fn origin(uri: &str) -> Option<String> {
    let parsed = jsonschema::uri::from_str(uri.trim()).ok()?;
    let scheme = parsed.scheme().as_str().to_ascii_lowercase();
    let authority = parsed.authority()?;
    let host = authority.host().to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let port = authority.port_to_u16().ok().flatten();
    let default = match scheme.as_str() {
        "https" | "wss" => Some(443),
        "http" | "ws" => Some(80),
        _ => None,
    };
    Some(match port {
        Some(p) if Some(p) != default => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    })
}

/// Whether two URIs share an origin (scheme, host and port, RFC 6454) (ICON-6).
pub fn same_origin(a: &str, b: &str) -> bool {
    matches!((origin(a), origin(b)), (Some(x), Some(y)) if x == y)
}

impl IconPolicy {
    fn allows(&self, t: ImageType) -> bool {
        match t {
            ImageType::Png | ImageType::Jpeg => true,
            ImageType::Webp => self.allow_webp,
            ImageType::Gif => self.allow_gif,
            ImageType::Svg => self.allow_svg,
        }
    }

    fn check_allowed(&self, t: ImageType, declared: &str) -> Result<(), IconError> {
        if self.allows(t) {
            return Ok(());
        }
        let why = match t {
            ImageType::Svg => "SVG is active content (it can carry script) and is off by default (ICON-9); enable allow_svg to accept it",
            ImageType::Webp => "WebP is turned off in this policy",
            _ => "not in the allowlist (PNG, JPEG; WebP and SVG optional)",
        };
        Err(IconError::new(IconErrorKind::MimeNotAllowed, format!("icon type {declared}: {why}")))
    }

    /// Reads a declared MIME type against the allowlist.
    pub fn check_mime(&self, mime: &str) -> Result<ImageType, IconError> {
        let t = ImageType::from_mime(mime).ok_or_else(|| {
            IconError::new(
                IconErrorKind::MimeNotAllowed,
                format!(
                    "icon MIME type `{mime}` is not allowed (allowed: image/png, image/jpeg, image/jpg{}{})",
                    if self.allow_webp { ", image/webp" } else { "" },
                    if self.allow_svg { ", image/svg+xml" } else { "" }
                ),
            )
        })?;
        self.check_allowed(t, mime)?;
        Ok(t)
    }

    /// Checks an `Icon.src` (ICON-3). For `data:` URIs this also decodes the payload (size
    /// checked on the encoded length first), sniffs it, and compares it with `mime_type` (the
    /// icon's `mimeType`) or else the data URI's own media type.
    pub fn check_icon(&self, src: &str, mime_type: Option<&str>) -> Result<IconSource, IconError> {
        let src = src.trim();
        let colon = src
            .find(':')
            .filter(|&i| i > 0 && src[..i].chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)));
        let Some(colon) = colon else {
            return Err(IconError::new(
                IconErrorKind::InvalidUri,
                format!("icon src `{}` is not an absolute URI", shorten(src)),
            ));
        };
        let scheme = src[..colon].to_ascii_lowercase();
        match scheme.as_str() {
            "data" => self.check_data(&src[colon + 1..], mime_type),
            "https" | "http" => {
                if scheme == "http" && !self.allow_http {
                    return Err(IconError::new(
                        IconErrorKind::HttpNotAllowed,
                        format!("icon src {} uses plain http: refused by default (AMB-3: the spec lists HTTP but its security section requires HTTPS or data:); enable allow_http to accept it", shorten(src)),
                    ));
                }
                let origin = origin(src).ok_or_else(|| {
                    IconError::new(IconErrorKind::InvalidUri, format!("icon src {} has no host", shorten(src)))
                })?;
                if let Some(m) = mime_type {
                    self.check_mime(m)?;
                }
                Ok(IconSource::Remote { scheme, origin })
            }
            other => Err(IconError::new(
                IconErrorKind::SchemeNotAllowed,
                format!("icon src scheme `{other}:` is not allowed: only https: and data: (ICON-3)"),
            )),
        }
    }

    /// [`IconPolicy::check_icon`] without a `mimeType`.
    pub fn check_src(&self, src: &str) -> Result<IconSource, IconError> {
        self.check_icon(src, None)
    }

    fn check_data(&self, rest: &str, mime_type: Option<&str>) -> Result<IconSource, IconError> {
        let Some((header, payload)) = rest.split_once(',') else {
            return Err(IconError::new(
                IconErrorKind::InvalidDataUri,
                "data: URI without a comma before the payload".into(),
            ));
        };
        let mut params = header.split(';');
        let media = params.next().unwrap_or("").trim();
        let base64 = params.any(|p| p.trim().eq_ignore_ascii_case("base64"));
        // ICON-7: decide on the encoded length, before decoding anything.
        let decoded_len = if base64 { payload.len() / 4 * 3 } else { payload.len() / 3 };
        if decoded_len > self.max_bytes {
            return Err(IconError::new(
                IconErrorKind::TooLarge,
                format!(
                    "data: icon of about {decoded_len} bytes exceeds the {}-byte limit (checked before decoding)",
                    self.max_bytes
                ),
            ));
        }
        let bytes = if base64 {
            decode_base64(payload).ok_or_else(|| {
                IconError::new(IconErrorKind::InvalidDataUri, "data: payload is not valid Base64".into())
            })?
        } else {
            percent_decode(payload)
        };
        let declared = mime_type.or(if media.is_empty() { None } else { Some(media) });
        let image = self.check_bytes(&bytes, declared)?;
        Ok(IconSource::Data { image, bytes })
    }

    /// Checks icon bytes (from a `data:` URI or fetched by the caller): size, sniffed type
    /// against the allowlist and against the declared type (`mimeType`, else HTTP
    /// `Content-Type`, else the data URI's media type) (ICON-7, -8).
    pub fn check_bytes(&self, bytes: &[u8], declared: Option<&str>) -> Result<ImageType, IconError> {
        if bytes.len() > self.max_bytes {
            return Err(IconError::new(
                IconErrorKind::TooLarge,
                format!("icon of {} bytes exceeds the {}-byte limit", bytes.len(), self.max_bytes),
            ));
        }
        let declared_type = match declared {
            Some(m) => Some(self.check_mime(m)?),
            None => None,
        };
        let sniffed = sniff(bytes).ok_or_else(|| {
            IconError::new(
                IconErrorKind::UnrecognizedImage,
                "icon bytes are not a recognised image (PNG, JPEG, WebP, GIF, SVG)".into(),
            )
        })?;
        if let Some(d) = declared_type {
            if d != sniffed {
                return Err(IconError::new(
                    IconErrorKind::TypeMismatch,
                    format!(
                        "icon declared as {} but its bytes are {} (MIME hints are advisory; a mismatch is refused)",
                        d.mime(),
                        sniffed.mime()
                    ),
                ));
            }
        }
        self.check_allowed(sniffed, sniffed.mime())?;
        Ok(sniffed)
    }

    /// ICON-6: whether `src` is from the server's origin or a trusted one (data: always is).
    pub fn check_origin(&self, src: &str, server: &str) -> Result<(), IconError> {
        if src.trim().to_ascii_lowercase().starts_with("data:") {
            return Ok(());
        }
        let Some(o) = origin(src) else {
            return Err(IconError::new(IconErrorKind::InvalidUri, format!("icon src {} has no origin", shorten(src))));
        };
        if Some(&o) == origin(server).as_ref() || self.trusted_origins.iter().any(|t| origin(t).as_ref() == Some(&o)) {
            Ok(())
        } else {
            Err(IconError::new(
                IconErrorKind::CrossOrigin,
                format!("icon origin {o} is neither the server's nor a trusted origin"),
            ))
        }
    }
}

fn shorten(s: &str) -> String {
    if s.len() <= 80 {
        return s.to_owned();
    }
    let mut end = 80;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Some(v) = std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// Strict standard Base64 (RFC 4648 §4) with optional padding; whitespace is not allowed.
pub fn decode_base64(s: &str) -> Option<Vec<u8>> {
    fn val(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let trimmed = s.trim_end_matches('=');
    if s.len() - trimmed.len() > 2 || (s.len() != trimmed.len() && !s.len().is_multiple_of(4)) {
        return None;
    }
    let bytes = trimmed.as_bytes();
    if bytes.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(decode_base64("iVBORw0KGgo=").unwrap(), b"\x89PNG\r\n\x1a\n");
        assert!(decode_base64("a").is_none());
        assert!(decode_base64("aGV sbG8=").is_none());
        assert!(decode_base64("aGVsbG8===").is_none());
    }

    #[test]
    fn origins() {
        assert!(same_origin("https://Example.com/a.png", "https://example.com:443/mcp"));
        assert!(!same_origin("https://example.com/a.png", "https://cdn.example.com/"));
        assert!(!same_origin("https://example.com:8443/a.png", "https://example.com/"));
        assert!(!same_origin("http://example.com/a.png", "https://example.com/"));
        assert!(!same_origin("data:image/png;base64,AAAA", "https://example.com/"));
    }

    #[test]
    fn svg_sniffing() {
        assert_eq!(sniff(b"\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), Some(ImageType::Svg));
        assert_eq!(sniff(b"<svgfoo>"), None);
        assert_eq!(sniff(b"<html><svg></svg></html>"), None);
    }
}
