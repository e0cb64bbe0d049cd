//! Frontmatter as the JavaScript clients split and read it: their own
//! regular expression to split the file, a YAML library that refuses
//! duplicate keys, and, for some, a line-by-line fallback when the YAML does
//! not load. The YAML itself is read with Hone's parser, which agrees with
//! theirs on every document the real-client suite plants.

use serde_json::{Map, Value};

use crate::yaml;

/// The file split by `^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?`: the
/// YAML text and the body. `None` when the file does not start with `---`
/// and a line break (a byte-order mark counts as not starting so).
pub fn split(text: &str) -> Option<(&str, &str)> {
    let open = if text.starts_with("---\r\n") {
        5
    } else if text.starts_with("---\n") {
        4
    } else {
        return None;
    };
    // The lazy group ends at the first line break followed by `---`.
    let mut at = open;
    loop {
        let rest = &text[at..];
        let close = if rest.starts_with("\r\n---") {
            Some(5)
        } else if rest.starts_with("\n---") {
            Some(4)
        } else {
            None
        };
        if let Some(len) = close {
            let after = &text[at + len..];
            let body = after
                .strip_prefix("\r\n")
                .or_else(|| after.strip_prefix('\n'))
                .unwrap_or(if after.is_empty() { "" } else { after });
            return Some((&text[open..at], body));
        }
        let next = rest.char_indices().nth(1).map(|(i, _)| i)?;
        at += next;
    }
}

/// The YAML as a JSON object, when it loads and is a mapping without
/// duplicate keys (the clients' YAML libraries refuse those).
pub fn load(yaml_text: &str) -> Result<Map<String, Value>, String> {
    let node = yaml::parse(yaml_text, 0).map_err(|e| e.message.clone())?;
    let Some(entries) = node.as_map() else {
        return match node.to_json() {
            Value::Null => Ok(Map::new()),
            _ => Err("not a mapping".into()),
        };
    };
    let mut map = Map::new();
    for (key, value) in entries {
        let key = key.key_string();
        if map.contains_key(&key) {
            return Err(format!("duplicate key `{key}`"));
        }
        map.insert(key, value.to_json());
    }
    Ok(map)
}

/// `key: value` lines read one by one, the value trimmed, lines indented
/// below it joined by `joiner` (each trimmed, blank ones dropped); a key seen
/// twice keeps its last value. Quotes are kept as written.
pub fn line_values(yaml_text: &str, keys: &[&str], joiner: &str) -> Map<String, Value> {
    let mut map = Map::new();
    let mut current: Option<(String, String)> = None;
    let flush = |current: &mut Option<(String, String)>, map: &mut Map<String, Value>| {
        if let Some((key, value)) = current.take() {
            map.insert(key, Value::String(value));
        }
    };
    for line in yaml_text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() && current.is_some() {
            continue;
        }
        if line.starts_with([' ', '\t'])
            && let Some((_, value)) = current.as_mut()
        {
            let piece = line.trim();
            if !piece.is_empty() {
                if !value.is_empty() {
                    value.push_str(joiner);
                }
                value.push_str(piece);
            }
            continue;
        }
        flush(&mut current, &mut map);
        let trimmed = line.trim_start();
        for key in keys {
            if let Some(rest) = trimmed.strip_prefix(key).and_then(|r| r.strip_prefix(':')) {
                current = Some((key.to_string(), rest.trim().to_string()));
                break;
            }
        }
    }
    flush(&mut current, &mut map);
    map
}

/// Top-level `key: value` lines whose plain value holds `: ` or ` #`,
/// double-quoted: how the lenient clients read a value strict YAML refuses.
pub fn quote_lossy_values(yaml: &str) -> String {
    yaml.split('\n')
        .map(|line| {
            let Some((key, value)) = line.split_once(": ") else {
                return line.to_string();
            };
            let value = value.trim_end_matches('\r');
            let plain_key = !key.is_empty() && !key.starts_with([' ', '\t', '-', '#']);
            let plain_value = !value.starts_with(['"', '\'', '|', '>', '[', '{', '&', '*', '!']);
            if plain_key && plain_value && (value.contains(": ") || value.contains(" #")) {
                let escaped = value.trim().replace('\\', "\\\\").replace('"', "\\\"");
                format!("{key}: \"{escaped}\"")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A string value of `map`, else `None`.
pub fn string<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_as_the_clients_regex_does() {
        assert_eq!(
            split("---\nname: a\n---\nbody\n"),
            Some(("name: a", "body\n"))
        );
        assert_eq!(
            split("---\r\nname: a\r\n---\r\nbody"),
            Some(("name: a", "body"))
        );
        assert_eq!(split("\u{feff}---\nname: a\n---\n"), None);
        assert_eq!(split("---\nname: a\n"), None);
        // The close needs no line end after it.
        assert_eq!(split("---\nname: a\n----x"), Some(("name: a", "-x")));
    }

    #[test]
    fn refuses_duplicate_keys() {
        assert!(load("a: 1\na: 2").is_err());
        assert_eq!(load("a: 1").unwrap()["a"], 1);
    }

    #[test]
    fn reads_lines_when_yaml_fails() {
        let map = line_values(
            "name: x\ndescription: one [\n  two\n\n  three\n",
            &["name", "description"],
            " ",
        );
        assert_eq!(map["description"], "one [ two three");
        let map = line_values("description: a\ndescription: b", &["description"], " ");
        assert_eq!(map["description"], "b");
    }
}
