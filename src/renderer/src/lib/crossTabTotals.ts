// A cross-tab's totals and shares: each row's and each column's total over the values shown, the
// grand total, and a cell as a share of its row or its column. The table (CrossTabTable) and its
// CSV (stores/crosstab) both read them from here, so they say the same thing.
import type { CrossTab } from '../../../shared/contract';

/** What a cell shows: its count, or its share of its row's or its column's total. */
export type CellMeasure = 'count' | 'row' | 'column';

export const MEASURE_LABELS: Readonly<Record<CellMeasure, string>> = {
  count: 'Counts',
  row: 'Row %',
  column: 'Column %',
};

export interface CrossTabTotals {
  readonly rows: number[];
  readonly columns: number[];
  readonly grand: number;
}

export function crossTabTotals(tab: CrossTab): CrossTabTotals {
  const rows = tab.rowValues.map((_, r) => (tab.counts[r] ?? []).reduce((a, b) => a + b, 0));
  const columns = tab.columnValues.map((_, c) => tab.counts.reduce((a, row) => a + (row[c] ?? 0), 0));
  return { rows, columns, grand: rows.reduce((a, b) => a + b, 0) };
}

/** n as a percentage of whole (0 when the whole is 0). */
function share(n: number, whole: number): number {
  return whole > 0 ? (100 * n) / whole : 0;
}

/**
 * The number a cell shows under the measure: row r, column c; c = -1 is the row's total, r = -1 the
 * column's, both -1 the grand total. Shares are percentages (0-100) of the row's or column's total.
 */
export function cellValue(tab: CrossTab, totals: CrossTabTotals, measure: CellMeasure, r: number, c: number): number {
  const n = r < 0 ? (c < 0 ? totals.grand : totals.columns[c]!) : c < 0 ? totals.rows[r]! : (tab.counts[r]?.[c] ?? 0);
  if (measure === 'count') return n;
  if (measure === 'row') return share(n, r < 0 ? totals.grand : totals.rows[r]!);
  return share(n, c < 0 ? totals.grand : totals.columns[c]!);
}

/** A percentage as the table and the CSV write it: one decimal ("12.5%"). */
export function formatShare(p: number): string {
  return `${p.toFixed(1)}%`;
}
