//! What the retrieval view reads of a skill beyond its listing: the body cut
//! into sections at its headings, the headings themselves, the titles of its
//! reference files and the names of its scripts.
//!
//! Everything comes from the loaded skill (its `SKILL.md` and the list of its
//! files), so building the view reads no file a check has not read already:
//! a reference file's title is its name made readable
//! (`references/rate-limits.md` → "rate limits"), not its first heading.

use crate::skill::Skill;

use super::super::RoutingDoc;

/// Sections beyond this many are left out of a skill's embedded chunks
/// (skills put what they are about first; a 60-section manual would
/// otherwise cost 60 forward passes to index).
pub const MAX_CHUNKS: usize = 12;

/// A chunk's text is cut to this many bytes before it is embedded (about
/// 100 tokens): the heading and the opening of its section say what the
/// section is about, and the forward pass costs about linearly in tokens.
pub const CHUNK_BYTES: usize = 480;

/// The body text indexed for keywords is cut to this many bytes: a 200 KB
/// reference dump in a `SKILL.md` says no more about the task than its
/// first 32 KB, and would make one skill a large share of the index.
pub const MAX_BODY_BYTES: usize = 32 * 1024;

/// A skill as the retrieval view indexes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RetrievalDoc {
    pub routing: RoutingDoc,
    /// The headings of the body, in order, without their `#` marks.
    pub headings: Vec<String>,
    /// The body's prose (code blocks included: commands and API names are
    /// what requests name), cut to [`MAX_BODY_BYTES`].
    pub body: String,
    /// Reference files (markdown and text resources other than scripts),
    /// their paths made readable.
    pub references: Vec<String>,
    /// Script files (executables and code), their names made readable.
    pub scripts: Vec<String>,
    /// The texts to embed: each section (heading and opening), at most
    /// [`MAX_CHUNKS`], each at most [`CHUNK_BYTES`].
    pub chunks: Vec<Chunk>,
}

/// One section of the body, as it is embedded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The section's heading ("" for the text before the first heading).
    pub heading: String,
    /// What is embedded: `name › heading: opening of the section`.
    pub text: String,
}

impl RetrievalDoc {
    /// The retrieval document of a loaded (or edited, unsaved) skill.
    pub fn from_skill(skill: &Skill) -> Self {
        let routing = RoutingDoc::from_skill(skill);
        let sections = sections(skill.body());
        let headings = sections
            .iter()
            .filter(|s| !s.heading.is_empty())
            .map(|s| s.heading.to_owned())
            .collect();
        let chunks = sections
            .iter()
            .filter(|s| !s.heading.is_empty() || !s.text.trim().is_empty())
            .take(MAX_CHUNKS)
            .map(|s| chunk(&routing.name, s))
            .collect();
        let mut references = Vec::new();
        let mut scripts = Vec::new();
        for resource in &skill.resources {
            if resource.path == "SKILL.md" {
                continue;
            }
            if is_script(&resource.path, resource.executable) {
                scripts.push(readable(&resource.path));
            } else if resource.is_text {
                references.push(readable(&resource.path));
            }
        }
        RetrievalDoc {
            routing,
            headings,
            body: cut(skill.body(), MAX_BODY_BYTES).to_owned(),
            references,
            scripts,
            chunks,
        }
    }

    /// A document with the listing only (no body): what a ranker is given
    /// when only routing metadata is at hand.
    pub fn listing_only(routing: RoutingDoc) -> Self {
        RetrievalDoc {
            routing,
            ..RetrievalDoc::default()
        }
    }
}

/// A section of the body: the heading that opens it and the text under it.
struct Section<'a> {
    heading: &'a str,
    text: &'a str,
}

/// The body cut at its ATX headings (`#` to `######`), ignoring `#` lines
/// inside fenced code blocks (shell comments are not headings).
fn sections(body: &str) -> Vec<Section<'_>> {
    let mut sections = Vec::new();
    let mut heading = "";
    let mut start = 0;
    let mut in_fence = false;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(title) = heading_text(trimmed) {
            sections.push(Section {
                heading,
                text: &body[start..line_start],
            });
            heading = title;
            start = offset;
        }
    }
    sections.push(Section {
        heading,
        text: &body[start..],
    });
    sections
}

/// The title of a markdown heading line, or `None` for any other line.
fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let rest = &line[hashes..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t', '\n', '\r'])) {
        return None;
    }
    let title = rest.trim().trim_end_matches('#').trim();
    (!title.is_empty()).then_some(title)
}

fn chunk(name: &str, section: &Section<'_>) -> Chunk {
    // Whitespace runs (indentation, blank lines, tables) carry nothing for
    // the model and would use up the byte budget.
    let opening: String = section
        .text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut text = if section.heading.is_empty() {
        format!("{name}: {opening}")
    } else {
        format!("{name} › {}: {opening}", section.heading)
    };
    let cut_len = cut(&text, CHUNK_BYTES).len();
    text.truncate(cut_len);
    Chunk {
        heading: section.heading.to_owned(),
        text,
    }
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

const SCRIPT_EXTENSIONS: [&str; 12] = [
    "py", "sh", "bash", "js", "mjs", "ts", "rb", "pl", "ps1", "go", "rs", "r",
];

fn is_script(path: &str, executable: bool) -> bool {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    executable
        || path.starts_with("scripts/")
        || extension.is_some_and(|e| SCRIPT_EXTENSIONS.contains(&e.as_str()))
}

/// A resource path as words: folders and the file's stem, separators made
/// spaces (`references/api-rate_limits.md` → "references api rate limits").
fn readable(path: &str) -> String {
    let stem = match path.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() && !stem.ends_with('/') => stem,
        _ => path,
    };
    stem.split(['/', '-', '_', '.'])
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_cut_at_headings_but_not_at_comments_in_code() {
        let body = "Intro text.\n# Title\nOne.\n```sh\n# not a heading\n```\n## Usage ##\nTwo.\n#hashtag\n";
        let found: Vec<(&str, &str)> = sections(body).iter().map(|s| (s.heading, s.text)).collect();
        assert_eq!(
            found,
            vec![
                ("", "Intro text.\n"),
                ("Title", "One.\n```sh\n# not a heading\n```\n"),
                ("Usage", "Two.\n#hashtag\n"),
            ]
        );
    }

    #[test]
    fn chunks_are_bounded_and_cut_at_character_boundaries() {
        let section = Section {
            heading: "Été",
            text: &"é ".repeat(1000),
        };
        let chunk = chunk("skill", &section);
        assert!(chunk.text.len() <= CHUNK_BYTES);
        assert!(chunk.text.starts_with("skill › Été: é é"));
    }

    #[test]
    fn resource_paths_are_made_readable() {
        assert_eq!(
            readable("references/api-rate_limits.md"),
            "references api rate limits"
        );
        assert_eq!(readable("scripts/run.py"), "scripts run");
        assert_eq!(readable(".env"), "env");
        assert!(is_script("tools/x.PY", false));
        assert!(is_script("bin/run", true));
        assert!(!is_script("references/guide.md", false));
    }
}
