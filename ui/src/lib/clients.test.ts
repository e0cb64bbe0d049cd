import { describe, expect, it } from 'vitest';
import type { CaptureView, ClientChoiceView, LibraryVerdicts, LibraryView, ListingComparison, SkillVerdict } from './ipc';
import { countsText, entryPairs } from './clients';
import { ClientsView, type ClientsIpc } from './clients.svelte';

function skill(name: string, verdict: SkillVerdict['verdict']): SkillVerdict {
  return { skill: name, path: `/lib/${name}/SKILL.md`, verdict, entry: `- ${name}: d`, changes: [], why: 'why' };
}

function comparison(entries: string[], differences: ListingComparison['differences']): ListingComparison {
  return {
    client: 'gemini',
    installed_version: '0.61.0',
    prediction: {
      client: 'gemini',
      client_version: '0.61.0',
      model: 'auto',
      placement: '',
      budget: null,
      entries: entries.map((text) => ({ text, name: text, description: '', path: '', bare: false, builtin: false })),
      left_out: [],
      listing: entries.join('\n'),
    },
    captured: entries.join('\n'),
    identical: differences.length === 0,
    entries_compared: Math.max(entries.length, ...differences.map((d) => d.index + 1)),
    entries_identical: entries.length - differences.length,
    differences,
    isolated: true,
    seconds: 1.5,
    note: 'Nothing left this machine: …',
  };
}

describe('the counts line', () => {
  it('names each verdict a skill has, in a fixed order', () => {
    expect(countsText([skill('a', 'left-out'), skill('b', 'loads'), skill('c', 'loads'), skill('d', 'hidden')])).toBe('2 load as written · 1 hidden · 1 left out');
    expect(countsText([])).toBe('no skills');
  });
});

describe('the side-by-side entries', () => {
  it('shows an entry without a difference as the same on both sides, and flags the rest', () => {
    const rows = entryPairs(comparison(['a', 'b'], [{ index: 1, predicted: 'b', real: 'B' }, { index: 2, predicted: null, real: 'c' }]));
    expect(rows).toEqual([
      { index: 0, predicted: 'a', real: 'a', same: true },
      { index: 1, predicted: 'b', real: 'B', same: false },
      { index: 2, predicted: null, real: 'c', same: false },
    ]);
  });
});

function library(generation: number): LibraryView {
  return { generation } as LibraryView;
}

function verdicts(client: LibraryVerdicts['client'], model: string): LibraryVerdicts {
  return { client, client_version: '1', model, placement: '', installed_as: '/lib/.claude/skills', budget: null, skills: [skill('a', 'loads')], builtins: [], listing: '' };
}

function stub(capture: () => Promise<CaptureView>) {
  const asked: { client: string; model: string | null }[] = [];
  let cancelled = 0;
  const app: ClientsIpc = {
    clientsList: async () => [{ profile: { client: 'claude-code', name: 'Claude Code', version: '2', default_model: 'm', models: ['n'] }, installed: '2', install_hint: null } as ClientChoiceView],
    clientsVerdicts: async (choice) => {
      asked.push({ client: choice.client, model: choice.model });
      return verdicts(choice.client, choice.model ?? 'default');
    },
    clientsCapture: capture,
    clientsCaptureCancel: async () => {
      cancelled++;
      return true;
    },
  };
  return { app, asked, cancelled: () => cancelled };
}

describe('the Clients tab state', () => {
  it('asks once per reading and again for another client or model', async () => {
    const { app, asked } = stub(async () => {
      throw new Error('unused');
    });
    const view = new ClientsView(app);
    await view.refresh(library(1));
    await view.refresh(library(1));
    expect(asked).toEqual([{ client: 'claude-code', model: null }]);
    await view.choose('gemini', library(1));
    await view.chooseModel('gemini-2.5-pro', library(1));
    expect(asked.slice(1)).toEqual([
      { client: 'gemini', model: null },
      { client: 'gemini', model: 'gemini-2.5-pro' },
    ]);
    expect(view.verdicts?.model).toBe('gemini-2.5-pro');
  });

  it('runs a capture, can cancel it, and shows why it stopped', async () => {
    let reject: (e: unknown) => void = () => {};
    const { app, cancelled } = stub(() => new Promise((_, no) => (reject = no)));
    const view = new ClientsView(app);
    const running = view.runCapture();
    expect(view.capturing).toBe(true);
    await view.cancelCapture();
    expect(cancelled()).toBe(1);
    expect(view.cancelling).toBe(true);
    reject(new Error('the capture was cancelled'));
    await running;
    expect(view.capturing).toBe(false);
    expect(view.captureError).toContain('cancelled');
    expect(view.capture).toBeNull();
  });
});
