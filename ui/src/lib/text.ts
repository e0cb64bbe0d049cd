// Small text helpers the editor needs at the boundary with the engine, which
// counts in UTF-8 bytes while the browser counts in UTF-16 code units.

/** Maps byte offsets of `text` (UTF-8) to string indices (UTF-16). */
export class OffsetMap {
  private readonly text: string;
  // Byte offset at the start of every 64th code unit, so a lookup walks at most 64.
  private readonly checkpoints: number[] = [];

  constructor(text: string) {
    this.text = text;
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      if (i % 64 === 0) this.checkpoints.push(bytes);
      bytes += utf8Length(text.charCodeAt(i));
    }
    this.checkpoints.push(bytes);
  }

  /** The string index of byte `offset`, clamped to the text. */
  toIndex(offset: number): number {
    let low = 0;
    let high = this.checkpoints.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.checkpoints[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    let index = Math.min(low * 64, this.text.length);
    let bytes = this.checkpoints[low];
    while (index < this.text.length && bytes < offset) {
      const pair = isHighSurrogate(this.text.charCodeAt(index));
      bytes += pair ? 4 : utf8Length(this.text.charCodeAt(index));
      index += pair ? 2 : 1;
    }
    return index;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** UTF-8 bytes of one UTF-16 code unit (a surrogate pair counts 2 + 2). */
function utf8Length(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 2;
  return 3;
}

/** The one replacement that turns `before` into `after`, as small as possible. */
export function minimalChange(
  before: string,
  after: string,
): { from: number; to: number; insert: string } | null {
  if (before === after) return null;
  let start = 0;
  const shortest = Math.min(before.length, after.length);
  while (start < shortest && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (
    endBefore > start &&
    endAfter > start &&
    before.charCodeAt(endBefore - 1) === after.charCodeAt(endAfter - 1)
  ) {
    endBefore--;
    endAfter--;
  }
  return { from: start, to: endBefore, insert: after.slice(start, endAfter) };
}

/** "1,234". Written out: `toLocaleString` builds an ICU formatter on every
 *  call in WebKit, which costs more than a whole row of the skill list. */
export function formatCount(n: number): string {
  const sign = n < 0 ? '-' : '';
  const digits = String(Math.trunc(Math.abs(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "1 file", "2 files": a count with its noun, plural unless one. */
export function countOf(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** "12.3 KiB" */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Whether a skill matches the sidebar's text filter (id or description, any case). */
export function matchesFilter(id: string, description: string, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  if (!needle) return true;
  return id.toLowerCase().includes(needle) || description.toLowerCase().includes(needle);
}
