// A new eval case from the test-query panel: what the author means by it
// ("this request should trigger my skill", "…should not", "…no skill at
// all") turned into the suite format's `expect` / `reject` and a `kind` tag
// (the bundled suites tag cases direct, paraphrase, near-miss or negative).
import type { Case } from './ipc';

export type Intent = 'should-trigger' | 'should-not-trigger' | 'no-skill';

export const INTENTS: readonly { key: Intent; label: (skill: string) => string; kinds: readonly string[] }[] = [
  { key: 'should-trigger', label: (skill) => `should trigger ${skill || 'a skill'}`, kinds: ['direct', 'paraphrase'] },
  { key: 'should-not-trigger', label: (skill) => `should not trigger ${skill || 'a skill'}`, kinds: ['near-miss'] },
  { key: 'no-skill', label: () => 'should trigger no skill', kinds: ['negative'] },
];

/** The kind tags offered for an intent; the first is the default. */
export function kindsFor(intent: Intent): readonly string[] {
  return INTENTS.find((i) => i.key === intent)!.kinds;
}

/**
 * The case to append, or why it cannot be: a positive case needs an
 * expected skill, a "should not" case a skill to reject.
 */
export function buildCase(query: string, intent: Intent, skills: readonly string[], kind: string): Case | string {
  const request = query.trim();
  if (!request) return 'Type a request first.';
  const kinds = kind.trim() ? [kind.trim()] : [];
  if (intent === 'no-skill') return { query: request, expect: [], reject: [], kinds, line: 0 };
  if (!skills.length) return intent === 'should-trigger' ? 'Name the skill it should trigger.' : 'Name the skill it should not trigger.';
  return intent === 'should-trigger'
    ? { query: request, expect: [...skills], reject: [], kinds, line: 0 }
    : { query: request, expect: null, reject: [...skills], kinds, line: 0 };
}
