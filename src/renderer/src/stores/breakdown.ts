// Counts of the current audience by the values of one field, for the bar chart. AGE reads in the
// shared bands (src/shared/ageBands.ts) whether the core answers per age or already banded.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ValueCount } from '../../../shared/contract';
import { countAgeBands } from '../../../shared/ageBands';
import { fieldByName } from '../../../shared/fields';
import { describeError, getBridge } from '../bridge';
import { useAudienceStore } from './audience';

export const BREAKDOWN_BARS = 40;

export const useBreakdownStore = defineStore('breakdown', () => {
  const field = ref('GENDER');
  const values = ref<ValueCount[]>([]);
  /** Matching people whose value fell outside the bars shown (other values, an empty AGE). */
  const other = ref(0);
  const total = ref<number | null>(null);
  const ms = ref<number | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);
  let seq = 0;

  async function load(): Promise<void> {
    const audience = useAudienceStore().committed;
    const def = fieldByName(field.value);
    if (!audience?.state || !def) return;
    const mine = ++seq;
    loading.value = true;
    const banded = def.name === 'AGE';
    try {
      const answer = await getBridge()['audience/breakdown']({
        ...audience,
        field: def.name,
        max: banded ? 1000 : BREAKDOWN_BARS,
      });
      if (mine !== seq) return;
      if (banded) {
        const grouped = countAgeBands(answer.values);
        values.value = grouped.bands;
        other.value = grouped.other;
      } else {
        values.value = answer.values;
        other.value = answer.total - answer.values.reduce((sum, v) => sum + v.count, 0);
      }
      total.value = answer.total;
      ms.value = answer.ms;
      error.value = null;
    } catch (e) {
      if (mine === seq) error.value = describeError(e);
    } finally {
      if (mine === seq) loading.value = false;
    }
  }

  function choose(name: string): void {
    const def = fieldByName(name);
    if (def) field.value = def.name;
  }

  return { field, values, other, total, ms, loading, error, load, choose };
});
