// The first start's welcome: shown once per app profile (the webview's
// local storage), so an author who closed it is not greeted again. The
// palette's "Welcome" command shows it again on demand.

const WELCOMED_KEY = 'hone.welcomed';

/** Whether this is the profile's first start; marks it as seen. */
export function firstStart(storage: Pick<Storage, 'getItem' | 'setItem'> | null = safeStorage()): boolean {
  if (!storage) return false;
  try {
    if (storage.getItem(WELCOMED_KEY) === '1') return false;
    storage.setItem(WELCOMED_KEY, '1');
    return true;
  } catch {
    // Storage refused: greeting on every start would nag, so greet never.
    return false;
  }
}

function safeStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
