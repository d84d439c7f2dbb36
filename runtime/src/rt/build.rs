//! Builders: the error `build()` returns, and the helpers generated builders call.

use std::fmt;

use crate::json::ObjectMap;

/// Why a generated builder (`T::builder()…build()`) could not build its value: required
/// members that were never set, and keys given to `extra(key, value)` that the type declares
/// (they would be written twice). Names are wire names (`inputSchema`, not `input_schema`).
///
/// `Display` names them all: ``cannot build Tool: missing required fields `inputSchema`, `name` ``
/// (see the `mcpgen` crate's documentation for a whole example).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildError {
    type_name: &'static str,
    missing: Vec<&'static str>,
    declared_in_extra: Vec<String>,
}

impl BuildError {
    #[doc(hidden)]
    /// What generated `build()` methods return: `fields` pairs "was it missing" with a wire name.
    pub fn new<const N: usize>(
        type_name: &'static str,
        fields: [(bool, &'static str); N],
        declared_in_extra: Vec<String>,
    ) -> BuildError {
        let missing = fields.iter().filter(|(missing, _)| *missing).map(|(_, name)| *name).collect();
        BuildError { type_name, missing, declared_in_extra }
    }

    /// The schema name of the type being built (`CallToolResult`).
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// Wire names of the required members that were not set, in schema order.
    pub fn missing(&self) -> &[&'static str] {
        &self.missing
    }

    /// Keys passed to `extra(key, value)` that are declared members of the type: set them with
    /// their own setter.
    pub fn declared_in_extra(&self) -> &[String] {
        &self.declared_in_extra
    }
}

fn list<T: AsRef<str>>(f: &mut fmt::Formatter<'_>, names: &[T]) -> fmt::Result {
    for (i, name) in names.iter().enumerate() {
        write!(f, "{}`{}`", if i == 0 { "" } else { ", " }, name.as_ref())?;
    }
    Ok(())
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot build {}: ", self.type_name)?;
        if !self.missing.is_empty() {
            let s = if self.missing.len() == 1 { "" } else { "s" };
            write!(f, "missing required field{s} ")?;
            list(f, &self.missing)?;
        }
        if !self.declared_in_extra.is_empty() {
            if !self.missing.is_empty() {
                f.write_str("; ")?;
            }
            f.write_str("declared member")?;
            f.write_str(if self.declared_in_extra.len() == 1 { " " } else { "s " })?;
            list(f, &self.declared_in_extra)?;
            f.write_str(" given to extra() (use the member's own setter)")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildError {}

/// Kind `build`; one entry per problem: `required` at `""` for each missing member, and at
/// `/<key>` for each declared key given to `extra`.
impl crate::CoreError for BuildError {
    fn kind(&self) -> &'static str {
        "build"
    }
    fn rule(&self) -> Option<&'static str> {
        None
    }
    fn errors(&self) -> std::borrow::Cow<'_, [crate::ValidationError]> {
        let missing = self.missing.iter().map(|name| {
            crate::ValidationError::new("", "required", format!("{}: missing required member `{name}`", self.type_name))
        });
        let extra = self.declared_in_extra.iter().map(|key| {
            crate::ValidationError::new(
                crate::json::pointer::from_tokens([key.as_str()]),
                "properties",
                format!("{}: declared member `{key}` given to extra() (use the member's own setter)", self.type_name),
            )
        });
        std::borrow::Cow::Owned(missing.chain(extra).collect())
    }
}

#[doc(hidden)]
/// The keys of `extra` that are declared members (`declared`, wire names) of the type.
pub fn declared_in_extra<T>(extra: &ObjectMap<T>, declared: &[&str]) -> Vec<String> {
    if extra.is_empty() {
        return Vec::new();
    }
    extra.keys().filter(|k| declared.contains(k)).map(str::to_owned).collect()
}
