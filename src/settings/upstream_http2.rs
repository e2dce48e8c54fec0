//! `server.upstream_http2`: when the upstream clients speak HTTP/2. It
//! takes `auto`, `always` or `never`, and the booleans of its earlier form.

use serde::Deserialize;

/// When the upstream clients (Azure OpenAI, Graph) speak HTTP/2
/// (`server.upstream_http2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpstreamHttp2 {
    /// Over `https`, when the server offers it in the TLS handshake (ALPN);
    /// over plain `http`, never.
    Auto,
    /// Always, also over plain `http` (h2c with prior knowledge).
    Always,
    /// Never: HTTP/1.1, a connection per call in flight.
    Never,
}

impl<'de> Deserialize<'de> for UpstreamHttp2 {
    /// `auto`, `always` or `never`; `true` and `false` (the setting's
    /// earlier form) mean `always` and `never`.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = UpstreamHttp2;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("auto, always or never")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(if v {
                    UpstreamHttp2::Always
                } else {
                    UpstreamHttp2::Never
                })
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                match v {
                    "auto" => Ok(UpstreamHttp2::Auto),
                    "always" | "true" => Ok(UpstreamHttp2::Always),
                    "never" | "false" => Ok(UpstreamHttp2::Never),
                    other => Err(E::invalid_value(serde::de::Unexpected::Str(other), &self)),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}
