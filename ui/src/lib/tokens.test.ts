import { describe, expect, it } from 'vitest';
// The stylesheet that defines the design tokens, and every component's source.
import css from '../app.css?raw';

const components = import.meta.glob(['../App.svelte', '../components/*.svelte'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

/** The `<style>` blocks of a component. */
function styles(source: string): string {
  return [...source.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1]).join('\n');
}

const defined = new Set([...css.matchAll(/(--[\w-]+)\s*:/g)].map((m) => m[1]));
// Properties a component sets for its own use (`--x:` in CSS, `style:--x` in markup), as App.svelte sets the splitter's width.
const set = new Set(Object.values(components).flatMap((source) => [...source.matchAll(/(--[\w-]+)\s*[:=]/g)].map((m) => m[1])));

describe('design tokens in components', () => {
  it('finds the components', () => {
    expect(Object.keys(components).length).toBeGreaterThan(10);
  });
  it('draws no literal colours: every colour comes from a token', () => {
    const literal = /#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?)\(/g;
    const found = Object.entries(components).flatMap(([file, source]) =>
      [...styles(source).matchAll(literal)].map((m) => `${file}: ${m[0]}`),
    );
    expect(found).toEqual([]);
  });
  it('uses only tokens the stylesheet defines (an unknown one silently falls back)', () => {
    const unknown = Object.entries(components).flatMap(([file, source]) => {
      const known = (name: string) =>
        defined.has(name) || set.has(name) || (name.endsWith('-') && [...defined].some((d) => d.startsWith(name)));
      return [...source.matchAll(/var\((--[\w-]+)/g)].filter((m) => !known(m[1])).map((m) => `${file}: ${m[1]}`);
    });
    expect(unknown).toEqual([]);
  });
});
