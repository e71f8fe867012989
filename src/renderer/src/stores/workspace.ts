// What the desk reopens with after a reload or a restart: the committed audience (states, filters,
// list controls) and the grid's columns, kept in app state through workspace/get and workspace/set
// (src/core/appState/workspaceState.ts). Not localStorage: browser mode's page origin carries the
// port of each `serve`, which changes from run to run, so the page's storage would start empty.
import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import type { Workspace } from '../../../shared/contract';
import { getBridge } from '../bridge';
import { fieldByName } from '../../../shared/fields';
import { useAudienceStore } from './audience';
import { clampBuilderWidth, useUiStore } from './ui';

/** The grid's columns by default: the fields the preview answers (any record field can be added). */
export const DEFAULT_COLUMNS: readonly string[] = ['PID', 'FNAME', 'LNAME', 'CITY', 'STATE'];
/** The most columns the grid shows (the workspace keeps at most this many). */
export const MAX_COLUMNS = 40;
/** Column ids kept by earlier versions (the preview's own keys), read as the fields they showed. */
const OLDER_IDS: Record<string, string> = { pid: 'PID', fname: 'FNAME', lname: 'LNAME', city: 'CITY', state: 'STATE' };
/** A kept column id as a field of the catalog, or undefined when it names none. */
function columnField(id: string): string | undefined {
  return fieldByName(OLDER_IDS[id] ?? id)?.name;
}

/** Waits this long after the last change before writing, so a burst of edits is one write. */
export const SAVE_DEBOUNCE_MS = 300;

export const useWorkspaceStore = defineStore('workspace', () => {
  const columns = ref<string[]>([...DEFAULT_COLUMNS]);
  /** True once restore() has run (whether or not anything was kept). */
  const restored = ref(false);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let started = false;

  /** Reopens what was kept; a failure leaves the desk as a first start would have it. */
  async function restore(): Promise<void> {
    try {
      const kept = await getBridge()['workspace/get']({});
      if (kept.columns) setColumns(kept.columns);
      if (kept.builderWidth) useUiStore().setBuilderWidth(kept.builderWidth);
      if (kept.audience?.state)
        useAudienceStore().load({ filters: [], ...kept.audience } as Parameters<ReturnType<typeof useAudienceStore>['load']>[0]);
    } catch {
      // Nothing kept is readable: start afresh rather than not at all.
    } finally {
      restored.value = true;
    }
  }

  function snapshot(): Workspace {
    return {
      audience: useAudienceStore().committed,
      columns: [...columns.value],
      builderWidth: clampBuilderWidth(useUiStore().builderWidth),
    };
  }

  async function save(): Promise<void> {
    timer = null;
    try {
      await getBridge()['workspace/set'](snapshot());
    } catch {
      // The desk works on; the next change tries again.
    }
  }

  function schedule(): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void save(), SAVE_DEBOUNCE_MS);
  }

  /** Keeps the workspace from now on, whenever the committed audience or the columns change. */
  function start(): void {
    if (started) return;
    started = true;
    const audience = useAudienceStore();
    watch(() => JSON.stringify(audience.committed), schedule);
    watch(() => columns.value.join(','), schedule);
    watch(() => useUiStore().builderWidth, schedule);
  }

  /** The columns shown, in the order given, each field once; at least one, at most MAX_COLUMNS. */
  function setColumns(ids: readonly string[]): void {
    const next = [...new Set(ids.map(columnField).filter((f): f is string => !!f))].slice(0, MAX_COLUMNS);
    columns.value = next.length ? next : [...DEFAULT_COLUMNS];
  }

  /** Shows (at the end) or hides one field's column; the last column cannot be hidden. */
  function toggleColumn(id: string, on: boolean): void {
    const field = columnField(id);
    if (!field) return;
    const next = on ? [...columns.value.filter((c) => c !== field), field] : columns.value.filter((c) => c !== field);
    if (next.length) setColumns(next);
  }

  return { columns, restored, restore, start, save, setColumns, toggleColumn };
});
