import { describe, expect, it } from 'vitest';
import type { InstallOutcome, InstallReport, InstallRequest, InstalledSkill, UninstallRequest } from './ipc';
import { actionText, diffLines, diffSummary, differing, present, provenanceText } from './install';
import { InstallState } from './install.svelte';

function skill(name: string, action: InstalledSkill['action'], changed: string[] = []): InstalledSkill {
  return {
    name,
    source: `/lib/${name}`,
    destination: `/p/.claude/skills/${name}`,
    action,
    diff: { added: [], removed: [], changed, link: null },
    findings: [],
    provenance: null,
    files: ['SKILL.md'],
  };
}

function report(...skills: InstalledSkill[]): InstallReport {
  return { client: 'claude-code', scope: 'project', dry_run: true, skills, lockfile: '/p/skills-lock.json' };
}

describe('the plan in words', () => {
  it('says what happens to each skill before and after', () => {
    expect(actionText('add', true)).toBe('will be added');
    expect(actionText('add', false)).toBe('added');
    expect(actionText('keep', true)).toBe('a different one is there');
  });

  it('sums a difference up', () => {
    expect(diffSummary({ added: ['a'], removed: ['b', 'c'], changed: ['SKILL.md'], link: null })).toBe('1 added · 1 changed · 2 gone');
    expect(diffSummary({ added: [], removed: [], changed: [], link: '/lib/x' })).toBe('installed as a link to /lib/x');
    expect(diffLines({ added: ['a'], removed: ['b'], changed: ['SKILL.md'], link: null })).toEqual(['+ a', '- b', '~ SKILL.md']);
  });

  it('knows which skills differ and which are there at all', () => {
    const plan = report(skill('a', 'add'), skill('b', 'keep', ['SKILL.md']), skill('c', 'unchanged'));
    expect(differing(plan)).toEqual(['b']);
    expect(present(plan)).toEqual(['b', 'c']);
  });

  it('says where a copy came from', () => {
    expect(provenanceText({ kind: 'git', repo: 'https://github.com/o/r', git_ref: 'refs/heads/main', tree_sha: '0123456789abcdef', path: 'skills/a', pinned: null })).toBe(
      'https://github.com/o/r refs/heads/main skills/a (tree 0123456789ab)',
    );
    expect(provenanceText({ kind: 'local', path: '/lib/a' })).toBe('/lib/a');
  });
});

describe('the dialog state', () => {
  function fake() {
    const asked: { plan: InstallRequest[]; install: InstallRequest[]; uninstall: UninstallRequest[] } = { plan: [], install: [], uninstall: [] };
    const answer = (r: InstallReport): InstallOutcome => ({ kind: 'report', report: r });
    return {
      asked,
      commands: {
        plan: async (r: InstallRequest) => (asked.plan.push(r), answer(report(skill('a', 'keep', ['SKILL.md'])))),
        install: async (r: InstallRequest) => (asked.install.push(r), answer({ ...report(skill('a', r.replace ? 'replace' : 'keep')), dry_run: false })),
        uninstall: async (r: UninstallRequest) => (asked.uninstall.push(r), [{ name: 'a', destination: '/p/.claude/skills/a', found: true, link: false }]),
      },
    };
  }

  it('asks for a plan only once there is a project, and never records provenance in a link', async () => {
    const { asked, commands } = fake();
    const state = new InstallState(['/lib/a'], commands);
    await state.refresh();
    expect(asked.plan).toEqual([]);
    state.project = '/p';
    state.provenance = true;
    state.link = true;
    await state.refresh();
    expect(asked.plan[0]).toMatchObject({ project: '/p', link: true, provenance: false, replace: false });
    expect(differing(state.plan)).toEqual(['a']);
  });

  it('replaces only when told to, and uninstalls from the chosen place', async () => {
    const { asked, commands } = fake();
    const state = new InstallState(['/lib/a'], commands);
    state.scope = 'user';
    state.project = '/ignored';
    await state.install(false);
    expect(state.done?.skills[0].action).toBe('keep');
    await state.install(true);
    expect(state.done?.skills[0].action).toBe('replace');
    expect(asked.install.map((r) => r.replace)).toEqual([false, true]);
    await state.uninstall(['a']);
    expect(asked.uninstall[0]).toEqual({ names: ['a'], client: 'claude-code', scope: 'user', project: null });
    expect(state.removed?.[0].found).toBe(true);
  });
});
