// The audit log of exports (audit/list): who took which audience out, into which file, how it ended.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { AuditEntry } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';

export const HISTORY_SHOWN = 8;

export const useExportHistoryStore = defineStore('exportHistory', () => {
  const entries = ref<AuditEntry[]>([]);
  const error = ref<string | null>(null);

  async function refresh(): Promise<void> {
    try {
      entries.value = await getBridge()['audit/list']({ limit: HISTORY_SHOWN });
      error.value = null;
    } catch (e) {
      error.value = describeError(e);
    }
  }

  return { entries, error, refresh };
});
