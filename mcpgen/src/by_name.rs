//! Validation and decoding by definition name, chosen at run time: one implementation for the
//! core revisions ([`Revision`]) and the pinned extensions ([`Extension`]), which both dispatch
//! to their generated modules the same way. The public entry points are `mcpgen::validate` /
//! `mcpgen::decode` and friends, and `mcpgen::ext::validate` / `decode` and friends.

use mcpgen_runtime::__rt::decode::Builder;

use crate::json::Tape;
use crate::validate::{Cx, Path};
use crate::{AnyDecoded, DecodeError, DefEntry, Extension, JsonView, Options, Policy, Revision};

/// A generated schema module reached through its enum: a revision or an extension.
pub(crate) trait SchemaModule: Copy {
    /// The name in diagnostics (`2026-07-28`, `ext-tasks`).
    fn label(self) -> &'static str;
    fn find(self, name: &str) -> Option<&'static DefEntry>;
    fn validate_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, p: &Path<'_>, cx: &mut Cx) -> Option<bool>;
    fn build_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, b: &Builder) -> Option<Option<Box<dyn AnyDecoded>>>;
}

impl SchemaModule for Revision {
    fn label(self) -> &'static str {
        self.as_str()
    }
    fn find(self, name: &str) -> Option<&'static DefEntry> {
        self.definition(name)
    }
    #[inline]
    fn validate_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, p: &Path<'_>, cx: &mut Cx) -> Option<bool> {
        Revision::validate_view(self, name, v, p, cx)
    }
    fn build_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, b: &Builder) -> Option<Option<Box<dyn AnyDecoded>>> {
        Revision::build_view(self, name, v, b)
    }
}

impl SchemaModule for Extension {
    fn label(self) -> &'static str {
        self.module_name()
    }
    fn find(self, name: &str) -> Option<&'static DefEntry> {
        self.definition(name)
    }
    #[inline]
    fn validate_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, p: &Path<'_>, cx: &mut Cx) -> Option<bool> {
        Extension::validate_view(self, name, v, p, cx)
    }
    fn build_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, b: &Builder) -> Option<Option<Box<dyn AnyDecoded>>> {
        Extension::build_view(self, name, v, b)
    }
}

/// Whose definitions a by-name call reads, chosen at run time: a core revision's, or a pinned
/// extension's own schema (whose copies of core definitions are its own). For callers that take
/// either from their users (the C library's and Python's `extension=` arguments, the CLI's
/// `--extension`): the same calls as [`crate::validate`] and [`crate::ext::validate`] and their
/// siblings.
///
/// ```
/// use mcpgen::ext::Extension;
/// use mcpgen::{Options, Revision, Schema};
///
/// let tasks = Schema::from(Extension::from_id("io.modelcontextprotocol/tasks").unwrap());
/// let get = br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t"}}"#;
/// assert!(tasks.validate("GetTaskRequest", get, Options::default()).is_ok());
/// // The definition is the extension's, not the revision's it layers on.
/// let core = Schema::from(Revision::parse("2026-07-28").unwrap());
/// assert!(core.definition("GetTaskRequest").is_err());
/// assert_eq!(tasks.label(), "ext-tasks");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schema {
    Revision(Revision),
    Extension(Extension),
}

impl From<Revision> for Schema {
    fn from(r: Revision) -> Self {
        Schema::Revision(r)
    }
}

impl From<Extension> for Schema {
    fn from(e: Extension) -> Self {
        Schema::Extension(e)
    }
}

impl SchemaModule for Schema {
    fn label(self) -> &'static str {
        match self {
            Schema::Revision(r) => r.label(),
            Schema::Extension(e) => SchemaModule::label(e),
        }
    }
    fn find(self, name: &str) -> Option<&'static DefEntry> {
        match self {
            Schema::Revision(r) => SchemaModule::find(r, name),
            Schema::Extension(e) => SchemaModule::find(e, name),
        }
    }
    #[inline]
    fn validate_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, p: &Path<'_>, cx: &mut Cx) -> Option<bool> {
        match self {
            Schema::Revision(r) => SchemaModule::validate_view(r, name, v, p, cx),
            Schema::Extension(e) => SchemaModule::validate_view(e, name, v, p, cx),
        }
    }
    fn build_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, b: &Builder) -> Option<Option<Box<dyn AnyDecoded>>> {
        match self {
            Schema::Revision(r) => SchemaModule::build_view(r, name, v, b),
            Schema::Extension(e) => SchemaModule::build_view(e, name, v, b),
        }
    }
}

