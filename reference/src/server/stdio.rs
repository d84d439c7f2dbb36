//! The same server over stdio: one JSON-RPC message per line in, one per line out. A legacy
//! `initialize` makes the connection a session; a message with modern `_meta` is served
//! statelessly either way.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::{Frame, Incoming, Reply, Server};

/// Serves stdin/stdout until stdin closes.
pub async fn serve(server: Arc<Server>) -> std::io::Result<()> {
    serve_on(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves one connection over any reader and writer (tests use in-memory pipes).
pub async fn serve_on<R, W>(server: Arc<Server>, input: R, mut output: W) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        while let Some(m) = out_rx.recv().await {
            let mut line = m.to_string().into_bytes();
            line.push(b'\n');
            output.write_all(&line).await?;
            output.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let mut lines = BufReader::new(input).lines();
    let mut session: Option<String> = None;
    // Listen streams never end by themselves: they end with the connection.
    let mut listens = Vec::new();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Value>(&line).ok();
        let modern = parsed
            .as_ref()
            .is_some_and(|v| v.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").is_some());
        let listen = parsed.as_ref().is_some_and(|v| v["method"] == "subscriptions/listen");
        let incoming = Incoming { session: if modern { None } else { session.clone() }, http_headers: None };
        match server.process(line.as_bytes(), &incoming) {
            Reply::Accepted => {}
            Reply::Immediate(v, _) => {
                let _ = out_tx.send(v);
            }
            Reply::Stream { mut frames, session: opened } => {
                if opened.is_some() {
                    session = opened;
                }
                let out = out_tx.clone();
                let forward = tokio::spawn(async move {
                    while let Some(f) = frames.recv().await {
                        match f {
                            Frame::Message(m) => {
                                let _ = out.send(m);
                            }
                            Frame::Final(v, _) => {
                                let _ = out.send(v);
                                break;
                            }
                        }
                    }
                });
                if listen {
                    listens.push(forward);
                }
            }
        }
    }
    // End of input: the client is gone. Its listen streams close (their requests' frames are
    // dropped, which the server sees as the client going away); handlers still running keep
    // their own senders, and the writer ends when they finish.
    for l in listens {
        l.abort();
    }
    drop(out_tx);
    writer.await.unwrap_or(Ok(()))
}
