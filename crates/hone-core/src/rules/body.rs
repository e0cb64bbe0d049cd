//! `HS401`, `HS402`, `HS407`: the body's size and text. The body loads into
//! the context window whenever the skill is used, so the spec recommends
//! keeping it under 500 lines and 5,000 tokens and moving detail into files
//! that load only when needed.

use super::{Checker, Rule};
use crate::tokens::Tokenizer;

pub const MAX_BODY_LINES: usize = 500;
pub const MAX_BODY_TOKENS: usize = 5000;

pub(super) fn check(checker: &mut Checker) {
    body_length(checker);
    if checker.enabled(Rule::BodyTooManyTokens) {
        body_tokens(checker);
    }
    if checker.enabled(Rule::SpecialToken) {
        special_tokens(checker);
    }
}

fn body_length(checker: &mut Checker) {
    let skill = checker.skill;
    let text = skill.text();
    let body = skill.doc.body.clone();
    if body.is_empty() {
        return;
    }
    let first_line = skill.lines.position(text, body.start).line as usize;
    let lines = skill.lines.line_count(text) + 1 - first_line;
    if lines <= MAX_BODY_LINES {
        return;
    }
    let at = skill
        .lines
        .line_start((first_line + MAX_BODY_LINES) as u32)
        .unwrap_or(body.start);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    checker
        .report(
            Rule::BodyTooLong,
            at..end,
            format!("the body has {lines} lines; the spec recommends at most {MAX_BODY_LINES}"),
        )
        .help("move reference material into files under `references/` and link to them");
}

fn body_tokens(checker: &mut Checker) {
    let skill = checker.skill;
    let body = skill.body();
    let tokenizer = Tokenizer::o200k();
    // Counting stops at the limit: the exact total of a long body would cost
    // more than every other rule together, and `hone tokens` shows it.
    let exceeds = match checker.memo {
        Some(memo) => memo.exceeds(&tokenizer, body, MAX_BODY_TOKENS),
        None => tokenizer.exceeds(body, MAX_BODY_TOKENS),
    };
    if !exceeds {
        return;
    }
    let start = skill.doc.body.start;
    let end = skill.text()[start..]
        .find('\n')
        .map_or(skill.text().len(), |i| start + i);
    checker
        .report(Rule::BodyTooManyTokens, start..end, format!("the body has more than {MAX_BODY_TOKENS} tokens (o200k), the spec's recommended maximum"))
        .help("move detail into files under `references/` that load only when needed");
}

/// `<|name|>` with a name of letters, digits, `_` and `-`.
fn special_token_at(text: &str, at: usize) -> Option<usize> {
    let rest = &text.as_bytes()[at + 2..];
    let len = rest
        .iter()
        .take(64)
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))?;
    (len > 0 && rest[len..].starts_with(b"|>")).then_some(at + 2 + len + 2)
}

fn special_tokens(checker: &mut Checker) {
    let text = checker.text();
    let mut found = memchr::memmem::find_iter(text.as_bytes(), b"<|")
        .filter_map(|at| special_token_at(text, at).map(|end| at..end));
    let Some(first) = found.next() else { return };
    let more = found.count();
    let token = &text[first.clone()];
    let message = match more {
        0 => format!("`{token}` looks like a special token; it is counted as plain text"),
        n => format!(
            "`{token}` and {n} more look like special tokens; they are counted as plain text"
        ),
    };
    checker
        .report(Rule::SpecialToken, first, message)
        .help("fine in documentation; some tokenizers refuse text with special tokens unless told otherwise");
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn body_line_limit() {
        let long = skill_md("", &"line\n".repeat(501));
        let d = fires(Rule::BodyTooLong, &long);
        assert_eq!(d.span.start.line, 4 + 501);
        quiet(Rule::BodyTooLong, &skill_md("", &"line\n".repeat(500)));
    }

    #[test]
    fn body_token_limit() {
        // "word " is one o200k token per repetition.
        fires(
            Rule::BodyTooManyTokens,
            &skill_md("", &"word ".repeat(5200)),
        );
        quiet(
            Rule::BodyTooManyTokens,
            &skill_md("", &"word ".repeat(4800)),
        );
        // Long but few tokens per byte: 20,000 bytes of one repeated letter.
        quiet(Rule::BodyTooManyTokens, &skill_md("", &"a".repeat(4000)));
    }

    #[test]
    fn special_tokens_are_information() {
        let text = skill_md("", "Ends with <|endoftext|> and <|im_start|>.\n");
        let d = fires(Rule::SpecialToken, &text);
        assert_eq!(spanned(&text, &d), "<|endoftext|>");
        assert!(d.message.contains("1 more"));
        quiet(Rule::SpecialToken, &skill_md("", "a <| b |> c, x || y\n"));
    }
}
