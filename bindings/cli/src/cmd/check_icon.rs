//! `mcpgen check-icon`: an icon source and its bytes.

use std::path::PathBuf;
use std::process::ExitCode;

use mcpgen::icons::{IconPolicy, IconSource};

use crate::UsageError;

/// Check an icon source (ICON-3..9): scheme, MIME type, and the bytes of a `data:` URI or of
/// `--bytes FILE` (sniffed; a type mismatch is refused).
///
/// Exit 0 when acceptable, 1 when refused, 2 on usage or I/O errors.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The `Icon.src` URI.
    uri: String,
    /// The icon's bytes (as fetched from an https: source).
    #[arg(long, value_name = "FILE")]
    bytes: Option<PathBuf>,
    /// The declared MIME type (`Icon.mimeType` or the HTTP `Content-Type`).
    #[arg(long, value_name = "TYPE")]
    mime: Option<String>,
    /// Accept plain http: (refused by default, AMB-3).
    #[arg(long)]
    allow_http: bool,
    /// Accept SVG (active content, refused by default, ICON-9).
    #[arg(long)]
    allow_svg: bool,
    /// The server's URL: also require the icon to come from its origin (ICON-6).
    #[arg(long, value_name = "URL")]
    server: Option<String>,
}

/// `mcpgen check-icon`.
pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let Args { uri, bytes, mime, allow_http, allow_svg, server } = args;
    let (uri, mime, server) = (uri.as_str(), mime.as_deref(), server.as_deref());
    let policy = IconPolicy::default().allow_http(allow_http).allow_svg(allow_svg);
    let file = bytes
        .map(|p| std::fs::read(&p).map_err(|e| UsageError(format!("cannot read {}: {e}", p.display()))))
        .transpose()?;
    let checked = policy.check_icon(uri, mime).and_then(|source| {
        if let Some(server) = server {
            policy.check_origin(uri, server)?;
        }
        let found = match (&source, &file) {
            (_, Some(b)) => Some(policy.check_bytes(b, mime)?),
            (IconSource::Data { image, .. }, None) => Some(*image),
            (IconSource::Remote { .. }, None) => None,
        };
        Ok((source, found))
    });
    match checked {
        Ok((source, found)) => {
            let what = match (&source, found) {
                (_, Some(t)) => format!("{} image", t.mime()),
                (IconSource::Remote { origin, .. }, None) => {
                    format!("remote icon from {origin} (bytes not checked: pass --bytes FILE)")
                }
                (IconSource::Data { .. }, None) => "data icon".to_owned(),
            };
            println!("ok: {what}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("refused: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
