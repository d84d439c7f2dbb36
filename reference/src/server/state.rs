//! Tamper-proof MRTR `requestState` (MRTR: the server MUST reject state that fails its
//! integrity check): the state is a JSON object, sent as `hex(json).hex(hmac-sha256)`
//! under a key drawn at start-up, so a stateless server can trust what comes back.
//!
//! A state the server issues ([`StateSigner::issue`]) is bound to the request it continues
//! (its method and the tool or prompt name), expires ([`StateLimits::ttl`]) and is good for
//! one retry: a redeemed token's nonce is kept until the token expires, in a table of at most
//! [`StateLimits::max_redeemed`] entries, so a replay is refused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The default of [`StateLimits::ttl`].
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(600);
/// The default of [`StateLimits::max_redeemed`].
pub const DEFAULT_MAX_REDEEMED: usize = 65536;

/// How long a `requestState` is good for, and how many redeemed ones are remembered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateLimits {
    /// A state is refused this long after it was issued.
    pub ttl: Duration,
    /// Redeemed states remembered (each until it expires) to refuse replays. With the table
    /// full of unexpired ones, a retry is refused with [`StateError::Busy`] (-32603, HTTP 503)
    /// rather than forgetting one that could then be replayed.
    pub max_redeemed: usize,
}

impl Default for StateLimits {
    fn default() -> StateLimits {
        StateLimits { ttl: DEFAULT_STATE_TTL, max_redeemed: DEFAULT_MAX_REDEEMED }
    }
}

/// Signs and verifies `requestState` values. Clones share the table of redeemed states.
#[derive(Clone)]
pub struct StateSigner {
    key: [u8; 32],
    limits: StateLimits,
    /// Nonce of each redeemed state → its expiry (ms since the epoch).
    redeemed: Arc<Mutex<HashMap<String, u64>>>,
}

impl std::fmt::Debug for StateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateSigner { key: <secret> }")
    }
}

