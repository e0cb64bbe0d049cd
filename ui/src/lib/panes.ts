// The widths of the window's panes: the library sidebar, the frontmatter
// form and the inspector are sized by the author (the text editor takes what
// is left), within limits that keep every pane usable, and are fitted to
// the window so that at its minimum width (1,024 px) nothing is cut.

export interface PaneWidths {
  sidebar: number;
  form: number;
  inspector: number;
}

export type Pane = keyof PaneWidths;

/** The narrowest each pane may be, in CSS pixels; the editor's is `EDITOR_MIN`. */
export const PANE_MIN: PaneWidths = { sidebar: 170, form: 200, inspector: 360 };
export const EDITOR_MIN = 260;
/** The width of the form pane when it is collapsed to its title strip. */
export const FORM_COLLAPSED = 32;
/** The width of a splitter between two panes. */
export const SPLITTER = 5;
export const PANE_DEFAULT: PaneWidths = { sidebar: 220, form: 270, inspector: 420 };

/** The order in which panes give up width when the window is too narrow: the form first. */
const SHRINK_ORDER: Pane[] = ['form', 'sidebar', 'inspector'];

/**
 * The widths to lay out: the wanted ones, each at least its minimum, shrunk
 * (form, then sidebar, then inspector, never below their minimums) until the
 * editor keeps its minimum in a window `windowWidth` wide.
 */
export function fitPanes(wanted: PaneWidths, windowWidth: number, formCollapsed: boolean): PaneWidths {
  const widths: PaneWidths = {
    sidebar: Math.max(PANE_MIN.sidebar, wanted.sidebar),
    form: formCollapsed ? FORM_COLLAPSED : Math.max(PANE_MIN.form, wanted.form),
    inspector: Math.max(PANE_MIN.inspector, wanted.inspector),
  };
  const splitters = 3 * SPLITTER;
  let excess = widths.sidebar + widths.form + widths.inspector + splitters + EDITOR_MIN - windowWidth;
  for (const pane of SHRINK_ORDER) {
    if (excess <= 0) break;
    if (pane === 'form' && formCollapsed) continue;
    const give = Math.min(excess, widths[pane] - PANE_MIN[pane]);
    widths[pane] -= give;
    excess -= give;
  }
  return widths;
}

/** Reads remembered widths, ignoring anything that is not a set of three positive numbers. */
export function parseWidths(stored: string | null): PaneWidths | null {
  if (!stored) return null;
  try {
    const value: unknown = JSON.parse(stored);
    if (typeof value !== 'object' || value === null) return null;
    const v = value as Record<string, unknown>;
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;
    return ok(v.sidebar) && ok(v.form) && ok(v.inspector) ? { sidebar: v.sidebar, form: v.form, inspector: v.inspector } : null;
  } catch {
    return null;
  }
}
