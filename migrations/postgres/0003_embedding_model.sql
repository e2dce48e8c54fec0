-- The model that computed each stored vector: a replica ranking by another
-- model neither loads nor keeps it, and embeds the post again. Vectors
-- stored before this column came from Azure's embeddings deployment; a
-- replica ranking by one adopts them (`Store::open`).
ALTER TABLE posts ADD COLUMN embedding_model text;
