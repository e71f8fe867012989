// Exporting the whole committed audience: export/start, then export/status every POLL_MS until the
// job is done, failed or cancelled. The job itself carries progress, speed and time left.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ExportJob } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';
import { useAudienceStore } from './audience';

export const POLL_MS = 250;

export const useExportStore = defineStore('exportJob', () => {
  const format = ref<'csv' | 'jsonl'>('csv');
  const fileName = ref('');
  const job = ref<ExportJob | null>(null);
  const starting = ref(false);
  const error = ref<string | null>(null);
  let timer: ReturnType<typeof setTimeout> | null = null;

  const running = computed(() => starting.value || job.value?.status === 'running');

  function stopPolling(): void {
    if (timer) clearTimeout(timer);
    timer = null;
  }

  async function poll(): Promise<void> {
    const current = job.value;
    if (!current || current.status !== 'running') return;
    try {
      const next = await getBridge()['export/status']({ id: current.id });
      if (job.value?.id !== next.id) return;
      job.value = next;
    } catch (e) {
      error.value = describeError(e);
      return;
    }
    if (job.value.status === 'running') timer = setTimeout(() => void poll(), POLL_MS);
  }

  async function start(): Promise<void> {
    const audience = useAudienceStore();
    audience.commitNow();
    const target = audience.committed;
    if (!target?.state || running.value) return;
    stopPolling();
    starting.value = true;
    error.value = null;
    job.value = null;
    try {
      const name = fileName.value.trim();
      job.value = await getBridge()['export/start']({ ...target, format: format.value, ...(name ? { fileName: name } : {}) });
      timer = setTimeout(() => void poll(), POLL_MS);
    } catch (e) {
      error.value = describeError(e);
    } finally {
      starting.value = false;
    }
  }

  async function cancel(): Promise<void> {
    const current = job.value;
    if (!current || current.status !== 'running') return;
    try {
      job.value = await getBridge()['export/cancel']({ id: current.id });
      if (job.value.status !== 'running') stopPolling();
    } catch (e) {
      error.value = describeError(e);
    }
  }

  async function showInFolder(): Promise<void> {
    const bridge = getBridge();
    if (job.value?.path && bridge.showInFolder) await bridge.showInFolder(job.value.path);
  }

  function reset(): void {
    stopPolling();
    job.value = null;
    error.value = null;
  }

  const canShowInFolder = computed(() => typeof getBridge().showInFolder === 'function');

  return { format, fileName, job, starting, error, running, canShowInFolder, start, cancel, showInFolder, reset };
});
