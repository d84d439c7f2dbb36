//! Method-aware message validation: classify the envelope structurally (Q-6), then validate
//! against the definition the `method` or error `code` selects, then the protocol rules.

use crate::decode::DecodeError;
use crate::error_codes::{self, ERROR_DEFS};
use crate::ext::{Extension, Negotiated, Registry};
use crate::json::pointer::from_tokens as pointer;
use crate::json::{JsonView, Kind};
use crate::meta_keys::{CLIENT_CAPABILITIES, PROTOCOL_VERSION, SUBSCRIPTION_ID};
use crate::methods::{Direction, ErrorDef, MethodInfo, MethodKind};
use crate::rules::id;
use crate::validate::{Cx, Options, Path, Policy, ValidationError};
use crate::Revision;

use super::envelope::read_id_member;
pub(crate) use super::envelope::{int_literal, read_id, Class, Envelope, IdRead};
use super::hook::ProtocolRegistry;
use super::result_check::find_method;
use super::rules::{self, rule_error, RuleWalk};
use super::MessageKind;

/// The notifications that travel only on a `subscriptions/listen` stream and so carry
/// `_meta["io.modelcontextprotocol/subscriptionId"]` (SUB-4).
pub const LISTEN_STREAM_NOTIFICATIONS: [&str; 5] = [
    "notifications/subscriptions/acknowledged",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
];

/// The revision has a definition called `name` (the generated lookup: a match on the length,
/// then on the name).
#[inline]
pub(crate) fn has_def(rev: Revision, name: &str) -> bool {
    rev.definition(name).is_some()
}

/// The definition a revision gives to an error code, if any (the generated table holds every
/// revision's; a test checks each code against its definition's `const`).
pub(crate) fn error_def(rev: Revision, code: i64) -> Option<ErrorDef> {
    ERROR_DEFS.iter().copied().find(|e| e.code == code && has_def(rev, e.def))
}

/// Modern era (per-request `_meta`, 2026-07-28 and later): the revision has no `initialize`.
/// The method table is read once per build; then it is one bit per revision.
pub fn is_modern(rev: Revision) -> bool {
    static MODERN: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let bits = MODERN.get_or_init(|| {
        Revision::ALL
            .iter()
            .filter(|r| !r.methods().iter().any(|m| m.method == "initialize"))
            .fold(0, |bits, r| bits | 1 << *r as u32)
    });
    bits & 1 << rev as u32 != 0
}
const _: () = assert!(Revision::ALL.len() <= 64, "is_modern keeps one bit per revision");

