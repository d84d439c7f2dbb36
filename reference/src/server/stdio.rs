//! The same server over stdio: one JSON-RPC message per line in, one per line out. A legacy
//! `initialize` makes the connection a session; a message with modern `_meta` is served
//! statelessly either way.
//!
//! Input is read as bytes, a line at a time up to [`StdioLimits::max_line_bytes`]: a line that
//! is not UTF-8 or not JSON gets -32700 and the next line is read; a longer line gets -32600
//! and is skipped to its newline without being kept. Reading is held back (backpressure) while
//! [`StdioLimits::max_in_flight`] requests are being served, and answers wait in a queue of
//! [`StdioLimits::max_queued_answers`]: a client that does not read stdout stops the server
//! reading stdin, and nothing grows.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use super::wire::{self, EchoId, RpcError};
use super::{error_response, Frame, Incoming, Reply, Server};

/// The default of [`StdioLimits::max_line_bytes`] (the HTTP transport's body limit).
pub const DEFAULT_MAX_LINE_BYTES: usize = 2 * 1024 * 1024;
/// The default of [`StdioLimits::max_in_flight`].
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// The default of [`StdioLimits::max_queued_answers`].
pub const DEFAULT_MAX_QUEUED_ANSWERS: usize = 64;

/// What one stdio client can make the server hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StdioLimits {
    /// The longest line read, newline excluded; a longer one gets -32600 (id `null`) and is
    /// discarded up to its newline.
    pub max_line_bytes: usize,
    /// Requests served at once (listen streams excepted: their table has its own cap). At the
    /// cap the server reads no more input until one is answered.
    pub max_in_flight: usize,
    /// Messages waiting to be written to stdout. While the queue is full, whatever would
    /// add to it waits, and so does the reading of input.
    pub max_queued_answers: usize,
}

impl Default for StdioLimits {
    fn default() -> StdioLimits {
        StdioLimits {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_queued_answers: DEFAULT_MAX_QUEUED_ANSWERS,
        }
    }
}

/// Serves stdin/stdout until stdin closes.
pub async fn serve(server: Arc<Server>, limits: StdioLimits) -> std::io::Result<()> {
    serve_on(server, tokio::io::stdin(), tokio::io::stdout(), limits).await
}

/// Serves one connection over any reader and writer (tests use in-memory pipes).
pub async fn serve_on<R, W>(server: Arc<Server>, input: R, mut output: W, limits: StdioLimits) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, mut out_rx) = mpsc::channel::<String>(limits.max_queued_answers.max(1));
    let writer = tokio::spawn(async move {
        while let Some(mut line) = out_rx.recv().await {
            line.push('\n');
            output.write_all(line.as_bytes()).await?;
            output.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let slots = Arc::new(Semaphore::new(limits.max_in_flight.max(1)));
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    let mut session: Option<String> = None;
    // Listen streams never end by themselves: they end with the connection.
    let mut listens = Vec::new();
    loop {
        // A free slot before the next line: at the cap, input waits (backpressure).
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { break };
        match read_line(&mut input, limits.max_line_bytes, &mut line).await? {
            Line::End => break,
            Line::TooLong => {
                let text = format!("Invalid Request: a line longer than {} bytes", limits.max_line_bytes);
                let body = error_response(Some(&Value::Null), &RpcError::new(-32600, text));
                if out_tx.send(body.to_string()).await.is_err() {
                    break;
                }
            }
            Line::Message if line.trim_ascii().is_empty() => {}
            Line::Message => {
                let parsed = wire::parse(&line);
                let modern = parsed.as_ref().is_ok_and(|p| p.is_modern());
                let incoming = Incoming { session: if modern { None } else { session.clone() }, http_headers: None };
                let (reply, echo) = server.process_parsed(&line, parsed, &incoming);
                match reply {
                    Reply::Accepted => {}
                    Reply::Immediate(v, _) => {
                        if out_tx.send(echo.render(&v)).await.is_err() {
                            break;
                        }
                    }
                    Reply::Stream { frames, session: opened, lasting } => {
                        if opened.is_some() {
                            session = opened;
                        }
                        // A listen stream does not hold a slot: it lasts as long as the client
                        // wants, and the listener table caps how many there are.
                        let slot = (!lasting).then_some(slot);
                        let forward = tokio::spawn(forward(frames, out_tx.clone(), echo, slot));
                        if lasting {
                            listens.push(forward);
                        }
                    }
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

/// Writes a request's frames to the output queue, waiting while it is full; the request's
/// slot is given back once its final response is queued.
async fn forward(
    mut frames: mpsc::Receiver<Frame>,
    out: mpsc::Sender<String>,
    echo: EchoId,
    slot: Option<OwnedSemaphorePermit>,
) {
    while let Some(f) = frames.recv().await {
        let (text, last) = match f {
            Frame::Message(m) => (m.to_string(), false),
            Frame::Final(v, _) => (echo.render(&v), true),
        };
        if out.send(text).await.is_err() || last {
            break;
        }
    }
    drop(slot);
}

/// One line of input.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line (in the caller's buffer, without its newline or a `\r` before it).
    Message,
    /// A line longer than the limit: its bytes were read and dropped, up to its newline.
    TooLong,
    /// End of input.
    End,
}

/// Reads the next line into `buf`, keeping at most `max` bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(input: &mut R, max: usize, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(match (read_any, too_long || buf.len() > max) {
                (false, _) => Line::End,
                (true, true) => {
                    buf.clear();
                    Line::TooLong
                }
                (true, false) => Line::Message,
            });
        }
        read_any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        if !too_long && buf.len() + part.len() <= max.saturating_add(1) {
            buf.extend_from_slice(part);
        } else {
            too_long = true;
            buf.clear();
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            if too_long || buf.len() > max {
                buf.clear();
                return Ok(Line::TooLong);
            }
            return Ok(Line::Message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<(Line, Vec<u8>)> {
        let mut r = BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let l = read_line(&mut r, max, &mut buf).await.unwrap();
            if l == Line::End {
                return out;
            }
            out.push((l, buf.clone()));
        }
    }

    #[tokio::test]
    async fn lines_longer_than_the_limit_are_skipped_to_their_newline_and_reading_resyncs() {
        let got = lines(b"abc\r\n0123456789\nxy\n\n12345", 5).await;
        assert_eq!(
            got,
            vec![
                (Line::Message, b"abc".to_vec()),
                (Line::TooLong, Vec::new()),
                (Line::Message, b"xy".to_vec()),
                (Line::Message, Vec::new()),
                (Line::Message, b"12345".to_vec()),
            ]
        );
        // A line of exactly the limit plus its `\r` is kept; one byte more is not.
        assert_eq!(lines(b"12345\r\n", 5).await, vec![(Line::Message, b"12345".to_vec())]);
        assert_eq!(lines(b"123456\r\n", 5).await, vec![(Line::TooLong, Vec::new())]);
        assert_eq!(lines(b"123456", 5).await, vec![(Line::TooLong, Vec::new())]);
    }
}
