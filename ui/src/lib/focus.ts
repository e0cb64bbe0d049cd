// Keyboard focus inside a dialog: what can take it, and where Tab goes next.

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

/** The elements inside `root` that Tab stops at, in document order. */
export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.hasAttribute('disabled') && !el.closest('[hidden], fieldset:disabled') && el.getClientRects().length > 0,
  );
}

/**
 * Where Tab (`step` 1) or Shift+Tab (-1) moves from `current` among `items`,
 * wrapping at both ends; the first (or last) item when the focus is elsewhere.
 */
export function nextFocus<T>(items: readonly T[], current: unknown, step: 1 | -1): T | undefined {
  if (items.length === 0) return undefined;
  const at = items.indexOf(current as T);
  if (at < 0) return step === 1 ? items[0] : items[items.length - 1];
  return items[(at + step + items.length) % items.length];
}
