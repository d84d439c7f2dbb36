//! `mcpgen decode`: one document, or one per line (`--jsonl`), as text or JSON objects.

use std::io::Write;
use std::process::ExitCode;

use mcpgen::json::{Map, Tape, Value};
use mcpgen::{DecodeError, Policy, ResultOptions, Revision, ValidationError};

use crate::validate::split_lines;
use crate::{Input, UsageError};

/// What to decode as.
pub enum Target {
    Def(String),
    /// A definition of an extension's own schema (`--extension NAME --def DEF`).
    ExtensionDef(mcpgen::ext::Extension, String),
    ResultFor(String),
    /// A list result with its invalid items left out (`--skip-invalid-items`).
    ResultForSkipping(String),
}

pub fn run(
    input: &Input,
    rev: Revision,
    target: &Target,
    policy: Policy,
    jsonl: bool,
    json: bool,
) -> Result<ExitCode, UsageError> {
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let io = crate::output_error;
    let mut failed = 0usize;
    for (line, bytes) in split_lines(&input.bytes, jsonl) {
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
        // Names given on the command line: a typo is a usage error (exit 2), with a suggestion.
        match &decoded {
            Err(DecodeError::UnknownDefinition { name, .. }) => {
                return Err(match target {
                    Target::ExtensionDef(ext, _) => crate::unknown_extension_definition(*ext, name),
                    _ => crate::unknown_definition(rev, name),
                })
            }
            Err(e @ DecodeError::UnknownMethod { method, .. }) => {
                let hint = crate::suggest::did_you_mean(method, crate::suggest::methods(rev));
                return Err(UsageError(format!("--result-for: {e}{hint}")));
            }
            _ => {}
        }
        failed += usize::from(decoded.is_err());
        let source = format!("{}:{line}", input.name);
        match (decoded, json) {
            (Ok(text), false) => {
                writeln!(stdout, "{text}").map_err(io)?;
                if !skipped.is_empty() {
                    stdout.flush().map_err(io)?;
                }
                for item in &skipped {
                    if jsonl {
                        eprintln!("{source}: {item}");
                    } else {
                        eprintln!("{item}");
                    }
                }
            }
            (Err(e), false) => {
                stdout.flush().map_err(io)?;
                if jsonl {
                    eprintln!("{source}: {e}");
                } else {
                    eprintln!("{e}");
                }
            }
            (decoded, true) => {
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
                                s.push(
                                    "errors",
                                    Value::Array(item.errors.iter().map(ValidationError::to_json).collect()),
                                );
                                Value::Object(s)
                            });
                            m.push("skipped", Value::Array(items.collect()));
                        }
                    }
                    Err(e) => m.push("errors", Value::Array(e.errors().iter().map(ValidationError::to_json).collect())),
                }
                writeln!(stdout, "{}", Value::Object(m).to_json_string()).map_err(io)?;
            }
        }
    }
    stdout.flush().map_err(io)?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
