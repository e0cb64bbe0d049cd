//! HP003 `pack-unsafe-name`: its documentation, what `hone rule HP003`
//! prints; the check is in `pack::select`.

crate::rules::rule_doc! {
    /// A pack is extracted on Linux, macOS and Windows, so every name in it
    /// must be safe on all three. A name harmless on Linux (`a\b`, `aux.md`,
    /// `notes.`, a name longer than 255 bytes) can escape the target folder,
    /// open a device or collide with another file on Windows; such a file is
    /// left out so that every pack Hone writes is one Hone can read back.
    ///
    /// Rename the file.
}
