//! Multi round-trip requests (MRTR-7..10): the retry of a request answered `input_required`.

use serde_json::{Map, Value};

/// The retry's params (MRTR-8): the original params, minus any `inputResponses` /
/// `requestState` of an earlier round, plus `inputResponses` and — only when the server sent
/// one — `requestState`, echoed exactly (the value is a string the client never parses).
/// `_meta` is rebuilt by the sender for every request.
pub fn retry_params(original: &Value, input_responses: Map<String, Value>, request_state: Option<&Value>) -> Value {
    let mut params = original.as_object().cloned().unwrap_or_default();
    params.remove("inputResponses");
    params.remove("requestState");
    if !input_responses.is_empty() {
        params.insert("inputResponses".into(), Value::Object(input_responses));
    }
    if let Some(state) = request_state {
        params.insert("requestState".into(), state.clone());
    }
    Value::Object(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_state_is_echoed_exactly_and_only_when_given() {
        let original = json!({"name": "t", "arguments": {"a": 1}});
        let state = json!("{\"nonce\":\"n\",\"originalId\":1}");
        let mut answers = Map::new();
        answers.insert("confirm".into(), json!({"action": "accept", "content": {}}));
        let retry = retry_params(&original, answers.clone(), Some(&state));
        assert_eq!(retry["requestState"], state);
        assert_eq!(retry["arguments"], json!({"a": 1}));
        assert_eq!(retry["inputResponses"]["confirm"]["action"], "accept");

        let without = retry_params(&original, answers, None);
        assert!(without.get("requestState").is_none());
    }

    #[test]
    fn a_later_round_does_not_carry_the_previous_round_over() {
        let round1 = json!({"name": "t", "inputResponses": {"old": {}}, "requestState": "s1"});
        let mut answers = Map::new();
        answers.insert("new".into(), json!({"roots": []}));
        let retry = retry_params(&round1, answers, None);
        assert_eq!(retry["inputResponses"], json!({"new": {"roots": []}}));
        assert!(retry.get("requestState").is_none());
    }
}
