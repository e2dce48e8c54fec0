//! Which model's vectors a database keeps: the index's (see
//! `Index::vector_model`); the others' posts wait to be embedded again.

use rusqlite::{Connection, params};

use crate::store::AZURE_MODEL_PREFIX;

/// Adds `embedding_model` to a database written before it; then keeps
/// only `model`'s vectors (the others' posts wait to be embedded again).
/// Vectors stored before the column came from Azure's deployment, the only
/// model whose vectors were stored: an Azure model adopts them. None (the
/// index ranks by words): everything is left as stored.
pub fn adopt_vectors(conn: &Connection, model: Option<&str>) -> rusqlite::Result<()> {
    let has_column = conn
        .prepare("SELECT 1 FROM pragma_table_info('posts') WHERE name = 'embedding_model'")?
        .exists([])?;
    if !has_column {
        conn.execute_batch("ALTER TABLE posts ADD COLUMN embedding_model TEXT")?;
        if let Some(azure) = model.filter(|m| m.starts_with(AZURE_MODEL_PREFIX)) {
            conn.execute(
                "UPDATE posts SET embedding_model = ?1 WHERE embedding IS NOT NULL",
                params![azure],
            )?;
        }
    }
    let Some(model) = model else { return Ok(()) };
    let dropped = conn.execute(
        "UPDATE posts SET embedding = NULL, embedding_model = NULL
         WHERE embedding IS NOT NULL AND embedding_model IS NOT ?1",
        params![model],
    )?;
    if dropped > 0 {
        tracing::info!(
            posts = dropped,
            model,
            "vectors of another model dropped: the posts are embedded again in the background"
        );
    }
    Ok(())
}
