// The values a field takes in the chosen states, with counts (audience/breakdown over the states
// alone, every value offered whatever the other filters; the editor says so), so the filter editor
// can offer real values as checkboxes. Cached per states and field; `states` is the chosen state
// codes joined by commas ("CA" or "CA,NY,TX").
import { defineStore } from 'pinia';
import { reactive } from 'vue';
import type { ValueCount } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';

export const VALUES_MAX = 200;

export interface FieldValues {
  loading: boolean;
  error: string | null;
  values: ValueCount[];
  total: number;
  /** True when the field has more distinct values than were fetched. */
  truncated: boolean;
}

export const useFieldValuesStore = defineStore('fieldValues', () => {
  const byKey = reactive<Record<string, FieldValues>>({});

  function key(state: string, field: string): string {
    return `${state}|${field}`;
  }

  function get(state: string, field: string): FieldValues | undefined {
    return byKey[key(state, field)];
  }

  async function load(state: string, field: string, max = VALUES_MAX): Promise<void> {
    const k = key(state, field);
    const existing = byKey[k];
    if (existing && (existing.loading || !existing.error)) return;
    byKey[k] = { loading: true, error: null, values: [], total: 0, truncated: false };
    const entry = byKey[k]!;
    try {
      const codes = state.split(',');
      const answer = await getBridge()['audience/breakdown']({
        state: codes[0]!,
        ...(codes.length > 1 ? { states: codes } : {}),
        filters: [],
        field,
        max,
      });
      entry.values = answer.values;
      entry.total = answer.total;
      entry.truncated = answer.values.length >= max;
    } catch (e) {
      entry.error = describeError(e);
    } finally {
      entry.loading = false;
    }
  }

  /** Forgets every list (another dataset is open: its values differ). */
  function clear(): void {
    for (const k of Object.keys(byKey)) delete byKey[k];
  }

  return { byKey, get, load, clear };
});
