//! Where the settings come from, in order: the defaults compiled in
//! (`config/default.toml`), `{config dir}/{APP_ENV}.toml`, the environment
//! (`LINKUP__SECTION__KEY`, then the TypeScript app's and the conventional
//! variables where no `LINKUP__` one is set); and the working directory
//! that relative paths are read against.

use std::collections::HashMap;

use super::{ExposeSecret, ServerSettings, Settings, SettingsError};

/// The TypeScript app's variables (and the conventional `DATABASE_URL` and
/// `RUST_LOG`), the keys they set, and the variable that takes precedence
/// over them.
const LEGACY_ENV: [(&str, &str, &str); 7] = [
    ("RUST_LOG", "log.level", "LINKUP__LOG__LEVEL"),
    (
        "DATABASE_URL",
        "posts.database_url",
        "LINKUP__POSTS__DATABASE_URL",
    ),
    (
        "AZURE_OPENAI_ENDPOINT",
        "azure_openai.endpoint",
        "LINKUP__AZURE_OPENAI__ENDPOINT",
    ),
    (
        "AZURE_OPENAI_API_KEY",
        "azure_openai.api_key",
        "LINKUP__AZURE_OPENAI__API_KEY",
    ),
    (
        "AZURE_OPENAI_CHAT_DEPLOYMENT",
        "azure_openai.chat_deployment",
        "LINKUP__AZURE_OPENAI__CHAT_DEPLOYMENT",
    ),
    (
        "AZURE_OPENAI_EMBEDDING_DEPLOYMENT",
        "azure_openai.embedding_deployment",
        "LINKUP__AZURE_OPENAI__EMBEDDING_DEPLOYMENT",
    ),
    (
        "AZURE_OPENAI_API_VERSION",
        "azure_openai.api_version",
        "LINKUP__AZURE_OPENAI__API_VERSION",
    ),
];

impl ServerSettings {
    /// An empty entry in a list (`LINKUP__SERVER__API_KEYS=""`, as an unset
    /// Secret key or a ConfigMap line gives, or `a,,b`) means none: an empty
    /// API key would admit every request that sends no `X-Api-Key`.
    fn drop_empty_entries(&mut self) {
        self.api_keys
            .retain(|k| !k.expose_secret().trim().is_empty());
        self.cors_origins.retain(|o| !o.trim().is_empty());
    }
}

/// The defaults, compiled in so the binary runs from any directory.
const DEFAULT_TOML: &str = include_str!("../../config/default.toml");

impl Settings {
    /// Loads from `config_dir` and the process environment.
    pub fn load(config_dir: &std::path::Path) -> Result<Self, SettingsError> {
        Self::load_from(config_dir, std::env::vars().collect())
    }

    /// Loads from `config_dir` and the given environment (tests pass their own).
    pub fn load_from(
        config_dir: &std::path::Path,
        env: HashMap<String, String>,
    ) -> Result<Self, SettingsError> {
        let mut builder = config::Config::builder().add_source(config::File::from_str(
            DEFAULT_TOML,
            config::FileFormat::Toml,
        ));
        if let Some(app_env) = env.get("APP_ENV").filter(|v| !v.is_empty()) {
            let file = config_dir.join(format!("{app_env}.toml"));
            builder = builder.add_source(config::File::from(file).required(false));
        }
        builder = builder.add_source(
            config::Environment::with_prefix("LINKUP")
                .separator("__")
                .list_separator(",")
                .with_list_parse_key("server.api_keys")
                .with_list_parse_key("server.cors_origins")
                .try_parsing(true)
                .source(Some(env.clone().into_iter().collect())),
        );
        for (legacy, key, modern) in LEGACY_ENV {
            if let Some(value) = env.get(legacy)
                && !env.contains_key(modern)
            {
                builder = builder.set_override(key, value.as_str())?;
            }
        }
        let mut settings: Settings = builder.build()?.try_deserialize()?;
        settings.server.drop_empty_entries();
        settings.azure_identity = super::AzureIdentityEnv::from_env(&env);
        let key = settings
            .azure_openai
            .api_key
            .as_ref()
            .is_some_and(|k| !secrecy::ExposeSecret::expose_secret(k).trim().is_empty());
        settings.azure_openai.auth = settings
            .azure_openai
            .auth
            .decide(key, &settings.azure_identity);
        settings.validate()?;
        Ok(settings)
    }

    /// The same settings with their relative paths (`posts.db_path`,
    /// `posts.model_path`, `posts.local_model_file`, `posts.tls_ca_file`)
    /// made absolute against `dir`,
    /// the working directory: the container's `WORKDIR` and data volume rely
    /// on relative paths, and the logs and errors then name the real place.
    pub fn with_paths_under(mut self, dir: &std::path::Path) -> Self {
        let posts = &mut self.posts;
        posts.db_path = dir.join(&posts.db_path);
        for path in [
            &mut posts.model_path,
            &mut posts.local_model_file,
            &mut posts.tls_ca_file,
        ]
        .into_iter()
        .flatten()
        {
            *path = dir.join(&*path);
        }
        self
    }

    /// The Azure OpenAI endpoint, when one is configured.
    pub fn llm_endpoint(&self) -> Option<&str> {
        self.azure_openai
            .endpoint
            .as_deref()
            .filter(|e| !e.is_empty())
    }
}
