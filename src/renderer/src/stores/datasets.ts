// Nothing lost (README): the dataset history (switch back to a previous dataset, delete one, how many
// to keep), app-state backups (make one; restore one: what it would bring is shown first, and the
// restore runs only once the user confirms that file, by its fingerprint) and what the app must say about its start-up
// (a damaged app state set aside). The active dataset's id lets saved audiences and exports say when
// they were made on another dataset.
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { BackupInfo, DatasetEntry, DatasetRef, RestorePreview, RestoreSummary } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';
import { useDatasetStore } from './dataset';
import { useImportStore } from './importJob';
import { useSavedStore } from './saved';

export const useDatasetsStore = defineStore('datasets', () => {
  const open = ref(false);
  const datasets = ref<DatasetEntry[]>([]);
  const keep = ref(3);
  const backups = ref<BackupInfo[]>([]);
  const backupsFolder = ref<string | null>(null);
  const lastBackup = ref<BackupInfo | null>(null);
  const restored = ref<RestoreSummary | null>(null);
  /** The backup being looked at before a restore (backup/preview); null when none is. */
  const pending = ref<RestorePreview | null>(null);
  const notices = ref<string[]>([]);
  const busy = ref(false);
  const error = ref<string | null>(null);

  const active = computed(() => datasets.value.find((d) => d.active) ?? null);

  /** True when `ref` names a dataset other than the one in use (null: made before datasets were recorded). */
  function isOther(dataset: DatasetRef | null | undefined): boolean {
    return !!dataset && !!active.value && dataset.id !== active.value.id;
  }

  async function guarded<T>(work: () => Promise<T>): Promise<T | undefined> {
    busy.value = true;
    try {
      const value = await work();
      error.value = null;
      return value;
    } catch (e) {
      error.value = describeError(e);
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  async function load(): Promise<void> {
    await guarded(async () => {
      const list = await getBridge()['datasets/list']({});
      datasets.value = list.datasets;
      keep.value = list.keep;
    });
  }

  async function loadBackups(): Promise<void> {
    await guarded(async () => {
      const list = await getBridge()['backup/list']({});
      backups.value = list.backups;
      backupsFolder.value = list.folder;
    });
  }

  async function show(): Promise<void> {
    open.value = true;
    restored.value = null;
    pending.value = null;
    await Promise.all([load(), loadBackups()]);
  }

  function hide(): void {
    open.value = false;
  }

  async function switchTo(id: string): Promise<void> {
    const entry = await guarded(() => getBridge()['datasets/switch']({ id }));
    if (!entry) return;
    await useImportStore().moveToNewDataset();
    await load();
  }

  async function remove(id: string): Promise<void> {
    await guarded(() => getBridge()['datasets/delete']({ id }));
    await load();
  }

  async function setKeep(n: number): Promise<void> {
    const list = await guarded(() => getBridge()['datasets/keep']({ keep: n }));
    if (list) {
      datasets.value = list.datasets;
      keep.value = list.keep;
    }
  }

  async function backup(): Promise<void> {
    const info = await guarded(() => getBridge()['backup/create']({}));
    if (info) lastBackup.value = info;
    await loadBackups();
  }

  /** Shows what a backup would bring; nothing changes yet. */
  async function previewRestore(name: string): Promise<void> {
    pending.value = null;
    restored.value = null;
    const preview = await guarded(() => getBridge()['backup/preview']({ name }));
    if (preview) pending.value = preview;
  }

  function cancelRestore(): void {
    pending.value = null;
  }

  /** Restores the backup shown, as it was shown: a file changed since is refused by the core. */
  async function confirmRestore(): Promise<void> {
    const shown = pending.value;
    if (!shown) return;
    pending.value = null;
    const summary = await guarded(() => getBridge()['backup/restore']({ name: shown.name, fingerprint: shown.fingerprint }));
    if (!summary) return;
    restored.value = summary;
    // Saved audiences and lists are the backup's now.
    await useSavedStore().refresh();
  }

  async function loadNotices(): Promise<void> {
    try {
      notices.value = (await getBridge()['app/notices']({})).notices;
    } catch {
      notices.value = [];
    }
  }

  function dismissNotice(text: string): void {
    notices.value = notices.value.filter((n) => n !== text);
  }

  // Whenever the desk opens another dataset (start, import, switch), the history's active one changes.
  watch(
    () => useDatasetStore().info?.path,
    (path) => {
      if (path) void load();
    },
  );

  return {
    open,
    datasets,
    keep,
    backups,
    backupsFolder,
    lastBackup,
    restored,
    pending,
    notices,
    busy,
    error,
    active,
    isOther,
    load,
    loadBackups,
    show,
    hide,
    switchTo,
    remove,
    setKeep,
    backup,
    previewRestore,
    cancelRestore,
    confirmRestore,
    loadNotices,
    dismissNotice,
  };
});
