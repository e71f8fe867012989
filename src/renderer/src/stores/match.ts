// Match and append (match/*, docs/match.md): choose a customer file (the OS dialog, or browser mode's
// imports inbox), the fields to append and how their values read, optionally a list name to keep the
// matched people as; the matched file goes where exports go. The summary holds counts only.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { Outputs } from '../../../shared/contract';
import { describeError, getBridge, isCancelled } from '../bridge';
import { useSuppressionListsStore } from './suppressionLists';

export const useMatchStore = defineStore('match', () => {
  const open = ref(false);
  const files = ref<string[]>([]);
  const inbox = ref<string | null>(null);
  const pickedNothing = ref(false);
  const busy = ref(false);
  const error = ref<string | null>(null);
  const result = ref<Outputs['match/run'] | null>(null);

  async function choose(): Promise<void> {
    busy.value = true;
    try {
      const out = await getBridge()['match/pick']({});
      files.value = out.files;
      inbox.value = out.inbox;
      pickedNothing.value = out.files.length === 0;
      error.value = null;
    } catch (e) {
      if (!isCancelled(e)) error.value = describeError(e);
    } finally {
      busy.value = false;
    }
  }

  async function run(file: string, fields: string[], values: 'codes' | 'labels', keep: string): Promise<void> {
    busy.value = true;
    result.value = null;
    try {
      const out = await getBridge()['match/run']({ file, fields, values, ...(keep.trim() ? { keep: keep.trim() } : {}) });
      error.value = null;
      if (out.path === null) return;
      result.value = out;
      // A kept list is one more list to choose under "Leave out".
      if (out.list) void useSuppressionListsStore().refresh();
    } catch (e) {
      if (!isCancelled(e)) error.value = describeError(e);
    } finally {
      busy.value = false;
    }
  }

  function show(): void {
    open.value = true;
  }

  function hide(): void {
    open.value = false;
  }

  return { open, files, inbox, pickedNothing, busy, error, result, choose, run, show, hide };
});
