// Keyboard shortcuts: how a chord is written (for tooltips and the command
// palette) and whether a key event is that chord. "Mod" is Ctrl, or Cmd on
// macOS; a chord is written "Mod+Shift+P", "F8", "Mod+Enter".

const MAC = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform);

/** What the author reads for a chord: "Ctrl+Shift+P" (or "⌘+Shift+P" on macOS). */
export function chordLabel(chord: string): string {
  return chord.replace('Mod', MAC ? '⌘' : 'Ctrl');
}

/** Whether `e` is `chord`: the same key, and exactly the modifiers it names. */
export function matchesChord(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>, chord: string): boolean {
  const parts = chord.split('+');
  const key = parts[parts.length - 1];
  const mods = new Set(parts.slice(0, -1));
  const mod = MAC ? e.metaKey : e.ctrlKey;
  if (mod !== mods.has('Mod') || e.shiftKey !== mods.has('Shift') || e.altKey !== mods.has('Alt')) return false;
  if (!mods.has('Mod') && (e.ctrlKey || e.metaKey)) return false;
  return e.key.toLowerCase() === key.toLowerCase();
}

/** A tooltip naming what a control does and its shortcut: "Run (Ctrl+Enter)". */
export function withChord(label: string, chord: string | undefined): string {
  return chord ? `${label} (${chordLabel(chord)})` : label;
}
