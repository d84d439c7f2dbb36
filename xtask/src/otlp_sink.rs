//! The benchmarks' OTLP sink: the collector the proxies export their spans to while measured.

use std::io::{BufRead, BufReader, Write};

/// An OTLP/HTTP receiver that takes every export and keeps nothing: reads each request's head
/// and `Content-Length` body, answers 200 (keep-alive), one thread per connection.
pub fn otlp_sink() -> std::io::Result<std::net::SocketAddr> {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(match stream.try_clone() {
                    Ok(s) => s,
                    Err(_) => return,
                });
                let mut stream = stream;
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some((k, v)) = line.split_once(':') {
                            if k.eq_ignore_ascii_case("content-length") {
                                length = v.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err()
                        || stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    Ok(addr)
}