impl Schema {
    /// The name in diagnostics: the revision (`2026-07-28`) or the extension's module
    /// (`ext-tasks`).
    pub fn label(self) -> &'static str {
        SchemaModule::label(self)
    }
    /// The definition called `name`, or [`DecodeError::UnknownDefinition`].
    pub fn definition(self, name: &str) -> Result<&'static DefEntry, DecodeError> {
        definition(self, name)
    }
    /// Validates JSON bytes against definition `name`.
    pub fn validate(self, name: &str, bytes: &[u8], opts: Options) -> Result<(), DecodeError> {
        validate(self, name, bytes, opts)
    }
    /// Validates any JSON view (a fail-fast pass, then, only when invalid, a collecting one).
    pub fn validate_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, opts: Options) -> Result<(), DecodeError> {
        validate_view(self, name, v, opts)
    }
    /// The fail-fast verdict alone (no error is built); `None` when there is no such definition.
    pub fn is_valid_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, opts: Options) -> Option<bool> {
        is_valid_view(self, name, v, opts)
    }
    /// Decodes JSON bytes as definition `name` into its generated type.
    pub fn decode(self, name: &str, bytes: &[u8], policy: Policy) -> Result<Box<dyn AnyDecoded>, DecodeError> {
        decode(self, name, bytes, policy)
    }
    /// Decodes any JSON view as definition `name`.
    pub fn decode_view<'v, V: JsonView<'v>>(
        self,
        name: &str,
        v: &V,
        policy: Policy,
    ) -> Result<Box<dyn AnyDecoded>, DecodeError> {
        decode_view(self, name, v, policy)
    }
}

pub(crate) fn definition<S: SchemaModule>(schema: S, name: &str) -> Result<&'static DefEntry, DecodeError> {
    schema.find(name).ok_or_else(|| DecodeError::unknown_definition(schema.label(), name))
}

pub(crate) fn validate<S: SchemaModule>(schema: S, name: &str, bytes: &[u8], opts: Options) -> Result<(), DecodeError> {
    definition(schema, name)?;
    Tape::with_parsed(bytes, |tape| validate_view(schema, name, &tape.root(), opts))?
}

#[inline]
pub(crate) fn is_valid_view<'v, S: SchemaModule, V: JsonView<'v>>(
    schema: S,
    name: &str,
    v: &V,
    opts: Options,
) -> Option<bool> {
    schema.validate_view(name, v, &Path::Root, &mut Cx::fail_fast(opts))
}

/// A fail-fast pass, then, only when invalid, a pass that collects every error.
pub(crate) fn validate_view<'v, S: SchemaModule, V: JsonView<'v>>(
    schema: S,
    name: &str,
    v: &V,
    opts: Options,
) -> Result<(), DecodeError> {
    let unknown = || DecodeError::unknown_definition(schema.label(), name);
    if schema.validate_view(name, v, &Path::Root, &mut Cx::fail_fast(opts)).ok_or_else(unknown)? {
        return Ok(());
    }
    let mut cx = Cx::collecting(opts);
    schema.validate_view(name, v, &Path::Root, &mut cx);
    let errors = cx.into_errors();
    if errors.is_empty() {
        return Err(DecodeError::Internal(format!("{name} rejected without an error message")));
    }
    Err(DecodeError::Invalid(errors))
}

pub(crate) fn decode<S: SchemaModule>(
    schema: S,
    name: &str,
    bytes: &[u8],
    policy: Policy,
) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    definition(schema, name)?;
    Tape::with_parsed(bytes, |tape| decode_view(schema, name, &tape.root(), policy))?
}

pub(crate) fn decode_view<'v, S: SchemaModule, V: JsonView<'v>>(
    schema: S,
    name: &str,
    v: &V,
    policy: Policy,
) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    let opts = Options::decoding(policy);
    validate_view(schema, name, v, opts)?;
    match schema.build_view(name, v, &Builder::new(opts)) {
        Some(Some(x)) => Ok(x),
        Some(None) => Err(DecodeError::Internal(format!("{name} accepted by the validator but not by the builder"))),
        None => Err(DecodeError::unknown_definition(schema.label(), name)),
    }
}
