// Consumer opt-outs (optouts/*, docs/optouts.md): choose a file (the OS dialog, or browser mode's
// imports inbox), import it; see each import's audit (when, rows, what it held, rejects, people
// matched); remove one. An import or removal changes every count, so the audience is counted again.
import { defineStore } from 'pinia';
import type { OptOutImport } from '../../../shared/contract';
import { getBridge } from '../bridge';
import { useAudienceStore } from './audience';
import { usePickedFileImports } from './pickedFileImports';

export const useOptOutsStore = defineStore('optouts', () => {
  const { run, ...dialog } = usePickedFileImports<OptOutImport>(
    () => getBridge()['optouts/list']({}),
    () => getBridge()['optouts/pick']({}),
  );
  const { files, lastImported, refresh } = dialog;

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

  return { ...dialog, importFile, remove };
});
