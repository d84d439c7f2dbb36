//! The bodies `mcpgen proxy --listen` answers with, and the relays that fill them from the
//! upstream: a body read whole and checked, or passed on chunk by chunk (an SSE stream, each
//! event checked before the chunk that completes it goes on), through a bounded queue.

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

use super::{Facts, Proxy};
use mcpgen::http::is_media;
use mcpgen::http::sse::{SseEvent, SseSplitter};

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
    mut body: Incoming,
    session: Option<Arc<str>>,
    mut facts: Facts,
    ct: Option<&str>,
) -> ProxyBody {
    let max = proxy.limits.max_message_bytes;
    let mut held = Vec::new();
    // A broken upstream body ends the loop too: what arrived is passed on (the client sees it cut).
    while let Some(Ok(frame)) = body.frame().await {
        let Ok(data) = frame.into_data() else { continue };
        if held.len() + data.len() > max {
            proxy.too_large(Sender::Server);
            let (tx, rx) = mpsc::channel(STREAM_QUEUE);
            let first = [Bytes::from(held), data];
            tokio::spawn(async move {
                for b in first {
                    if tx.send(b).await.is_err() {
                        return;
                    }
                }
                pass_on(body, tx).await;
            });
            return ProxyBody::Chunks(rx);
        }
        held.extend_from_slice(&data);
    }
    let bytes = Bytes::from(held);
    let json = is_media(ct, "application/json");
    if !bytes.is_empty() && (json || Tape::parse_bytes(&bytes).is_ok()) {
        proxy.check(Sender::Server, bytes.clone(), session, facts.next(), None);
    }
    ProxyBody::Whole(Some(bytes))
}

/// The rest of `body` to `tx` as it comes, until either side ends.
async fn pass_on(body: Incoming, tx: mpsc::Sender<Bytes>) {
    forward(body, tx, |_| {}).await;
}

/// Every data chunk of `body` to `tx`, each shown to `inspect` first, until either side ends.
/// `tx` is bounded ([`STREAM_QUEUE`]): while a slow client has not taken the chunks queued,
/// the upstream body is read no further (its TCP window then holds the upstream back).
async fn forward<B>(mut body: B, tx: mpsc::Sender<Bytes>, mut inspect: impl FnMut(&Bytes))
where
    B: Body<Data = Bytes> + Unpin,
{
    loop {
        let frame = tokio::select! {
            f = body.frame() => f,
            () = tx.closed() => return,
        };
        match frame {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    inspect(&data);
                    if tx.send(data).await.is_err() {
                        return;
                    }
                }
            }
            Some(Err(_)) | None => return,
        }
    }
}

/// An SSE stream passed on chunk by chunk; each event is checked before the chunk that
/// completes it goes to the client (so a client's answer can never precede what it answers).
/// Ends when either side does: a client that goes away closes the upstream stream at once.
pub(super) fn relay_events(
    proxy: Arc<Proxy>,
    body: Incoming,
    session: Option<Arc<str>>,
    mut facts: Facts,
) -> ProxyBody {
    let (tx, rx) = mpsc::channel::<Bytes>(STREAM_QUEUE);
    tokio::spawn(async move {
        let mut events = SseSplitter::new(proxy.limits.max_message_bytes);
        forward(body, tx, |chunk| {
            for event in events.push(chunk) {
                match event {
                    // An event without data (a priming event: id and retry only) is no message.
                    SseEvent::Data(data) if data.trim().is_empty() => {}
                    SseEvent::Data(data) => {
                        proxy.check(Sender::Server, Bytes::from(data), session.clone(), facts.next(), None);
                    }
                    SseEvent::TooLarge => proxy.too_large(Sender::Server),
                }
            }
        })
        .await;
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
        let task = tokio::spawn(forward(Endless(Arc::clone(&read)), tx, |_| {}));
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
        tokio::time::timeout(Duration::from_secs(5), task).await.expect("the relay ends").unwrap();
    }
}
