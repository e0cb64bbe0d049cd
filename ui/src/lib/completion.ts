// Skill-name completion for the fields where a name is typed (expected and
// rejected skills of a case): the token under the caret in a comma-separated
// list, the names that fit it, and the text once one is taken.

/** The comma-separated token around `caret`: its bounds and trimmed text. */
export function tokenAt(text: string, caret: number): { start: number; end: number; word: string } {
  const start = text.lastIndexOf(',', caret - 1) + 1;
  const next = text.indexOf(',', caret);
  const end = next === -1 ? text.length : next;
  return { start, end, word: text.slice(start, end).trim() };
}

/**
 * Names that fit `word`, best first: those starting with it, then those
 * containing it (case-insensitive), each group in the library's order;
 * names already in the list are left out. An empty word lists the first ones.
 */
export function suggestNames(word: string, names: readonly string[], taken: readonly string[] = [], limit = 8): string[] {
  const needle = word.toLowerCase();
  const skip = new Set(taken);
  const starts: string[] = [];
  const contains: string[] = [];
  for (const name of names) {
    if (skip.has(name) || name === word) continue;
    const lower = name.toLowerCase();
    if (lower.startsWith(needle)) starts.push(name);
    else if (needle && lower.includes(needle)) contains.push(name);
    if (starts.length >= limit) break;
  }
  return [...starts, ...contains].slice(0, limit);
}

/** `text` with the token at `caret` replaced by `name`, and where the caret goes. */
export function acceptName(text: string, caret: number, name: string): { text: string; caret: number } {
  const { start, end } = tokenAt(text, caret);
  const before = text.slice(0, start).replace(/\s*$/, '');
  const after = text.slice(end);
  const head = before ? `${before} ${name}` : name;
  return { text: head + after, caret: head.length };
}

/** The other names of the list, to leave out of the suggestions. */
export function otherNames(text: string, caret: number): string[] {
  const { start, end } = tokenAt(text, caret);
  return (text.slice(0, start) + text.slice(end))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
