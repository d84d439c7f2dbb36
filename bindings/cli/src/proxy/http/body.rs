//! The bodies `mcpgen proxy --listen` answers with, and the relays that fill them from the
//! upstream: a body read whole and checked, or passed on chunk by chunk (an SSE stream, each
//! event checked before the chunk that completes it goes on), through a bounded queue.
//!
//! Neither peer holds a relay forever ([`Guard`]): an upstream body silent for
//! `--upstream-idle-timeout` or longer than `--max-answer-bytes`, and a client that takes no
//! chunk for `--write-timeout` (it reads nothing: the queue and the socket are full), end the
//! relay, close the client's connection (freeing its slot) and put a note in the report.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use mcpgen::conversation::Sender;
use mcpgen::json::Tape;
use tokio::sync::mpsc;

use super::{text_response, Facts, Proxy};
use crate::checker::Http;
use hyper::{Response, StatusCode};
use mcpgen::http::is_media;
use mcpgen::http::sse::{SseEvent, SseSplitter};
use tokio::sync::Notify;
use tokio::time::timeout;

/// SSE chunks waiting for a slow client, per stream (then the upstream is read no further).
const STREAM_QUEUE: usize = 16;

/// A body the proxy sends: whole, or chunks as a relay task passes them on.
pub(super) enum ProxyBody {
    Whole(Option<Bytes>),
    Chunks(mpsc::Receiver<Bytes>),
}

impl Body for ProxyBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            ProxyBody::Whole(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            ProxyBody::Chunks(rx) => rx.poll_recv(cx).map(|chunk| chunk.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, ProxyBody::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ProxyBody::Whole(Some(b)) => SizeHint::with_exact(b.len() as u64),
            ProxyBody::Whole(None) => SizeHint::with_exact(0),
            ProxyBody::Chunks(_) => SizeHint::default(),
        }
    }
}

/// A body that is not an event stream: read whole (up to `--max-message-bytes`), checked when
/// it is a message (JSON, or declared JSON), passed on. A longer one is passed on as it comes,
/// unchecked (POLICY-SIZE).
pub(super) async fn relay_whole(
    proxy: &Arc<Proxy>,
    close: Arc<Notify>,
    mut body: Incoming,
    session: Option<Arc<str>>,
    mut facts: Facts,
    ct: Option<&str>,
) -> Result<ProxyBody, Response<ProxyBody>> {
    let max = proxy.limits.max_message_bytes;
    let idle = proxy.http.upstream_idle_timeout;
    let mut held = Vec::new();
    loop {
        // A broken upstream body ends the loop too: what arrived is passed on (the client sees it cut).
        let frame = match timeout(idle, body.frame()).await {
            Ok(Some(Ok(frame))) => frame,
            Ok(_) => break,
            Err(_) => {
                let text = format!("the upstream's answer body sent nothing for {idle:?} (--upstream-idle-timeout)");
                proxy.checker.note(Ended::Stalled.kind(), text.clone());
                return Err(text_response(
                    StatusCode::GATEWAY_TIMEOUT,
                    format!("Gateway Timeout: mcpgen proxy: {text}"),
                    true,
                ));
            }
        };
        let Ok(data) = frame.into_data() else { continue };
        if held.len() + data.len() > max {
            proxy.too_large(Sender::Server);
            let (tx, rx) = mpsc::channel(STREAM_QUEUE);
            let guard = Guard::of(proxy, held.len() + data.len());
            let first = [Bytes::from(held), data];
            let proxy = Arc::clone(proxy);
            tokio::spawn(async move {
                for b in first {
                    if tx.send(b).await.is_err() {
                        return;
                    }
                }
                let ended = forward(body, tx, guard, |_| {}).await;
                ended.tell(&proxy, &close);
            });
            return Ok(ProxyBody::Chunks(rx));
        }
        held.extend_from_slice(&data);
    }
    let started = proxy.metrics.as_ref().map(|_| std::time::Instant::now());
    let bytes = Bytes::from(held);
    let json = is_media(ct, "application/json");
    if facts.post && !bytes.is_empty() && (json || Tape::parse_bytes(&bytes).is_ok()) {
        proxy.check(Sender::Server, bytes.clone(), session, facts.next().map(Http::from), None);
    }
    if let (Some(m), Some(started)) = (&proxy.metrics, started) {
        // Read whole → handed to hyper: the answer's share of the proxy's time.
        m.added(Sender::Server, started.elapsed());
    }
    Ok(ProxyBody::Whole(Some(bytes)))
}

/// What a relay may wait for and pass on.
#[derive(Clone, Copy)]
struct Guard {
    /// The upstream's longest silence.
    idle: std::time::Duration,
    /// The client's longest time without taking a chunk.
    write: std::time::Duration,
    /// Bytes the upstream body may still send.
    left: u64,
}

impl Guard {
    /// The proxy's bounds, `sent` bytes of the body already passed on.
    fn of(proxy: &Proxy, sent: usize) -> Guard {
        let left = proxy.http.max_answer_bytes.saturating_sub(sent as u64);
        Guard { idle: proxy.http.upstream_idle_timeout, write: proxy.http.write_timeout, left }
    }
}

/// How a relay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The body ended, broke, or the client went away.
    Done,
    /// The upstream sent nothing for [`Guard::idle`].
    Stalled,
    /// The body passed `--max-answer-bytes`.
    TooLarge,
    /// The client took nothing for [`Guard::write`].
    NotRead,
}

