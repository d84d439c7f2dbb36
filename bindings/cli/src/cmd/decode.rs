//! `mcpgen decode`: one document, or one per line (`--jsonl`), as text or JSON objects.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use mcpgen::json::{Map, Tape, Value};
use mcpgen::{DecodeError, ResultOptions, Revision, SkippedItem, ValidationError};

use crate::flags::{FormatFlag, PolicyFlag, RevisionFlag};
use crate::input::{read_named, split_lines, Input};
use crate::suggest::{did_you_mean, methods, unknown_definition, unknown_extension_definition};
use crate::UsageError;

/// Decode a JSON document as a schema definition and print it re-encoded (compact JSON).
///
/// Exit 0 and the re-encoded JSON on stdout when it decodes; exit 1 and every error (JSON
/// pointer, what was expected, what was found) on stderr when it does not. --format json prints
/// one `{"source", "valid", "errors", "output"}` object per document.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    revision: RevisionFlag,
    /// Definition to decode as (`CallToolRequest`, `JSONRPCMessage`, …).
    #[arg(long, conflicts_with = "result_for")]
    def: Option<String>,
    /// An extension by identifier (`io.modelcontextprotocol/tasks`) or short name (`tasks`):
    /// with --def, the definition is the extension's own (`GetTaskRequest`).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["revision", "result_for"])]
    extension: Option<String>,
    /// Decode a result given the method of the request it answers (`tools/call`, …).
    #[arg(long, value_name = "METHOD")]
    result_for: Option<String>,
    /// With --result-for a list method (`tools/list`, …): leave invalid items out of the
    /// result instead of refusing it; each skipped item's pointer and reason go to stderr,
    /// and the exit status is 0.
    #[arg(long)]
    skip_invalid_items: bool,
    #[command(flatten)]
    policy: PolicyFlag,
    /// Read the input as JSON Lines: decode every non-blank line (output: one line each).
    #[arg(long)]
    jsonl: bool,
    #[command(flatten)]
    format: FormatFlag,
    /// Input file, or `-` for standard input.
    input: PathBuf,
}

/// What to decode as.
pub enum Target {
    Def(String),
    /// A definition of an extension's own schema (`--extension NAME --def DEF`).
    ExtensionDef(mcpgen::ext::Extension, String),
    ResultFor(String),
    /// A list result with its invalid items left out (`--skip-invalid-items`).
    ResultForSkipping(String),
}

/// How one run decodes: the target, and the flags every document is decoded with.
struct Decoding {
    rev: Revision,
    target: Target,
    policy: mcpgen::Policy,
    jsonl: bool,
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let rev = args.revision.get()?;
    let ext = args.extension.as_deref().map(crate::flags::extension).transpose()?;
    let target = match (args.def, args.result_for) {
        (Some(_), _) if args.skip_invalid_items => {
            return Err(UsageError("--skip-invalid-items needs --result-for METHOD".into()))
        }
        (Some(def), _) => match ext {
            Some(ext) => Target::ExtensionDef(ext, def),
            None => Target::Def(def),
        },
        (None, _) if ext.is_some() => return Err(UsageError("--extension needs --def NAME".into())),
        (None, Some(method)) if args.skip_invalid_items => Target::ResultForSkipping(method),
        (None, Some(method)) => Target::ResultFor(method),
        (None, None) => return Err(UsageError("give --def NAME or --result-for METHOD".into())),
    };
    let input = read_named(&args.input)?;
    let policy = args.policy.policy()?;
    decode_all(&input, &Decoding { rev, target, policy, jsonl: args.jsonl, json: args.format.json() })
}

/// Every document of the input: its re-encoding or errors, in text or JSON.
fn decode_all(input: &Input, d: &Decoding) -> Result<ExitCode, UsageError> {
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let io = crate::output_error;
    let mut failed = 0usize;
    for (line, bytes) in split_lines(&input.bytes, d.jsonl) {
        let (decoded, skipped) = decode_one(d, bytes)?;
        failed += usize::from(decoded.is_err());
        let source = format!("{}:{line}", input.name);
        if d.json {
            let object = json_object(source, decoded, &skipped, &d.target);
            writeln!(stdout, "{}", Value::Object(object).to_json_string()).map_err(io)?;
            continue;
        }
        if let Ok(text) = &decoded {
            writeln!(stdout, "{text}").map_err(io)?;
        }
        // What went to stdout goes before the lines on stderr.
        if decoded.is_err() || !skipped.is_empty() {
            stdout.flush().map_err(io)?;
        }
        let problems: Vec<String> = match &decoded {
            Ok(_) => skipped.iter().map(ToString::to_string).collect(),
            Err(e) => vec![e.to_string()],
        };
        for problem in problems {
            if d.jsonl {
                eprintln!("{source}: {problem}");
            } else {
                eprintln!("{problem}");
            }
        }
    }
    stdout.flush().map_err(io)?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

type Decoded = Result<String, DecodeError>;

/// One document decoded, with the items `--skip-invalid-items` left out; a name given on the
/// command line that does not exist is a usage error (exit 2), with a suggestion.
fn decode_one(d: &Decoding, bytes: &[u8]) -> Result<(Decoded, Vec<SkippedItem>), UsageError> {
    let (rev, target, policy) = (d.rev, &d.target, d.policy);
    let mut skipped = Vec::new();
    let decoded = match target {
        Target::Def(def) => mcpgen::decode(rev, def, bytes, policy).map(|d| d.to_json_string()),
        Target::ExtensionDef(ext, def) => mcpgen::ext::decode(*ext, def, bytes, policy).map(|d| d.to_json_string()),
        Target::ResultFor(method) | Target::ResultForSkipping(method) => {
            let skip = matches!(target, Target::ResultForSkipping(_));
            let opts = ResultOptions::method(method).policy(policy).skip_invalid_items(skip);
            mcpgen::decode_result(rev, bytes, &opts).map(|out| {
                skipped = out.skipped;
                out.value.to_json_string()
            })
        }
    };
    match &decoded {
        Err(DecodeError::UnknownDefinition { name, .. }) => {
            return Err(match target {
                Target::ExtensionDef(ext, _) => unknown_extension_definition(*ext, name),
                _ => unknown_definition(rev, name),
            })
        }
        Err(e @ DecodeError::UnknownMethod { method, .. }) => {
            let hint = did_you_mean(method, methods(rev));
            return Err(UsageError(format!("--result-for: {e}{hint}")));
        }
        _ => {}
    }
    Ok((decoded, skipped))
}

/// The `--format json` object of one document.
fn json_object(source: String, decoded: Decoded, skipped: &[SkippedItem], target: &Target) -> Map {
    let mut m = Map::new();
    m.push("source", Value::String(source));
    m.push("valid", Value::Bool(decoded.is_ok()));
    match decoded {
        Ok(text) => {
            m.push("errors", Value::Array(Vec::new()));
            // The re-encoded text is the decoder's own output: it parses.
            let output = Tape::parse(&text).map(|t| mcpgen::JsonView::to_value(&t.root()));
            m.push("output", output.unwrap_or(Value::String(text)));
            if let Target::ResultForSkipping(_) = target {
                let items = skipped.iter().map(|item| {
                    let mut s = Map::new();
                    s.push("pointer", Value::String(item.pointer.clone()));
                    s.push("errors", Value::Array(item.errors.iter().map(ValidationError::to_json).collect()));
                    Value::Object(s)
                });
                m.push("skipped", Value::Array(items.collect()));
            }
        }
        Err(e) => m.push("errors", Value::Array(e.errors().iter().map(ValidationError::to_json).collect())),
    }
    m
}
