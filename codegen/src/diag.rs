//! Diagnostics: everything the generator could not handle, collected and reported together.

use std::fmt;

/// One problem, located by definition and JSON pointer into the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Revision the schema belongs to.
    pub revision: String,
    /// Definition in which the problem sits, if any.
    pub definition: Option<String>,
    /// JSON pointer into the schema document (or the errata ledger).
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] ", self.revision)?;
        if let Some(d) = &self.definition {
            write!(f, "{d}: ")?;
        }
        write!(f, "{} (at {})", self.message, if self.pointer.is_empty() { "#" } else { &self.pointer })
    }
}

/// A non-empty list of diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(
        &mut self,
        revision: &str,
        definition: Option<&str>,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.0.push(Diagnostic {
            revision: revision.to_owned(),
            definition: definition.map(str::to_owned),
            pointer: pointer.into(),
            message: message.into(),
        });
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }
    /// `Ok(v)` when empty, else `Err(self)`.
    pub fn into_result<T>(self, v: T) -> Result<T, Diagnostics> {
        if self.0.is_empty() {
            Ok(v)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "code generation failed with {} problem{}:",
            self.0.len(),
            if self.0.len() == 1 { "" } else { "s" }
        )?;
        for d in &self.0 {
            writeln!(f, "  - {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
