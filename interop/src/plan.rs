//! Who runs against whom: every official SDK client against `mcpgen-reference-server` (HTTP and
//! stdio, every version mode the SDK has), and `mcpgen-reference-client` against every official
//! SDK server configuration (HTTP, auto and legacy), and how each side is started.

use std::path::{Path, PathBuf};

/// Every peer name a baseline entry may use.
pub const PEERS: [&str; 11] = [
    "reference-server",
    "reference-client",
    "ts-v1-client",
    "ts-v2-client",
    "py-client",
    "ts-v2-server",
    "py-server",
    "server-everything",
    "mcp-server-time",
    "fastmcp-server",
    "ts-fastmcp-server",
];
/// The peers this project writes: their findings are never excused.
pub const REFERENCE_PEERS: [&str; 2] = ["reference-server", "reference-client"];

/// The version modes: the newest revision only, discover first with fallback, `initialize` only.
pub const MODERN: &str = "2026-07-28";
pub const AUTO: &str = "auto";
pub const LEGACY: &str = "legacy";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Http,
    Stdio,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Stdio => "stdio",
        }
    }
}

/// The client side of a pairing, with its version mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// `@modelcontextprotocol/sdk` 1.x (2025-era only).
    TsV1,
    /// `@modelcontextprotocol/client` 2.x.
    TsV2(&'static str),
    /// PyPI `mcp`.
    Python(&'static str),
    /// `mcpgen-reference-client` (`auto`: its default, modern first; `legacy`: 2025-11-25).
    Reference(&'static str),
}

impl Client {
    pub fn peer(self) -> &'static str {
        match self {
            Client::TsV1 => "ts-v1-client",
            Client::TsV2(_) => "ts-v2-client",
            Client::Python(_) => "py-client",
            Client::Reference(_) => "reference-client",
        }
    }
    pub fn mode(self) -> &'static str {
        match self {
            Client::TsV1 => LEGACY,
            Client::TsV2(m) | Client::Python(m) | Client::Reference(m) => m,
        }
    }
}

