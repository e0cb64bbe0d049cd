// What a run of a suite is compared with, as the Evals tab pins it: the
// previous run of the session, the saved files (the suite run again without
// unsaved edits), or a run kept under a name in the library's evals/runs/.

export type Pin = { kind: 'previous' } | { kind: 'saved' } | { kind: 'named'; name: string };

/** The pin as a select's value. */
export function pinKey(pin: Pin): string {
  return pin.kind === 'named' ? `named:${pin.name}` : pin.kind;
}

/** The pin from a select's value (see pinKey). */
export function pinOf(key: string): Pin {
  if (key.startsWith('named:')) return { kind: 'named', name: key.slice('named:'.length) };
  return key === 'saved' ? { kind: 'saved' } : { kind: 'previous' };
}

/** The baseline in words, after "against". */
export function baselineLabel(pin: Pin): string {
  switch (pin.kind) {
    case 'previous':
      return 'the previous run';
    case 'saved':
      return 'the saved files';
    case 'named':
      return `“${pin.name}”`;
  }
}
