//! The frontmatter most skills write, read without the YAML parser.
//!
//! Nine in ten `SKILL.md` files of the shared corpus (1,649 of 1,820) hold
//! nothing but `key: value` lines: one-line plain or quoted scalars, flow
//! lists of plain words, and one level of nested keys or list items.
//! Building their tree from `saphyr-parser`'s events took 7% of a first
//! check's CPU time, the dearest step of loading a skill after reading it;
//! with this reader, YAML takes 3.7%. It accepts only that subset and builds
//! the very tree the event builder builds, spans included; on anything else
//! it declines (`None`) and the parser reads the text. The tests hold the
//! two to the same tree on every frontmatter of the corpus and of the bundled
//! skills, on random mutations of each, and on random texts made of YAML's
//! awkward pieces.

use super::{Node, Value, resolve_plain};

/// The tree of `text` (at byte `base` of its file) when it lies in the
/// subset, else `None`.
pub(super) fn parse(text: &str, base: usize) -> Option<Node> {
    if !has_only_plain_characters(text.as_bytes()) {
        return None;
    }
    let lines = lines(text)?;
    let reader = Reader { text, base };
    let mut entries = Vec::with_capacity(lines.len());
    let mut next = 0;
    while let Some(&line) = lines.get(next) {
        if line.indent > 0 {
            return None;
        }
        let (key, after_colon) = reader.key(line)?;
        next += 1;
        let value = match reader.value_start(after_colon, line.end) {
            Some(from) => reader.scalar_or_list(from, line.end)?,
            None => {
                // Nothing after the colon: a nested block follows, or the
                // value is null. The block ends where a line at the left
                // margin is no list item.
                let block_end = lines[next..]
                    .iter()
                    .position(|l| l.indent == 0 && !reader.is_item(*l))
                    .map_or(lines.len(), |n| next + n);
                let block = &lines[next..block_end];
                next = block_end;
                // A block's span runs to the next key, blank lines included.
                let end = lines.get(block_end).map_or(text.len(), |l| l.start);
                if block.is_empty() {
                    scalar(Value::Null, key.span.end..key.span.end, true, String::new())
                } else {
                    reader.block(block, end)?
                }
            }
        };
        entries.push((key, value));
    }
    let first = lines.first()?;
    Some(Node::collection(
        Value::Map(entries),
        base + first.start..base + text.len(),
        None,
    ))
}

/// A line that holds more than nothing: its start, the spaces that indent
/// it and its end (before the line break), as byte offsets.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    indent: usize,
    end: usize,
}

impl Line {
    fn content(self) -> usize {
        self.start + self.indent
    }
}

/// The lines of `text` that are not empty; `None` when one holds only
/// spaces, which YAML reads differently by context.
fn lines(text: &str) -> Option<Vec<Line>> {
    let mut lines = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        let end = start + line.len();
        if !line.is_empty() {
            let indent = line.bytes().take_while(|&b| b == b' ').count();
            if indent == line.len() {
                return None;
            }
            lines.push(Line { start, indent, end });
        }
        start = end + 1;
    }
    Some(lines)
}

/// Whether `bytes` hold no tab, carriage return or other control character,
/// and none of the characters YAML reads as a line break or a byte order
/// mark (U+0085, U+2028, U+2029, U+FEFF) or refuses (U+FFFE, U+FFFF).
fn has_only_plain_characters(bytes: &[u8]) -> bool {
    let follows = |at: usize, next: &[u8]| bytes[at + 1..].starts_with(next);
    bytes.iter().enumerate().all(|(at, &b)| match b {
        b'\n' | 0x20..=0x7e => true,
        // C1 controls, U+0080 to U+009F, U+0085 among them.
        0xc2 => bytes.get(at + 1).is_some_and(|&next| next >= 0xa0),
        0xe2 => !follows(at, &[0x80, 0xa8]) && !follows(at, &[0x80, 0xa9]),
        0xef => {
            !follows(at, &[0xbb, 0xbf])
                && !follows(at, &[0xbf, 0xbe])
                && !follows(at, &[0xbf, 0xbf])
        }
        0x80.. => true,
        _ => false,
    })
}

