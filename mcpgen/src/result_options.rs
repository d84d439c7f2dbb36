//! [`ResultOptions`]: what [`crate::decode_result`] and the protocol checks know of the request
//! a result answers. A leaf (it reads only which extensions are negotiated), so the protocol
//! checks can take it while `decode_result` calls them.

use crate::methods::ResultFor;
use crate::validate::Policy;

/// How [`decode_result`](crate::decode_result) reads a result: the request it answers ([`ResultFor`]: method, task
/// augmentation, negotiated extension `resultType`s), the unknown-key policy (default
/// lossless), and whether the invalid items of a list result are left out instead of failing
/// the whole result (default no).
///
/// ```
/// use mcpgen::{Policy, ResultOptions};
///
/// let plain = ResultOptions::method("tools/call");
/// let lists = ResultOptions::method("tools/list").policy(Policy::Strict).skip_invalid_items(true);
/// let task = ResultOptions::method("tools/call").task_augmented(true);
/// let ext = ResultOptions::method("tools/call").extensions(&["com.example/deferred"]);
/// # let _ = (plain, lists, task, ext);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultOptions<'a> {
    /// The request the result answers.
    pub request: ResultFor<'a>,
    /// Unknown-key policy.
    pub policy: Policy,
    /// Leave out (and report in [`crate::DecodedResult::skipped`]) the invalid items of a list result.
    pub skip_invalid_items: bool,
    /// The extensions the request declared in its own `_meta` client capabilities (default
    /// none): with the Tasks extension, a `resultType: "task"` result of a `tools/call` is its
    /// `CreateTaskResult` and the results of `tasks/get`, `tasks/update` and `tasks/cancel` are
    /// judged ([`crate::protocol::check_response`] says how).
    pub negotiated: &'a [crate::ext::Extension],
    /// For a `tasks/get` result: the method of the request the task answers (`tools/call`), so
    /// a completed task's `result` is judged as that method's complete result (TASK-13).
    pub task_of: Option<&'a str>,
}

impl<'a> ResultOptions<'a> {
    /// A result answering a plain request of `method`: lossless, nothing skipped.
    pub const fn method(method: &'a str) -> Self {
        ResultOptions::request(ResultFor::method(method))
    }
    /// A result answering the request `req` describes.
    pub const fn request(request: ResultFor<'a>) -> Self {
        ResultOptions { request, policy: Policy::Lossless, skip_invalid_items: false, negotiated: &[], task_of: None }
    }
    /// The same, for a request that declared these extensions (see [`ResultOptions::negotiated`]).
    pub const fn negotiated(self, extensions: &'a [crate::ext::Extension]) -> Self {
        ResultOptions { negotiated: extensions, ..self }
    }
    /// The same, for a `tasks/get` whose task answers a request of `method` (see
    /// [`ResultOptions::task_of`]).
    pub const fn task_of(self, method: &'a str) -> Self {
        ResultOptions { task_of: Some(method), ..self }
    }
    /// The extensions the request declared: named in [`ResultOptions::negotiated`], or whose
    /// `resultType` is among the request's extension `resultType`s.
    pub(crate) fn negotiated_set(&self) -> crate::ext::Negotiated {
        crate::ext::Negotiated::of(self.negotiated)
            .union(crate::ext::Negotiated::by_result_types(self.request.extension_result_types))
    }
    /// Who the result answers, as the extensions' result judgement takes it.
    pub(crate) fn answering(&self) -> crate::ext::Answering<'a> {
        crate::ext::Answering { method: self.request.method, negotiated: self.negotiated_set(), work_of: self.task_of }
    }
    /// The same, with this unknown-key policy.
    pub const fn policy(self, policy: Policy) -> Self {
        ResultOptions { policy, ..self }
    }
    /// The same, leaving out the invalid items of a list result or not.
    pub const fn skip_invalid_items(self, yes: bool) -> Self {
        ResultOptions { skip_invalid_items: yes, ..self }
    }
    /// The same, for a task-augmented request or not (`params.task`, 2025-11-25).
    pub const fn task_augmented(self, yes: bool) -> Self {
        ResultOptions { request: self.request.task_augmented(yes), ..self }
    }
    /// The same, accepting these negotiated extension `resultType` values (kept raw, RESULT-3).
    pub const fn extensions(self, extension_result_types: &'a [&'a str]) -> Self {
        ResultOptions { request: self.request.extensions(extension_result_types), ..self }
    }
}
