//! HS308 `yaml11-boolean`: its documentation, what `hone rule HS308`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// In YAML 1.2 `no` is the text "no"; in YAML 1.1, which PyYAML and most Python
    /// tools implement, it is the boolean `false`. A text field written as `yes`,
    /// `no`, `on`, `off`, `y` or `n` (any case) therefore changes type with the
    /// parser.
    ///
    /// ```yaml
    /// metadata:
    ///   experimental: no      # HS308: false to PyYAML, "no" to Hone
    ///   experimental: "no"    # fixed
    /// ```
    ///
    /// The fix quotes the value. For fields that *are* booleans, see HS309.
}
