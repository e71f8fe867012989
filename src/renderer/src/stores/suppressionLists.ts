// Imported suppression lists (lists/*): choose a file (the OS dialog, or browser mode's imports
// inbox), name it, import it; see each list's rows, kinds, rejects and matches; delete one. The
// back end keeps only keyed hashes of what a list holds, so the app never sees its values.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { SuppressionListInfo } from '../../../shared/contract';
import { describeError, getBridge, isCancelled } from '../bridge';
import { useListControlsStore } from './listControls';

export const useSuppressionListsStore = defineStore('suppressionLists', () => {
  const open = ref(false);
  const list = ref<SuppressionListInfo[]>([]);
  const loading = ref(false);
  /** Files the last pick offered; the user imports one of them at a time. */
  const files = ref<string[]>([]);
  /** Browser mode: the folder whose files are offered. */
  const inbox = ref<string | null>(null);
  const pickedNothing = ref(false);
  const busy = ref(false);
  const error = ref<string | null>(null);
  /** The list imported last, so its result can be pointed out. */
  const lastImported = ref<SuppressionListInfo | null>(null);

  async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
    busy.value = true;
    try {
      const out = await work();
      error.value = null;
      return out;
    } catch (e) {
      if (!isCancelled(e)) error.value = describeError(e);
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      list.value = await getBridge()['lists/list']({});
      error.value = null;
    } catch (e) {
      error.value = describeError(e);
    } finally {
      loading.value = false;
    }
  }

  async function choose(): Promise<void> {
    const out = await run(() => getBridge()['lists/pick']({}));
    if (!out) return;
    files.value = out.files;
    inbox.value = out.inbox;
    pickedNothing.value = out.files.length === 0;
  }

  /** The file uploaded last (browser mode), for the form to choose once the inbox is picked again. */
  const uploaded = ref<string | null>(null);

  /** Browser mode: a file just uploaded into the inbox is picked from there and chosen. */
  async function chooseUploaded(path: string): Promise<void> {
    uploaded.value = path;
    await choose();
  }

  async function importFile(file: string, name: string): Promise<boolean> {
    const out = await run(() => getBridge()['lists/import']({ file, name: name.trim() }));
    if (!out) return false;
    lastImported.value = out;
    files.value = files.value.filter((f) => f !== file);
    await refresh();
    return true;
  }

  async function remove(id: string): Promise<void> {
    const out = await run(() => getBridge()['lists/delete']({ id }));
    if (!out) return;
    // Leaving out a list that no longer exists would make every request fail.
    useListControlsStore().removeExclusion(`list:${id}`);
    if (lastImported.value?.id === id) lastImported.value = null;
    await refresh();
  }

  function show(): void {
    open.value = true;
    void refresh();
  }

  function hide(): void {
    open.value = false;
  }

  return {
    open,
    list,
    loading,
    files,
    inbox,
    pickedNothing,
    busy,
    error,
    lastImported,
    uploaded,
    refresh,
    choose,
    chooseUploaded,
    importFile,
    remove,
    show,
    hide,
  };
});
