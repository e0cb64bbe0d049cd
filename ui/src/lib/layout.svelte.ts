// How the window is laid out: the pane widths the author chose (remembered
// across sessions), whether the form is collapsed, the inspector's tab and
// the colour theme. Remembered in the webview's local storage: these are
// the author's preferences for the app, not part of any library.

import type { InspectorTab } from './ranking';
import { PANE_DEFAULT, PANE_MIN, type Pane, type PaneWidths, fitPanes, parseWidths } from './panes';

export type Theme = 'system' | 'light' | 'dark';

const WIDTHS_KEY = 'hone.layout.widths';
const FORM_KEY = 'hone.layout.formCollapsed';
const THEME_KEY = 'hone.theme';

function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function remember(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage refused (private mode, full): the layout is then for this session only.
  }
}

export class Layout {
  tab = $state<InspectorTab>('preview');
  wanted = $state<PaneWidths>(parseWidths(stored(WIDTHS_KEY)) ?? { ...PANE_DEFAULT });
  formCollapsed = $state(stored(FORM_KEY) === 'true');
  /** The width the panes share (the window's, less nothing): measured by the window's main area. */
  windowWidth = $state(typeof window === 'undefined' ? 1360 : window.innerWidth);
  theme = $state<Theme>(((t) => (t === 'light' || t === 'dark' ? t : 'system'))(stored(THEME_KEY)));
  private systemDark = $state(false);

  /** The widths laid out: the wanted ones, fitted to the window. */
  readonly widths = $derived(fitPanes(this.wanted, this.windowWidth, this.formCollapsed));
  readonly dark = $derived(this.theme === 'dark' || (this.theme === 'system' && this.systemDark));

  /** Follows the system's theme; returns the teardown. */
  watch(): () => void {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    const onScheme = () => (this.systemDark = query.matches);
    onScheme();
    query.addEventListener('change', onScheme);
    return () => query.removeEventListener('change', onScheme);
  }

  /** Sets a pane's width (from a splitter), remembered. */
  resize(pane: Pane, width: number): void {
    this.wanted = { ...this.wanted, [pane]: Math.max(PANE_MIN[pane], Math.round(width)) };
    remember(WIDTHS_KEY, JSON.stringify(this.wanted));
  }

  toggleForm(): void {
    this.formCollapsed = !this.formCollapsed;
    remember(FORM_KEY, String(this.formCollapsed));
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    remember(THEME_KEY, theme);
  }
}
