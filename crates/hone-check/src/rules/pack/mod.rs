//! The pack's findings (`HP…`), one module per rule holding its
//! documentation. The checks that report them are the pack's
//! (`pack::select`, `pack::plugin`), which sit above the rules; the docs are
//! kept here so the registry names every rule without importing the pack.

pub(crate) mod pack_bad_ignore_file;
pub(crate) mod pack_case_collision;
pub(crate) mod pack_special_file;
pub(crate) mod pack_symlink_outside;
pub(crate) mod pack_unreadable;
pub(crate) mod pack_unsafe_name;
pub(crate) mod plugin_refused;
