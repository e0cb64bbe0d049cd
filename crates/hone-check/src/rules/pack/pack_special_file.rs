//! HP005 `pack-special-file`: its documentation, what `hone rule HP005`
//! prints; the check is in `pack::select`.

crate::rules::rule_doc! {
    /// The skill folder holds something that is neither a file nor a folder (a
    /// socket, a FIFO, a device). A pack holds files only, so it is left out.
    ///
    /// Remove it, or list it in `.honeignore`.
}
