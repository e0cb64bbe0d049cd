//! HS103 `name-format`: its documentation, check and tests.

use unicode_normalization::char::is_combining_mark;

use super::{is_valid_name, shown_char};
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// A name is 1–64 characters of lowercase ASCII letters, digits and hyphens, with
    /// no hyphen at the start or end and no two in a row: `pdf-tools`, not
    /// `PDF Tools`, `pdf_tools`, `-pdf` or `pdf--tools`.
    ///
    /// ```yaml
    /// name: PDF_Tools   # HS103
    /// name: pdf-tools   # fixed
    /// ```
    ///
    /// The fix lowercases the name and turns runs of other characters into one
    /// hyphen.
    ///
    /// **skills-ref differs:** it accepts any Unicode letter or digit (`café`,
    /// `数据`), after NFKC normalisation, because Python's `str.isalnum()` does
    /// (skills-ref `validator.py`; tests `test_i18n_chinese_name`,
    /// `test_nfkc_normalization`). The spec's text says "unicode lowercase
    /// alphanumeric characters (`a-z`, `0-9`)", which its examples and Anthropic's
    /// upload read as ASCII. Hone follows the ASCII reading and, for a name with
    /// other letters, says which client accepts it. A character that does not show
    /// on its own (a combining accent, an invisible format character) is named by
    /// its code point, `U+0301`, not quoted. GitHub Copilot's docs ask for the same
    /// form ("lowercase, using hyphens for spaces"); what its CLI actually refuses
    /// is HS108.
}

/// `HS103`, with a fix to the name's slug when that is a valid name.
pub(super) fn check(checker: &mut Checker, value: &Node, name: &str) {
    let Some(problem) = format_problem(name) else {
        return;
    };
    let fixed = slug(name);
    let report = checker
        .report(
            Rule::NameFormat,
            value.span.clone(),
            format!("`name` {problem}"),
        )
        .help("use lowercase letters, digits and single hyphens, e.g. `pdf-tools`");
    if is_valid_name(&fixed) {
        let title = format!("Rename to `{fixed}`");
        report.fix(title, value.span.clone(), fixed);
    }
}

/// The name lowercased, with every run of other characters as one hyphen.
fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// What is wrong with a name's format, in words.
fn format_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some("is empty".into());
    }
    if let Some(c) = name.chars().find(|c| c.is_uppercase()) {
        return Some(format!("contains the uppercase letter `{c}`"));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
    {
        let shown = shown_char(c);
        let others = if c.is_alphanumeric() || is_combining_mark(c) {
            " (skills-ref accepts Unicode letters after NFKC; the spec's `a-z` and Anthropic's upload do not)"
        } else {
            ""
        };
        return Some(format!(
            "contains {shown}; only `a-z`, `0-9` and `-` are allowed{others}"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("starts or ends with a hyphen".into());
    }
    name.contains("--")
        .then(|| "contains two hyphens in a row".into())
}

#[cfg(test)]
mod tests {
    use crate::rules::name::tests::with_name;
    use crate::rules::testing::*;

    #[test]
    fn name_format_and_its_fix() {
        let text = with_name("My_Skill");
        let d = fires(Rule::NameFormat, &text);
        assert_eq!(spanned(&text, &d), "My_Skill");
        assert!(fixed(Rule::NameFormat, &text).contains("name: my-skill\n"));
        for bad in ["-a", "a-", "a--b", "café", "\"\"", "a b"] {
            fires(Rule::NameFormat, &with_name(bad));
        }
        quiet(Rule::NameFormat, &with_name("my-skill"));
        quiet(Rule::NameFormat, &with_name("pdf2docx"));
    }

    /// A bare combining mark is named by its code point, not quoted.
    #[test]
    fn name_format_names_invisible_characters_by_code_point() {
        let d = fires(Rule::NameFormat, &with_name("cafe\u{301}"));
        assert!(d.message.contains("U+0301"), "{}", d.message);
        assert!(!d.message.contains("`\u{301}`"), "{}", d.message);
        let d = fires(Rule::NameFormat, &with_name("caf\u{e9}"));
        assert!(d.message.contains("skills-ref accepts"), "{}", d.message);
    }
}
