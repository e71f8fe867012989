// Saved audiences: a name over a state, its filters and its list controls, kept by the back end
// (audiences/*). Saving sends the controls; opening one restores them.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { SavedAudience } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';
import { useAudienceStore } from './audience';
import { useListControlsStore } from './listControls';

export const useSavedStore = defineStore('saved', () => {
  const list = ref<SavedAudience[]>([]);
  const loading = ref(false);
  const error = ref<string | null>(null);
  /** The saved audience last loaded or saved, so its row can be marked. */
  const currentId = ref<number | null>(null);

  async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      const out = await work();
      error.value = null;
      return out;
    } catch (e) {
      error.value = describeError(e);
      return undefined;
    }
  }

  async function refresh(): Promise<void> {
    loading.value = true;
    const out = await run(() => getBridge()['audiences/list']({}));
    if (out) list.value = out;
    loading.value = false;
  }

  /** The saved audience a name would replace (names are one whatever their case), if any. */
  function named(name: string): SavedAudience | undefined {
    const wanted = name.trim().toLowerCase();
    return list.value.find((s) => s.name.toLowerCase() === wanted);
  }

  /** Saves the audience; `replace` (after the user confirmed) puts it in place of the one of that name. */
  async function save(name: string, replace = false): Promise<boolean> {
    const audience = useAudienceStore();
    const request = audience.request;
    if (!request.state) return false;
    // A saved audience holds one state (app state's saved_audiences table, and the API it feeds).
    if (request.states) {
      error.value = 'A saved audience holds one state: choose one state to save it (several-state audiences can be exported).';
      return false;
    }
    const saved = await run(() => getBridge()['audiences/save']({ ...request, name: name.trim(), ...(replace ? { replace } : {}) }));
    if (!saved) return false;
    currentId.value = saved.id;
    await refresh();
    return true;
  }

  async function rename(id: number, name: string): Promise<boolean> {
    const out = await run(() => getBridge()['audiences/rename']({ id, name: name.trim() }));
    if (out) await refresh();
    return out !== undefined;
  }

  async function remove(id: number): Promise<void> {
    const out = await run(() => getBridge()['audiences/delete']({ id }));
    if (out) {
      if (currentId.value === id) currentId.value = null;
      // Leaving out a saved audience that no longer exists would make every request fail.
      useListControlsStore().removeExclusion(`saved:${id}`);
      await refresh();
    }
  }

  function apply(saved: SavedAudience): void {
    useAudienceStore().load({ ...saved.controls, state: saved.state, filters: saved.filters });
    currentId.value = saved.id;
  }

  return { list, loading, error, currentId, refresh, named, save, rename, remove, apply };
});
