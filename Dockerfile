# syntax=docker/dockerfile:1
# Build: the same `cargo build --release --locked` that CI runs.
FROM rust:1.95-bookworm AS build
WORKDIR /app
# Dependency layer: rebuilt only when Cargo.toml/Cargo.lock change.
COPY Cargo.toml Cargo.lock ./
RUN mkdir src benches && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
    && echo 'fn main() {}' > benches/load.rs && echo 'fn main() {}' > benches/quality.rs \
    && mkdir config && touch config/default.toml \
    && cargo build --release --locked \
    && rm -rf src config benches
COPY config ./config
COPY benches ./benches
COPY migrations ./migrations
COPY src ./src
RUN touch src/main.rs src/lib.rs && cargo build --release --locked

# Runtime: small, non-root, CA certificates for the https upstreams.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin linkup
WORKDIR /app
COPY --from=build /app/target/release/linkup-suggestions /usr/local/bin/linkup-suggestions
COPY config ./config
# The local embedding model (posts.embedder = auto/local), read at start-up.
COPY models/wordllama-l2-supercat-256/tokenizer.json models/wordllama-l2-supercat-256/l2_supercat_256.safetensors models/wordllama-l2-supercat-256/LICENSE ./models/wordllama-l2-supercat-256/
RUN mkdir data && chown linkup data
USER linkup
ENV LINKUP__LOG__FORMAT=json
EXPOSE 8080
VOLUME ["/app/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["linkup-suggestions", "healthcheck"]
ENTRYPOINT ["linkup-suggestions"]
