//! A connection whose peer stops reading: [`WriteTimeout`] fails a write that has made no
//! progress for a set time, so hyper closes the connection and its slot is freed (a client
//! that opens streams and never reads them cannot hold the server's connections forever).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{sleep, Sleep};

/// `inner` with a write timeout: a write (or flush) still pending `after` the first time it
/// had to wait fails with [`io::ErrorKind::TimedOut`]. Any progress starts the wait anew.
pub struct WriteTimeout<S> {
    inner: S,
    after: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteTimeout<S> {
    pub fn new(inner: S, after: Duration) -> WriteTimeout<S> {
        WriteTimeout { inner, after, stalled: None }
    }

    /// Passes `poll` through; while it is pending, fails once the stall lasts `after`.
    fn guard<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let after = self.after;
        let timer = self.stalled.get_or_insert_with(|| Box::pin(sleep(after)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.stalled = None;
                let text = format!("the peer read nothing for {after:?}");
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, text)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.guard(cx, poll)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.guard(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.guard(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.guard(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_write_nobody_reads_fails_after_the_timeout_and_one_read_in_time_does_not() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut w = WriteTimeout::new(near, Duration::from_millis(100));
        let start = std::time::Instant::now();
        let err = w.write_all(&[b'x'; 1024]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let waited = start.elapsed();
        assert!(waited >= Duration::from_millis(100) && waited < Duration::from_secs(5), "{waited:?}");

        // A reader that keeps up: the same amount goes through.
        let (near, mut far2) = tokio::io::duplex(64);
        let mut w = WriteTimeout::new(near, Duration::from_millis(100));
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            far2.read_to_end(&mut got).await.map(|_| got.len())
        });
        w.write_all(&[b'x'; 1024]).await.unwrap();
        w.shutdown().await.unwrap();
        assert_eq!(reader.await.unwrap().unwrap(), 1024);
        let mut first = [0u8; 64];
        far.read_exact(&mut first).await.unwrap();
    }
}
