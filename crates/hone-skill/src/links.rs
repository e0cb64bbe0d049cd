//! The relative links and images of a skill's body, and the path helpers
//! they need.
//!
//! The model (which files a body links to, for the link rules) and rendering
//! (which links to rewrite to the skill's files) both read bodies here, with
//! the same markdown options, so they always see the same links.

use std::path::{Component, Path};

use pulldown_cmark::{Event, Options, Parser, Tag};
use serde::{Deserialize, Serialize};

use crate::document::SkillDocument;

/// The markdown extensions Hone reads bodies with (GitHub's flavour), for
/// rendering and for finding links alike, so both see the same links.
pub const MARKDOWN_OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_GFM);

/// A relative link or image in the body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The destination as written.
    pub target: String,
    /// The destination resolved against the skill directory, `/`-separated and
    /// normalised; `None` when it climbs out of the skill directory.
    pub resolved: Option<String>,
    pub is_image: bool,
    /// Byte range of the link in the file.
    pub span: std::ops::Range<usize>,
}

/// A relative path with `/` between its parts, on every system.
pub fn slash_path(path: &Path) -> String {
    let parts: Vec<_> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// Relative links and images of the body, resolved against the skill directory.
pub(crate) fn body_links(doc: &SkillDocument) -> Vec<Link> {
    let body = doc.body_text();
    let base = doc.body.start;
    let mut links = Vec::new();
    // The markdown parse is the dearest part of loading a skill; most bodies
    // provably have no relative link and skip it.
    if !may_link_locally(body) {
        return links;
    }
    parse_links(body, base, &mut links);
    links
}

/// Every relative link and image of `body` (at byte `base` of the file), by
/// a full markdown parse.
fn parse_links(body: &str, base: usize, links: &mut Vec<Link>) {
    let parser = Parser::new_ext(body, MARKDOWN_OPTIONS).into_offset_iter();
    for (event, range) in parser {
        let (dest, is_image) = match event {
            Event::Start(Tag::Link { dest_url, .. }) => (dest_url, false),
            Event::Start(Tag::Image { dest_url, .. }) => (dest_url, true),
            _ => continue,
        };
        let Some(target) = relative_target(&dest) else {
            continue;
        };
        links.push(Link {
            target: dest.to_string(),
            resolved: normalize(&target),
            is_image,
            span: base + range.start..base + range.end,
        });
    }
}

/// Whether `body` may hold a relative link or image; `false` only when it
/// provably holds none, so that the markdown parse can be skipped.
///
/// Every link or image a parse finds has its destination right after `](`
/// (inline) or `]:` (a reference definition, which reference-style links
/// use), after optional whitespace and `<`. A destination that starts with
/// `#`, `/`, `)` or a scheme (`https:`) is not relative whatever follows;
/// escapes and entities begin with `\` or `&`, which count as relative here.
/// An occurrence on a line strictly inside a fenced code block is code, not
/// a link. Fences are only trusted when, up to the last occurrence, every
/// fence-like line starts at column 0 and no line starts an HTML block (`<`):
/// a fence there can belong to no container (list item, block quote) and lie
/// inside no HTML block, so where it opens and closes is plain to see.
fn may_link_locally(body: &str) -> bool {
    let bytes = body.as_bytes();
    let finder = memchr::memmem::Finder::new("](");
    let definitions = memchr::memmem::Finder::new("]:");
    let mut candidates: Vec<usize> = finder
        .find_iter(bytes)
        .chain(definitions.find_iter(bytes))
        .filter(|&at| may_be_relative(&bytes[at + 2..]))
        .collect();
    if candidates.is_empty() {
        return false;
    }
    candidates.sort_unstable();
    !all_in_fenced_code(body, &candidates)
}

/// The width of leading whitespace, tabs stopping at multiples of four.
fn columns(indent: &str) -> usize {
    indent.bytes().fold(0, |width, b| {
        if b == b'\t' {
            width / 4 * 4 + 4
        } else {
            width + 1
        }
    })
}

/// Whether a destination starting at `rest` may be a relative path.
fn may_be_relative(rest: &[u8]) -> bool {
    let start = rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(rest.len());
    let rest = &rest[start..];
    let rest = rest.strip_prefix(b"<").unwrap_or(rest);
    match rest.first() {
        None | Some(b'#' | b'/' | b')') => false,
        Some(_) => {
            let scheme = rest
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
                .count();
            !(scheme > 0 && rest.get(scheme) == Some(&b':'))
        }
    }
}

/// Whether each of `candidates` (sorted offsets into `body`) lies on a line
/// strictly inside a fenced code block, and fences can be trusted up to the
/// last of them (see [`may_link_locally`]). Lines are read only until a
/// candidate outside code, or past the last candidate: which lines are code
/// is settled line by line, so no later line changes it.
fn all_in_fenced_code(body: &str, candidates: &[usize]) -> bool {
    let mut candidates = candidates.iter().copied().peekable();
    let mut open: Option<(u8, usize)> = None;
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        let end = start + line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let unindented = content.trim_start_matches([' ', '\t']);
        let indent = content.len() - unindented.len();
        let fence_char = unindented
            .bytes()
            .next()
            .filter(|b| matches!(b, b'`' | b'~'));
        let fence_len =
            fence_char.map_or(0, |c| unindented.bytes().take_while(|&b| b == c).count());
        let fence_like = fence_len >= 3;
        match open {
            Some((c, len)) => {
                // A closing fence may be indented up to three columns.
                let closes = fence_char == Some(c)
                    && fence_len >= len
                    && columns(&content[..indent]) <= 3
                    && unindented[fence_len..].trim().is_empty();
                if closes {
                    open = None;
                } else {
                    while candidates.next_if(|&at| at < end).is_some() {}
                }
            }
            None if fence_like && indent > 0 => return false,
            None if unindented.starts_with('<') && columns(&content[..indent]) <= 3 => {
                return false;
            }
            None if fence_like => {
                let c = fence_char.unwrap_or(b'`');
                // A backtick fence's info string holds no backtick.
                if c == b'~' || !unindented[fence_len..].contains('`') {
                    open = Some((c, fence_len));
                }
            }
            None => {}
        }
        match candidates.peek() {
            // On this line, which is no code.
            Some(&at) if at < end => return false,
            Some(_) => {}
            None => return true,
        }
        start = end;
    }
    candidates.peek().is_none()
}

