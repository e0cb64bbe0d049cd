//! HS103 `name-format`: its documentation, what `hone rule HS103`
//! prints; the check is in the area's `mod.rs`.

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
