//! A YAML tree that remembers where every key and value came from.
//!
//! The typed model ([`crate::skill::Frontmatter`]) is built from this tree, and
//! validation rules point at the exact text of a key or value through its byte
//! span. The tree is built from `saphyr-parser` events (a maintained, pure-Rust
//! YAML 1.2 parser with positions); serde_yaml is archived and has no spans.
//!
//! Untrusted frontmatter cannot hang or exhaust the engine: nesting depth and
//! the number of nodes materialised through aliases are bounded, so a
//! "billion laughs" document becomes an error, not a hang.
//!
//! Plain scalars are resolved with the YAML 1.2 core schema (`yes` is a
//! string). Each scalar keeps its source style so that rules can warn where a
//! YAML 1.1 parser such as PyYAML would read the same text differently.

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle, Span as YamlSpan};

/// Deepest nesting of collections accepted.
pub const MAX_DEPTH: usize = 64;
/// Most nodes a document may hold, counting every alias expansion.
pub const MAX_NODES: usize = 100_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Seq(Vec<Node>),
    /// Entries in source order; duplicate keys are kept for rules to report.
    Map(Vec<(Node, Node)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    /// Byte range in the whole file.
    pub span: Range<usize>,
    /// For scalars: whether the source was plain (unquoted, not a block scalar).
    pub plain: bool,
    /// For scalars: the source text as written (after unescaping), before resolution.
    pub raw: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    pub message: String,
    /// Byte offset in the whole file.
    pub offset: usize,
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The first entry whose key is the string `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// A short name of the node's type for messages ("a string", "a list").
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::String(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// The value as JSON, for the typed model and for output.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::String(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.key_string(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The key text of a node used as a mapping key.
    pub fn key_string(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            _ => self
                .raw
                .clone()
                .unwrap_or_else(|| self.to_json().to_string()),
        }
    }

    fn size(&self) -> usize {
        1 + match &self.value {
            Value::Seq(items) => items.iter().map(Node::size).sum(),
            Value::Map(entries) => entries.iter().map(|(k, v)| k.size() + v.size()).sum(),
            _ => 0,
        }
    }
}

/// Parses one YAML document. `base` is the byte offset of `text` in the file,
/// added to every span. An empty document is `Null`.
pub fn parse(text: &str, base: usize) -> Result<Node, YamlError> {
    let offsets = CharOffsets::new(text, base);
    let mut builder = Builder {
        parser: Parser::new_from_str(text),
        offsets,
        anchors: HashMap::new(),
        nodes: 0,
        last_end: base,
    };
    builder.document()
}

/// Maps saphyr's character indices to byte offsets in the file.
struct CharOffsets {
    /// Byte offset of each character; empty when the text is ASCII.
    table: Vec<usize>,
    base: usize,
    len: usize,
}

impl CharOffsets {
    fn new(text: &str, base: usize) -> Self {
        let table = if text.is_ascii() {
            Vec::new()
        } else {
            text.char_indices().map(|(i, _)| i).collect()
        };
        CharOffsets {
            table,
            base,
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        let local = if self.table.is_empty() {
            char_index.min(self.len)
        } else {
            self.table.get(char_index).copied().unwrap_or(self.len)
        };
        self.base + local
    }
}

struct Builder<'a> {
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
    offsets: CharOffsets,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    last_end: usize,
}

type Next<'a> = (Event<'a>, YamlSpan);

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<Next<'a>, YamlError> {
        match self.parser.next_event() {
            Some(Ok((event, span))) => {
                self.last_end = self.offsets.byte(span.end.index());
                Ok((event, span))
            }
            Some(Err(err)) => Err(YamlError {
                message: err.info().to_owned(),
                offset: self.offsets.byte(err.marker().index()),
            }),
            None => Err(self.error("unexpected end of YAML", self.last_end)),
        }
    }

    fn error(&self, message: &str, offset: usize) -> YamlError {
        YamlError {
            message: message.to_owned(),
            offset,
        }
    }

    fn document(&mut self) -> Result<Node, YamlError> {
        let mut root = None;
        loop {
            let (event, span) = self.next()?;
            match event {
                Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
                Event::DocumentStart(_) if root.is_some() => {
                    let at = self.offsets.byte(span.start.index());
                    return Err(self.error("more than one YAML document in the frontmatter", at));
                }
                Event::DocumentStart(_) => {
                    let (event, span) = self.next()?;
                    root = Some(self.node(event, span, 0)?);
                }
                Event::StreamEnd => break,
                _ => {
                    let at = self.offsets.byte(span.start.index());
                    return Err(self.error("unexpected YAML event", at));
                }
            }
        }
        let base = self.offsets.base;
        Ok(root.unwrap_or(Node {
            value: Value::Null,
            span: base..base,
            plain: true,
            raw: None,
        }))
    }

    fn count(&mut self, n: usize, at: usize) -> Result<(), YamlError> {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            return Err(self.error(
                &format!("the YAML expands to more than {MAX_NODES} nodes (alias bomb?)"),
                at,
            ));
        }
        Ok(())
    }

    fn node(&mut self, event: Event<'a>, span: YamlSpan, depth: usize) -> Result<Node, YamlError> {
        let start = self.offsets.byte(span.start.index());
        if depth > MAX_DEPTH {
            return Err(self.error(
                &format!("YAML nested deeper than {MAX_DEPTH} levels"),
                start,
            ));
        }
        let (node, anchor) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1, start)?;
                let end = self.offsets.byte(span.end.index());
                let forced_string = tag.as_ref().is_some_and(|t| t.suffix == "str");
                let plain = style == ScalarStyle::Plain;
                let value = if plain && !forced_string {
                    resolve_plain(&text)
                } else {
                    Value::String(text.clone().into_owned())
                };
                (
                    Node {
                        value,
                        span: start..end,
                        plain,
                        raw: Some(text.into_owned()),
                    },
                    anchor,
                )
            }
            Event::Alias(id) => {
                let Some(target) = self.anchors.get(&id) else {
                    return Err(self.error("alias to an unknown anchor", start));
                };
                let mut copy = target.clone();
                self.count(copy.size(), start)?;
                copy.span = start..self.offsets.byte(span.end.index());
                return Ok(copy);
            }
            Event::SequenceStart(anchor, _) => {
                self.count(1, start)?;
                let mut items = Vec::new();
                loop {
                    let (event, span) = self.next()?;
                    if let Event::SequenceEnd = event {
                        let end = self.offsets.byte(span.end.index()).max(start);
                        let node = Node {
                            value: Value::Seq(items),
                            span: start..end,
                            plain: false,
                            raw: None,
                        };
                        break (node, anchor);
                    }
                    items.push(self.node(event, span, depth + 1)?);
                }
            }
            Event::MappingStart(anchor, _) => {
                self.count(1, start)?;
                let mut entries = Vec::new();
                loop {
                    let (event, span) = self.next()?;
                    if let Event::MappingEnd = event {
                        let end = self.offsets.byte(span.end.index()).max(start);
                        let node = Node {
                            value: Value::Map(entries),
                            span: start..end,
                            plain: false,
                            raw: None,
                        };
                        break (node, anchor);
                    }
                    let key = self.node(event, span, depth + 1)?;
                    let (event, span) = self.next()?;
                    let value = self.node(event, span, depth + 1)?;
                    entries.push((key, value));
                }
            }
            _ => return Err(self.error("unexpected YAML event", start)),
        };
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        Ok(node)
    }
}

/// YAML 1.2 core schema resolution of a plain scalar.
fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    if let Some(hex) = s.strip_prefix("0x") {
        if let Ok(i) = i64::from_str_radix(hex, 16) {
            return Value::Int(i);
        }
    } else if let Some(oct) = s.strip_prefix("0o") {
        if let Ok(i) = i64::from_str_radix(oct, 8) {
            return Value::Int(i);
        }
    } else if is_int(s) {
        if let Ok(i) = s.parse::<i64>() {
            return Value::Int(i);
        }
    } else if is_float(s)
        && let Ok(f) = s.parse::<f64>()
    {
        return Value::Float(f);
    }
    Value::String(s.to_owned())
}

fn is_int(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = (!int.is_empty() || !frac.is_empty()) && digits(int) && digits(frac);
    let exponent_ok = exponent.is_none_or(is_int);
    mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_keys_and_values() {
        let text = "name: pdf\ndescription: \"Reads PDFs\"\n";
        let root = parse(text, 4).unwrap();
        let (key, value) = root.entry("description").unwrap();
        assert_eq!(&text[key.span.start - 4..key.span.end - 4], "description");
        assert_eq!(
            &text[value.span.start - 4..value.span.end - 4],
            "\"Reads PDFs\""
        );
        assert_eq!(value.as_str(), Some("Reads PDFs"));
        assert!(!value.plain);
    }

    #[test]
    fn resolves_the_core_schema() {
        let root = parse(
            "a: yes\nb: true\nc: 12\nd: 1.5\ne: ~\nf: !!str 3\ng: 1e3\nh: 1.2.3",
            0,
        )
        .unwrap();
        assert_eq!(root.get("a").unwrap().value, Value::String("yes".into()));
        assert_eq!(root.get("b").unwrap().value, Value::Bool(true));
        assert_eq!(root.get("c").unwrap().value, Value::Int(12));
        assert_eq!(root.get("d").unwrap().value, Value::Float(1.5));
        assert_eq!(root.get("e").unwrap().value, Value::Null);
        assert_eq!(root.get("f").unwrap().value, Value::String("3".into()));
        assert_eq!(root.get("g").unwrap().value, Value::Float(1000.0));
        assert_eq!(root.get("h").unwrap().value, Value::String("1.2.3".into()));
    }

    #[test]
    fn non_ascii_spans_are_byte_offsets() {
        let text = "é: ü\nk: v";
        let root = parse(text, 0).unwrap();
        let (key, value) = root.entry("k").unwrap();
        assert_eq!(&text[key.span.clone()], "k");
        assert_eq!(&text[value.span.clone()], "v");
    }

    #[test]
    fn errors_carry_a_position() {
        let text = "description: a: b\n";
        let err = parse(text, 0).unwrap_err();
        assert!(err.offset > 0 && err.offset <= text.len(), "{err:?}");
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..12 {
            let prev = (b'a' + level - 1) as char;
            let name = (b'a' + level) as char;
            let refs = vec![format!("*{prev}"); 10].join(", ");
            text.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        let err = parse(&text, 0).unwrap_err();
        assert!(err.message.contains("alias bomb"), "{err:?}");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let err = parse(&text, 0).unwrap_err();
        assert!(err.message.contains("nested deeper"), "{err:?}");
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let root = parse("a: 1\na: 2\n", 0).unwrap();
        assert_eq!(root.as_map().unwrap().len(), 2);
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(parse("", 0).unwrap().value, Value::Null);
        assert_eq!(parse("# only a comment\n", 0).unwrap().value, Value::Null);
    }
}
