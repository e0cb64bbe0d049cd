// How the frontmatter form shows the engine's field table
// (hone_core::fields, sent by `frontmatter_fields`). Keys, types, limits and
// help all come from the table; this is presentation only, and the engine's
// rules decide what is valid.

import type { FieldReader, FrontmatterField } from './ipc';

/** A field's current value as the form shows it. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A list field's items (the app sends lists already split, as the engine reads them). */
export function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(textOf);
  if (typeof value === 'string' && value.trim() !== '') return [value];
  return [];
}

/** Whether the form edits a field of this type (maps, integers and free values are edited in the text). */
export function isEditable(field: FrontmatterField): boolean {
  return ['string', 'text', 'boolean', 'enum', 'list'].includes(field.type);
}

/** The fields the form shows: every editable one, the others only when the frontmatter has them. */
export function shownFields(
  table: FrontmatterField[],
  values: Record<string, unknown> | null,
): FrontmatterField[] {
  return table.filter((f) => isEditable(f) || (values !== null && f.key in values));
}

/** Keys of the frontmatter the table does not know, kept as written. */
export function unknownKeys(table: FrontmatterField[], values: Record<string, unknown> | null): string[] {
  if (!values) return [];
  const known = new Set(table.map((f) => f.key));
  return Object.keys(values).filter((k) => !known.has(k));
}

const READER_NAMES: Record<FieldReader, string> = {
  agentskills: 'the spec',
  'claude-code': 'Claude Code',
  'claude-api': 'the Claude API',
  copilot: 'GitHub Copilot',
  routers: 'skill routers',
};

/** Who reads a field, in a few words: "every agent" for the spec's keys. */
export function readersLabel(readers: FieldReader[]): string {
  if (readers.includes('agentskills')) return 'every agent';
  return readers.map((r) => READER_NAMES[r]).join(', ');
}

/** The choices of an enumerated field; a value outside them stays selectable, so showing it changes nothing. */
export function enumChoices(values: string[], current: unknown): string[] {
  const written = textOf(current);
  return written === '' || values.includes(written) ? values : [...values, written];
}
