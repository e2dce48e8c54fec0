-- What the board knows of a post: the documents shared on it and its
-- replies (JSON). A column of the post's row, so a change to it takes a
-- change number like any write (every replica applies it), `migrate-posts`
-- copies it, and a tombstone (deletion, expiry) clears it with the body.
ALTER TABLE posts ADD COLUMN knowledge jsonb;
