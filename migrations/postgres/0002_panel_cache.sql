-- The panel cache's shared tier (cache.shared): a panel computed by one
-- replica, served by the others until it expires. Rows hold what a
-- suggestions answer holds (document titles, links and snippets, similar
-- posts, the hint, meta), never a token or the requesting post's text.

CREATE TABLE panel_cache (
    key        bytea PRIMARY KEY,   -- SHA-256 of post, request, caller, settings
    post_id    text NOT NULL,       -- a write or delete of the post drops its panels
    panel      text NOT NULL,       -- the answer's JSON
    stored_at  bigint NOT NULL,     -- unix ms
    expires_at bigint NOT NULL      -- unix ms; pruned with the expired posts
);
CREATE INDEX panel_cache_post_id ON panel_cache (post_id);
CREATE INDEX panel_cache_expires_at ON panel_cache (expires_at);
