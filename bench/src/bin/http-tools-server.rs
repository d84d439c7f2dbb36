//! A minimal Streamable HTTP upstream for the HTTP proxy benchmark (`cargo xtask bench`):
//! answers every POST with a fixed `tools/list` result (the request's `id` echoed), HTTP/1.1
//! keep-alive, one thread per connection, nothing else — so the benchmark measures the proxy,
//! not a server. Prints `listening on http://127.0.0.1:PORT/mcp` and serves until killed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

const TOOLS: &str = r#"{"resultType":"complete","tools":[{"name":"echo","description":"Echoes its input","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},{"name":"add","description":"Adds two numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}]}"#;

fn main() -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    std::io::stdout().flush()?;
    for stream in listener.incoming() {
        let stream = stream?;
        let _ = stream.set_nodelay(true);
        std::thread::spawn(move || {
            let _ = serve(stream);
        });
    }
    Ok(())
}

fn serve(stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut length = 0usize;
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((k, v)) = header.split_once(':') {
                if k.trim().eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let id = serde_json::from_slice::<serde_json::Value>(&body).ok().and_then(|v| v.get("id").cloned());
        let id = id.map_or_else(|| "null".to_owned(), |v| v.to_string());
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{TOOLS}}}"#);
        let head =
            format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", answer.len());
        out.write_all(head.as_bytes())?;
        out.write_all(answer.as_bytes())?;
    }
}