/// Why a `requestState` is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateError {
    /// Not of the form `hex.hex`, or not a state this server issues.
    Malformed,
    /// The MAC does not match: the state was altered or signed by someone else.
    BadSignature,
    /// Issued for another method, tool or prompt.
    OtherRequest,
    /// Past its expiry.
    Expired,
    /// Already redeemed once.
    Replayed,
    /// The table of redeemed states is full of unexpired ones ([`StateLimits::max_redeemed`]).
    Busy,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StateError::Malformed => "requestState is not a state this server issued",
            StateError::BadSignature => "requestState failed its integrity check",
            StateError::OtherRequest => "requestState belongs to another request",
            StateError::Expired => "requestState has expired; start the request again",
            StateError::Replayed => "requestState was already used; each is good for one retry",
            StateError::Busy => "too many requestState retries in progress; try again later",
        })
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl StateSigner {
    /// A signer with a fresh random key.
    pub fn random() -> StateSigner {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the OS random source is available");
        StateSigner::with_key(key)
    }

    /// A signer with a fixed key (tests).
    pub fn with_key(key: [u8; 32]) -> StateSigner {
        StateSigner { key, limits: StateLimits::default(), redeemed: Arc::default() }
    }

    /// The same signer with other limits.
    pub fn with_limits(mut self, limits: StateLimits) -> StateSigner {
        self.limits = limits;
        self
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
        // Our own payload (the MAC matched), parsed with the depth limit mcpgen's parser keeps.
        super::wire::parse(&payload).map(|p| p.value).map_err(|_| StateError::Malformed)
    }

    /// A state for a retry of `method` on `name` (a tool or prompt), carrying `body`
    /// (round, answers); it expires after [`StateLimits::ttl`] and is good for one retry.
    pub fn issue(&self, method: &str, name: &str, body: Value) -> String {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).expect("the OS random source is available");
        let expires = now_ms().saturating_add(self.limits.ttl.as_millis() as u64);
        self.sign(&json!({ "method": method, "for": name, "exp": expires, "nonce": hex(&nonce), "body": body }))
    }

    /// The body of a state issued for `method` on `name`, if it is genuine, unexpired and not
    /// redeemed before; it is then marked redeemed.
    pub fn redeem(&self, token: &str, method: &str, name: &str) -> Result<Value, StateError> {
        let mut state = self.verify(token)?;
        let (Some(expires), Some(nonce)) = (state["exp"].as_u64(), state["nonce"].as_str().map(str::to_owned)) else {
            return Err(StateError::Malformed);
        };
        if state["method"] != method || state["for"] != name {
            return Err(StateError::OtherRequest);
        }
        let now = now_ms();
        if now > expires {
            return Err(StateError::Expired);
        }
        let mut redeemed = self.redeemed.lock().unwrap();
        if redeemed.contains_key(&nonce) {
            return Err(StateError::Replayed);
        }
        if redeemed.len() >= self.limits.max_redeemed {
            redeemed.retain(|_, exp| *exp >= now);
            if redeemed.len() >= self.limits.max_redeemed {
                return Err(StateError::Busy);
            }
        }
        redeemed.insert(nonce, expires);
        Ok(state["body"].take())
    }

    /// How many redeemed states are remembered.
    pub fn redeemed_count(&self) -> usize {
        self.redeemed.lock().unwrap().len()
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

    #[test]
    fn an_issued_state_is_good_for_one_retry_of_its_own_request() {
        let s = StateSigner::with_key([7; 32]);
        let token = s.issue("tools/call", "t", json!({"round": 1}));
        assert_eq!(s.redeem(&token, "tools/call", "other"), Err(StateError::OtherRequest));
        assert_eq!(s.redeem(&token, "prompts/get", "t"), Err(StateError::OtherRequest));
        assert_eq!(s.redeem(&token, "tools/call", "t"), Ok(json!({"round": 1})));
        assert_eq!(s.redeem(&token, "tools/call", "t"), Err(StateError::Replayed));
        // A clone (another request's view of the server) shares the table.
        assert_eq!(s.clone().redeem(&token, "tools/call", "t"), Err(StateError::Replayed));
    }

    #[test]
    fn a_state_past_its_ttl_is_refused() {
        let s =
            StateSigner::with_key([7; 32]).with_limits(StateLimits { ttl: Duration::from_millis(1), max_redeemed: 4 });
        let token = s.issue("tools/call", "t", json!({}));
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(s.redeem(&token, "tools/call", "t"), Err(StateError::Expired));
    }

    #[test]
    fn at_the_redeemed_cap_unexpired_states_are_kept_and_a_new_retry_is_refused() {
        let limits = StateLimits { ttl: Duration::from_secs(60), max_redeemed: 2 };
        let s = StateSigner::with_key([7; 32]).with_limits(limits);
        let tokens: Vec<String> = (0..3).map(|i| s.issue("tools/call", "t", json!(i))).collect();
        assert_eq!(s.redeem(&tokens[0], "tools/call", "t"), Ok(json!(0)));
        assert_eq!(s.redeem(&tokens[1], "tools/call", "t"), Ok(json!(1)));
        assert_eq!(s.redeem(&tokens[2], "tools/call", "t"), Err(StateError::Busy));
        assert_eq!(s.redeemed_count(), 2);
        assert_eq!(s.redeem(&tokens[0], "tools/call", "t"), Err(StateError::Replayed));
        // Expired entries make room.
        let short =
            StateSigner::with_key([7; 32]).with_limits(StateLimits { ttl: Duration::from_millis(1), max_redeemed: 1 });
        let a = short.issue("tools/call", "t", json!("a"));
        assert_eq!(short.redeem(&a, "tools/call", "t"), Ok(json!("a")));
        std::thread::sleep(Duration::from_millis(5));
        let long = short.clone().with_limits(StateLimits { ttl: Duration::from_secs(60), max_redeemed: 1 });
        let b = long.issue("tools/call", "t", json!("b"));
        assert_eq!(long.redeem(&b, "tools/call", "t"), Ok(json!("b")));
        assert_eq!(long.redeemed_count(), 1);
    }
}
