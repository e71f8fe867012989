// Consumer opt-outs (optouts/*, docs/optouts.md): choose a file (the OS dialog, or browser mode's
// imports inbox), import it; see each import's audit (when, rows, what it held, rejects, people
// matched); remove one. An import or removal changes every count, so the audience is counted again.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { OptOutImport } from '../../../shared/contract';
import { describeError, getBridge, isCancelled } from '../bridge';
import { useAudienceStore } from './audience';

export const useOptOutsStore = defineStore('optouts', () => {
  const open = ref(false);
  const list = ref<OptOutImport[]>([]);
  const loading = ref(false);
  const files = ref<string[]>([]);
  const inbox = ref<string | null>(null);
  const pickedNothing = ref(false);
  const busy = ref(false);
  const error = ref<string | null>(null);
  const lastImported = ref<OptOutImport | null>(null);

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
      list.value = await getBridge()['optouts/list']({});
      error.value = null;
    } catch (e) {
      error.value = describeError(e);
    } finally {
      loading.value = false;
    }
  }

  async function choose(): Promise<void> {
    const out = await run(() => getBridge()['optouts/pick']({}));
    if (!out) return;
    files.value = out.files;
    inbox.value = out.inbox;
    pickedNothing.value = out.files.length === 0;
  }

  async function importFile(file: string): Promise<void> {
    const out = await run(() => getBridge()['optouts/import']({ file }));
    if (!out) return;
    lastImported.value = out;
    files.value = files.value.filter((f) => f !== file);
    useAudienceStore().recount();
    await refresh();
  }

  async function remove(id: string): Promise<void> {
    const out = await run(() => getBridge()['optouts/remove']({ id }));
    if (!out) return;
    useAudienceStore().recount();
    await refresh();
  }

  function show(): void {
    open.value = true;
    void refresh();
  }

  function hide(): void {
    open.value = false;
  }

  return { open, list, loading, files, inbox, pickedNothing, busy, error, lastImported, refresh, choose, importFile, remove, show, hide };
});
