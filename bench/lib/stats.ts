/** Small number helpers shared by the scenarios and the report. */

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function ratio(value: number, baseline: number): number {
  return baseline > 0 ? round(value / baseline, 3) : NaN;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** `1,234,567` */
export function thousands(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
