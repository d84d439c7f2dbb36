//! Prompts: `prompts/get` for each listed prompt (at most [`super::ProbeOptions::max_items`]),
//! with every declared argument filled — from `completion/complete` where the server declares
//! `completions` (its first value), else the placeholder [`PLACEHOLDER`] — and, for a prompt
//! with a required argument, one `prompts/get` without it, whose right answer is -32602
//! (PROMPT-2, a SHOULD: a warning). The results themselves, and the completions, are the
//! conversation checker's to judge; an error to the filled `prompts/get` is not a finding
//! (placeholders may be values the prompt refuses).

use serde_json::{json, Map, Value};

use mcpgen::conversation::Conversation;

use super::Run;

/// The value of an argument no completion filled.
pub const PLACEHOLDER: &str = "mcpgen-probe";

/// Arguments of one prompt taken at most.
const MAX_ARGUMENTS: usize = 16;

/// Words that, in an argument's name or description, mark it as one a server may act on
/// outside itself (a URL fetched, a path opened, a command run, a query sent on).
pub const ACTING_WORDS: &[&str] = &[
    "url",
    "urls",
    "uri",
    "uris",
    "link",
    "href",
    "endpoint",
    "host",
    "domain",
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "dir",
    "directory",
    "folder",
    "command",
    "cmd",
    "exec",
    "shell",
    "script",
    "fetch",
    "query",
];

/// The words of `text`: split at anything not alphanumeric and at lower-to-upper case changes
/// (`sourceUrl` → `source`, `url`), lower-cased.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if (!c.is_alphanumeric() || (c.is_uppercase() && prev_lower)) && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase();
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Why the default policy does not get `prompt`: the first argument whose name or description
/// has a word of [`ACTING_WORDS`]; `None` when it may be got.
pub fn acting_argument(prompt: &Value) -> Option<String> {
    let arguments = prompt.get("arguments").and_then(Value::as_array)?;
    arguments.iter().take(MAX_ARGUMENTS).find_map(|a| {
        let name = a.get("name").and_then(Value::as_str).unwrap_or("");
        let description = a.get("description").and_then(Value::as_str).unwrap_or("");
        let word = words(name).into_iter().chain(words(description)).find(|w| ACTING_WORDS.contains(&w.as_str()))?;
        Some(format!(
            "its argument `{name}` may be acted on outside the server (`{word}`): a placeholder could be fetched, opened or run; `--get-prompts all` gets it"
        ))
    })
}

/// Every prompt of `prompts` (a `prompts/list`'s items), as the module says.
pub(super) fn run(r: &mut Run<'_>, conv: &mut Conversation, prompts: &[Value], caps: &Value, modern: bool) {
    let completions = caps.get("completions").is_some_and(Value::is_object);
    for prompt in prompts.iter().take(r.opts.max_items) {
        let Some(name) = prompt.get("name").and_then(Value::as_str) else { continue };
        let check = format!("prompt/{name}");
        if r.opts.get_prompts == super::PromptPolicy::Safe {
            if let Some(why) = acting_argument(prompt) {
                r.skip(&check, why);
                continue;
            }
        }
        let declared: Vec<(String, bool)> = prompt
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| {
                let n = a.get("name")?.as_str()?.to_owned();
                Some((n, a.get("required") == Some(&Value::Bool(true))))
            })
            .take(MAX_ARGUMENTS)
            .collect();
        let mut arguments = Map::new();
        for (arg, _) in &declared {
            let value = if completions { complete(r, conv, &check, name, arg, &arguments, modern) } else { None };
            arguments.insert(arg.clone(), Value::String(value.unwrap_or_else(|| PLACEHOLDER.to_owned())));
        }
        get(r, conv, &check, name, &arguments, modern);
        let Some((missing, _)) = declared.iter().find(|(_, required)| *required) else { continue };
        let mut without = arguments.clone();
        without.remove(missing);
        let check = format!("prompt/{name}/missing-argument");
        let Some(answer) = get(r, conv, &check, name, &without, modern) else { continue };
        r.judge(&check, &answer, &format!("`prompts/get` without the required argument `{missing}`"));
    }
}

fn get(
    r: &mut Run<'_>,
    conv: &mut Conversation,
    check: &str,
    name: &str,
    arguments: &Map<String, Value>,
    modern: bool,
) -> Option<Value> {
    let id = r.id();
    let request = r.request(id, "prompts/get", json!({"name": name, "arguments": arguments}), modern);
    r.exchange(check, conv, request)
}

/// The first value `completion/complete` offers for argument `arg` of prompt `name`.
fn complete(
    r: &mut Run<'_>,
    conv: &mut Conversation,
    check: &str,
    name: &str,
    arg: &str,
    so_far: &Map<String, Value>,
    modern: bool,
) -> Option<String> {
    let id = r.id();
    let mut params = json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": arg, "value": ""}});
    if !so_far.is_empty() {
        params["context"] = json!({ "arguments": so_far });
    }
    let request = r.request(id, "completion/complete", params, modern);
    let answer = r.exchange(&format!("{check}/complete"), conv, request)?;
    answer.pointer("/result/completion/values/0").and_then(Value::as_str).map(str::to_owned)
}
