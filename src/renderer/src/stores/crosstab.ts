// Counts of the committed audience by two fields at once (audience/crosstab), with totals and row or
// column percentages (lib/crossTabTotals), and the table as CSV.
// AGE comes back in the shared bands; values are labelled in one place (lib/valueLabels).
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { CrossTab } from '../../../shared/contract';
import { fieldByName } from '../../../shared/fields';
import { getBridge } from '../bridge';
import { toCsv } from '../lib/csv';
import { audienceQuery } from '../lib/latestAnswer';
import { fieldValueLabel } from '../lib/valueLabels';
import { cellValue, crossTabTotals, formatShare, MEASURE_LABELS, type CellMeasure } from '../lib/crossTabTotals';
import { useAudienceStore } from './audience';

/** Values kept on each axis; the back end folds the rest out of counts (but not out of total). */
export const CROSSTAB_MAX = 40;

/**
 * The table as CSV, as it reads on screen: header row = the column values then "Total", first column =
 * the row values then a "Total" row; cells are counts, or row or column percentages (the corner says which).
 */
export function crossTabCsv(tab: CrossTab, measure: CellMeasure = 'count'): string {
  const totals = crossTabTotals(tab);
  const write = (r: number, c: number) => {
    const v = cellValue(tab, totals, measure, r, c);
    return measure === 'count' ? v : formatShare(v);
  };
  const corner = `${tab.rows} \\ ${tab.columns}${measure === 'count' ? '' : ` (${MEASURE_LABELS[measure]})`}`;
  const header = [corner, ...tab.columnValues.map((v) => fieldValueLabel(tab.columns, v)), 'Total'];
  const body = tab.rowValues.map((v, r) => [fieldValueLabel(tab.rows, v), ...tab.columnValues.map((_, c) => write(r, c)), write(r, -1)]);
  const total = ['Total', ...tab.columnValues.map((_, c) => write(-1, c)), write(-1, -1)];
  return toCsv([header, ...body, total]);
}

export const useCrossTabStore = defineStore('crosstab', () => {
  const rows = ref('AGE');
  const columns = ref('EHI');
  const table = ref<CrossTab | null>(null);
  /** What the cells show: counts, row percentages or column percentages. */
  const measure = ref<CellMeasure>('count');
  const { loading, error, run } = audienceQuery(() => useAudienceStore().committed);

  async function load(): Promise<void> {
    await run(
      (audience) => getBridge()['audience/crosstab']({ ...audience, rows: rows.value, columns: columns.value, max: CROSSTAB_MAX }),
      (answer) => (table.value = answer),
    );
  }

  function choose(axis: 'rows' | 'columns', name: string): void {
    const def = fieldByName(name);
    if (!def) return;
    (axis === 'rows' ? rows : columns).value = def.name;
  }

  function swap(): void {
    [rows.value, columns.value] = [columns.value, rows.value];
  }

  /** The largest cell, for shading. */
  const peak = computed(() => Math.max(1, ...(table.value?.counts.flat() ?? [])));
  /** People in the audience whose values fell outside the kept rows or columns. */
  const outside = computed(() => (table.value ? table.value.total - table.value.counts.flat().reduce((a, b) => a + b, 0) : 0));

  return { rows, columns, measure, table, loading, error, peak, outside, load, choose, swap };
});
