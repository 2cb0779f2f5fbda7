//! Signed receipts (docs/service.md, "Signing"): Ed25519 over a receipt's
//! canonical bytes, the receipt's JSON on one line, keys sorted, without
//! its `signature` and without the final newline. Keys are files of 64
//! hexadecimal digits and a newline: the secret key's 32-byte seed, or the
//! public key.

use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};
use serde_json::{json, Value};
use std::path::Path;

/// The algorithm receipts name.
pub const ALGORITHM: &str = "ed25519";

/// A new key pair: the secret key file's text and the public key file's.
pub fn keygen() -> Result<(String, String), String> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| format!("error: the operating system gave no random bytes: {e}"))?;
    let key = SigningKey::from_bytes(&seed);
    seed.fill(0);
    Ok((
        format!("{}\n", hex(&key.to_bytes())),
        format!("{}\n", hex(key.verifying_key().as_bytes())),
    ))
}

/// Reads a secret key file written by `lawgen keygen`.
pub fn read_signing_key(path: &Path) -> Result<SigningKey, String> {
    Ok(SigningKey::from_bytes(&read_key(path, "secret")?))
}

/// Reads a public key file written by `lawgen keygen`.
pub fn read_verifying_key(path: &Path) -> Result<VerifyingKey, String> {
    VerifyingKey::from_bytes(&read_key(path, "public")?).map_err(|e| {
        format!(
            "error: {} is not an Ed25519 public key: {e}\n  = help: give the `.pub` file `lawgen keygen` wrote",
            path.display()
        )
    })
}

fn read_key(path: &Path, which: &str) -> Result<[u8; 32], String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
    unhex(text.trim()).ok_or_else(|| {
        format!(
            "error: {} is not an Ed25519 {which} key: expected 64 hexadecimal digits\n  = help: write a key pair with `lawgen keygen --out NAME`",
            path.display()
        )
    })
}

/// The `signature` of the receipt `unsigned` (its JSON without one).
pub fn sign(key: &SigningKey, unsigned: &Value) -> Value {
    let sig = key.sign(unsigned.to_string().as_bytes());
    json!({
        "algorithm": ALGORITHM,
        "publicKey": hex(key.verifying_key().as_bytes()),
        "value": hex(&sig.to_bytes()),
    })
}

/// Checks a receipt's `signature` against `key`.
pub fn verify(key: &VerifyingKey, receipt: &Value) -> Result<(), String> {
    let mut unsigned = receipt.clone();
    let sig = unsigned
        .as_object_mut()
        .and_then(|o| o.remove("signature"))
        .ok_or("the receipt is not signed")?;
    if sig["algorithm"] != ALGORITHM {
        return Err(format!(
            "the receipt is signed with {}, not {ALGORITHM}",
            sig["algorithm"]
        ));
    }
    if sig["publicKey"].as_str() != Some(hex(key.as_bytes()).as_str()) {
        return Err("the receipt is signed by another key".into());
    }
    let value = sig["value"]
        .as_str()
        .and_then(|v| {
            let b = (v.len() == 128).then(|| {
                (0..64)
                    .map(|i| u8::from_str_radix(&v[2 * i..2 * i + 2], 16).ok())
                    .collect::<Option<Vec<u8>>>()
            })??;
            <[u8; 64]>::try_from(b).ok()
        })
        .ok_or("the receipt's signature is not 128 hexadecimal digits")?;
    key.verify(
        unsigned.to_string().as_bytes(),
        &Signature::from_bytes(&value),
    )
    .map_err(|_| {
        "the signature does not verify: the receipt was changed after it was signed".into()
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_receipt_verifies_and_a_changed_one_does_not() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let mut r = json!({"format": "lawgen.receipt/0.1", "output": "{}\n"});
        r["signature"] = sign(&key, &r);
        assert_eq!(verify(&key.verifying_key(), &r), Ok(()));
        let mut changed = r.clone();
        changed["output"] = "{ }\n".into();
        assert!(verify(&key.verifying_key(), &changed)
            .unwrap_err()
            .starts_with("the signature does not verify"));
        let other = SigningKey::from_bytes(&[8; 32]);
        assert_eq!(
            verify(&other.verifying_key(), &r),
            Err("the receipt is signed by another key".into())
        );
    }
}
