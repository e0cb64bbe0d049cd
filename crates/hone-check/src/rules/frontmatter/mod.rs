//! `HS001`–`HS005`: the file can be decoded and has a frontmatter block that
//! parses as a YAML mapping. A skill failing these is dropped by agents,
//! usually without a word, so every message says what to type instead.
//!
//! Each rule is checked in its own module; `invalid_yaml` also reports
//! `HS014` (an unquoted `: `, which Claude Code forgives).

pub(crate) mod frontmatter_missing;
pub(crate) mod frontmatter_not_mapping;
pub(crate) mod frontmatter_unclosed;
pub(crate) mod invalid_utf8;
pub(crate) mod invalid_yaml;

use super::Checker;
use crate::document::FrontmatterBlock;

pub(super) fn check(checker: &mut Checker) {
    let skill = checker.skill;
    let doc = &skill.doc;
    invalid_utf8::check(checker);
    match &doc.frontmatter {
        FrontmatterBlock::Missing => {
            frontmatter_missing::check(checker, if doc.has_bom { 3 } else { 0 });
        }
        FrontmatterBlock::Unclosed { open } => frontmatter_unclosed::check(checker, open.clone()),
        FrontmatterBlock::Closed { open, .. } => match &skill.yaml {
            Some(Err(err)) => invalid_yaml::check(checker, err),
            Some(Ok(root)) => frontmatter_not_mapping::check(checker, root, open.clone()),
            None => {}
        },
    }
}

fn next_char(text: &str, at: usize) -> usize {
    text[at.min(text.len())..]
        .chars()
        .next()
        .map_or(at, |c| at + c.len_utf8())
}
