//! What a cached panel is filed under: the post, a digest of what the
//! request says about it, the caller (a digest of the whole Graph token,
//! never of its unverified claims) and the settings that shape answers.
//! SHA-256 throughout; no token and no text is kept.

use std::time::{Duration, SystemTime};

use base64::Engine;
use secrecy::ExposeSecret;
use sha2::{Digest, Sha256};

use crate::settings::{Secret, Settings};

/// What a view says about its post, and who asks.
pub struct View<'a> {
    pub post_id: &'a str,
    pub text: &'a str,
    pub tags: &'a [String],
    pub category: Option<&'a str>,
    /// The caller's Graph token.
    pub token: Option<&'a Secret>,
}

/// A panel's cache key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PanelKey {
    /// Kept plain: invalidation finds a post's panels by it (an id, not text).
    pub post_id: String,
    digest: [u8; 32],
}

impl PanelKey {
    /// The key of `input`'s panel under the settings digest `generation`.
    pub fn of(input: &View<'_>, generation: &[u8; 32]) -> Self {
        let mut h = Sha256::new();
        // Each field length-prefixed: no two requests run together.
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(input.post_id.as_bytes());
        field(input.text.as_bytes());
        field(&(input.tags.len() as u64).to_le_bytes());
        for tag in input.tags {
            field(tag.as_bytes());
        }
        field(input.category.unwrap_or_default().as_bytes());
        // The caller: the whole token, signature included (two tokens with
        // the same claims are two callers). No token: every token-less
        // view shares one entry (it holds no Microsoft 365 results).
        match input.token {
            Some(token) => field(&Sha256::digest(token.expose_secret().as_bytes())),
            None => field(b""),
        }
        field(generation);
        Self {
            post_id: input.post_id.to_owned(),
            digest: h.finalize().into(),
        }
    }

    /// The key's SHA-256 (post, request, caller, settings): the shared
    /// tier's key.
    pub fn digest(&self) -> &[u8; 32] {
        &self.digest
    }
}

/// The digest of the settings that shape an answer: replicas with the same
/// settings file their panels alike; a change of them is a new generation.
pub fn generation(settings: &Settings) -> [u8; 32] {
    let shaping = format!(
        "{:?}|{:?}|{}|{}|{}|{:?}|{:?}|{:?}|{:?}",
        settings.agent,
        settings.azure_openai.endpoint,
        settings.azure_openai.chat_deployment,
        settings.azure_openai.embedding_deployment,
        settings.msgraph.base_url,
        settings.posts.embedder,
        settings.posts.min_similarity,
        settings.posts.model_path,
        settings.posts.local_model_file,
    );
    Sha256::digest(shaping.as_bytes()).into()
}

/// How long a panel for `token` may be served: never past the token's own
/// `exp` (read unverified from its payload: it can only shorten the entry).
/// A token that is not a JWT, or has no `exp`, does not shorten it.
pub fn left_for_token(token: Option<&str>, now: SystemTime) -> Option<Duration> {
    let payload = token?.split('.').nth(1)?;
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    #[derive(serde::Deserialize)]
    struct Claims {
        exp: Option<u64>,
    }
    let exp = serde_json::from_slice::<Claims>(&json).ok()?.exp?;
    let exp = SystemTime::UNIX_EPOCH + Duration::from_secs(exp);
    Some(exp.duration_since(now).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str, token: Option<&str>, generation: &[u8; 32]) -> PanelKey {
        let token: Option<Secret> = token.map(|t| t.to_owned().into());
        let tags = ["a".to_owned()];
        let view = View {
            post_id: "p-1",
            text,
            tags: &tags,
            category: None,
            token: token.as_ref(),
        };
        PanelKey::of(&view, generation)
    }

    fn jwt(claims: &str, signature: &str) -> String {
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        format!("{}.{}.{signature}", b64(r#"{"alg":"RS256"}"#), b64(claims))
    }

    #[test]
    fn the_caller_is_the_whole_token_and_a_changed_text_is_a_new_panel() {
        let g = [0; 32];
        let claims = r#"{"tid":"t","oid":"alice","exp":4102444800}"#;
        let (a, forged) = (jwt(claims, "sig-a"), jwt(claims, "sig-b"));
        let key = |text, token: Option<&str>| key(text, token, &g);
        assert_eq!(key("x", Some(&a)), key("x", Some(&a)));
        assert_ne!(
            key("x", Some(&a)),
            key("x", Some(&forged)),
            "same claims, two callers"
        );
        assert_ne!(key("x", Some(&a)), key("x", None));
        assert_eq!(key("x", None), key("x", None), "token-less views share");
        assert_ne!(key("x", None), key("y", None));
        assert_ne!(key("x", None), super::tests::key("x", None, &[1; 32]));
    }

    #[test]
    fn an_entry_never_outlives_its_tokens_exp() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let t = jwt(r#"{"exp":1060}"#, "s");
        assert_eq!(left_for_token(Some(&t), now), Some(Duration::from_secs(60)));
        let expired = jwt(r#"{"exp":900}"#, "s");
        assert_eq!(left_for_token(Some(&expired), now), Some(Duration::ZERO));
        assert_eq!(left_for_token(Some("opaque-token"), now), None);
        assert_eq!(left_for_token(None, now), None);
    }
}
