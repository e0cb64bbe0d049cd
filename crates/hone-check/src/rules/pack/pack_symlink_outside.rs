//! HP001 `pack-symlink-outside`: its documentation, what `hone rule HP001`
//! prints; the check is in `pack::select`.

crate::rules::rule_doc! {
    /// A symlink in the skill folder points outside the skill, or nowhere. A
    /// pack carries files, not links, and a link that leaves the skill could
    /// take a private file (`~/.ssh/id_rsa`) into a pack meant for upload, so
    /// the link is left out of the pack and reported.
    ///
    /// Copy the file into the skill, or remove the link.
}
