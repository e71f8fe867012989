// Importing vendor files from the app: choose files (the OS dialog, or browser mode's inbox), check
// how each header maps onto record fields, start, follow the job (lib/jobProgress), cancel; once the
// new dataset is complete, ask (switch, or keep the current one), and if switched move the whole
// desk onto the new dataset.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ImportDelimiter, ImportJob, ImportPlan } from '../../../shared/contract';
import { describeError, getBridge, isCancelled } from '../bridge';
import { followJobs } from '../lib/jobProgress';
import { useAudienceStore } from './audience';
import { useDatasetStore } from './dataset';
import { useFieldValuesStore } from './fieldValues';
import { useRecordStore } from './record';

/** 'auto': each file's header line decides; otherwise one delimiter for every file. */
export type DelimiterChoice = 'auto' | ImportDelimiter;

export const useImportStore = defineStore('importJob', () => {
  const open = ref(false);
  const files = ref<string[]>([]);
  /** Browser mode: the folder whose files "Choose files" offers. */
  const inbox = ref<string | null>(null);
  /** True once a pick came back with no files (dialog dismissed, or an empty inbox). */
  const pickedNothing = ref(false);
  const delimiter = ref<DelimiterChoice>('auto');
  /** Columns the user mapped: a vendor header to the record field it fills, or '' to skip it; sent with inspect and start. */
  const columns = ref<Record<string, string>>({});
  const chosenColumns = (): { columns?: Record<string, string> } =>
    Object.keys(columns.value).length ? { columns: { ...columns.value } } : {};
  const plan = ref<ImportPlan | null>(null);
  const job = ref<ImportJob | null>(null);
  const busy = ref(false);
  const error = ref<string | null>(null);

  const progress = followJobs<ImportJob>({
    status: (id) => getBridge()['import/status']({ id }),
    cancel: (id) => getBridge()['import/cancel']({ id }),
    onUpdate: async (next) => {
      job.value = next;
      if (next.status === 'done' && next.switched !== false) await moveToNewDataset();
    },
    onError: (e) => {
      error.value = describeError(e);
    },
  });

  const running = computed(() => job.value?.status === 'running');
  const canStart = computed(() => !busy.value && !running.value && files.value.length > 0 && plan.value?.ready === true);
  const chosenDelimiter = (): { delimiter?: ImportDelimiter } => (delimiter.value === 'auto' ? {} : { delimiter: delimiter.value });

  /** Opens the screen; a running import (this page reloaded, say) is shown again. */
  async function show(): Promise<void> {
    open.value = true;
    error.value = null;
    if (job.value) return;
    try {
      const { job: current } = await getBridge()['import/current']({});
      if (current?.status === 'running') {
        job.value = current;
        files.value = current.files;
        progress.follow(current);
      }
    } catch (e) {
      error.value = describeError(e);
    }
  }

  function hide(): void {
    open.value = false; // a running import goes on; the screen can be opened again to follow it
  }

  /** Counts inspections: mapping several columns quickly starts several, and their answers may arrive out of order. */
  let inspections = 0;

  async function inspect(): Promise<void> {
    const asked = ++inspections;
    if (files.value.length === 0) {
      plan.value = null;
      return;
    }
    busy.value = true;
    try {
      const answer = await getBridge()['import/inspect']({ files: files.value, ...chosenDelimiter(), ...chosenColumns() });
      // Only the latest inspection's plan is the files' plan under the current choices.
      if (asked !== inspections) return;
      plan.value = answer;
      error.value = null;
    } catch (e) {
      if (asked !== inspections) return;
      plan.value = null;
      error.value = describeError(e);
    } finally {
      if (asked === inspections) busy.value = false;
    }
  }

  async function choose(): Promise<void> {
    if (running.value) return;
    busy.value = true;
    error.value = null;
    try {
      const pick = await getBridge()['import/pick']({});
      inbox.value = pick.inbox;
      pickedNothing.value = pick.files.length === 0;
      // Files chosen again are added once; the order is the user's (a later file wins on a PID).
      if (pick.files.length > 0) {
        job.value = null;
        files.value = [...files.value, ...pick.files.filter((f) => !files.value.includes(f))];
      }
    } catch (e) {
      error.value = describeError(e);
    } finally {
      busy.value = false;
    }
    await inspect();
  }

  /**
   * Browser mode: files just uploaded into the inbox (lib/inboxUpload.ts) join the import, and only
   * they: the inbox is picked again (so they may be read) and the other files in it are left alone.
   */
  async function addUploaded(paths: readonly string[]): Promise<void> {
    if (running.value) return;
    busy.value = true;
    error.value = null;
    try {
      const pick = await getBridge()['import/pick']({});
      inbox.value = pick.inbox;
      const wanted = pick.files.filter((f) => paths.includes(f) && !files.value.includes(f));
      if (wanted.length) {
        job.value = null;
        files.value = [...files.value, ...wanted];
      }
    } catch (e) {
      error.value = describeError(e);
    } finally {
      busy.value = false;
    }
    await inspect();
  }

  async function remove(path: string): Promise<void> {
    files.value = files.value.filter((f) => f !== path);
    await inspect();
  }

  /** Maps a column (by its header, in every file) onto a record field, '' to skip it, or null to read it by its name again. */
  async function mapColumn(header: string, field: string | null): Promise<void> {
    const next = { ...columns.value };
    if (field === null) delete next[header];
    else next[header] = field;
    columns.value = next;
    await inspect();
  }

  async function setDelimiter(choice: DelimiterChoice): Promise<void> {
    delimiter.value = choice;
    await inspect();
  }

  async function start(): Promise<void> {
    if (!canStart.value) return;
    busy.value = true;
    error.value = null;
    try {
      job.value = await getBridge()['import/start']({ files: files.value, ...chosenDelimiter(), ...chosenColumns() });
      progress.follow(job.value);
    } catch (e) {
      if (!isCancelled(e)) error.value = describeError(e);
    } finally {
      busy.value = false;
    }
  }

  /** The answer to "Importing asks first": switch to the new dataset, or keep the one in use. */
  async function decide(switchTo: boolean): Promise<void> {
    const current = job.value;
    if (!current || current.phase !== 'confirm') return;
    busy.value = true;
    try {
      job.value = await getBridge()['import/confirm']({ id: current.id, switch: switchTo });
    } catch (e) {
      error.value = describeError(e);
    } finally {
      busy.value = false;
    }
  }

  async function cancel(): Promise<void> {
    if (job.value?.status === 'running') await progress.cancel();
  }

  /** The app answers from the new dataset now: every view that holds answers of the old one reloads. */
  async function moveToNewDataset(): Promise<void> {
    useRecordStore().close();
    useFieldValuesStore().clear();
    const dataset = useDatasetStore();
    await dataset.load();
    const audience = useAudienceStore();
    const people = new Map((dataset.info?.states ?? []).map((s) => [s.state, s.count]));
    if (!people.get(audience.state)) {
      const biggest = [...(dataset.info?.states ?? [])].sort((a, b) => b.count - a.count)[0];
      if (biggest) audience.setState(biggest.state);
    }
    audience.recount();
  }

  async function showRejects(): Promise<void> {
    const bridge = getBridge();
    const path = job.value?.rejectsPath;
    if (path && bridge.showInFolder) await bridge.showInFolder(path);
  }

  /** Back to an empty screen for another import. */
  function reset(): void {
    progress.stop();
    job.value = null;
    files.value = [];
    columns.value = {};
    plan.value = null;
    error.value = null;
    pickedNothing.value = false;
  }

  const canShowInFolder = computed(() => typeof getBridge().showInFolder === 'function');

  return {
    open,
    files,
    inbox,
    pickedNothing,
    delimiter,
    columns,
    plan,
    job,
    busy,
    error,
    running,
    canStart,
    canShowInFolder,
    show,
    hide,
    choose,
    addUploaded,
    mapColumn,
    remove,
    setDelimiter,
    start,
    decide,
    moveToNewDataset,
    cancel,
    showRejects,
    reset,
  };
});
