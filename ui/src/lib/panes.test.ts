import { describe, expect, it } from 'vitest';
import { EDITOR_MIN, FORM_COLLAPSED, PANE_DEFAULT, PANE_MIN, SPLITTER, fitPanes, parseWidths } from './panes';

const total = (w: { sidebar: number; form: number; inspector: number }) => w.sidebar + w.form + w.inspector + 3 * SPLITTER;

describe('fitPanes', () => {
  it('keeps the wanted widths when the window has room', () => {
    expect(fitPanes(PANE_DEFAULT, 1600, false)).toEqual(PANE_DEFAULT);
  });

  it('leaves the editor its minimum at the minimum window width, the form giving way first', () => {
    const fitted = fitPanes(PANE_DEFAULT, 1024, false);
    expect(total(fitted) + EDITOR_MIN).toBeLessThanOrEqual(1024);
    expect(fitted.form).toBe(PANE_MIN.form);
    expect(fitted.inspector).toBeGreaterThanOrEqual(PANE_MIN.inspector);
  });

  it('never goes below a minimum, and a collapsed form is a strip', () => {
    const fitted = fitPanes({ sidebar: 10, form: 10, inspector: 10 }, 1024, true);
    expect(fitted).toEqual({ sidebar: PANE_MIN.sidebar, form: FORM_COLLAPSED, inspector: PANE_MIN.inspector });
  });

  it('fits every pane at 1,024 px however wide they were wanted', () => {
    const fitted = fitPanes({ sidebar: 900, form: 900, inspector: 900 }, 1024, false);
    expect(total(fitted) + EDITOR_MIN).toBeLessThanOrEqual(1024);
  });
});

describe('parseWidths', () => {
  it('reads what was stored and refuses anything else', () => {
    expect(parseWidths(JSON.stringify(PANE_DEFAULT))).toEqual(PANE_DEFAULT);
    expect(parseWidths('{"sidebar": "wide"}')).toBeNull();
    expect(parseWidths('not json')).toBeNull();
    expect(parseWidths(null)).toBeNull();
  });
});
