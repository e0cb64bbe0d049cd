//! `HS401`, `HS402`, `HS407`: the body's size and text. The body loads into
//! the context window whenever the skill is used, so the spec recommends
//! keeping it under 500 lines and 5,000 tokens and moving detail into files
//! that load only when needed. Each rule is checked in its own module.

pub(crate) mod body_too_long;
pub(crate) mod body_too_many_tokens;
pub(crate) mod special_token;

use super::{Checker, Rule};

pub(super) fn check(checker: &mut Checker) {
    body_too_long::check(checker);
    if checker.enabled(Rule::BodyTooManyTokens) {
        body_too_many_tokens::check(checker);
    }
    if checker.enabled(Rule::SpecialToken) {
        special_token::check(checker);
    }
}
