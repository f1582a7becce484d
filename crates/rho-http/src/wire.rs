//! Borrowing building blocks for the typed fast path of stream decoding, shared by every
//! provider folder.
//!
//! Hot stream events are decoded into small structs that borrow their strings from the event
//! data instead of building a `serde_json::Value` tree. A typed decode that fails for any reason
//! (a field of an unexpected type, a duplicate key, broken JSON) is never reported: the caller
//! falls back to the `Value` path, which keeps every lenient reading and every error message.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

/// A JSON string, borrowed from the event data unless it holds escapes.
#[derive(Debug, PartialEq, Eq)]
pub struct Str<'a>(pub Cow<'a, str>);

impl Str<'_> {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor<'a>(PhantomData<&'a str>);
        impl<'de: 'a, 'a> Visitor<'de> for StrVisitor<'a> {
            type Value = Str<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(text)))
            }

            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(StrVisitor(PhantomData))
    }
}

/// A JSON object decoded as `T`. A derived struct also accepts an array of its fields in
/// order; the `Value` path would see no object there, so neither may the fast path.
#[derive(Debug)]
pub struct Obj<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
            type Value = Obj<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        deserializer.deserialize_map(ObjVisitor(PhantomData))
    }
}

/// Decodes `data` as the object `T`, or `None` when it is anything else (the caller then takes
/// the `Value` path).
pub fn decode<'a, T: Deserialize<'a>>(data: &'a str) -> Option<T> {
    serde_json::from_str::<Obj<T>>(data)
        .ok()
        .map(|Obj(value)| value)
}
