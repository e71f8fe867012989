// Imported suppression lists (lists/*): choose a file (the OS dialog, or browser mode's imports
// inbox), name it, import it; see each list's rows, kinds, rejects and matches; delete one. The
// back end keeps only keyed hashes of what a list holds, so the app never sees its values.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { SuppressionListInfo } from '../../../shared/contract';
import { getBridge } from '../bridge';
import { useListControlsStore } from './listControls';
import { usePickedFileImports } from './pickedFileImports';

export const useSuppressionListsStore = defineStore('suppressionLists', () => {
  const { run, ...dialog } = usePickedFileImports<SuppressionListInfo>(
    () => getBridge()['lists/list']({}),
    () => getBridge()['lists/pick']({}),
  );
  const { files, lastImported, refresh, choose } = dialog;

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

  return { ...dialog, uploaded, chooseUploaded, importFile, remove };
});
