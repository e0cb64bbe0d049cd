//! HS402 `body-too-many-tokens`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::tokens::Tokenizer;

crate::rules::rule_doc! {
    /// The spec recommends keeping the instructions under 5,000 tokens. Hone counts
    /// exactly with OpenAI's `o200k_base` encoding (no exact offline tokenizer
    /// exists for current Claude models; `hone tokens` shows a Claude estimate). A
    /// token covers at least one byte, so bodies under 5,000 bytes are never
    /// counted, and counting stops at the limit (`hone tokens` gives the total).
    /// `hone check` remembers the answer per body text, for the copies of a body
    /// within a run and across runs in the user's cache, so an unchanged body is
    /// never tokenized twice (`--no-cache` turns the user's cache off).
    /// Split detail into reference files.
}

const MAX_BODY_TOKENS: usize = 5000;

pub(super) fn check(checker: &mut Checker) {
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

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

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
}
