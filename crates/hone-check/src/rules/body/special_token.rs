//! HS407 `special-token`: its documentation, check and tests.

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// Strings such as `<|endoftext|>` or `<|im_start|>` are control tokens of some
    /// models' tokenizers. In a skill they are plain text: Hone counts them as the
    /// ordinary characters they are, and agents send them as text. But tools that
    /// tokenize with special tokens enabled may refuse the file: tiktoken raises by
    /// default, and skillcheck 1.5.0 crashes on the corpus skills that contain one.
    /// Usually they appear in documentation about tokenizers, which is fine;
    /// reported once per file as information.
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

pub(super) fn check(checker: &mut Checker) {
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
    use crate::rules::testing::*;

    #[test]
    fn special_tokens_are_information() {
        let text = skill_md("", "Ends with <|endoftext|> and <|im_start|>.\n");
        let d = fires(Rule::SpecialToken, &text);
        assert_eq!(spanned(&text, &d), "<|endoftext|>");
        assert!(d.message.contains("1 more"));
        quiet(Rule::SpecialToken, &skill_md("", "a <| b |> c, x || y\n"));
    }
}
