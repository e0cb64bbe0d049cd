// Views of the library reach the window two ways, as a command's answer and
// as an event, and either may arrive first: the check that follows opening a
// library can finish before the opening's answer is read. A view replaces the
// one shown only when it is not older, so finished counts never fall back to
// "checking…".
//
// An opening's answer can also be overtaken: a second library opened before
// the first one answers. The backend holds the library it opened last, which
// is the later reading, so the window shows that one, and the overtaken
// answer must not open its first skill over it.

import type { LibraryView } from './ipc';

/** Whether `incoming` should replace `shown`: a later reading of the library, or the same reading checked. */
export function supersedes(incoming: LibraryView, shown: LibraryView | null): boolean {
  if (!shown) return true;
  if (incoming.generation !== shown.generation) return incoming.generation > shown.generation;
  return !incoming.checking || shown.checking;
}

/**
 * Whether an opening's `answer` still describes the library `shown` (after
 * `supersedes` chose between them): its own reading or a later one, or an
 * earlier reading of the same roots, which a change on disk re-read before
 * the answer arrived. Not when another library's opening overtook it.
 */
export function stillShown(answer: LibraryView, shown: LibraryView | null): boolean {
  if (!shown || answer.generation >= shown.generation) return true;
  return (
    answer.roots.length === shown.roots.length &&
    answer.roots.every((root, i) => root.path === shown.roots[i].path && root.kind === shown.roots[i].kind)
  );
}
