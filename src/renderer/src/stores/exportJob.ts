// Exporting the whole committed audience: export/start, then the job followed (lib/jobProgress)
// until it is done, failed or cancelled. The job itself carries progress, speed and time left.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ExportJob } from '../../../shared/contract';
import { describeError, getBridge, isCancelled } from '../bridge';
import { followJobs } from '../lib/jobProgress';
import { useAudienceStore } from './audience';

export const useExportStore = defineStore('exportJob', () => {
  const format = ref<'csv' | 'jsonl'>('csv');
  /** A CSV's header: field names (the codes tools expect), their labels, or both rows. */
  const header = ref<'names' | 'labels' | 'both'>('names');
  const fileName = ref('');
  const job = ref<ExportJob | null>(null);
  const starting = ref(false);
  const error = ref<string | null>(null);

  const progress = followJobs<ExportJob>({
    status: (id) => getBridge()['export/status']({ id }),
    cancel: (id) => getBridge()['export/cancel']({ id }),
    onUpdate: (next) => {
      job.value = next;
    },
    onError: (e) => {
      error.value = describeError(e);
    },
  });

  const running = computed(() => starting.value || job.value?.status === 'running');

  async function start(): Promise<void> {
    const audience = useAudienceStore();
    audience.commitNow();
    const target = audience.committed;
    if (!target?.state || running.value) return;
    progress.stop();
    starting.value = true;
    error.value = null;
    job.value = null;
    try {
      const name = fileName.value.trim();
      job.value = await getBridge()['export/start']({
        ...target,
        format: format.value,
        ...(format.value === 'csv' ? { header: header.value } : {}),
        ...(name ? { fileName: name } : {}),
      });
      progress.follow(job.value);
    } catch (e) {
      // Stopped before it began (the save dialog, say): nothing to show, and nothing went wrong.
      if (!isCancelled(e)) error.value = describeError(e);
    } finally {
      starting.value = false;
    }
  }

  async function cancel(): Promise<void> {
    if (job.value?.status === 'running') await progress.cancel();
  }

  async function showInFolder(): Promise<void> {
    const bridge = getBridge();
    if (job.value?.path && bridge.showInFolder) await bridge.showInFolder(job.value.path);
  }

  function reset(): void {
    progress.stop();
    job.value = null;
    error.value = null;
  }

  const canShowInFolder = computed(() => typeof getBridge().showInFolder === 'function');

  return { format, header, fileName, job, starting, error, running, canShowInFolder, start, cancel, showInFolder, reset };
});
