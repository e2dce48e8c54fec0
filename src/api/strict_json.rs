//! Strict JSON request bodies: one value and nothing after it, no duplicate
//! keys, objects where structs are expected (serde's derive would also take
//! `["p-1", "text"]` for a struct), and every failure an `ApiError` naming the
//! field by its path (`posts[3].text`).

use serde::{
    Deserialize, Deserializer,
    de::{
        self, DeserializeOwned, Error as _, IntoDeserializer, MapAccess, SeqAccess, Unexpected,
        Visitor,
        value::{MapDeserializer, SeqDeserializer},
    },
    forward_to_deserialize_any,
};
use serde_json::{Map, Value};

use super::error::ApiError;

/// Prefix of the error a duplicate key raises (recognised by [`api_error`]).
const DUPLICATE_KEY: &str = "duplicate key `";
/// Prefix of serde's missing-field error.
const MISSING_FIELD: &str = "missing field `";

/// Parses a request body into `T`, strictly.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let Unique(value) = serde_path_to_error::deserialize(&mut de).map_err(api_error)?;
    de.end().map_err(|e| ApiError::Invalid {
        message: format!("malformed JSON: {e} (nothing may follow the JSON value)"),
        field: None,
    })?;
    serde_path_to_error::deserialize(Strict(&value)).map_err(api_error)
}

fn api_error(e: serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let at = |name: &str| match path.as_str() {
        "." | "?" => name.to_owned(),
        parent => format!("{parent}.{name}"),
    };
    let text = inner.to_string();
    if let Some(name) = quoted_after(&text, MISSING_FIELD) {
        let field = at(name);
        return ApiError::invalid(&field, format!("{field} is required"));
    }
    if let Some(name) = quoted_after(&text, DUPLICATE_KEY) {
        let field = at(name);
        return ApiError::invalid(&field, format!("{field} appears more than once"));
    }
    let message = match inner.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            format!("malformed JSON: {inner}")
        }
        _ => text,
    };
    let field = (path != "." && path != "?").then_some(path);
    ApiError::Invalid { message, field }
}

/// The name in backquotes after `prefix` (serde's error format).
fn quoted_after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(prefix)?;
    rest.split('`').next()
}

/// A JSON value parsed with duplicate keys rejected (serde_json keeps the last).
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Unique(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(A::Error::custom(format!("{DUPLICATE_KEY}{key}`")));
            }
            let Unique(v) = map.next_value()?;
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}

/// A parsed value as a deserializer that takes only objects for structs.
#[derive(Clone, Copy)]
struct Strict<'a>(&'a Value);

impl<'de> Deserializer<'de> for Strict<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(items) => {
                let mut seq = SeqDeserializer::new(items.iter().map(Strict));
                let out = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(out)
            }
            Value::Object(object) => {
                let mut map =
                    MapDeserializer::new(object.iter().map(|(k, v)| (k.as_str(), Strict(v))));
                let out = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(out)
            }
            scalar => scalar.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(visitor),
            other => Err(de::Error::invalid_type(unexpected(other), &"an object")),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct
        map identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, serde_json::Error> for Strict<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => n
            .as_f64()
            .map_or(Unexpected::Other("number"), Unexpected::Float),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Item {
        post_id: String,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default)]
        note: Option<String>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Batch {
        posts: Vec<Item>,
    }

    fn err<T: DeserializeOwned + std::fmt::Debug>(json: &str) -> (String, Option<String>) {
        match from_slice::<T>(json.as_bytes()).unwrap_err() {
            ApiError::Invalid { message, field } => (message, field),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_missing_field_is_named_with_its_path() {
        assert_eq!(
            err::<Item>(r#"{"tags": []}"#),
            ("postId is required".into(), Some("postId".into()))
        );
        let (_, field) = err::<Batch>(r#"{"posts": [{"postId": "a"}, {"tags": []}]}"#);
        assert_eq!(field.as_deref(), Some("posts[1].postId"));
    }

    #[test]
    fn duplicate_keys_are_rejected_at_any_depth() {
        let (message, field) = err::<Item>(r#"{"postId": "a", "postId": "b"}"#);
        assert_eq!(field.as_deref(), Some("postId"));
        assert!(message.contains("more than once"), "{message}");
        let (_, field) = err::<Batch>(r#"{"posts": [{"postId": "a", "x": {"k": 1, "k": 2}}]}"#);
        assert_eq!(field.as_deref(), Some("posts[0].x.k"));
    }

    #[test]
    fn bytes_after_the_value_are_rejected() {
        let (message, field) = err::<Item>(r#"{"postId": "a"}xyz"#);
        assert!(message.starts_with("malformed JSON"), "{message}");
        assert_eq!(field, None);
        assert!(from_slice::<Item>(b"{\"postId\": \"a\"}  \n").is_ok());
    }

    #[test]
    fn arrays_are_not_taken_for_objects() {
        let (message, _) = err::<Item>(r#"["p-1", ["x"], null]"#);
        assert!(message.contains("expected an object"), "{message}");
        let (_, field) = err::<Batch>(r#"{"posts": [["a"]]}"#);
        assert_eq!(field.as_deref(), Some("posts[0]"));
    }

    #[test]
    fn options_unknown_fields_and_nesting_still_work() {
        let item: Item =
            from_slice(br#"{"postId": "a", "note": null, "future": {"deep": [1, {"x": 2}]}}"#)
                .unwrap();
        assert_eq!(item.note, None);
        let item: Item = from_slice(br#"{"postId": "a", "note": "n", "tags": ["t"]}"#).unwrap();
        assert_eq!((item.note.as_deref(), item.tags.len()), (Some("n"), 1));
    }

    #[test]
    fn a_wrong_type_names_the_field() {
        let (_, field) = err::<Item>(r#"{"postId": "a", "tags": ["ok", 1]}"#);
        assert_eq!(field.as_deref(), Some("tags[1]"));
    }
}