/// The server side of a pairing, with its configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    Reference,
    /// `@modelcontextprotocol/server` 2.x: `dual`, `modern` (modern-only) or `sessionful`.
    TsV2(&'static str),
    /// PyPI `mcp` `MCPServer`: `sessionful` or `stateless`.
    Python(&'static str),
    /// `@modelcontextprotocol/server-everything` (on SDK 1.x, 2025-era).
    Everything,
    /// PyPI `mcp-server-time` (on the Python SDK 2.x), run as installed (panel only, stdio).
    Time,
    /// A FastMCP server on PyPI `fastmcp` (`drivers/fastmcp-server.py`; panel only).
    FastMcp,
    /// A FastMCP server on npm `fastmcp` (`drivers/ts-fastmcp-server.mjs`; panel only).
    TsFastMcp,
}

impl Server {
    pub fn peer(self) -> &'static str {
        match self {
            Server::Reference => "reference-server",
            Server::TsV2(_) => "ts-v2-server",
            Server::Python(_) => "py-server",
            Server::Everything => "server-everything",
            Server::Time => "mcp-server-time",
            Server::FastMcp => "fastmcp-server",
            Server::TsFastMcp => "ts-fastmcp-server",
        }
    }
    pub fn variant(self) -> Option<&'static str> {
        match self {
            Server::TsV2(v) | Server::Python(v) => Some(v),
            Server::Reference | Server::Everything | Server::Time | Server::FastMcp | Server::TsFastMcp => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    pub client: Client,
    pub server: Server,
    pub transport: Transport,
}

impl Pairing {
    /// `ts-v2-client:auto -> reference-server over stdio`, `reference-client:legacy ->
    /// py-server:stateless over http`: what the table prints and a baseline entry names.
    pub fn id(&self) -> String {
        let variant = self.server.variant().map(|v| format!(":{v}")).unwrap_or_default();
        format!(
            "{}:{} -> {}{variant} over {}",
            self.client.peer(),
            self.client.mode(),
            self.server.peer(),
            self.transport.as_str()
        )
    }

    /// A file-system name for the pairing's run directory.
    pub fn slug(&self) -> String {
        self.id().replace(" -> ", "--").replace(" over ", "--").replace([':', ' '], "-")
    }
}

/// The whole matrix, in run order.
pub fn matrix() -> Vec<Pairing> {
    let mut out = Vec::new();
    let sdk_clients = [
        Client::TsV1,
        Client::TsV2(MODERN),
        Client::TsV2(AUTO),
        Client::TsV2(LEGACY),
        Client::Python(LEGACY),
        Client::Python(MODERN),
        Client::Python(AUTO),
    ];
    for client in sdk_clients {
        for transport in [Transport::Http, Transport::Stdio] {
            out.push(Pairing { client, server: Server::Reference, transport });
        }
    }
    let sdk_servers = [
        Server::TsV2("dual"),
        Server::TsV2("modern"),
        Server::TsV2("sessionful"),
        Server::Python("sessionful"),
        Server::Python("stateless"),
        Server::Everything,
    ];
    for server in sdk_servers {
        for mode in [AUTO, LEGACY] {
            out.push(Pairing { client: Client::Reference(mode), server, transport: Transport::Http });
        }
    }
    out
}

/// This crate's folder in the repository: `drivers/` (the SDK driver scripts) and
/// `baseline.toml`.
const CRATE_DIR: &str = "interop";

/// The baseline a run reads unless told another: `ROOT/interop/baseline.toml`.
pub fn default_baseline(root: &Path) -> PathBuf {
    root.join(CRATE_DIR).join("baseline.toml")
}

/// Where everything is: the repository (driver scripts), the installs, the built binaries.
#[derive(Debug, Clone)]
pub struct Places {
    /// The repository root (`interop/drivers/` holds the drivers).
    pub root: PathBuf,
    /// `target/interop/`: `node_modules/`, `venv/`, the panel's `panel/node_modules/` and
    /// `panel-venv/`, `runs/`, `probes/` and the results files.
    pub dir: PathBuf,
    /// The built `mcpgen-reference-*`, `mcpgen-interop` and `mcpgen` binaries.
    pub bin: PathBuf,
    /// The `node` to run the Node drivers with.
    pub node: PathBuf,
    /// The HTTP pairings with `mcpgen proxy --listen` between the tap and the server
    /// ([`super::proxied`]); runs in `runs-via-proxy/`.
    pub via_proxy: bool,
}

/// A program to start, its arguments and extra environment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl Places {
    pub fn node_modules(&self) -> PathBuf {
        self.dir.join("node_modules")
    }
    pub fn python(&self) -> PathBuf {
        self.dir.join("venv/bin/python")
    }
    /// The panel's npm packages, apart from the SDKs' so they cannot change the SDKs' tree.
    pub fn panel_node_modules(&self) -> PathBuf {
        self.dir.join("panel/node_modules")
    }
    /// The panel's PyPI packages, apart from the SDK venv for the same reason.
    pub fn panel_venv(&self) -> PathBuf {
        self.dir.join("panel-venv")
    }
    fn driver(&self, name: &str) -> String {
        self.root.join(CRATE_DIR).join("drivers").join(name).display().to_string()
    }
    /// The matrix's results: `results.json`, or `results-via-proxy.json` for the HTTP pairings
    /// through the proxy.
    pub fn results_file(&self) -> PathBuf {
        self.dir.join(if self.via_proxy { "results-via-proxy.json" } else { "results.json" })
    }
    /// The panel's table, every probe finding with its clause: `panel.md`.
    pub fn panel_file(&self) -> PathBuf {
        self.dir.join("panel.md")
    }
    /// The concurrent clients' results: `concurrent-results.json`.
    pub fn concurrent_results_file(&self) -> PathBuf {
        self.dir.join("concurrent-results.json")
    }
    /// The invalid tool arguments' results: `invalid-args-results.json`.
    pub fn invalid_args_results_file(&self) -> PathBuf {
        self.dir.join("invalid-args-results.json")
    }
    /// The probes' results: `probe-results.json`.
    pub fn probe_results_file(&self) -> PathBuf {
        self.dir.join("probe-results.json")
    }
    fn node_env(&self) -> Vec<(String, String)> {
        vec![("MCPGEN_INTEROP_NODE_MODULES".into(), self.node_modules().display().to_string())]
    }

    /// The server of a pairing or probe target (`stdio`: the reference server, `server-everything`
    /// and the Python server in its `stdio` mode).
    pub fn server(&self, server: Server, transport: Transport) -> Launch {
        match server {
            Server::Reference => {
                let mode = match transport {
                    Transport::Http => vec!["--listen".into(), "127.0.0.1:0".into()],
                    Transport::Stdio => vec!["--stdio".into()],
                };
                let args = mode.into_iter().chain(["--self-check".to_owned()]).collect();
                Launch { program: self.bin.join("mcpgen-reference-server"), args, env: Vec::new() }
            }
            Server::TsV2(mode) => Launch {
                program: self.node.clone(),
                args: vec![self.driver("ts-server.mjs"), "--mode".into(), mode.into()],
                env: self.node_env(),
            },
            Server::Python(mode) => Launch {
                program: self.python(),
                args: vec![self.driver("py-server.py"), "--mode".into(), mode.into()],
                env: Vec::new(),
            },
            Server::Time => Launch {
                program: self.panel_venv().join("bin/mcp-server-time"),
                // A fixed zone: the answers do not depend on the machine's.
                args: vec!["--local-timezone".into(), "UTC".into()],
                env: Vec::new(),
            },
            Server::FastMcp => Launch {
                program: self.panel_venv().join("bin/python"),
                args: vec![self.driver("fastmcp-server.py"), "--mode".into(), transport.as_str().into()],
                env: vec![("PYTHONWARNINGS".into(), "ignore".into())],
            },
            Server::TsFastMcp => Launch {
                program: self.node.clone(),
                args: vec![self.driver("ts-fastmcp-server.mjs"), "--mode".into(), transport.as_str().into()],
                env: vec![("MCPGEN_INTEROP_NODE_MODULES".into(), self.panel_node_modules().display().to_string())],
            },
            Server::Everything if transport == Transport::Stdio => {
                let entry = self.node_modules().join("@modelcontextprotocol/server-everything/dist/index.js");
                Launch {
                    program: self.node.clone(),
                    args: vec![entry.display().to_string(), "stdio".into()],
                    env: Vec::new(),
                }
            }
            Server::Everything => {
                let entry = self.node_modules().join("@modelcontextprotocol/server-everything/dist/index.js");
                Launch {
                    program: self.node.clone(),
                    args: vec![
                        "--import".into(),
                        self.driver("loopback-url.mjs"),
                        entry.display().to_string(),
                        "streamableHttp".into(),
                    ],
                    env: vec![("PORT".into(), "0".into())],
                }
            }
        }
    }

    /// The client of a pairing, pointed at `url` (HTTP) or at `server` behind the stdio tap
    /// writing into `run_dir`. `report` is where `mcpgen-reference-client` writes its
    /// operations (the SDK drivers print theirs).
    pub fn client(&self, p: &Pairing, url: Option<&str>, run_dir: &Path, report: &Path) -> Launch {
        let target: Vec<String> = match url {
            Some(u) => vec!["--url".into(), u.into()],
            None => {
                let server = self.server(p.server, Transport::Stdio);
                let mut t = vec![
                    "--command".into(),
                    self.bin.join("mcpgen-interop").display().to_string(),
                    "tap-stdio".into(),
                    "--trace-dir".into(),
                    run_dir.display().to_string(),
                    "--stderr".into(),
                    run_dir.join("server.stderr").display().to_string(),
                    "--".into(),
                    server.program.display().to_string(),
                ];
                t.extend(server.args);
                t
            }
        };
        match p.client {
            Client::TsV1 | Client::TsV2(_) => {
                let sdk = if p.client == Client::TsV1 { "v1" } else { "v2" };
                let mut args = vec![self.driver("ts-client.mjs"), "--sdk".into(), sdk.into()];
                args.extend(["--mode".into(), p.client.mode().into()]);
                args.extend(target);
                Launch { program: self.node.clone(), args, env: self.node_env() }
            }
            Client::Python(mode) => {
                let mut args = vec![self.driver("py-client.py"), "--mode".into(), mode.into()];
                args.extend(target);
                Launch { program: self.python(), args, env: vec![("PYTHONWARNINGS".into(), "ignore".into())] }
            }
            Client::Reference(mode) => {
                let mut env = vec![("MCPGEN_CLIENT_REPORT".into(), report.display().to_string())];
                if mode == LEGACY {
                    env.push(("MCP_CONFORMANCE_PROTOCOL_VERSION".into(), "2025-11-25".into()));
                }
                let url = url.unwrap_or_default().to_owned();
                Launch { program: self.bin.join("mcpgen-reference-client"), args: vec![url], env }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrix_covers_every_client_mode_and_server_configuration_once() {
        let m = matrix();
        assert_eq!(m.len(), 26);
        let ids: std::collections::HashSet<String> = m.iter().map(Pairing::id).collect();
        assert_eq!(ids.len(), m.len(), "ids are unique");
        let slugs: std::collections::HashSet<String> = m.iter().map(Pairing::slug).collect();
        assert_eq!(slugs.len(), m.len(), "run directories are unique");
        assert!(ids.contains("ts-v2-client:auto -> reference-server over stdio"));
        assert!(ids.contains("reference-client:legacy -> py-server:stateless over http"));
        assert!(m.iter().all(|p| p.transport == Transport::Http || p.server == Server::Reference));
        for p in &m {
            assert!(PEERS.contains(&p.client.peer()) && PEERS.contains(&p.server.peer()));
        }
    }

    #[test]
    fn every_driver_and_the_baseline_are_where_the_plan_looks() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
        let places = Places {
            root: root.clone(),
            dir: root.join("x"),
            bin: root.join("x"),
            node: "node".into(),
            via_proxy: false,
        };
        let report = Path::new("report.jsonl");
        let mut scripts = std::collections::BTreeSet::new();
        for p in matrix() {
            let url = (p.transport == Transport::Http).then_some("http://127.0.0.1:1/mcp");
            let launches = [places.server(p.server, p.transport), places.client(&p, url, report, report)];
            for arg in launches.iter().flat_map(|l| &l.args) {
                if arg.starts_with(root.to_str().unwrap()) && !arg.contains("/x/") {
                    scripts.insert(arg.clone());
                }
            }
        }
        // The four drivers and the loopback preload; common.mjs is imported by the Node ones.
        assert_eq!(scripts.len(), 5, "{scripts:?}");
        for s in &scripts {
            assert!(Path::new(s).is_file(), "{s} is missing");
        }
        assert!(default_baseline(&root).is_file(), "{}", default_baseline(&root).display());
    }
}
