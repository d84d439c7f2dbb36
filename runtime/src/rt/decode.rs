//! Decoding: validate first (so every failure is a precise [`ValidationError`]), then build
//! the typed value, which cannot fail on valid input.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;

use crate::error::{single, CoreError};

use crate::json::{JsonView, Map, Number, ObjectMap, ParseError, Tape, ToJson, Value};
use crate::rules::id;
use crate::validate::{Cx, Options, Path, Policy, ValidationError};

/// Why a decode failed.
///
/// `#[non_exhaustive]`, and so are its variants with named fields: match with `..`, build the
/// protocol ones with [`DecodeError::protocol`], [`DecodeError::unknown_method`] and
/// [`DecodeError::unknown_definition`]. [`DecodeError::errors`] is the error as entries, the same on
/// every surface.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input is not JSON (or not UTF-8).
    Parse(ParseError),
    /// The JSON does not conform; every error has a JSON pointer, the keyword and a message.
    Invalid(Vec<ValidationError>),
    /// The definition name is not part of the revision.
    #[non_exhaustive]
    UnknownDefinition { revision: &'static str, name: String },
    /// A result for a method the revision does not have (unknown, or removed in it, MSG-9).
    #[non_exhaustive]
    UnknownMethod { revision: &'static str, method: String },
    /// A result or message that the protocol rules (not the schema) reject.
    #[non_exhaustive]
    Protocol { rule: &'static str, pointer: String, message: String },
    /// The validator accepted input the builder could not use: a bug in mcpgen, never input.
    Internal(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Parse(e) => write!(f, "{e}"),
            DecodeError::Invalid(errors) => {
                write!(f, "{} validation error{}:", errors.len(), if errors.len() == 1 { "" } else { "s" })?;
                for e in errors {
                    write!(f, "\n  {}", e.to_string().replace('\n', "\n  "))?;
                }
                Ok(())
            }
            DecodeError::UnknownDefinition { revision, name } => {
                write!(f, "revision {revision} has no definition named `{name}`")
            }
            DecodeError::UnknownMethod { .. } => write!(f, "{} [{}]", self.unknown_method_message(), id::MSG_9),
            DecodeError::Protocol { rule, pointer, message } => {
                let at = if pointer.is_empty() { "(root)" } else { pointer };
                write!(f, "{at}: {message} [{rule}]")
            }
            DecodeError::Internal(m) => write!(f, "internal error (please report): {m}"),
        }
    }
}

impl std::error::Error for DecodeError {}

impl From<ParseError> for DecodeError {
    fn from(e: ParseError) -> Self {
        DecodeError::Parse(e)
    }
}

impl DecodeError {
    /// A refusal by protocol rule `rule` (an id of `rules::id`) at `pointer`.
    pub fn protocol(rule: &'static str, pointer: impl Into<String>, message: impl Into<String>) -> DecodeError {
        DecodeError::Protocol { rule, pointer: pointer.into(), message: message.into() }
    }

    /// A result for `method`, which `revision` does not have (MSG-9).
    pub fn unknown_method(revision: &'static str, method: impl Into<String>) -> DecodeError {
        DecodeError::UnknownMethod { revision, method: method.into() }
    }

    /// `revision` has no definition called `name`.
    pub fn unknown_definition(revision: &'static str, name: impl Into<String>) -> DecodeError {
        DecodeError::UnknownDefinition { revision, name: name.into() }
    }

    /// Stable kind: `parse`, `invalid`, `unknown_definition`, `unknown_method`, `protocol`,
    /// `internal` (the vectors' `expect.error`).
    pub fn kind(&self) -> &'static str {
        match self {
            DecodeError::Parse(_) => "parse",
            DecodeError::Invalid(_) => "invalid",
            DecodeError::UnknownDefinition { .. } => "unknown_definition",
            DecodeError::UnknownMethod { .. } => "unknown_method",
            DecodeError::Protocol { .. } => "protocol",
            DecodeError::Internal(_) => "internal",
        }
    }

    /// The rule id of a protocol refusal (`Protocol`'s rule; MSG-9 for `UnknownMethod`; MSG-8
    /// for bytes that are not UTF-8).
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            DecodeError::Protocol { rule, .. } => Some(rule),
            DecodeError::UnknownMethod { .. } => Some(id::MSG_9),
            DecodeError::Parse(p) => p.rule(),
            _ => None,
        }
    }

    /// The error as entries, never empty, identical on every surface:
    /// - `Invalid`: the validation errors;
    /// - `Parse`: one entry at `""` with keyword `parse` (rule MSG-8 for bytes that are not
    ///   UTF-8), the message naming line, column and byte;
    /// - `UnknownMethod`: one entry at `/method` (the request member that names it: the result
    ///   itself has none) with keyword `enum` and rule MSG-9, as `protocol::validate_message`
    ///   reports an unknown method;
    /// - `Protocol`: one entry at its pointer with its rule;
    /// - `UnknownDefinition`, `Internal`: one entry at `""` with the message.
    ///
    /// ```
    /// use mcpgen_runtime::DecodeError;
    ///
    /// let e = DecodeError::unknown_method("2026-07-28", "ping");
    /// let entry = &e.errors()[0];
    /// assert_eq!((entry.pointer.as_str(), entry.keyword, entry.rule), ("/method", "enum", Some("MSG-9")));
    /// ```
    pub fn errors(&self) -> Cow<'_, [ValidationError]> {
        match self {
            DecodeError::Invalid(errors) => Cow::Borrowed(errors),
            DecodeError::Parse(p) => CoreError::errors(p),
            DecodeError::UnknownMethod { .. } => {
                single("/method", "enum", Some(id::MSG_9), self.unknown_method_message())
            }
            DecodeError::Protocol { rule, pointer, message } => {
                single(pointer.clone(), "", Some(rule), message.clone())
            }
            DecodeError::UnknownDefinition { .. } | DecodeError::Internal(_) => single("", "", None, self.to_string()),
        }
    }

    fn unknown_method_message(&self) -> String {
        match self {
            DecodeError::UnknownMethod { revision, method } => {
                format!("revision {revision} has no method `{method}` (unknown, or removed in it)")
            }
            _ => String::new(),
        }
    }
}

