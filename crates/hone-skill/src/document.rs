//! Splitting a `SKILL.md` into its frontmatter and its body.
//!
//! The frontmatter is the YAML between a first line `---` and the next line that
//! is exactly `---`. Two mistakes of real skill loaders shape this module: a
//! `---` *inside* a value (`description: a---b`) is not a delimiter because the
//! delimiter must be a whole line, and a `---` inside a fenced code block of the
//! body never closes an unclosed frontmatter, because a line starting with a
//! backtick or tilde fence at column 0 cannot be YAML and so marks the body.
//!
//! All ranges are byte offsets into the decoded file text, which keeps a leading
//! byte-order mark so that offsets match the file on disk.

use std::ops::Range;

/// Where the frontmatter is, if anywhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterBlock {
    /// The file does not start with a `---` line.
    Missing,
    /// The opening `---` has no closing line.
    Unclosed { open: Range<usize> },
    /// `open` and `close` are the delimiter lines (without line endings), `yaml`
    /// the text between them.
    Closed {
        open: Range<usize>,
        yaml: Range<usize>,
        close: Range<usize>,
    },
}

/// A skill file decoded and split, ready for YAML parsing.
#[derive(Debug, Clone)]
pub struct SkillDocument {
    /// The file's text. Invalid UTF-8 sequences are replaced with U+FFFD.
    pub text: String,
    /// Byte offset (in the original bytes) of the first invalid UTF-8 sequence.
    pub invalid_utf8_at: Option<usize>,
    pub has_bom: bool,
    /// Whether any line ends with CRLF.
    pub has_crlf: bool,
    pub frontmatter: FrontmatterBlock,
    /// The markdown body: everything after the closing delimiter line.
    pub body: Range<usize>,
}

impl SkillDocument {
    /// Decodes and splits raw file bytes. Never fails: problems are recorded.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self::from_vec(bytes.to_vec())
    }

    /// [`SkillDocument::from_bytes`], taking the bytes: valid UTF-8 (nearly
    /// every file) becomes the text without a copy.
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => Self::parse(text),
            Err(err) => {
                let valid_up_to = err.utf8_error().valid_up_to();
                let mut doc = Self::parse(String::from_utf8_lossy(err.as_bytes()).into_owned());
                doc.invalid_utf8_at = Some(valid_up_to);
                doc
            }
        }
    }

    /// Splits already-decoded text (for example an editor's unsaved buffer).
    pub fn parse(text: String) -> Self {
        let has_bom = text.starts_with('\u{feff}');
        let has_crlf = memchr::memmem::find(text.as_bytes(), b"\r\n").is_some();
        let (frontmatter, body_start) = split(&text, if has_bom { 3 } else { 0 });
        let body = body_start..text.len();
        SkillDocument {
            text,
            invalid_utf8_at: None,
            has_bom,
            has_crlf,
            frontmatter,
            body,
        }
    }

    pub fn body_text(&self) -> &str {
        &self.text[self.body.clone()]
    }

    /// The YAML text, when the frontmatter is closed.
    pub fn yaml_text(&self) -> Option<(&str, usize)> {
        match &self.frontmatter {
            FrontmatterBlock::Closed { yaml, .. } => Some((&self.text[yaml.clone()], yaml.start)),
            _ => None,
        }
    }
}

/// Lines of `text` from `from`: (content range without line ending, next line start).
fn lines(text: &str, from: usize) -> impl Iterator<Item = (Range<usize>, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = from;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let newline = memchr::memchr(b'\n', &bytes[at..]).map(|i| at + i);
        let next = newline.map_or(bytes.len(), |i| i + 1);
        let mut end = newline.unwrap_or(bytes.len());
        if end > at && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        let line = at..end;
        at = next;
        Some((line, next))
    })
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "---"
}

fn is_fence(line: &str) -> bool {
    line.starts_with("```") || line.starts_with("~~~")
}

fn split(text: &str, start: usize) -> (FrontmatterBlock, usize) {
    let mut iter = lines(text, start);
    let Some((open, yaml_start)) = iter.next() else {
        return (FrontmatterBlock::Missing, start);
    };
    if !is_delimiter(&text[open.clone()]) {
        return (FrontmatterBlock::Missing, start);
    }
    for (line, next) in iter {
        let content = &text[line.clone()];
        if is_delimiter(content) {
            let yaml = yaml_start..line.start;
            return (
                FrontmatterBlock::Closed {
                    open,
                    yaml,
                    close: line,
                },
                next,
            );
        }
        if is_fence(content) {
            break;
        }
    }
    (FrontmatterBlock::Unclosed { open }, yaml_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed_yaml(doc: &SkillDocument) -> &str {
        doc.yaml_text().expect("closed frontmatter").0
    }

    #[test]
    fn splits_frontmatter_and_body() {
        let doc = SkillDocument::parse("---\nname: a\n---\n# Body\n".into());
        assert_eq!(closed_yaml(&doc), "name: a\n");
        assert_eq!(doc.body_text(), "# Body\n");
    }

    #[test]
    fn accepts_bom_and_crlf() {
        let doc = SkillDocument::parse("\u{feff}---\r\nname: a\r\n---\r\nbody".into());
        assert!(doc.has_bom && doc.has_crlf);
        assert_eq!(closed_yaml(&doc), "name: a\r\n");
        assert_eq!(doc.body_text(), "body");
    }

    #[test]
    fn dashes_inside_a_value_do_not_close() {
        let doc = SkillDocument::parse("---\ndescription: Long---description\n---\nbody".into());
        assert_eq!(closed_yaml(&doc), "description: Long---description\n");
    }

    #[test]
    fn dashes_in_a_body_fence_do_not_close_an_unclosed_frontmatter() {
        let doc = SkillDocument::parse("---\nname: a\n```yaml\n---\n```\n".into());
        assert!(matches!(doc.frontmatter, FrontmatterBlock::Unclosed { .. }));
    }

    #[test]
    fn dashes_in_a_fence_after_the_frontmatter_stay_in_the_body() {
        let text = "---\nname: a\n---\n```\n---\n```\n";
        let doc = SkillDocument::parse(text.into());
        assert_eq!(doc.body_text(), "```\n---\n```\n");
    }

    #[test]
    fn missing_and_empty_frontmatter() {
        assert_eq!(
            SkillDocument::parse("# Title".into()).frontmatter,
            FrontmatterBlock::Missing
        );
        assert_eq!(
            SkillDocument::parse(String::new()).frontmatter,
            FrontmatterBlock::Missing
        );
        assert_eq!(
            SkillDocument::parse("----\n".into()).frontmatter,
            FrontmatterBlock::Missing
        );
        let doc = SkillDocument::parse("---\n---\n".into());
        assert_eq!(closed_yaml(&doc), "");
    }

    #[test]
    fn invalid_utf8_is_recorded_and_replaced() {
        let doc = SkillDocument::from_bytes(b"---\nname: a\xff\n---\n");
        assert_eq!(doc.invalid_utf8_at, Some(11));
        assert!(doc.text.contains('\u{fffd}'));
    }
}
