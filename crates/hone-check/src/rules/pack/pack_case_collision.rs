//! HP004 `pack-case-collision`: its documentation, what `hone rule HP004`
//! prints; the check is in `pack::select`.

crate::rules::rule_doc! {
    /// Two files whose paths differ only in letter case (`Notes.md`,
    /// `notes.md`) would be merged by a case-insensitive file system (macOS,
    /// Windows) on extraction, so the second is left out.
    ///
    /// Rename one of the two files.
}