impl CoreError for DecodeError {
    fn kind(&self) -> &'static str {
        DecodeError::kind(self)
    }
    fn rule(&self) -> Option<&'static str> {
        DecodeError::rule(self)
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        DecodeError::errors(self)
    }
}

/// Per-call decoding state.
#[derive(Debug, Clone, Copy)]
pub struct Builder {
    pub opts: Options,
}

impl Builder {
    pub fn new(opts: Options) -> Self {
        Builder { opts }
    }
    /// Whether undeclared keys are kept (the lossless policy).
    #[inline]
    pub fn keep_unknown(&self) -> bool {
        self.opts.policy == Policy::Lossless
    }
}

/// Builds a value from JSON that the matching validator accepted. Returns `None` only if
/// validator and builder disagree (an mcpgen bug, reported as [`DecodeError::Internal`]).
pub trait FromJson: Sized {
    fn from_json<'v, V: JsonView<'v>>(v: &V, b: &Builder) -> Option<Self>;
}

/// A schema definition with a generated validator.
pub trait Validate {
    /// Definition name in the schema (`CallToolRequest`).
    const NAME: &'static str;
    /// Revision the definition belongs to.
    const REVISION: &'static str;
    fn validate_view<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool;
}

/// Everything a generated definition type can do: validate, decode, encode.
pub trait Decode: Validate + FromJson + ToJson {
    /// Validates and decodes any JSON view.
    fn decode_view<'v, V: JsonView<'v>>(v: &V, opts: Options) -> Result<Self, DecodeError> {
        check::<Self, V>(v, opts)?;
        Self::from_json(v, &Builder::new(opts)).ok_or_else(|| {
            DecodeError::Internal(format!("{} accepted by the validator but not by the builder", Self::NAME))
        })
    }
    /// Parses, validates and decodes JSON bytes with the given unknown-key policy.
    fn decode_bytes(bytes: &[u8], policy: Policy) -> Result<Self, DecodeError> {
        Tape::with_parsed(bytes, |tape| Self::decode_view(&tape.root(), Options::decoding(policy)))?
    }
    /// Decodes JSON text with the lossless policy.
    fn decode_str(s: &str) -> Result<Self, DecodeError> {
        Self::decode_bytes(s.as_bytes(), Policy::Lossless)
    }
    /// Validates without building (schema semantics; all errors collected).
    fn validate_json<'v, V: JsonView<'v>>(v: &V, opts: Options) -> Result<(), Vec<ValidationError>> {
        match check::<Self, V>(v, opts) {
            Ok(()) => Ok(()),
            Err(DecodeError::Invalid(e)) => Err(e),
            Err(other) => Err(other.errors().into_owned()),
        }
    }
    /// Fast yes/no validation.
    fn is_valid<'v, V: JsonView<'v>>(v: &V, opts: Options) -> bool {
        Self::validate_view(v, &Path::Root, &mut Cx::fail_fast(opts))
    }
}

