// Which rows of a long list are in the page. The sidebar keeps only the rows
// in view (and a margin) so a library of thousands of skills stays fast.

export interface RowWindow {
  /** Index of the first row in the page. */
  first: number;
  /** One past the last row in the page. */
  last: number;
}

/**
 * The rows to render for a scroll position. The position is clamped to the
 * list: after a filter shortens it, the old offset would otherwise leave an
 * empty page padded to the old height.
 */
export function rowWindow(scrollTop: number, viewHeight: number, count: number, rowHeight: number, overscan: number): RowWindow {
  const top = Math.min(Math.max(0, Math.floor(scrollTop / rowHeight)), count);
  const bottom = Math.ceil((scrollTop + viewHeight) / rowHeight);
  return {
    first: Math.max(0, Math.min(top, count - Math.ceil(viewHeight / rowHeight)) - overscan),
    last: Math.min(count, Math.max(bottom, top) + overscan),
  };
}