/// The text between a scalar's quotes, unescaped; `None` when a quote ends
/// it early, or it holds an escape other than `\"` and `\\` (between double
/// quotes) or a doubled quote (between single ones).
fn unquote(inner: &str, quote: u8) -> Option<String> {
    if quote == b'\'' {
        return (!inner.contains('\'')).then(|| inner.to_owned());
    }
    let mut value = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => match chars.next()? {
                escaped @ ('"' | '\\') => value.push(escaped),
                _ => return None,
            },
            c => value.push(c),
        }
    }
    Some(value)
}

/// A scalar node.
fn scalar(value: Value, span: std::ops::Range<usize>, plain: bool, raw: String) -> Node {
    Node {
        value,
        span,
        plain,
        raw: Some(raw),
        block: false,
        tag: None,
    }
}

/// Whether a plain scalar may not start with `b`: YAML's indicators, and
/// `-`, `?` and `:`, which start one only before a non-space.
fn is_indicator(b: u8) -> bool {
    b"-?:,[]{}#&*!|>'\"%@`".contains(&b)
}

struct Reader<'a> {
    text: &'a str,
    base: usize,
}

impl Reader<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// The key that starts `line` (letters, digits, `_` and `-`, then a
    /// colon and a space or the line's end) and the offset after its colon.
    fn key(&self, line: Line) -> Option<(Node, usize)> {
        let bytes = self.bytes();
        let start = line.content();
        let first = bytes[start];
        if !(first.is_ascii_alphanumeric() || first == b'_') {
            return None;
        }
        let end = start
            + bytes[start..line.end]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
                .count();
        if bytes.get(end) != Some(&b':') || !(end + 1 == line.end || bytes[end + 1] == b' ') {
            return None;
        }
        Some((self.plain(start, end), end + 1))
    }

    /// Where the value after `from` starts on its line, if anything follows.
    fn value_start(&self, from: usize, end: usize) -> Option<usize> {
        let spaces = self.bytes()[from..end]
            .iter()
            .take_while(|&&b| b == b' ')
            .count();
        (from + spaces < end).then_some(from + spaces)
    }

    /// Whether `line` is a list item (`- ` then its value).
    fn is_item(&self, line: Line) -> bool {
        let rest = &self.bytes()[line.content()..line.end];
        rest.first() == Some(&b'-') && rest.get(1).is_none_or(|&b| b == b' ')
    }

    /// The lines nested under a key with nothing after its colon, all
    /// indented alike: list items or `key: value` lines. The node's span
    /// ends at `end`, where the next key starts.
    fn block(&self, lines: &[Line], end: usize) -> Option<Node> {
        let indent = lines[0].indent;
        if lines.iter().any(|line| line.indent != indent) {
            return None;
        }
        if self.is_item(lines[0]) {
            let mut items = Vec::with_capacity(lines.len());
            for &line in lines {
                if !self.is_item(line) {
                    return None;
                }
                let from = self.value_start(line.content() + 1, line.end)?;
                items.push(self.scalar_or_list(from, line.end)?);
            }
            // A list at the key's own indentation starts at its first
            // value, one indented at its first dash.
            let start = if indent == 0 {
                items[0].span.start
            } else {
                self.base + lines[0].content()
            };
            return Some(Node::collection(
                Value::Seq(items),
                start..self.base + end,
                None,
            ));
        }
        let mut entries = Vec::with_capacity(lines.len());
        for &line in lines {
            let (key, after_colon) = self.key(line)?;
            let from = self.value_start(after_colon, line.end)?;
            entries.push((key, self.scalar_or_list(from, line.end)?));
        }
        let start = entries[0].0.span.start;
        Some(Node::collection(
            Value::Map(entries),
            start..self.base + end,
            None,
        ))
    }

    /// The value from `from` to `end`, the end of its line: a quoted or
    /// plain scalar, or a flow list of plain scalars.
    fn scalar_or_list(&self, from: usize, end: usize) -> Option<Node> {
        let bytes = self.bytes();
        let trimmed = self.trimmed_end(from, end);
        let span = self.base + from..self.base + end;
        match bytes[from] {
            quote @ (b'"' | b'\'') => {
                if trimmed - from < 2 || bytes[trimmed - 1] != quote {
                    return None;
                }
                let value = unquote(&self.text[from + 1..trimmed - 1], quote)?;
                Some(scalar(Value::String(value.clone()), span, false, value))
            }
            b'[' => {
                if bytes[trimmed - 1] != b']' || trimmed - from < 2 {
                    return None;
                }
                let mut items = Vec::new();
                let inner = from + 1..trimmed - 1;
                if bytes[inner.clone()].iter().any(|&b| b != b' ') {
                    let mut item_start = inner.start;
                    for item in self.text[inner].split(',') {
                        items.push(self.flow_item(item_start, item_start + item.len())?);
                        item_start += item.len() + 1;
                    }
                }
                Some(Node::collection(Value::Seq(items), span, None))
            }
            first if is_indicator(first) => None,
            _ => {
                let text = &self.text[from..trimmed];
                if text.contains(": ") || text.contains(" #") || text.ends_with(':') {
                    return None;
                }
                Some(self.plain(from, trimmed))
            }
        }
    }

    /// One item of a flow list, between `from` and `end` with the spaces
    /// around it: a plain scalar without any character flow context reads
    /// specially.
    fn flow_item(&self, from: usize, end: usize) -> Option<Node> {
        let bytes = self.bytes();
        let start = from + bytes[from..end].iter().take_while(|&&b| b == b' ').count();
        let trimmed = self.trimmed_end(start, end);
        let text = &self.text[start..trimmed];
        let first = *text.as_bytes().first()?;
        if is_indicator(first) || text.bytes().any(|b| b"[]{},:#\"'".contains(&b)) {
            return None;
        }
        Some(self.plain(start, trimmed))
    }

    /// `end` less the spaces that end `from..end`.
    fn trimmed_end(&self, from: usize, end: usize) -> usize {
        let spaces = self.bytes()[from..end]
            .iter()
            .rev()
            .take_while(|&&b| b == b' ')
            .count();
        end - spaces
    }

    /// The plain scalar written at `start..end`, resolved by the core schema.
    fn plain(&self, start: usize, end: usize) -> Node {
        let text = &self.text[start..end];
        scalar(
            resolve_plain(text),
            self.base + start..self.base + end,
            true,
            text.to_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full parser's tree, printed: `Debug` also compares NaNs.
    fn full(text: &str, base: usize) -> Result<String, super::super::YamlError> {
        let node = super::super::parse_events(text, base)?;
        Ok(format!("{node:?}"))
    }

    /// When the subset reader reads `text`, the full parser reads it too, to
    /// the same tree.
    fn assert_agrees(text: &str) -> bool {
        let Some(simple) = parse(text, 7) else {
            return false;
        };
        match full(text, 7) {
            Ok(tree) => assert_eq!(format!("{simple:?}"), tree, "{text:?}"),
            Err(err) => panic!("the subset reader read {text:?}, the parser refused it: {err}"),
        }
        true
    }

    #[test]
    fn the_subset_reads_as_the_parser_reads() {
        for text in [
            "name: pdf\ndescription: \"Reads PDFs\"\n",
            "a: b\nmeta:\n  x: 'y'\n  z: w\nc: [a, b ,c]\nd:\n  - e\n  - f\ng: h\n",
            "a: b",
            "a: b  \n\nc: d\n",
            "a:\nb: c\n",
            "a: [ ]\nb: []\n",
            "a:\n- x\n- y\nb: z\n",
            "\n\na: 'q'  \nb: \"r\"   \n",
            "a:\n  x: y\n\nb: c",
            "a:\n    - x\n    - 'y'\n",
            "a:\n- \"x\"\n\n-   y\n",
            "k: ü é\nv: \"say \\\"hi\\\" \\\\ there\"\n",
            "n: 12\nf: 1.5\nt: true\nz: ~\nh: 0x1F\ni: .nan\n",
            "allowed-tools: [Read, Bash(git status), Write]\n",
            "url: https://example.com/a#b\nc: C# and F#\n",
        ] {
            assert!(assert_agrees(text), "the subset reader declined {text:?}");
        }
    }

    #[test]
    fn the_subset_declines_what_it_does_not_know() {
        for text in [
            "",
            "a: |\n  x\n",
            "a: >-\n  x\n",
            "a: b\n  c\n",
            "a: b # note\n",
            "# note\na: b\n",
            "a: &x b\nc: *x\n",
            "a: !!str 1\n",
            "a:\n  b:\n    c: d\n",
            "a: \"x\\ty\"\n",
            "a: \"x\\\"\n",
            "a: 'it''s'\n",
            "a: [x, [y]]\n",
            "a: {x: y}\n",
            "a: b\n---\n",
            "a: b\r\n",
            "a:\tb\n",
            "a: b\n  \nc: d\n",
            "\u{feff}a: b\n",
            "a: x\u{85}y\n",
            "\"a\": b\n",
            "a: b: c\n",
            "a:\n  - x\n  y: z\n",
            "a:\n  x: y\n    z: w\n",
        ] {
            assert!(parse(text, 0).is_none(), "the subset reader read {text:?}");
        }
    }

    /// YAML's awkward pieces, and some lines of the subset.
    const PIECES: &[&str] = &[
        "a",
        "name",
        "x1",
        "_k",
        "-",
        "é",
        "\u{a0}",
        "\u{85}",
        "\u{2028}",
        "\u{feff}",
        ":",
        ": ",
        " ",
        "  ",
        "\n",
        "\n  ",
        "\n- ",
        "- ",
        "  - ",
        "[",
        "]",
        ",",
        ", ",
        "'",
        "\"",
        "\\",
        "\\\"",
        "#",
        " #",
        "&",
        "*",
        "!",
        "|",
        ">",
        "%",
        "@",
        "`",
        "?",
        "{",
        "}",
        "\t",
        "\r",
        "~",
        "true",
        "null",
        "12",
        "-3",
        "1.5",
        "0x1f",
        ".inf",
        "---",
        "...",
        "key: value\n",
        "list:\n  - item\n",
        "meta:\n  k: v\n",
        "tools: [a, b]\n",
        "q: 'x'\n",
        "d: \"y\"\n",
    ];

    /// `text` with one of [`PIECES`] put in, or a stretch taken out, at a
    /// random character: a real frontmatter broken the ways hands break it.
    fn mutated(text: &str, rng: &mut fastrand::Rng) -> String {
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let at = boundaries[rng.usize(..boundaries.len())];
        let (kept, rest) = text.split_at(at);
        if rng.bool() {
            format!("{kept}{}{rest}", PIECES[rng.usize(..PIECES.len())])
        } else {
            let cut = rest
                .char_indices()
                .nth(rng.usize(1..8))
                .map_or(rest.len(), |(i, _)| i);
            format!("{kept}{}", &rest[cut..])
        }
    }

    /// Random texts of YAML's awkward pieces: whatever the subset reader
    /// reads, the parser reads to the same tree.
    #[test]
    fn random_texts_read_as_the_parser_reads_them() {
        let mut rng = fastrand::Rng::with_seed(11);
        let mut read = 0;
        for _ in 0..200_000 {
            let text: String = (0..rng.usize(1..14))
                .map(|_| PIECES[rng.usize(..PIECES.len())])
                .collect();
            read += usize::from(assert_agrees(&text));
        }
        assert!(read > 2_000, "only {read} random texts were in the subset");
    }

    /// The bundled skills' frontmatter, and mutations of it, each read by both.
    #[test]
    fn the_bundled_skills_read_as_the_parser_reads_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
        let mut rng = fastrand::Rng::with_seed(5);
        let mut read = 0;
        for entry in walkdir::WalkDir::new(&root) {
            let entry = entry.unwrap();
            if entry.file_name() == "SKILL.md" {
                let doc =
                    crate::document::SkillDocument::from_vec(std::fs::read(entry.path()).unwrap());
                if let Some((text, _)) = doc.yaml_text() {
                    read += usize::from(assert_agrees(text));
                    for _ in 0..500 {
                        assert_agrees(&mutated(text, &mut rng));
                    }
                }
            }
        }
        assert!(
            read >= 15,
            "only {read} bundled frontmatters were in the subset"
        );
    }

    /// With the corpus present: every frontmatter the subset reader reads,
    /// and every mutation of one, it reads as the parser does; and it reads
    /// most of them.
    #[test]
    #[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
    fn corpus_frontmatter_reads_as_the_parser_reads_it() {
        let mut rng = fastrand::Rng::with_seed(7);
        let (mut seen, mut read) = (0, 0);
        for (_, bytes) in crate::corpus_files::skill_files() {
            let doc = crate::document::SkillDocument::from_vec(bytes);
            if let Some((text, _)) = doc.yaml_text() {
                seen += 1;
                read += usize::from(assert_agrees(text));
                for _ in 0..20 {
                    assert_agrees(&mutated(text, &mut rng));
                }
            }
        }
        assert!(seen > 1000, "only {seen} frontmatters in the corpus");
        assert!(
            read * 4 > seen * 3,
            "the subset read only {read} of {seen} frontmatters"
        );
    }
}
