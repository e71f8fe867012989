// Counts of the committed audience by two fields at once (audience/crosstab), and the table as CSV.
// AGE comes back in the shared bands; values are labelled in one place (lib/valueLabels).
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { CrossTab } from '../../../shared/contract';
import { fieldByName } from '../../../shared/fields';
import { describeError, getBridge } from '../bridge';
import { toCsv } from '../lib/csv';
import { fieldValueLabel } from '../lib/valueLabels';
import { useAudienceStore } from './audience';

/** Values kept on each axis; the back end folds the rest out of counts (but not out of total). */
export const CROSSTAB_MAX = 40;

/** The table as CSV: header row = the column values, first column = the row values. */
export function crossTabCsv(tab: CrossTab): string {
  const header = [`${tab.rows} \\ ${tab.columns}`, ...tab.columnValues.map((v) => fieldValueLabel(tab.columns, v))];
  const body = tab.rowValues.map((v, r) => [fieldValueLabel(tab.rows, v), ...(tab.counts[r] ?? [])]);
  return toCsv([header, ...body]);
}

export const useCrossTabStore = defineStore('crosstab', () => {
  const rows = ref('AGE');
  const columns = ref('EHI');
  const table = ref<CrossTab | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);
  let seq = 0;

  async function load(): Promise<void> {
    const audience = useAudienceStore().committed;
    if (!audience?.state) return;
    const mine = ++seq;
    loading.value = true;
    try {
      const answer = await getBridge()['audience/crosstab']({ ...audience, rows: rows.value, columns: columns.value, max: CROSSTAB_MAX });
      if (mine !== seq) return;
      table.value = answer;
      error.value = null;
    } catch (e) {
      if (mine === seq) error.value = describeError(e);
    } finally {
      if (mine === seq) loading.value = false;
    }
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

  return { rows, columns, table, loading, error, peak, outside, load, choose, swap };
});