impl<T: Validate + FromJson + ToJson> Decode for T {}

/// Runs the validator: first fail-fast (cheap), then again collecting details on failure.
fn check<'v, T: Validate + ?Sized, V: JsonView<'v>>(v: &V, opts: Options) -> Result<(), DecodeError> {
    if T::validate_view(v, &Path::Root, &mut Cx::fail_fast(opts)) {
        return Ok(());
    }
    let mut cx = Cx::collecting(opts);
    T::validate_view(v, &Path::Root, &mut cx);
    let errors = cx.into_errors();
    if errors.is_empty() {
        return Err(DecodeError::Internal(format!("{} rejected without an error message", T::NAME)));
    }
    Err(DecodeError::Invalid(errors))
}

// ---- FromJson for the building blocks ---------------------------------------------------------

impl FromJson for String {
    fn from_json<'v, V: JsonView<'v>>(v: &V, _: &Builder) -> Option<Self> {
        v.as_str().map(|s| s.into_owned())
    }
}
impl FromJson for bool {
    fn from_json<'v, V: JsonView<'v>>(v: &V, _: &Builder) -> Option<Self> {
        v.as_bool()
    }
}
impl FromJson for Number {
    fn from_json<'v, V: JsonView<'v>>(v: &V, _: &Builder) -> Option<Self> {
        v.to_number()
    }
}
impl FromJson for Value {
    fn from_json<'v, V: JsonView<'v>>(v: &V, _: &Builder) -> Option<Self> {
        Some(v.to_value())
    }
}
impl<T: FromJson> FromJson for Vec<T> {
    fn from_json<'v, V: JsonView<'v>>(v: &V, b: &Builder) -> Option<Self> {
        if v.kind() != crate::json::Kind::Array {
            return None;
        }
        v.items().map(|x| T::from_json(&x, b)).collect()
    }
}
impl<T: FromJson> FromJson for Box<T> {
    fn from_json<'v, V: JsonView<'v>>(v: &V, b: &Builder) -> Option<Self> {
        T::from_json(v, b).map(Box::new)
    }
}
impl<T: FromJson> FromJson for ObjectMap<T> {
    fn from_json<'v, V: JsonView<'v>>(v: &V, b: &Builder) -> Option<Self> {
        if v.kind() != crate::json::Kind::Object {
            return None;
        }
        let mut m = ObjectMap::with_capacity(v.len());
        for (k, x) in v.entries() {
            m.push(k.into_owned(), T::from_json(&x, b)?);
        }
        Some(m)
    }
}

/// Keeps an undeclared member when the policy is lossless (generated decoders call this).
#[inline]
pub fn keep_unknown<'v, V: JsonView<'v>>(extra: &mut Map, key: std::borrow::Cow<'v, str>, v: &V, b: &Builder) {
    if b.keep_unknown() {
        extra.push(key.into_owned(), v.to_value());
    }
}

// ---- dynamic access by definition name ----------------------------------------------------------

/// A decoded value of some definition, for callers that pick the definition at run time
/// (C, Python, CLI). Downcast with [`AnyDecoded::as_any`].
pub trait AnyDecoded: Any + fmt::Debug + Send + Sync {
    fn write_json_dyn(&self, w: &mut crate::json::JsonWriter);
    fn as_any(&self) -> &dyn Any;
    /// Compact JSON text of the decoded value.
    fn to_json_string(&self) -> String {
        let mut w = crate::json::JsonWriter::new();
        self.write_json_dyn(&mut w);
        String::from_utf8(w.into_bytes()).unwrap_or_default()
    }
}

