//! The bound on what an `args_schema` costs to evaluate, checked when the policy is
//! read.
//!
//! A JSON Schema's `$ref` can name one subschema from many places, so a small schema
//! can stand for a huge one: 22 levels of `anyOf` with two references each are four
//! million subschemas for one argument. The schema is expanded here as the validator
//! evaluates it, every reference followed (the `$defs` themselves are only reached
//! through references), and a schema whose expansion holds more than
//! [`MAX_SUBSCHEMAS`] subschemas or nests deeper than [`MAX_NESTING`] is refused. A
//! reference that leads back into a subschema it is inside (a recursive schema) is
//! refused too, since its cost then grows with the arguments, not the schema. So
//! that every reference is followed as the validator follows it, references are
//! local (`#`, `#/json/pointer`, `#anchor`, or the root's `$id` with one of those),
//! and `$id` below the root, `$dynamicRef` and `$recursiveRef` are refused.

use std::collections::HashMap;

use crate::finding::quote_name;
use crate::json::{Value, member};

use super::pointer::Pointer;

/// The most subschemas an `args_schema` may expand to.
pub(crate) const MAX_SUBSCHEMAS: u64 = 10_000;

/// The deepest an `args_schema` may nest once its references are expanded.
pub(crate) const MAX_NESTING: usize = 256;

/// Keywords holding one subschema.
const ONE: [&str; 11] = [
    "additionalProperties",
    "contains",
    "contentSchema",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Keywords holding an array of subschemas.
const LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords holding an object of subschemas.
const MAP: [&str; 3] = ["dependentSchemas", "patternProperties", "properties"];

/// Keywords holding subschemas reached only through references.
const DEFS: [&str; 2] = ["$defs", "definitions"];

/// Checks that `schema` is within the bounds (see the module documentation); the
/// error says which bound it breaks, without the field's name.
pub(crate) fn check(schema: &Value) -> Result<(), String> {
    let root_id = match schema {
        Value::Object(members) => match member(members, "$id") {
            Some(Value::Str(id)) => Some(id.as_str()),
            _ => None,
        },
        _ => None,
    };
    let mut anchors = HashMap::new();
    survey(schema, true, &mut anchors, 0)?;
    let mut bound = Bound {
        root: schema,
        root_id,
        anchors,
        cost: HashMap::new(),
        open: Vec::new(),
    };
    bound.cost(schema, 0).map(|_| ())
}

/// The subschemas of `schema` where the validator evaluates them, each with whether
/// it is reached only through a reference.
fn children(schema: &Value) -> Vec<(&Value, bool)> {
    let Value::Object(members) = schema else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in members {
        let key = key.as_str();
        match value {
            _ if ONE.contains(&key) => out.push((value, false)),
            Value::Array(items) if LIST.contains(&key) => {
                out.extend(items.iter().map(|v| (v, false)));
            }
            Value::Object(entries) if MAP.contains(&key) || DEFS.contains(&key) => {
                let defs = DEFS.contains(&key);
                out.extend(entries.iter().map(|(_, v)| (v, defs)));
            }
            _ => {}
        }
    }
    out
}

/// Collects the anchors of the document, and refuses what the bound cannot follow.
fn survey<'v>(
    schema: &'v Value,
    root: bool,
    anchors: &mut HashMap<&'v str, &'v Value>,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err(format!("nests deeper than {MAX_NESTING} subschemas"));
    }
    let Value::Object(members) = schema else {
        return Ok(());
    };
    for (key, value) in members {
        match (key.as_str(), value) {
            ("$id", _) if !root => {
                return Err("\"$id\" below the root is not supported".to_owned());
            }
            ("$dynamicRef" | "$recursiveRef", _) => {
                return Err(format!("{} is not supported", json_key(key)));
            }
            ("$anchor" | "$dynamicAnchor", Value::Str(name)) => {
                anchors.entry(name.as_str()).or_insert(schema);
            }
            _ => {}
        }
    }
    for (child, _) in children(schema) {
        survey(child, false, anchors, depth + 1)?;
    }
    Ok(())
}

fn json_key(key: &str) -> String {
    format!("\"{key}\"")
}

struct Bound<'v> {
    root: &'v Value,
    root_id: Option<&'v str>,
    anchors: HashMap<&'v str, &'v Value>,
    /// The expanded size of each subschema done, by address.
    cost: HashMap<*const Value, u64>,
    /// The subschemas being expanded, by address.
    open: Vec<*const Value>,
}

