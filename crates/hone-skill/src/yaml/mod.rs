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
    /// For scalars: written as a block scalar (`|` or `>`, with any indicators).
    pub block: bool,
    /// The node's explicit tag as written (`!!binary`, `!custom`), if any.
    pub tag: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    pub message: String,
    /// Byte offset in the whole file.
    pub offset: usize,
}

impl Node {
    /// Calls `visit` on this node and every node under it, keys included,
    /// in source order.
    pub fn walk(&self, visit: &mut impl FnMut(&Node)) {
        visit(self);
        match &self.value {
            Value::Map(entries) => {
                for (key, value) in entries {
                    key.walk(visit);
                    value.walk(visit);
                }
            }
            Value::Seq(items) => items.iter().for_each(|item| item.walk(visit)),
            _ => {}
        }
    }

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

    /// A sequence or mapping node.
    fn collection(value: Value, span: Range<usize>, tag: Option<String>) -> Node {
        Node {
            value,
            span,
            plain: false,
            raw: None,
            block: false,
            tag,
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

mod simple;

/// Parses one YAML document. `base` is the byte offset of `text` in the file,
/// added to every span. An empty document is `Null`.
pub fn parse(text: &str, base: usize) -> Result<Node, YamlError> {
    // Most frontmatter is a few `key: value` lines, read faster by hand.
    match simple::parse(text, base) {
        Some(node) => Ok(node),
        None => parse_events(text, base),
    }
}

/// [`parse`] through the YAML parser's events: every document.
fn parse_events(text: &str, base: usize) -> Result<Node, YamlError> {
    let offsets = CharOffsets::new(text, base);
    let mut builder = Builder {
        parser: Parser::new_from_str(text),
        text,
        offsets,
        anchors: HashMap::new(),
        nodes: 0,
        last_end: base,
        open_flows: Vec::new(),
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
    text: &'a str,
    offsets: CharOffsets,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    last_end: usize,
    /// Byte offsets (in the file) of the `[` / `{` of the flow collections
    /// being read, innermost last: an error while one is open is usually
    /// that it was never closed, and the parser notices only lines later.
    open_flows: Vec<usize>,
}

type Next<'a> = (Event<'a>, YamlSpan);

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<Next<'a>, YamlError> {
        match self.parser.next_event() {
            Some(Ok((event, span))) => {
                self.last_end = self.offsets.byte(span.end.index());
                Ok((event, span))
            }
            Some(Err(err)) => {
                let offset = self.offsets.byte(err.marker().index());
                Err(self.located_error(err.info(), offset))
            }
            None => Err(self.error("unexpected end of YAML", self.last_end)),
        }
    }

    fn error(&self, message: &str, offset: usize) -> YamlError {
        YamlError {
            message: message.to_owned(),
            offset,
        }
    }

    /// The parser's error at `offset`, moved to the opening bracket of a
    /// flow collection left open on an earlier line: `name: [invalid` is
    /// reported where the next key fails to parse, a line or more later.
    fn located_error(&self, message: &str, offset: usize) -> YamlError {
        let base = self.offsets.base;
        if let Some(&open) = self.open_flows.last() {
            let between = self
                .text
                .get(open - base..offset.saturating_sub(base).max(open - base));
            if between.is_some_and(|text| text.contains('\n')) {
                let bracket = &self.text[open - base..open - base + 1];
                let closer = if bracket == "[" { "]" } else { "}" };
                return self.error(
                    &format!("`{bracket}` is never closed with `{closer}` ({message})"),
                    open,
                );
            }
        }
        self.error(message, offset)
    }

    /// The tag as written: `!!` for the core schema's handle.
    fn tag_text(tag: Option<&saphyr_parser::Tag>) -> Option<String> {
        let tag = tag?;
        Some(if tag.is_yaml_core_schema() {
            format!("!!{}", tag.suffix)
        } else {
            format!("{}{}", tag.handle, tag.suffix)
        })
    }

    /// Whether the collection starting at byte `start` is in flow style.
    fn is_flow(&self, start: usize) -> bool {
        self.text
            .as_bytes()
            .get(start - self.offsets.base)
            .is_some_and(|b| matches!(b, b'[' | b'{'))
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
            block: false,
            tag: None,
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
                        block: matches!(style, ScalarStyle::Literal | ScalarStyle::Folded),
                        tag: Self::tag_text(tag.as_deref()),
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
            Event::SequenceStart(anchor, tag) => {
                let mut items = Vec::new();
                let end = self.children(start, false, |builder, event, span| {
                    items.push(builder.node(event, span, depth + 1)?);
                    Ok(())
                })?;
                (
                    Node::collection(
                        Value::Seq(items),
                        start..end,
                        Self::tag_text(tag.as_deref()),
                    ),
                    anchor,
                )
            }
            Event::MappingStart(anchor, tag) => {
                let mut entries = Vec::new();
                let end = self.children(start, true, |builder, event, span| {
                    let key = builder.node(event, span, depth + 1)?;
                    let (event, span) = builder.next()?;
                    entries.push((key, builder.node(event, span, depth + 1)?));
                    Ok(())
                })?;
                (
                    Node::collection(
                        Value::Map(entries),
                        start..end,
                        Self::tag_text(tag.as_deref()),
                    ),
                    anchor,
                )
            }
            _ => return Err(self.error("unexpected YAML event", start)),
        };
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        Ok(node)
    }

