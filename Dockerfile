# syntax=docker/dockerfile:1
# Build: the same `cargo build --release --locked` that CI runs.
FROM rust:1.95-bookworm AS build
WORKDIR /app
# Dependency layer: rebuilt only when Cargo.toml/Cargo.lock change.
COPY Cargo.toml Cargo.lock ./
COPY crates/e5/Cargo.toml crates/e5/
RUN mkdir src benches crates/e5/src && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
    && touch crates/e5/src/lib.rs \
    && echo 'fn main() {}' > benches/load.rs && echo 'fn main() {}' > benches/quality.rs \
    && mkdir config && touch config/default.toml \
    && cargo build --release --locked \
    && rm -rf src config benches crates/e5/src
# Every path the build reads (scripts/check_dockerfile.py checks this list
# against the release build's own dependency file in CI): the compiled-in
# defaults, the migrations, the embedded model, the code, the link step.
COPY build.rs ./
COPY config ./config
COPY benches ./benches
COPY migrations ./migrations
COPY models ./models
COPY src ./src
COPY crates ./crates
# `--version` names the commit: `docker build --build-arg LINKUP_COMMIT=$(git rev-parse --short HEAD) .`
ARG LINKUP_COMMIT=""
RUN touch src/main.rs src/lib.rs crates/e5/src/lib.rs && cargo build --release --locked

# Runtime: small, non-root, CA certificates for the https upstreams.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin linkup
WORKDIR /app
COPY --from=build /app/target/release/linkup-suggestions /usr/local/bin/linkup-suggestions
COPY config ./config
# The licences: the service's, and the embedded model's (compiled into the binary).
COPY LICENSE /usr/share/doc/linkup-suggestions/LICENSE
COPY models/wordllama-l2-supercat-256/LICENSE /usr/share/doc/linkup-suggestions/wordllama-l2-supercat-256.LICENSE
RUN mkdir data && chown linkup data
USER linkup
ENV LINKUP__LOG__FORMAT=json
EXPOSE 8080
VOLUME ["/app/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["linkup-suggestions", "healthcheck"]
ENTRYPOINT ["linkup-suggestions"]