/// The path part of a relative destination; `None` for URLs, anchors and
/// absolute paths.
fn relative_target(dest: &str) -> Option<String> {
    let dest = dest.trim();
    if dest.is_empty() || dest.starts_with('#') || dest.starts_with('/') || dest.starts_with('\\') {
        return None;
    }
    let has_scheme = dest.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if has_scheme || dest.starts_with("//") || dest.contains("${") || dest.starts_with('<') {
        return None;
    }
    let path = dest.split(['#', '?']).next().unwrap_or_default();
    (!path.is_empty()).then(|| percent_decode(path))
}

/// `%20` and the like decoded; invalid escapes kept as written.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Normalises `a/./b/../c` to `a/c`; `None` when it climbs above the start.
pub fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The links of `body` by a full parse, skipping the prefilter.
    fn parsed_links(body: &str) -> Vec<Link> {
        let mut links = Vec::new();
        parse_links(body, 0, &mut links);
        links
    }

    #[test]
    fn the_link_prefilter_skips_only_bodies_without_relative_links() {
        let fragments = [
            "See [ref](references/a.md).",
            "[web](https://x.y) and [top](#top) and [abs](/etc/x)",
            "```",
            "````",
            "~~~",
            "```python",
            "```js `x`",
            "  ```",
            "    ```",
            "\t```",
            "- item",
            "  - [nested](scripts/x.py)",
            "> quote [q](q.md)",
            "> ```",
            "<div>",
            "</div>",
            "<!-- [c](c.md)",
            "-->",
            "",
            "    indented [i](i.md)",
            "[def]: ./defined.md",
            "see [def] and [other][def]",
            "a[0](x) `b[1](y)`",
            "![img](assets/i.png)",
        ];
        // Every body of up to four fragment lines, in any order.
        let n = fragments.len();
        let mut checked = 0;
        for a in 0..n {
            for b in 0..n {
                for (c, d) in [(0, 2), (2, 0), (3, 7), (a, b), (8, 13), (14, 18)] {
                    let body = [fragments[a], fragments[b], fragments[c], fragments[d]].join("\n");
                    let parsed = parsed_links(&body);
                    if !may_link_locally(&body) {
                        assert!(parsed.is_empty(), "skipped a body with links: {body:?}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 3000);
    }

    #[test]
    fn links_in_top_level_fences_need_no_parse() {
        let body = "Intro\n\n```md\nSee [x](x.md)\n```\n\n[site](https://a.b)\n";
        assert!(!may_link_locally(body));
        assert!(parsed_links(body).is_empty());
        // An indented fence may belong to a list item: the parse decides.
        let body = "- a\n  ```\n  [x](x.md)\n  ```\n";
        assert!(may_link_locally(body));
        // An unclosed fence runs to the end.
        assert!(!may_link_locally("```\n[x](x.md)\n"));
        // A closing fence may be indented up to three columns.
        assert!(may_link_locally("```\ncode\n   ```\n[x](x.md)\n"));
        assert!(!may_link_locally("```\ncode\n    ```\n[x](x.md)\n"));
        // An HTML block can hold a fence line that is not a fence.
        assert!(may_link_locally("<div>\n```\n</div>\n\n[x](x.md)\n```\n"));
        // What follows the last occurrence cannot make it a link.
        let body = "```\n[x](x.md)\n```\n<div>\n    ```\n";
        assert!(!may_link_locally(body));
        assert!(parsed_links(body).is_empty());
    }
}
