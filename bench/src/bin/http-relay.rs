//! The floor of the HTTP proxy benchmark (`cargo xtask bench`): a bare reverse proxy on the
//! stack `mcpgen proxy --listen` is built on (hyper's HTTP/1.1 server and pooled client, one
//! tokio thread, `TCP_NODELAY` both ways), relaying every request to `UPSTREAM` and every
//! answer back as they stream (an upstream failure closes the connection), with no reading,
//! checking or header handling of its own. What it costs is what any hyper-based proxy costs;
//! the rest of `mcpgen proxy`'s cost is its checking. Usage: `http-relay http://HOST:PORT`;
//! prints `listening on http://127.0.0.1:PORT/mcp` and serves until killed.

use std::io::Write;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Request, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let upstream = std::env::args().nth(1).ok_or("usage: http-relay http://HOST:PORT")?;
    let upstream: Arc<str> = upstream.trim_end_matches('/').into();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening on http://{}/mcp", listener.local_addr()?);
        std::io::stdout().flush()?;
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client: Client<HttpConnector, Incoming> = Client::builder(TokioExecutor::new()).build(connector);
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            let (client, upstream) = (client.clone(), Arc::clone(&upstream));
            let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
                let (client, upstream) = (client.clone(), Arc::clone(&upstream));
                async move {
                    let path = request.uri().path_and_query().map_or("/", |p| p.as_str());
                    let uri: Uri = format!("{upstream}{path}").parse().expect("a URL and a path make a URL");
                    *request.uri_mut() = uri;
                    // An upstream failure closes the connection (the benchmark's client reports it).
                    client.request(request).await
                }
            });
            tokio::spawn(async move {
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    })
}
