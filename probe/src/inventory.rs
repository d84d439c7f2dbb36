//! The probe's inventory: every page of a server's lists, within the probe's caps.

use mcpgen::conversation::{Conversation, Severity};
use serde_json::{json, Value};

use crate::Run;

impl Run<'_> {
    /// Every page of a list; the items under `key`. At most [`ProbeOptions::max_pages`] pages,
    /// [`ProbeOptions::max_list_bytes`] of answers and [`ProbeOptions::max_list_items`] items:
    /// past any, a PROBE-1 warning.
    pub(crate) fn list_all(&mut self, conv: &mut Conversation, method: &str, key: &str, modern: bool) -> Vec<Value> {
        let mut items = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut bytes = 0usize;
        for page in 0..self.opts.max_pages {
            let id = self.id();
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let request = self.request(id, method, params, modern);
            let check = format!("inventory/{method}");
            let Some(response) = self.exchange(&check, conv, request) else { return items };
            let Some(result) = response.get("result") else { return items };
            if let Some(list) = result.get(key).and_then(Value::as_array) {
                let room = self.opts.max_list_items.saturating_sub(items.len());
                items.extend(list.iter().take(room).cloned());
                let more = list.len() > room || result.get("nextCursor").is_some_and(|c| !c.is_null());
                if items.len() >= self.opts.max_list_items && more {
                    let at = self.last_exchange();
                    self.finding(
                        &check,
                        Some(mcpgen::rules::id::PROBE_1),
                        Severity::Warning,
                        &format!("/result/{key}"),
                        format!(
                            "`{method}` lists more than {} items; the probe judges the first {} and reads no further",
                            self.opts.max_list_items, self.opts.max_list_items
                        ),
                        at,
                    );
                    return items;
                }
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => return items,
            }
            bytes = bytes.saturating_add(self.answer_bytes);
            if bytes > self.opts.max_list_bytes {
                let at = self.last_exchange();
                self.finding(
                    &check,
                    Some(mcpgen::rules::id::PROBE_1),
                    Severity::Warning,
                    "/result/nextCursor",
                    format!(
                        "`{method}` still has a next page after {} pages of {bytes} bytes (the probe reads at most {} bytes of one list); the probe stops there",
                        page + 1,
                        self.opts.max_list_bytes
                    ),
                    at,
                );
                return items;
            }
            if page + 1 == self.opts.max_pages {
                let at = self.last_exchange();
                self.finding(
                    &check,
                    Some(mcpgen::rules::id::PROBE_1),
                    Severity::Warning,
                    "/result/nextCursor",
                    format!(
                        "`{method}` still has a next page after {} pages; the probe stops there",
                        self.opts.max_pages
                    ),
                    at,
                );
            }
        }
        items
    }
}
