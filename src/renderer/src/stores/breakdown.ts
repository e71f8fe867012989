// Counts of the current audience by the values of one field, for the bar chart. AGE reads in the
// shared bands (src/shared/ageBands.ts) whether the core answers per age or already banded; coded
// fields read in the codebook's natural order (lib/valueLabels), not by count.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ValueCount } from '../../../shared/contract';
import { countAgeBands } from '../../../shared/ageBands';
import { fieldByName } from '../../../shared/fields';
import { getBridge } from '../bridge';
import { audienceQuery } from '../lib/latestAnswer';
import { fieldValueLabel, sortFieldValues, valueText } from '../lib/valueLabels';
import { toCsv } from '../lib/csv';
import { percent } from '../lib/format';
import { useAudienceStore } from './audience';

export const BREAKDOWN_BARS = 40;

/**
 * A breakdown as CSV: one line per value (its words, its code, people, share of the audience), then
 * the people in values not shown and the audience's total. A county reads as its name given the state.
 */
export function breakdownCsv(field: string, values: readonly ValueCount[], other: number, total: number, state?: string): string {
  const share = (n: number) => (total > 0 ? percent(n, total).toFixed(1) : '0.0');
  const lines: Array<Array<string | number>> = [[field, 'code', 'people', 'percent']];
  for (const v of values) lines.push([fieldValueLabel(field, v.value, state), valueText(field, v.value).code, v.count, share(v.count)]);
  if (other > 0) lines.push(['(values not shown)', '', other, share(other)]);
  lines.push(['Total', '', total, share(total)]);
  return toCsv(lines);
}

export const useBreakdownStore = defineStore('breakdown', () => {
  const field = ref('GENDER');
  const values = ref<ValueCount[]>([]);
  /** Matching people whose value fell outside the bars shown (other values, an empty AGE). */
  const other = ref(0);
  const total = ref<number | null>(null);
  const ms = ref<number | null>(null);
  const { loading, error, run } = audienceQuery(() => useAudienceStore().committed);

  async function load(): Promise<void> {
    const def = fieldByName(field.value);
    if (!def) return;
    const banded = def.name === 'AGE';
    await run(
      (audience) => getBridge()['audience/breakdown']({ ...audience, field: def.name, max: banded ? 1000 : BREAKDOWN_BARS }),
      (answer) => {
        if (banded) {
          const grouped = countAgeBands(answer.values);
          values.value = grouped.bands;
          other.value = grouped.other;
        } else {
          values.value = sortFieldValues(def.name, answer.values);
          other.value = answer.total - answer.values.reduce((sum, v) => sum + v.count, 0);
        }
        total.value = answer.total;
        ms.value = answer.ms;
      },
    );
  }

  function choose(name: string): void {
    const def = fieldByName(name);
    if (def) field.value = def.name;
  }

  return { field, values, other, total, ms, loading, error, load, choose };
});
