// The state every "import a file into the app state" dialog keeps (suppression lists, consumer
// opt-outs): whether it is open, what was imported so far, the files the last pick offered (the OS
// dialog, or browser mode's imports inbox), and one busy flag and error for its operations. A store
// adds its own import and removal on top (suppressionLists.ts, optouts.ts).
import { ref, type Ref } from 'vue';
import type { ImportPick } from '../../../shared/contract';
import { describeError, isCancelled } from '../bridge';

export function usePickedFileImports<T>(load: () => Promise<T[]>, pick: () => Promise<ImportPick>) {
  const open = ref(false);
  const list = ref([]) as Ref<T[]>;
  const loading = ref(false);
  /** Files the last pick offered; the user imports one of them at a time. */
  const files = ref<string[]>([]);
  /** Browser mode: the folder whose files are offered. */
  const inbox = ref<string | null>(null);
  const pickedNothing = ref(false);
  const busy = ref(false);
  const error = ref<string | null>(null);
  /** What was imported last, so its result can be pointed out. */
  const lastImported = ref(null) as Ref<T | null>;

  /** Runs an operation with the busy flag up; its answer, or undefined once its error is shown (a cancel shows none). */
  async function run<R>(work: () => Promise<R>): Promise<R | undefined> {
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
      list.value = await load();
      error.value = null;
    } catch (e) {
      error.value = describeError(e);
    } finally {
      loading.value = false;
    }
  }

  async function choose(): Promise<void> {
    const out = await run(pick);
    if (!out) return;
    files.value = out.files;
    inbox.value = out.inbox;
    pickedNothing.value = out.files.length === 0;
  }

  function show(): void {
    open.value = true;
    void refresh();
  }

  function hide(): void {
    open.value = false;
  }

  return { open, list, loading, files, inbox, pickedNothing, busy, error, lastImported, run, refresh, choose, show, hide };
}
