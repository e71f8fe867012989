// The open dataset: its path, size and people per state (dataset/info), which the state picker
// shows. The first load picks the state with the most people so the desk opens on something.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { OutputOf } from '../../../shared/contract';
import { STATES, STATE_CODES } from '../../../shared/states';
import { describeError, getBridge } from '../bridge';
import { useAudienceStore } from './audience';

export type DatasetInfo = OutputOf<'dataset/info'>;

export const useDatasetStore = defineStore('dataset', () => {
  const info = ref<DatasetInfo | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);

  /** Every state and DC, with its count (0 when the dataset has none). */
  const states = computed(() => {
    const counts = new Map((info.value?.states ?? []).map((s) => [s.state.toUpperCase(), s.count]));
    return STATE_CODES.map((code) => ({ code, name: STATES[code] ?? code, count: counts.get(code) ?? 0 }));
  });

  async function load(): Promise<void> {
    loading.value = true;
    try {
      info.value = await getBridge()['dataset/info']({});
      error.value = null;
      const audience = useAudienceStore();
      if (!audience.state) {
        const biggest = [...info.value.states].sort((a, b) => b.count - a.count)[0];
        audience.setState(biggest?.state ?? 'CA');
      }
    } catch (e) {
      error.value = describeError(e);
    } finally {
      loading.value = false;
    }
  }

  return { info, loading, error, states, load };
});
