// The frontmatter keys the form knows, with their limits and one line of help.
// This is presentation only: the engine's rules decide what is valid and say
// so in the diagnostics shown beside the form.

export type FieldKind = 'text' | 'longText' | 'list' | 'bool';

export interface FieldSpec {
  key: string;
  label: string;
  kind: FieldKind;
  /** Characters allowed, where a limit applies. */
  limit?: number;
  help: string;
}

/** Claude Code lists description + when_to_use cut to this many characters. */
export const LISTING_CAP = 1536;

export const FIELDS: FieldSpec[] = [
  { key: 'name', label: 'Name', kind: 'text', limit: 64, help: 'Lowercase letters, digits and hyphens; the same as the folder name.' },
  { key: 'description', label: 'Description', kind: 'longText', limit: 1024, help: 'What the skill does and when to use it, in the third person. Agents choose skills by this text.' },
  { key: 'when_to_use', label: 'When to use', kind: 'longText', help: 'Claude Code: extra trigger context, appended to the description in the listing.' },
  { key: 'triggers', label: 'Triggers', kind: 'list', help: 'Phrases that should select this skill (read by skill routers).' },
  { key: 'allowed-tools', label: 'Allowed tools', kind: 'list', help: 'Tools the skill may use without asking, e.g. Read or Bash(git add *).' },
  { key: 'disallowed-tools', label: 'Disallowed tools', kind: 'list', help: 'Claude Code: tools the skill may not use.' },
  { key: 'paths', label: 'Paths', kind: 'list', help: 'Claude Code: globs of files that make the skill relevant.' },
  { key: 'license', label: 'License', kind: 'text', help: 'A license name or the path of a bundled license file.' },
  { key: 'compatibility', label: 'Compatibility', kind: 'text', limit: 500, help: 'Environment requirements: products, system packages, network access.' },
  { key: 'argument-hint', label: 'Argument hint', kind: 'text', help: 'Claude Code: shown when the skill is invoked as a slash command.' },
  { key: 'model', label: 'Model', kind: 'text', help: 'Claude Code: the model to use while the skill is active.' },
  { key: 'effort', label: 'Effort', kind: 'text', help: 'Claude Code: reasoning effort while the skill is active.' },
  { key: 'context', label: 'Context', kind: 'text', help: 'Claude Code: "fork" runs the skill in a sub-agent.' },
  { key: 'agent', label: 'Agent', kind: 'text', help: 'Claude Code: the sub-agent type for a forked context.' },
  { key: 'shell', label: 'Shell', kind: 'text', help: 'Claude Code: the shell for inline commands.' },
  { key: 'disable-model-invocation', label: 'Only when invoked by the user', kind: 'bool', help: 'Claude Code: the model may not load this skill by itself.' },
  { key: 'user-invocable', label: 'User-invocable', kind: 'bool', help: 'Claude Code: false hides the skill from the slash-command menu.' },
];

export const KNOWN_KEYS = new Set(FIELDS.map((f) => f.key));

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
