// The record open in the drawer: one person's full record, fetched with audience/search and a
// filter on PID (limit 1). A newer open discards the answer to an older one.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { FieldValue } from '../../../shared/contract';
import { getBridge } from '../bridge';
import { latestAnswer } from '../lib/latestAnswer';

export const useRecordStore = defineStore('record', () => {
  const pid = ref<string | null>(null);
  const record = ref<Record<string, FieldValue> | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);
  const latest = latestAnswer(loading, error);

  async function open(personId: string, state: string): Promise<void> {
    pid.value = personId;
    record.value = null;
    error.value = null;
    await latest.run(
      () => getBridge()['audience/search']({ state, filters: [['PID', [personId]]], limit: 1, skip: 0 }),
      (answer) => {
        record.value = answer.results[0] ?? null;
        if (!record.value) error.value = 'This person is no longer in the dataset.';
      },
    );
  }

  function close(): void {
    latest.drop();
    pid.value = null;
    record.value = null;
    error.value = null;
    loading.value = false;
  }

  return { pid, record, loading, error, open, close };
});