/// The envelope definition of each message kind (names changed in 2025-11-25).
pub(crate) fn envelope_def(rev: Revision, class: &Class<'_>) -> &'static str {
    let candidates: &[&'static str] = match class {
        Class::Request(_) => &["JSONRPCRequest"],
        Class::Notification(_) => &["JSONRPCNotification"],
        Class::Result => &["JSONRPCResultResponse", "JSONRPCResponse"],
        Class::Error(_) => &["JSONRPCErrorResponse", "JSONRPCError"],
    };
    candidates.iter().copied().find(|n| has_def(rev, n)).unwrap_or(candidates[0])
}

/// Runs a generated validator in collecting mode; errors go to `errors`.
pub(crate) fn validate_def_at<'v, V: JsonView<'v>>(
    rev: Revision,
    name: &str,
    v: &V,
    p: &Path<'_>,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) -> bool {
    validate_collecting(|| format!("revision {rev}"), name, p, opts, errors, |cx| rev.validate_view(name, v, p, cx))
}

/// Runs a validator (`run`: `None` when `owner` has no definition `name`) fail-fast, and again
/// collecting only when it fails; the errors go to `errors`.
pub(crate) fn validate_collecting(
    owner: impl FnOnce() -> String,
    name: &str,
    p: &Path<'_>,
    opts: Options,
    errors: &mut Vec<ValidationError>,
    mut run: impl FnMut(&mut Cx) -> Option<bool>,
) -> bool {
    let mut fast = Cx::fail_fast(opts);
    match run(&mut fast) {
        Some(true) => return true,
        Some(false) => {}
        None => {
            let owner = owner();
            errors.push(ValidationError::new(
                p.pointer(),
                "$ref",
                format!("{owner} has no definition `{name}` (mcpgen bug)"),
            ));
            return false;
        }
    }
    let mut cx = Cx::collecting(opts);
    run(&mut cx);
    let found = cx.into_errors();
    if found.is_empty() {
        errors.push(ValidationError::new(
            p.pointer(),
            "",
            format!("{name} rejected without an error message (mcpgen bug)"),
        ));
    }
    errors.extend(found);
    false
}

/// Validates a request's or notification's `params` against the method's definition, so
/// errors point inside `/params`. Where the table's params type is an inline type (not a
/// definition), the whole request definition is validated instead; in revisions before
/// 2025-11-25 those definitions do not declare `jsonrpc`/`id` (the envelope does), so the strict
/// policy's complaints about exactly those two keys are dropped.
fn validate_params<'v, V: JsonView<'v>>(
    rev: Revision,
    info: &MethodInfo,
    v: &V,
    params: Option<&V>,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) {
    let root = Path::Root;
    match (info.params_type.filter(|pt| has_def(rev, pt)), params) {
        (Some(pt), Some(params)) => {
            validate_def_at(rev, pt, params, &root.key("params"), opts, errors);
        }
        (Some(_), None) if info.params_required => errors.push(
            ValidationError::new("", "required", "missing required property `params`")
                .with_schema_path(format!("#/$defs/{}/required", info.request_def)),
        ),
        (Some(_), None) => {}
        (None, _) => {
            let mut found = Vec::new();
            if !validate_def_at(rev, info.request_def, v, &root, opts, &mut found) {
                found.retain(|e| {
                    !(e.rule == Some(id::POLICY_STRICT) && (e.pointer == "/jsonrpc" || e.pointer == "/id"))
                });
                found.retain(|e| !e.message.ends_with("rejected without an error message (mcpgen bug)"));
                errors.extend(found);
            }
        }
    }
}

/// META-6 structure of a modern request's `params._meta`; the pointer and message of the
/// first missing piece.
pub(crate) fn missing_request_meta<'v, V: JsonView<'v>>(v: &V) -> Option<(String, String)> {
    missing_meta_in(v.get("params").as_ref())
}

/// [`missing_request_meta`] of the `params` member, already read.
fn missing_meta_in<'v, V: JsonView<'v>>(params: Option<&V>) -> Option<(String, String)> {
    let Some(params) = params.filter(|p| p.kind() == Kind::Object) else {
        return Some((
            String::new(),
            "missing `params`: every request carries `params._meta` with the protocol version and client capabilities"
                .into(),
        ));
    };
    let Some(meta) = params.get("_meta").filter(|m| m.kind() == Kind::Object) else {
        return Some((
            "/params".into(),
            "missing `params._meta`: every request carries the protocol version and client capabilities there".into(),
        ));
    };
    match meta.get(PROTOCOL_VERSION) {
        Some(x) if x.kind() == Kind::String => {}
        Some(x) => {
            return Some((
                pointer(["params", "_meta", PROTOCOL_VERSION]),
                format!("`{PROTOCOL_VERSION}` must be a string, found {}", x.describe()),
            ))
        }
        None => return Some(("/params/_meta".into(), format!("missing required `_meta` field `{PROTOCOL_VERSION}`"))),
    }
    match meta.get(CLIENT_CAPABILITIES) {
        Some(x) if x.kind() == Kind::Object => None,
        Some(x) => Some((
            pointer(["params", "_meta", CLIENT_CAPABILITIES]),
            format!("`{CLIENT_CAPABILITIES}` must be an object, found {}", x.describe()),
        )),
        None => Some((
            "/params/_meta".into(),
            format!(
                "missing required `_meta` field `{CLIENT_CAPABILITIES}` (`{{}}` declares no optional capabilities)"
            ),
        )),
    }
}

/// Gives schema errors the rule they also violate.
fn tag(errors: &mut [ValidationError], from: usize, pointer: &str, keyword: &str, rule: &'static str) {
    for e in &mut errors[from..] {
        if e.rule.is_none() && e.pointer == pointer && (keyword.is_empty() || e.keyword == keyword) {
            e.rule = Some(rule);
        }
    }
}

/// [`super::validate_message`] where the caller says which extensions were negotiated (their
/// notifications and results exist only then; their requests also where they declare them
/// themselves).
pub(crate) fn validate_message_negotiated<'v, V: JsonView<'v>>(
    rev: Revision,
    v: &V,
    opts: Options,
    negotiated: Negotiated,
) -> Result<MessageKind, DecodeError> {
    let env = Envelope::read(v);
    let class = env.classify(v).map_err(|e| DecodeError::Invalid(vec![e]))?;
    let core = class.method().and_then(|m| find_method(rev, m));
    // A request the core does not know may be of an extension it declares itself: the
    // extension classifies it, and validates it, for this request.
    let negotiated = match class {
        Class::Request(_) if core.is_none() => negotiated.union(declared_in_params(env.params.as_ref())),
        _ => negotiated,
    };
    let info = core.or_else(|| class.method().and_then(|m| Registry::method_row(negotiated, rev, m)));
    let errors = validate_classified(rev, v, &env, &class, info, opts, (negotiated, false));
    if errors.is_empty() {
        Ok(class.to_kind())
    } else {
        Err(DecodeError::Invalid(errors))
    }
}

/// The extensions a request's `params` declare in their `_meta` client capabilities.
fn declared_in_params<'v, V: JsonView<'v>>(params: Option<&V>) -> Negotiated {
    match params.and_then(|p| p.get("_meta")).and_then(|m| m.get(CLIENT_CAPABILITIES)) {
        Some(caps) => Negotiated::declared_in(&caps),
        None => Negotiated::NONE,
    }
}

/// [`super::validate_message`] of a message its caller already read ([`Envelope::read`]) and
/// classified, with the method's row in `rev` (`info`, from [`find_method`] or an extension's
/// row): the conversation checker shares its facts this way instead of having them read again.
/// `(negotiated, by_request)`: the extensions negotiated, and whether the caller judges a
/// result of theirs by its request (the conversation) rather than by its own shape. The
/// errors, none when the message is valid.
#[inline]
pub(crate) fn validate_classified<'v, V: JsonView<'v>>(
    rev: Revision,
    v: &V,
    env: &Envelope<V>,
    class: &Class<'v>,
    info: Option<&'static MethodInfo>,
    opts: Options,
    (negotiated, by_request): (Negotiated, bool),
) -> Vec<ValidationError> {
    let mut errors: Vec<ValidationError> = Vec::new();
    validate_def_at(rev, envelope_def(rev, class), v, &Path::Root, opts, &mut errors);
    match class {
        Class::Request(method) => {
            // ID-1: the schema's `type` error takes the rule; a number that is no request id too.
            tag(&mut errors, 0, "/id", "type", id::ID_1);
            id_errors(env, id::ID_1, &mut errors);
            request_errors(rev, v, env, method, info, (opts, negotiated), &mut errors);
        }
        Class::Notification(method) => notification_errors(rev, v, env, method, info, (opts, negotiated), &mut errors),
        Class::Result => {
            id_errors(env, id::ID_1, &mut errors);
            tag(&mut errors, 0, "/id", "type", id::ID_3);
            if let Some(result) = env.result.as_ref().filter(|r| r.kind() == Kind::Object) {
                result_type_errors(rev, result, opts, (negotiated, by_request), &mut errors);
            }
        }
        Class::Error(code) => error_response_errors(rev, v, env, *code, opts, &mut errors),
    }
    protocol_rule_errors(v, errors, opts)
}

/// An `id` the schema lets through but that is no request id (a non-integer number), under
/// `rule`, unless the schema already reported the `id`.
#[inline]
fn id_errors<'v, V: JsonView<'v>>(env: &Envelope<V>, rule: &'static str, errors: &mut Vec<ValidationError>) {
    if let Some(msg) = id_problem(env) {
        if !errors.iter().any(|e| e.pointer == "/id") {
            errors.push(rule_error("/id".into(), "type", rule, msg));
        }
    }
}

/// A request's method and `params`: unknown (MSG-9), a notification's (MSG-4), an input
/// request's (MSG-5), an extension's (judged by it, then META-6), or the core's (its `params`
/// definition, whose errors on a missing `_meta` take META-6 in the modern era).
#[inline]
fn request_errors<'v, V: JsonView<'v>>(
    rev: Revision,
    v: &V,
    env: &Envelope<V>,
    method: &str,
    info: Option<&'static MethodInfo>,
    (opts, negotiated): (Options, Negotiated),
    errors: &mut Vec<ValidationError>,
) {
    match info {
        None => errors.push(unknown_method(rev, method)),
        Some(info) if info.kind == MethodKind::Notification => errors.push(rule_error(
            "/id".into(),
            "not",
            id::MSG_4,
            format!("`{method}` is a notification: it carries no `id` and gets no response"),
        )),
        Some(info) if info.direction == Direction::EmbeddedInput => errors.push(rule_error(
            "/method".into(),
            "enum",
            id::MSG_5,
            format!("`{method}` is an input request: it travels inside `InputRequiredResult.inputRequests`, never as a JSON-RPC request"),
        )),
        Some(info) if Registry::validate_message(negotiated, info, v, env.params.as_ref(), opts, errors) => {
            if env.meta_complete != Some(true) {
                if let Some((at, msg)) = missing_meta_in(env.params.as_ref()) {
                    errors.push(rule_error(at, "required", id::META_6, msg));
                }
            }
        }
        Some(info) => {
            let mark = errors.len();
            validate_params(rev, info, v, env.params.as_ref(), opts, errors);
            if is_modern(rev) && env.meta_complete != Some(true) {
                if let Some((at, _)) = missing_meta_in(env.params.as_ref()) {
                    tag(errors, mark, &at, "", id::META_6);
                }
            }
        }
    }
}

/// A notification's method and `params`: unknown (MSG-9), a request's (ID-1), an extension's
/// (judged by it), or the core's (its `params` definition, and SUB-4 on a listen stream's).
#[inline]
fn notification_errors<'v, V: JsonView<'v>>(
    rev: Revision,
    v: &V,
    env: &Envelope<V>,
    method: &str,
    info: Option<&'static MethodInfo>,
    (opts, negotiated): (Options, Negotiated),
    errors: &mut Vec<ValidationError>,
) {
    match info {
        None => errors.push(unknown_method(rev, method)),
        Some(info) if info.kind == MethodKind::Request => errors.push(rule_error(
            String::new(),
            "required",
            id::ID_1,
            format!("`{method}` is a request: it needs an `id` (a string or an integer)"),
        )),
        Some(info) if Registry::validate_message(negotiated, info, v, env.params.as_ref(), opts, errors) => {}
        Some(info) => {
            validate_params(rev, info, v, env.params.as_ref(), opts, errors);
            if is_modern(rev) && LISTEN_STREAM_NOTIFICATIONS.contains(&method) {
                check_subscription_id(env.params.as_ref(), method, errors);
            }
        }
    }
}

/// An object `result`'s `resultType`: `input_required` is checked against
/// `InputRequiredResult`, a negotiated extension's is judged by it, and any other but
/// `complete` is RESULT-3 in strict mode.
#[inline]
fn result_type_errors<'v, V: JsonView<'v>>(
    rev: Revision,
    result: &V,
    opts: Options,
    (negotiated, by_request): (Negotiated, bool),
    errors: &mut Vec<ValidationError>,
) {
    let Some(rt) = result.get("resultType") else { return };
    if rt.str_eq("input_required") && has_def(rev, "InputRequiredResult") {
        validate_def_at(rev, "InputRequiredResult", result, &Path::Root.key("result"), opts, errors);
        rules::check_input_required(result, "/result", errors);
    } else if !negotiated.is_empty()
        && !rt.str_eq("complete")
        && Registry::result_type(negotiated, rev, &rt, result, by_request, opts, errors)
    {
        // A negotiated extension's `resultType`: judged by the extension.
    } else if !rt.str_eq("complete") && rt.kind() == Kind::String && opts.policy == Policy::Strict {
        errors.push(rule_error(
            "/result/resultType".into(),
            "enum",
            id::RESULT_3,
            format!("{} is not a core `resultType` (`complete`, `input_required`); only a negotiated extension may define it (reported in strict mode)", rt.describe()),
        ));
    }
}

/// An error response: its `id` (ID-4), then the definition its `code` selects, or in the
/// modern era the code policy.
#[inline]
fn error_response_errors<'v, V: JsonView<'v>>(
    rev: Revision,
    v: &V,
    env: &Envelope<V>,
    code: Option<i64>,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) {
    // ID-4: no `id` when it could not be read; never `null` (Q-17 lets receivers accept it).
    tag(errors, 0, "/id", "type", id::ID_4);
    id_errors(env, id::ID_4, errors);
    let Some(code) = code else { return };
    if let Some(def) = error_def(rev, code) {
        if def.whole_response {
            validate_def_at(rev, def.def, v, &Path::Root, opts, errors);
        } else if let Some(err) = &env.error {
            validate_def_at(rev, def.def, err, &Path::Root.key("error"), opts, errors);
        }
    } else if is_modern(rev) {
        if let Some(e) = error_code_policy(code) {
            errors.push(e);
        }
    }
}

/// The protocol rules no schema expresses, walked over the whole message, added to `errors`;
/// then each error once.
#[inline]
fn protocol_rule_errors<'v, V: JsonView<'v>>(
    v: &V,
    errors: Vec<ValidationError>,
    opts: Options,
) -> Vec<ValidationError> {
    let mut walk = RuleWalk { errors, strict: opts.policy == Policy::Strict };
    walk.walk(v, &Path::Root);
    let mut errors = walk.errors;
    dedup(&mut errors);
    errors
}

/// ID-1's message when the `id` does not read as a request id.
fn id_problem<'v, V: JsonView<'v>>(env: &Envelope<V>) -> Option<String> {
    if env.id_valid == Some(true) {
        return None;
    }
    match read_id_member(env.id.clone()) {
        IdRead::Invalid(msg) => Some(msg),
        IdRead::Absent | IdRead::Valid(_) => None,
    }
}

fn dedup(errors: &mut Vec<ValidationError>) {
    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert((e.pointer.clone(), e.keyword, e.message.clone())));
}