impl<T: ToJson + Any + fmt::Debug + Send + Sync> AnyDecoded for T {
    fn write_json_dyn(&self, w: &mut crate::json::JsonWriter) {
        self.write_json(w)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A result decoded by the request it answers (`mcpgen::decode_result`).
#[derive(Debug)]
#[non_exhaustive]
pub struct DecodedResult {
    /// Which kind of result it was read as: a result definition name, or `Raw`.
    pub variant: &'static str,
    /// The revision's `MethodResult` (see [`DecodedResult::downcast_ref`]).
    pub value: Box<dyn AnyDecoded>,
    /// The list items left out (`skip_invalid_items`), in array order; empty otherwise, and when
    /// every item was valid.
    pub skipped: Vec<SkippedItem>,
}

impl DecodedResult {
    #[doc(hidden)]
    /// What the generated `Revision` dispatch builds: nothing skipped.
    pub fn new(variant: &'static str, value: Box<dyn AnyDecoded>) -> DecodedResult {
        DecodedResult { variant, value, skipped: Vec::new() }
    }

    /// The value as `T`: the decoding revision's `MethodResult`
    /// (`mcpgen::rev_2026_07_28::MethodResult`, …) to match on; `None` for any other type.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.value.as_any().downcast_ref::<T>()
    }
}

/// One list item that a result decode with `skip_invalid_items` left out. Its `Display` is one
/// line: `skipped /tools/1: /tools/1: missing required property ...` (the CLI's stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedItem {
    /// JSON pointer of the item in the result as received (`/tools/1`).
    pub pointer: String,
    /// Its index in the array as received.
    pub index: usize,
    /// Why it is invalid: the item definition's validation errors, with pointers into the
    /// whole result (`/tools/1/inputSchema`).
    pub errors: Vec<ValidationError>,
}

impl SkippedItem {
    #[doc(hidden)]
    pub fn new(pointer: String, index: usize, errors: Vec<ValidationError>) -> SkippedItem {
        SkippedItem { pointer, index, errors }
    }
}

impl fmt::Display for SkippedItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skipped {}:", self.pointer)?;
        for (i, e) in self.errors.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            write!(f, "{sep}{}", e.to_string().replace('\n', " "))?;
        }
        Ok(())
    }
}

/// One definition of a revision, reachable by name (metadata; validation and decoding by name
/// go through `Revision::validate_view` and `Revision::build_view`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefEntry {
    pub name: &'static str,
    /// Location in the schema (`#/$defs/CallToolRequest`).
    pub schema_path: &'static str,
    /// First paragraph of the schema description.
    pub summary: &'static str,
    /// What the definition is (`object (Tool)`, `string`, `TextContent | ImageContent`…).
    pub type_desc: &'static str,
    /// Declared properties of an object definition, in schema order (empty otherwise).
    pub fields: &'static [FieldEntry],
    /// Arms of a union, or values of a string enum (empty otherwise).
    pub variants: &'static [&'static str],
}

/// One declared property of an object definition (for `mcpgen explain` and bindings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldEntry {
    pub name: &'static str,
    /// Short type description (`string (uri)`, `array of Tool`, `"tools/call"`).
    pub type_desc: &'static str,
    pub required: bool,
    /// First paragraph of the property's description.
    pub summary: &'static str,
}

/// Declares a literal string type: a zero-sized value that only accepts (and always emits) one
/// string, as schema `const` values require.
#[doc(hidden)]
#[macro_export]
macro_rules! __str_literal {
    ($(#[$m:meta])* $name:ident = $value:literal) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name;
        impl $name {
            /// The only value this type represents.
            pub const VALUE: &'static str = $value;
        }
        impl $crate::json::ToJson for $name {
            fn write_json(&self, w: &mut $crate::json::JsonWriter) {
                w.string($value)
            }
        }
        impl $crate::__rt::decode::FromJson for $name {
            fn from_json<'v, V: $crate::json::JsonView<'v>>(v: &V, _: &$crate::__rt::decode::Builder) -> Option<Self> {
                v.str_eq($value).then_some($name)
            }
        }
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($value)
            }
        }
    };
}

/// Declares a literal integer type (error codes such as `-32022`).
#[doc(hidden)]
#[macro_export]
macro_rules! __int_literal {
    ($(#[$m:meta])* $name:ident = $value:literal) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name;
        impl $name {
            /// The only value this type represents.
            pub const VALUE: i64 = $value;
        }
        impl $crate::json::ToJson for $name {
            fn write_json(&self, w: &mut $crate::json::JsonWriter) {
                w.int($value)
            }
        }
        impl $crate::__rt::decode::FromJson for $name {
            fn from_json<'v, V: $crate::json::JsonView<'v>>(v: &V, _: &$crate::__rt::decode::Builder) -> Option<Self> {
                (v.as_f64() == Some($value as f64)).then_some($name)
            }
        }
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}", $value)
            }
        }
    };
}
