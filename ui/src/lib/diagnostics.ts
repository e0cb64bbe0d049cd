// Drawing and wording for the routing diagnostics (why it lost, the map,
// suggestions, calibration). Pure functions, unit-tested; every number they
// place or format comes from the engine.

/** A point of the map in the SVG's own coordinates. */
export interface Placed {
  x: number;
  y: number;
}

/**
 * Scales the projected points (and the request, when given) into a square
 * of `size` with `pad` kept free at each edge, keeping the aspect: distances
 * on the map stay comparable in both directions. SVG's y grows downwards.
 */
export function fitToBox(points: { x: number; y: number }[], request: [number, number] | null, size: number, pad: number): { points: Placed[]; request: Placed | null } {
  const all = request ? [...points, { x: request[0], y: request[1] }] : points;
  if (all.length === 0) return { points: [], request: null };
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const span = Math.max(maxX - minX, maxY - minY) || 1;
  const scale = (size - 2 * pad) / span;
  // Centre the shorter direction.
  const offX = pad + (size - 2 * pad - (maxX - minX) * scale) / 2;
  const offY = pad + (size - 2 * pad - (maxY - minY) * scale) / 2;
  const place = (x: number, y: number) => ({ x: offX + (x - minX) * scale, y: size - (offY + (y - minY) * scale) });
  return { points: points.map((p) => place(p.x, p.y)), request: request ? place(request[0], request[1]) : null };
}

/** A rate as a percentage, or a dash when the engine had no cases to measure it on. */
export function rate(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)}%`;
}

/** A change of a rate in percentage points, signed. */
export function pointsDelta(delta: number): string {
  const points = delta * 100;
  return `${points > 0 ? '+' : points < 0 ? '−' : '±'}${Math.abs(points).toFixed(1)} pts`;
}
