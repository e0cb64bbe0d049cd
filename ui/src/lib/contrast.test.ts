import { describe, expect, it } from 'vitest';
import { contrast, themeTokens } from './contrast';
// The stylesheet itself, as the window loads it.
import css from '../app.css?raw';

const themes = themeTokens(css);

/** Text drawn in the window: [foreground token, background token]. WCAG AA for normal text: 4.5:1. */
const TEXT: [string, string][] = [
  ['fg', 'bg'],
  ['fg', 'code'],
  ['fg', 'selected'],
  ['fg', 'banner'],
  ['fg', 'error-bg'],
  ['fg', 'mark'],
  ['fg-muted', 'bg'],
  ['fg-muted', 'code'],
  ['fg-muted', 'selected'],
  ['accent', 'bg'],
  ['accent', 'selected'],
  ['error', 'bg'],
  ['warning', 'bg'],
  ['success', 'bg'],
  ['on-accent', 'accent'],
  ['on-danger', 'danger'],
  ['on-caution', 'caution'],
  ['syntax-key', 'bg'],
  ['syntax-string', 'bg'],
  ['syntax-number', 'bg'],
  ['syntax-keyword', 'bg'],
  ['syntax-comment', 'bg'],
  ['syntax-heading', 'bg'],
  ['syntax-link', 'bg'],
  ['syntax-mark', 'bg'],
  // The eval chart's lines label their points and legend in their colour.
  ['series-1', 'bg'],
  ['series-2', 'bg'],
  ['series-3', 'bg'],
  ['series-4', 'bg'],
  ['series-5', 'bg'],
  ['series-6', 'bg'],
];
/** Lines and marks that carry meaning (the threshold line, the focus ring, error underlines): 3:1. */
const GRAPHICS: [string, string][] = [
  ['warning', 'bg'],
  ['accent', 'bg'],
  ['error', 'bg'],
];

describe('the design tokens meet WCAG AA', () => {
  for (const [name, tokens] of Object.entries(themes)) {
    it(`${name}: text 4.5:1, graphics 3:1`, () => {
      const failures: string[] = [];
      const check = (pairs: [string, string][], minimum: number) => {
        for (const [fg, bg] of pairs) {
          const a = tokens.get(fg);
          const b = tokens.get(bg);
          if (!a || !b) {
            failures.push(`--${fg} or --${bg} is not a #rrggbb token`);
            continue;
          }
          const ratio = contrast(a, b);
          if (ratio < minimum) failures.push(`--${fg} on --${bg}: ${ratio.toFixed(2)}:1 < ${minimum}:1`);
        }
      };
      check(TEXT, 4.5);
      check(GRAPHICS, 3);
      expect(failures).toEqual([]);
    });
  }

  it('computes the ratios WCAG gives', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });
});
