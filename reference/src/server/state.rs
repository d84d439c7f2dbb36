//! Tamper-proof MRTR `requestState` (MRTR: the server MUST reject state that fails its
//! integrity check): the state is a JSON object, sent as `hex(json).hex(hmac-sha256)`
//! under a key drawn at start-up, so a stateless server can trust what comes back.

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Signs and verifies `requestState` values.
#[derive(Clone)]
pub struct StateSigner {
    key: [u8; 32],
}

impl std::fmt::Debug for StateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateSigner { key: <secret> }")
    }
}

/// Why a `requestState` is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateError {
    /// Not of the form `hex.hex`.
    Malformed,
    /// The MAC does not match: the state was altered or signed by someone else.
    BadSignature,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Malformed => f.write_str("requestState is not a state this server issued"),
            StateError::BadSignature => f.write_str("requestState failed its integrity check"),
        }
    }
}

impl StateSigner {
    /// A signer with a fresh random key.
    pub fn random() -> StateSigner {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the OS random source is available");
        StateSigner { key }
    }

    /// A signer with a fixed key (tests).
    pub fn with_key(key: [u8; 32]) -> StateSigner {
        StateSigner { key }
    }

    fn mac(&self) -> HmacSha256 {
        HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length")
    }

    pub fn sign(&self, state: &Value) -> String {
        let payload = state.to_string();
        let mut mac = self.mac();
        mac.update(payload.as_bytes());
        format!("{}.{}", hex(payload.as_bytes()), hex(&mac.finalize().into_bytes()))
    }

    pub fn verify(&self, token: &str) -> Result<Value, StateError> {
        let (payload, tag) = token.split_once('.').ok_or(StateError::Malformed)?;
        let payload = unhex(payload).ok_or(StateError::Malformed)?;
        let tag = unhex(tag).ok_or(StateError::Malformed)?;
        let mut mac = self.mac();
        mac.update(&payload);
        mac.verify_slice(&tag).map_err(|_| StateError::BadSignature)?;
        serde_json::from_slice(&payload).map_err(|_| StateError::Malformed)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn signed_state_round_trips_and_tampering_is_refused() {
        let s = StateSigner::with_key([7; 32]);
        let token = s.sign(&json!({"round": 1}));
        assert_eq!(s.verify(&token).unwrap(), json!({"round": 1}));
        assert_eq!(s.verify(&format!("{token}-TAMPERED")), Err(StateError::Malformed));
        let mut flipped = token.clone().into_bytes();
        flipped[0] = if flipped[0] == b'7' { b'8' } else { b'7' };
        assert_eq!(s.verify(std::str::from_utf8(&flipped).unwrap()), Err(StateError::BadSignature));
        assert_eq!(StateSigner::with_key([8; 32]).verify(&token), Err(StateError::BadSignature));
    }
}
