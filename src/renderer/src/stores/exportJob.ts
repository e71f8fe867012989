// Exporting the whole committed audience: export/start, then the job followed (lib/jobProgress)
// until it is done, failed or cancelled. The job itself carries progress, speed and time left.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ExportJob } from '../../../shared/contract';
import { resolveExportFields, type ExportPreset, type ExportValues } from '../../../shared/exportFields';
import { describeError, getBridge, isCancelled } from '../bridge';
import { followJobs } from '../lib/jobProgress';
import { useAudienceStore } from './audience';
import { useExclusionsStore } from './exclusions';
import { useExportHistoryStore } from './exportHistory';

export const useExportStore = defineStore('exportJob', () => {
  const format = ref<'csv' | 'jsonl'>('csv');
  /** A CSV's header: field names (the codes tools expect), their labels, or both rows. */
  const header = ref<'names' | 'labels' | 'both'>('names');
  const fileName = ref('');
  /** Which fields: a preset, or the names typed in `customFields` ('custom'). */
  const fieldChoice = ref<ExportPreset | 'custom'>('full');
  const customFields = ref('');
  /** Coded values as the data holds them, or as their meanings in the data dictionary. */
  const values = ref<ExportValues>('codes');

  /** The fields as the request names them, or why they cannot be sent (an unknown name). */
  const fields = computed<{ names: string[]; problem: string | null }>(() => {
    if (fieldChoice.value !== 'custom') return { names: [fieldChoice.value], problem: null };
    const names = customFields.value
      .split(/[,\s]+/)
      .map((n) => n.trim())
      .filter(Boolean);
    if (!names.length) return { names, problem: 'Name at least one field.' };
    try {
      return { names: resolveExportFields(names), problem: null };
    } catch (e) {
      return { names, problem: e instanceof Error ? e.message : String(e) };
    }
  });
  const job = ref<ExportJob | null>(null);
  const starting = ref(false);
  const error = ref<string | null>(null);

  const progress = followJobs<ExportJob>({
    status: (id) => getBridge()['export/status']({ id }),
    cancel: (id) => getBridge()['export/cancel']({ id }),
    onUpdate: (next) => {
      const finished = job.value?.status === 'running' && next.status !== 'running';
      job.value = next;
      // The export history and "Leave out → Earlier exports" show an export as soon as it ends, not at the next reload.
      if (finished) void showFinished();
    },
    onError: (e) => {
      error.value = describeError(e);
    },
  });

  /** Reloads the lists that show finished exports. */
  async function showFinished(): Promise<void> {
    await Promise.all([useExportHistoryStore().refresh(), useExclusionsStore().refreshExports()]);
  }

  const running = computed(() => starting.value || job.value?.status === 'running');

  async function start(): Promise<void> {
    const audience = useAudienceStore();
    audience.commitNow();
    const target = audience.committed;
    if (!target?.state || running.value || fields.value.problem) return;
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
        // The whole record with codes is the plain export: sent as before, without the keys.
        ...(fieldChoice.value !== 'full' ? { fields: fields.value.names } : {}),
        ...(values.value !== 'codes' ? { values: values.value } : {}),
        ...(name ? { fileName: name } : {}),
      });
      if (job.value.status === 'running') progress.follow(job.value);
      else void showFinished();
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

  return {
    format,
    header,
    fileName,
    fieldChoice,
    customFields,
    values,
    fields,
    job,
    starting,
    error,
    running,
    canShowInFolder,
    start,
    cancel,
    showInFolder,
    reset,
  };
});
