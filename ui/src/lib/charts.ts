// Geometry shared by the SVG charts: a linear scale onto a pixel range and
// the ticks of an axis. Every value drawn comes from the engine; these only
// place it.

/** A linear map from [0, max] onto [from, to] pixels. */
export function scale(max: number, from: number, to: number): (value: number) => number {
  const span = Math.max(1, max);
  return (value) => from + ((to - from) * Math.min(Math.max(0, value), span)) / span;
}

/** Round tick values from 0 to at least `max`: about `count` of them, at steps of 1, 2 or 5 × 10ⁿ. */
export function ticks(max: number, count = 4): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out: number[] = [];
  for (let v = 0; v < max + step; v += step) out.push(v);
  return out;
}
