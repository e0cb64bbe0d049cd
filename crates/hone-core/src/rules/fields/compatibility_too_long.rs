//! HS302 `compatibility-too-long`: its documentation, what `hone rule HS302`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// The spec's optional `compatibility` field (environment requirements: "Needs
    /// Python 3.10 and network access") holds 1–500 characters. Longer text belongs
    /// in the body.
}
