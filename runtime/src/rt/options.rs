//! The constructors and builders of [`Options`] (`#[non_exhaustive]`: start from
//! [`Options::new`]).

use super::validate::{Options, Policy};

impl Options {
    /// The defaults: lossless, formats as annotations, no client leniency, `anyOf` semantics
    /// for result unions (what `Default` gives, usable in `const`).
    pub const fn new() -> Options {
        Options { policy: Policy::Lossless, strict_formats: false, client_leniency: false, discriminate_results: false }
    }
    /// Options for decoding with a policy: schema checks plus the `resultType` discriminator.
    pub const fn decoding(policy: Policy) -> Options {
        Options::new().policy(policy).discriminate_results(true)
    }
    /// The same, with this unknown-key policy.
    pub const fn policy(self, policy: Policy) -> Options {
        Options { policy, ..self }
    }
    /// The same, checking `format` as an assertion or not.
    pub const fn strict_formats(self, yes: bool) -> Options {
        Options { strict_formats: yes, ..self }
    }
    /// The same, with client-side leniency on results or not ([`Options::client_leniency`]).
    pub const fn client_leniency(self, yes: bool) -> Options {
        Options { client_leniency: yes, ..self }
    }
    /// The same, discriminating result unions by `resultType` or not
    /// ([`Options::discriminate_results`]).
    pub const fn discriminate_results(self, yes: bool) -> Options {
        Options { discriminate_results: yes, ..self }
    }
}
