//! Accepting connections under a cap on those served at once: both servers of the proxy.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

/// The next connection and its slot among `slots` (the cap on connections served at once), or
/// `None` once `slots` is closed. The slot is taken before accepting, so at the cap new
/// connections wait in the listen backlog; a failed accept (EMFILE and friends) waits 50 ms
/// rather than spin. Both servers of the proxy (`--listen`, `--metrics`) accept through here.
pub async fn accept_within(
    listener: &tokio::net::TcpListener,
    slots: &Arc<Semaphore>,
) -> Option<(tokio::net::TcpStream, tokio::sync::OwnedSemaphorePermit)> {
    loop {
        let slot = Arc::clone(slots).acquire_owned().await.ok()?;
        match listener.accept().await {
            Ok((stream, _)) => return Some((stream, slot)),
            Err(_) => {
                drop(slot);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}
