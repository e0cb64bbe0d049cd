//! HS303 `metadata-not-strings`: its documentation, what `hone rule HS303`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// The spec defines `metadata` as a map from string keys to string values.
    /// `version: 1.0` is the number 1 to PyYAML and JavaScript (`1.10` even
    /// becomes `1.1`), and nested lists or maps are not allowed at all.
    ///
    /// ```yaml
    /// metadata:
    ///   version: 1.0       # HS303
    ///   version: "1.0"     # fixed
    /// ```
    ///
    /// The fix quotes a number or boolean. **skills-ref differs:** it converts every
    /// metadata value to a string with `str()`, so it never reports this, and a
    /// `1.10` it read through PyYAML would silently become `"1.1"`.
}
