// Views of the library reach the window two ways, as a command's answer and
// as an event, and either may arrive first: the check that follows opening a
// library can finish before the opening's answer is read. A view replaces the
// one shown only when it is not older, so finished counts never fall back to
// "checking…".

import type { LibraryView } from './ipc';

/** Whether `incoming` should replace `shown`: a later reading of the library, or the same reading checked. */
export function supersedes(incoming: LibraryView, shown: LibraryView | null): boolean {
  if (!shown) return true;
  if (incoming.generation !== shown.generation) return incoming.generation > shown.generation;
  return !incoming.checking || shown.checking;
}