/// MSG-9: an unknown method is reported as such.
pub(crate) fn unknown_method(rev: Revision, method: &str) -> ValidationError {
    let ext = Extension::ALL.iter().find(|e| e.layers_on() == rev && e.method(method).is_some());
    let hint = if let Some(ext) = ext {
        // A method of a pinned extension layering on this revision: it exists where negotiated.
        format!(
            " (a method of the extension `{}`: it exists where a request declares it in its `_meta` client \
             capabilities, or where the extension is negotiated)",
            ext.id()
        )
    } else if is_modern(rev) && LEGACY_ONLY_METHODS.iter().any(|m| method == *m || method.starts_with("tasks/")) {
        " (it was removed in the per-request-metadata era; see the 2026-07-28 changelog)".to_owned()
    } else {
        String::new()
    };
    rule_error("/method".into(), "enum", id::MSG_9, format!("unknown method `{method}` in revision {rev}{hint}"))
}

const LEGACY_ONLY_METHODS: [&str; 9] = [
    "initialize",
    "notifications/initialized",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "notifications/roots/list_changed",
    "notifications/elicitation/complete",
    "notifications/tasks/status",
];

/// ERR-3 / ERR-4 for codes the revision does not define (modern revisions).
pub(crate) fn error_code_policy(code: i64) -> Option<ValidationError> {
    match code {
        super::RESOURCE_NOT_FOUND_LEGACY => Some(rule_error(
            "/error/code".into(),
            "not",
            id::ERR_4,
            "-32002 (resource not found) is retired and must not be sent; use -32602".into(),
        )),
        error_codes::URL_ELICITATION_REQUIRED_ERROR => Some(rule_error(
            "/error/code".into(),
            "not",
            id::ERR_4,
            "-32042 (URL elicitation required) is retired and must not be sent".into(),
        )),
        -32099..=-32020 => Some(rule_error(
            "/error/code".into(),
            "enum",
            id::ERR_3,
            format!("{code} lies in the range -32020..-32099 reserved for the MCP spec, which defines only -32020, -32021 and -32022"),
        )),
        _ => None,
    }
}

