//! HP002 `pack-unreadable`: its documentation, what `hone rule HP002`
//! prints; the check is in `pack::select`.

crate::rules::rule_doc! {
    /// A file of the skill could not be read while packing (permissions, a
    /// symlink loop, too many files), so the pack would miss it. Check the
    /// file's permissions, or list it in `.honeignore`.
}