impl Ended {
    /// The report's `transport` kind.
    fn kind(self) -> &'static str {
        match self {
            Ended::Done => "done",
            Ended::Stalled => "upstream-stalled",
            Ended::TooLarge => "upstream-too-large",
            Ended::NotRead => "client-not-reading",
        }
    }

    /// Anything but the end of the body closes the client's connection (the client sees the
    /// answer cut; its slot is free) and is noted in the report.
    fn tell(self, proxy: &Proxy, close: &Notify) {
        let h = &proxy.http;
        let text = match self {
            Ended::Done => return,
            Ended::Stalled => format!(
                "an answer's stream sent nothing for {:?} (--upstream-idle-timeout): ended, its connection closed",
                h.upstream_idle_timeout
            ),
            Ended::TooLarge => format!(
                "an answer's body passed {} bytes (--max-answer-bytes): ended, its connection closed",
                h.max_answer_bytes
            ),
            Ended::NotRead => format!(
                "a client read none of an answer for {:?} (--write-timeout): its connection is closed",
                h.write_timeout
            ),
        };
        proxy.checker.note(self.kind(), text);
        close.notify_one();
    }
}

/// Every data chunk of `body` to `tx`, each shown to `inspect` first, until either side ends
/// or `guard` gives up. `tx` is bounded ([`STREAM_QUEUE`]): while a slow client has not taken
/// the chunks queued, the upstream body is read no further (its TCP window then holds the
/// upstream back) — for at most [`Guard::write`] per chunk.
async fn forward<B>(mut body: B, tx: mpsc::Sender<Bytes>, mut guard: Guard, mut inspect: impl FnMut(&Bytes)) -> Ended
where
    B: Body<Data = Bytes> + Unpin,
{
    loop {
        let frame = tokio::select! {
            f = timeout(guard.idle, body.frame()) => match f {
                Ok(f) => f,
                Err(_) => return Ended::Stalled,
            },
            () = tx.closed() => return Ended::Done,
        };
        let Some(Ok(frame)) = frame else { return Ended::Done };
        let Ok(data) = frame.into_data() else { continue };
        let Some(left) = guard.left.checked_sub(data.len() as u64) else { return Ended::TooLarge };
        guard.left = left;
        inspect(&data);
        match timeout(guard.write, tx.send(data)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Ended::Done,
            Err(_) => return Ended::NotRead,
        }
    }
}

/// An SSE stream passed on chunk by chunk; each event is checked before the chunk that
/// completes it goes to the client (so a client's answer can never precede what it answers).
/// Ends when either side does: a client that goes away closes the upstream stream at once.
pub(super) fn relay_events(
    proxy: Arc<Proxy>,
    close: Arc<Notify>,
    body: Incoming,
    session: Option<Arc<str>>,
    mut facts: Facts,
) -> ProxyBody {
    let (tx, rx) = mpsc::channel::<Bytes>(STREAM_QUEUE);
    tokio::spawn(async move {
        let mut events = SseSplitter::new(proxy.limits.max_message_bytes);
        let ended = forward(body, tx, Guard::of(&proxy, 0), |chunk| {
            for event in events.push(chunk) {
                match event {
                    // An event without data (a priming event: id and retry only) is no message.
                    SseEvent::Data(data) if data.trim().is_empty() => {}
                    SseEvent::Data(data) => {
                        let http = facts.next().map(Http::from);
                        proxy.check(Sender::Server, Bytes::from(data), session.clone(), http, None);
                    }
                    SseEvent::TooLarge => proxy.too_large(Sender::Server),
                }
            }
        })
        .await;
        ended.tell(&proxy, &close);
    });
    ProxyBody::Chunks(rx)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// An endless upstream body that counts the chunks it was asked for.
    struct Endless(Arc<std::sync::atomic::AtomicUsize>);

    impl Body for Endless {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"data: {}\n\n")))))
        }
    }

    #[tokio::test]
    async fn a_client_that_does_not_read_holds_the_upstream_at_the_queue_bound() {
        let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::channel(STREAM_QUEUE);
        let guard = Guard { idle: Duration::from_secs(60), write: Duration::from_secs(60), left: u64::MAX };
        let task = tokio::spawn(forward(Endless(Arc::clone(&read)), tx, guard, |_| {}));
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
        // The queue is full and one more chunk waits in `send`: nothing beyond is read.
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), STREAM_QUEUE + 1);
        // Taking one chunk lets exactly one more be read.
        assert!(rx.recv().await.is_some());
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), STREAM_QUEUE + 2);
        // A client that goes away ends the relay (and so drops the upstream body).
        drop(rx);
        let ended = tokio::time::timeout(Duration::from_secs(5), task).await.expect("the relay ends").unwrap();
        assert_eq!(ended, Ended::Done);
    }

    #[tokio::test]
    async fn a_client_that_takes_nothing_ends_the_relay_at_the_write_timeout() {
        let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (tx, _rx) = mpsc::channel(STREAM_QUEUE);
        let guard = Guard { idle: Duration::from_secs(60), write: Duration::from_millis(200), left: u64::MAX };
        let ended = forward(Endless(Arc::clone(&read)), tx, guard, |_| {}).await;
        assert_eq!(ended, Ended::NotRead);
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), STREAM_QUEUE + 1);
    }

    #[tokio::test]
    async fn a_body_past_its_byte_budget_ends_the_relay() {
        let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::channel(STREAM_QUEUE);
        let chunk = b"data: {}\n\n".len() as u64;
        let guard = Guard { idle: Duration::from_secs(60), write: Duration::from_secs(60), left: 3 * chunk };
        let reader = tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let ended = forward(Endless(Arc::clone(&read)), tx, guard, |_| {}).await;
        assert_eq!(ended, Ended::TooLarge);
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 4, "three chunks fit, the fourth does not");
        reader.await.unwrap();
    }
}
