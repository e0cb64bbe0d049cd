//! HS401 `body-too-long`: its documentation, check and tests.

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// The spec recommends a `SKILL.md` body under 500 lines. Everything in it loads
    /// whenever the skill is used; move reference material into `references/` files
    /// that the body links to, which load only when needed. The finding points at
    /// line 501 of the body.
}

const MAX_BODY_LINES: usize = 500;

pub(super) fn check(checker: &mut Checker) {
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
        .line_start(text, (first_line + MAX_BODY_LINES) as u32)
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

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn body_line_limit() {
        let long = skill_md("", &"line\n".repeat(501));
        let d = fires(Rule::BodyTooLong, &long);
        assert_eq!(d.span.start.line, 4 + 501);
        quiet(Rule::BodyTooLong, &skill_md("", &"line\n".repeat(500)));
    }
}
