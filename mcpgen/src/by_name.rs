//! Validation and decoding by definition name, chosen at run time: one implementation for the
//! core revisions ([`Revision`]) and the pinned extensions ([`Extension`]), which both dispatch
//! to their generated modules the same way. The public entry points are `mcpgen::validate` /
//! `mcpgen::decode` and friends, and `mcpgen::ext::validate` / `decode` and friends.

use mcpgen_runtime::__rt::decode::Builder;

use crate::json::Tape;
use crate::validate::{Cx, Path};
use crate::{AnyDecoded, DecodeError, DefEntry, Extension, JsonView, Options, Policy, Revision};

/// A generated schema module reached through its enum: a revision or an extension.
pub(crate) trait Schema: Copy {
    /// The name in diagnostics (`2026-07-28`, `ext-tasks`).
    fn label(self) -> &'static str;
    fn find(self, name: &str) -> Option<&'static DefEntry>;
    fn validate_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, p: &Path<'_>, cx: &mut Cx) -> Option<bool>;
    fn build_view<'v, V: JsonView<'v>>(self, name: &str, v: &V, b: &Builder) -> Option<Option<Box<dyn AnyDecoded>>>;
}

impl Schema for Revision {
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

impl Schema for Extension {
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

pub(crate) fn definition<S: Schema>(schema: S, name: &str) -> Result<&'static DefEntry, DecodeError> {
    schema.find(name).ok_or_else(|| DecodeError::unknown_definition(schema.label(), name))
}

pub(crate) fn validate<S: Schema>(schema: S, name: &str, bytes: &[u8], opts: Options) -> Result<(), DecodeError> {
    definition(schema, name)?;
    Tape::with_parsed(bytes, |tape| validate_view(schema, name, &tape.root(), opts))?
}

#[inline]
pub(crate) fn is_valid_view<'v, S: Schema, V: JsonView<'v>>(
    schema: S,
    name: &str,
    v: &V,
    opts: Options,
) -> Option<bool> {
    schema.validate_view(name, v, &Path::Root, &mut Cx::fail_fast(opts))
}

/// A fail-fast pass, then, only when invalid, a pass that collects every error.
pub(crate) fn validate_view<'v, S: Schema, V: JsonView<'v>>(
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

pub(crate) fn decode<S: Schema>(
    schema: S,
    name: &str,
    bytes: &[u8],
    policy: Policy,
) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    definition(schema, name)?;
    Tape::with_parsed(bytes, |tape| decode_view(schema, name, &tape.root(), policy))?
}

pub(crate) fn decode_view<'v, S: Schema, V: JsonView<'v>>(
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
