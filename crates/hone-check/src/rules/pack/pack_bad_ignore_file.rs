//! HP006 `pack-bad-ignore-file`: its documentation, what `hone rule HP006`
//! prints; the check is in `pack::select`.

crate::rules::rule_doc! {
    /// A pattern of a `.honeignore` (gitignore syntax) does not parse. The
    /// other patterns still apply, so the pack may hold a file the author meant
    /// to leave out.
    ///
    /// Fix the pattern.
}
