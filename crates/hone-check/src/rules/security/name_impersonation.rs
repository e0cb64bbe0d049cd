//! HS910 `name-impersonation`: its documentation, what `hone rule HS910`
//! prints; the detector is `security::detect::name_impersonation`.

crate::rules::rule_doc! {
    /// A `name` one slip away from a well-known skill's (`skill-creater`,
    /// `pdf-tools` is fine, `xlsx` is the original) or written with look-alike
    /// characters (`sk1ll-creator`, `rnermaid` for `mermaid`): a typosquat
    /// gets picked, installed or routed to in place of the skill it imitates.
    /// Also two skills of one library whose names are the same once
    /// look-alikes are folded.
    ///
    /// Look-alike spellings are high; one edit away from a well-known name
    /// (names of six letters or more) is medium.
}
