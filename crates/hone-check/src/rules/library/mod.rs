//! `HS501`, `HS502`: rules about the library as a whole rather than one
//! skill. Each is checked in its own module (`HS502` in [`super::collision`]).

pub(crate) mod duplicate_name;

use super::Target;
use crate::diagnostic::Diagnostic;
use crate::library::Library;
use crate::rules::cache::CollisionMemo;
use crate::skill::Skill;

pub(super) fn check(
    library: &Library,
    target: Target,
    memo: Option<&CollisionMemo>,
    out: &mut Vec<Diagnostic>,
) {
    super::collision::check(library, target, memo, out);
    duplicate_name::check(library, target, out);
}

/// The library-wide findings of one skill as it is being edited. `target`
/// only selects the rules that apply: the compatibility row checks once for
/// every client and filters (see `compat::skill_row`).
pub(super) fn check_one(
    skill: &Skill,
    library: &Library,
    target: Target,
    out: &mut Vec<Diagnostic>,
) {
    super::collision::check_one(skill, library, target, out);
    duplicate_name::check_one(skill, library, target, out);
}
