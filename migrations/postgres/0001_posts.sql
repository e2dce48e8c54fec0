-- The post index shared by every replica, and the run records.

-- Every change to posts takes the next number from this one row, inside its
-- transaction: the row lock orders the writers, so numbers become visible in
-- order and a replica reading "changes after N" never skips one.
CREATE TABLE change_counter (
    id             boolean PRIMARY KEY DEFAULT true CHECK (id),
    seq            bigint NOT NULL,
    -- Tombstones up to this seq were deleted: a replica that has not seen
    -- them yet reloads every post instead of catching up.
    purged_through bigint NOT NULL DEFAULT 0
);
INSERT INTO change_counter (id, seq) VALUES (true, 0);

-- A post's latest state; a deleted or expired post stays as a tombstone
-- (body NULL, deleted) so replicas learn of it by its seq.
CREATE TABLE posts (
    id                      text PRIMARY KEY,
    body                    jsonb,
    search_text             text,
    expires_at              bigint,          -- unix ms
    embedding               bytea,
    embedding_claimed_until bigint,          -- unix ms: a replica is embedding it
    deleted                 boolean NOT NULL DEFAULT false,
    deleted_at              bigint,          -- unix ms, of a tombstone
    seq                     bigint NOT NULL
);
CREATE INDEX posts_seq ON posts (seq, id);
CREATE INDEX posts_expires_at ON posts (expires_at) WHERE NOT deleted;
CREATE INDEX posts_unembedded ON posts (seq) WHERE embedding IS NULL AND NOT deleted;
CREATE INDEX posts_tombstones ON posts (deleted_at) WHERE deleted;

-- Run records (GET /api/runs/{runId}).
CREATE TABLE runs (
    seq        bigserial PRIMARY KEY,
    run_id     text NOT NULL UNIQUE,
    keep_until bigint NOT NULL,              -- unix ms
    record     text NOT NULL
);
CREATE INDEX runs_keep_until ON runs (keep_until);
