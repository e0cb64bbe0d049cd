// WCAG 2.x contrast from the design tokens in app.css, so the check runs on
// the values the window uses (src/lib/contrast.test.ts), not on a copy.

/** The `--name: #rrggbb` tokens of each theme block of a stylesheet: `light` (`:root`) and `dark`. */
export function themeTokens(css: string): { light: Map<string, string>; dark: Map<string, string> } {
  const block = (selector: RegExp) => {
    const match = selector.exec(css);
    if (!match) throw new Error(`no ${String(selector)} block`);
    const body = css.slice(match.index + match[0].length, css.indexOf('}', match.index));
    return new Map([...body.matchAll(/--([a-z0-9-]+):\s*(#[0-9a-fA-F]{6})\b/g)].map((m) => [m[1], m[2]]));
  };
  const light = block(/:root\s*\{/);
  const dark = new Map([...light, ...block(/:root\[data-theme='dark'\]\s*\{/)]);
  return { light, dark };
}

function channel(hex: string, at: number): number {
  const c = parseInt(hex.slice(at, at + 2), 16) / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of a `#rrggbb` colour (WCAG 2.x). */
export function luminance(hex: string): number {
  if (!/^#[0-9a-fA-F]{6}$/.test(hex)) throw new Error(`not a #rrggbb colour: ${hex}`);
  return 0.2126 * channel(hex, 1) + 0.7152 * channel(hex, 3) + 0.0722 * channel(hex, 5);
}

/** The contrast ratio of two colours, from 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
