import { describe, expect, it } from 'vitest';
import { CommandFailure } from './ipc';

describe('CommandFailure', () => {
  it('reads as its message', () => {
    const failure = new CommandFailure({ kind: 'invalid', message: 'choose where to save the pack', position: null });
    expect(String(failure)).toBe('choose where to save the pack');
    expect(failure.kind).toBe('invalid');
  });

  it('puts the position first, as `hone check` does', () => {
    const failure = new CommandFailure({
      kind: 'invalid',
      message: '`expect` must be a list',
      position: { path: '/lib/evals/routing.yaml', line: 3, column: 5 },
    });
    expect(String(failure)).toBe('/lib/evals/routing.yaml:3:5: `expect` must be a list');
  });

  it('keeps a rejection Tauri itself made', () => {
    const failure = new CommandFailure('command not found');
    expect(failure.kind).toBe('failed');
    expect(String(failure)).toBe('command not found');
  });
});