    /// Reads the children of the collection that starts at byte `start`,
    /// each through `child` (a sequence's item, a mapping's key and value),
    /// up to its end event (`MappingEnd` when `is_mapping`, else
    /// `SequenceEnd`), and returns the byte where it ends.
    fn children(
        &mut self,
        start: usize,
        is_mapping: bool,
        mut child: impl FnMut(&mut Self, Event<'a>, YamlSpan) -> Result<(), YamlError>,
    ) -> Result<usize, YamlError> {
        self.count(1, start)?;
        let flow = self.is_flow(start);
        if flow {
            self.open_flows.push(start);
        }
        loop {
            let (event, span) = self.next()?;
            if matches!(
                (&event, is_mapping),
                (Event::SequenceEnd, false) | (Event::MappingEnd, true)
            ) {
                if flow {
                    self.open_flows.pop();
                }
                return Ok(self.offsets.byte(span.end.index()).max(start));
            }
            child(self, event, span)?;
        }
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

    /// skills-ref's `test_invalid_yaml` (agentskills/agentskills,
    /// skills-ref/tests/test_parser.py): `name: [invalid` on line 1 of the
    /// YAML. The parser fails on a later line; the error points at the `[`.
    #[test]
    fn an_unclosed_flow_bracket_is_reported_where_it_opens() {
        let text = "name: [invalid\ndescription: broken\n";
        let err = parse(text, 4).unwrap_err();
        assert_eq!(err.offset, 4 + 6, "{err:?}");
        assert!(err.message.contains("`[` is never closed"), "{err:?}");
        // An error on the bracket's own line keeps the parser's position.
        let err = parse("a: [x, y: z: w]\n", 0).unwrap_err();
        assert!(!err.message.contains("never closed"), "{err:?}");
    }

    #[test]
    fn tags_and_block_styles_are_kept() {
        let root = parse(
            "a: !!binary aGk=\nb: >-\n  folded\nc: !!python/name:os.system x\n",
            0,
        )
        .unwrap();
        assert_eq!(root.get("a").unwrap().tag.as_deref(), Some("!!binary"));
        assert!(root.get("b").unwrap().block);
        assert_eq!(
            root.get("c").unwrap().tag.as_deref(),
            Some("!!python/name:os.system")
        );
        assert_eq!(root.get("b").unwrap().tag, None);
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