impl<'v> Bound<'v> {
    /// The number of subschemas `schema` expands to, references followed.
    fn cost(&mut self, schema: &'v Value, depth: usize) -> Result<u64, String> {
        let key: *const Value = schema;
        if let Some(&cost) = self.cost.get(&key) {
            return Ok(cost);
        }
        if depth > MAX_NESTING {
            return Err(format!(
                "nests deeper than {MAX_NESTING} subschemas once its references are followed"
            ));
        }
        if self.open.contains(&key) {
            return Err(
                "a \"$ref\" leads back into a subschema it is inside (recursive schemas are not read)"
                    .to_owned(),
            );
        }
        self.open.push(key);
        let mut total: u64 = 1;
        if let Value::Object(members) = schema
            && let Some(reference) = member(members, "$ref")
        {
            let Value::Str(reference) = reference else {
                return Err("\"$ref\" must be a string".to_owned());
            };
            let target = self.resolve(reference)?;
            total = total.saturating_add(self.cost(target, depth + 1)?);
        }
        for (child, only_by_reference) in children(schema) {
            if only_by_reference {
                continue;
            }
            total = total.saturating_add(self.cost(child, depth + 1)?);
            if total > MAX_SUBSCHEMAS {
                break;
            }
        }
        self.open.pop();
        if total > MAX_SUBSCHEMAS {
            return Err(format!(
                "expands to more than {MAX_SUBSCHEMAS} subschemas once its references are followed"
            ));
        }
        self.cost.insert(key, total);
        Ok(total)
    }

    /// The subschema `reference` names.
    fn resolve(&self, reference: &str) -> Result<&'v Value, String> {
        let unresolved = || {
            format!(
                "the reference {} is not to this schema (\"#\", \"#/pointer\" or \"#anchor\")",
                quote_name(reference)
            )
        };
        let (document, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        if !document.is_empty() && Some(document) != self.root_id.map(|id| id.trim_end_matches('#'))
        {
            return Err(unresolved());
        }
        let fragment = percent_decoded(fragment).ok_or_else(unresolved)?;
        if fragment.is_empty() {
            return Ok(self.root);
        }
        if fragment.starts_with('/') {
            return Pointer::parse(&fragment)
                .ok()
                .and_then(|pointer| pointer.find(self.root))
                .ok_or_else(unresolved);
        }
        self.anchors
            .get(fragment.as_str())
            .copied()
            .ok_or_else(unresolved)
    }
}

/// `text` with its `%XX` escapes decoded, if it is UTF-8 then.
fn percent_decoded(text: &str) -> Option<String> {
    String::from_utf8(crate::percent::percent_decode(text)).ok()
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::json;

    fn checked(text: &str) -> Result<(), String> {
        check(&json::parse(text).expect("JSON"))
    }

    /// Levels of `anyOf` of two references to the next level: 2^levels subschemas.
    fn fan_out(levels: usize) -> String {
        let defs: Vec<String> = (0..levels)
            .map(|i| {
                let next = if i + 1 < levels {
                    format!(r##"{{"$ref": "#/$defs/d{}"}}"##, i + 1)
                } else {
                    r#"{"type": "string"}"#.to_owned()
                };
                format!(r#""d{i}": {{"anyOf": [{next}, {{"allOf": [{next}]}}]}}"#)
            })
            .collect();
        format!(
            r##"{{"properties": {{"cmd": {{"$ref": "#/$defs/d0"}}}}, "$defs": {{{}}}}}"##,
            defs.join(", ")
        )
    }

    #[test]
    fn reference_fan_out_is_bounded() {
        assert_eq!(checked(&fan_out(8)), Ok(()));
        assert_eq!(
            checked(&fan_out(22)),
            Err("expands to more than 10000 subschemas once its references are followed".into())
        );
    }

    #[test]
    fn references_are_followed_or_refused() {
        assert_eq!(
            checked(
                r##"{"$id": "https://x.example/s", "properties": {"a": {"$ref": "#a"}, "b": {"$ref": "https://x.example/s#/$defs/b"}, "c": {"$ref": "#/$defs/c%20d"}}, "$defs": {"a": {"$anchor": "a"}, "b": true, "c d": {}}}"##
            ),
            Ok(())
        );
        assert_eq!(
            checked(r##"{"$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}"##),
            Err("a \"$ref\" leads back into a subschema it is inside (recursive schemas are not read)".into())
        );
        assert_eq!(
            checked(r##"{"$ref": "#"}"##),
            Err("a \"$ref\" leads back into a subschema it is inside (recursive schemas are not read)".into())
        );
        assert_eq!(
            checked(r##"{"$ref": "#/$defs/missing"}"##),
            Err("the reference '#/$defs/missing' is not to this schema (\"#\", \"#/pointer\" or \"#anchor\")".into())
        );
        assert_eq!(
            checked(r##"{"properties": {"a": {"$id": "other.json"}}}"##),
            Err("\"$id\" below the root is not supported".into())
        );
        assert_eq!(
            checked(r##"{"$dynamicRef": "#meta"}"##),
            Err("\"$dynamicRef\" is not supported".into())
        );
        // A property named like a keyword is a name, not a keyword.
        assert_eq!(
            checked(r#"{"properties": {"$id": {}, "$ref": {}}}"#),
            Ok(())
        );
    }

    #[test]
    fn nesting_through_references_is_bounded() {
        let defs: Vec<String> = (0..300)
            .map(|i| format!(r##""d{i}": {{"$ref": "#/$defs/d{}"}}"##, i + 1))
            .collect();
        let schema = format!(
            r##"{{"$ref": "#/$defs/d0", "$defs": {{{}, "d300": true}}}}"##,
            defs.join(", ")
        );
        assert_eq!(
            checked(&schema),
            Err("nests deeper than 256 subschemas once its references are followed".into())
        );
    }
}