/// SUB-4: listen-stream notifications carry `_meta["io.modelcontextprotocol/subscriptionId"]`.
fn check_subscription_id<'v, V: JsonView<'v>>(params: Option<&V>, method: &str, errors: &mut Vec<ValidationError>) {
    let (at, present) = match params {
        None => (String::new(), false),
        Some(params) => match params.get("_meta") {
            None => ("/params".to_owned(), false),
            Some(meta) => {
                let id = meta.get(SUBSCRIPTION_ID);
                if let Some(id) = &id {
                    if id.kind() == Kind::Number && int_literal(id).is_none() && id.is_integer() {
                        errors.push(rule_error(
                            pointer(["params", "_meta", SUBSCRIPTION_ID]),
                            "type",
                            id::SUB_4,
                            format!("`{SUBSCRIPTION_ID}` must echo the listen request's id exactly; {} is not an integer literal", id.describe()),
                        ));
                    }
                }
                ("/params/_meta".to_owned(), id.is_some())
            }
        },
    };
    if !present {
        errors.push(rule_error(
            at,
            "required",
            id::SUB_4,
            format!("`{method}` travels on a subscriptions/listen stream and must carry `_meta[\"{SUBSCRIPTION_ID}\"]` (the listen request's id)"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Tape;

    /// Each ERROR_DEFS code is the `const` of its definition, in every revision that has it.
    #[test]
    fn error_defs_match_the_schema_consts() {
        let mut checked = 0;
        for rev in Revision::all() {
            for e in ERROR_DEFS.iter().filter(|e| has_def(rev, e.def)) {
                let (at, wrap) = if e.whole_response { ("/error/code", true) } else { ("/code", false) };
                let const_errors = |code: i64| {
                    let err = format!(r#"{{"code":{code},"message":"m"}}"#);
                    let text = if wrap { format!(r#"{{"jsonrpc":"2.0","id":1,"error":{err}}}"#) } else { err };
                    let tape = Tape::parse(&text).unwrap();
                    let mut cx = Cx::collecting(Options::default());
                    rev.validate_view(e.def, &tape.root(), &Path::Root, &mut cx).unwrap();
                    cx.into_errors().into_iter().filter(|x| x.keyword == "const" && x.pointer == at).count()
                };
                assert_eq!(const_errors(e.code), 0, "{rev} {}: code {} should satisfy its const", e.def, e.code);
                assert_eq!(
                    const_errors(e.code + 1),
                    1,
                    "{rev} {}: code {} should violate its const",
                    e.def,
                    e.code + 1
                );
                checked += 1;
            }
        }
        assert!(checked >= 9, "only {checked} error definitions checked");
    }
}
