// What the desk reopens with after a reload or a restart: the committed audience (states, filters,
// list controls) and the grid's columns, kept in app state through workspace/get and workspace/set
// (src/core/appState/workspaceState.ts). Not localStorage: browser mode's page origin carries the
// port of each `serve`, which changes from run to run, so the page's storage would start empty.
import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import type { Workspace } from '../../../shared/contract';
import { getBridge } from '../bridge';
import { useAudienceStore } from './audience';

/** The grid's columns, by preview field, in the order offered. */
export const GRID_COLUMNS = [
  { id: 'pid', label: 'PID' },
  { id: 'fname', label: 'First name' },
  { id: 'lname', label: 'Last name' },
  { id: 'city', label: 'City' },
  { id: 'state', label: 'State' },
] as const;
export type GridColumn = (typeof GRID_COLUMNS)[number]['id'];
export const DEFAULT_COLUMNS: GridColumn[] = GRID_COLUMNS.map((c) => c.id);
const isColumn = (id: string): id is GridColumn => GRID_COLUMNS.some((c) => c.id === id);

/** Waits this long after the last change before writing, so a burst of edits is one write. */
export const SAVE_DEBOUNCE_MS = 300;

export const useWorkspaceStore = defineStore('workspace', () => {
  const columns = ref<GridColumn[]>([...DEFAULT_COLUMNS]);
  /** True once restore() has run (whether or not anything was kept). */
  const restored = ref(false);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let started = false;

  /** Reopens what was kept; a failure leaves the desk as a first start would have it. */
  async function restore(): Promise<void> {
    try {
      const kept = await getBridge()['workspace/get']({});
      if (kept.columns) setColumns(kept.columns);
      if (kept.audience?.state)
        useAudienceStore().load({ filters: [], ...kept.audience } as Parameters<ReturnType<typeof useAudienceStore>['load']>[0]);
    } catch {
      // Nothing kept is readable: start afresh rather than not at all.
    } finally {
      restored.value = true;
    }
  }

  function snapshot(): Workspace {
    return { audience: useAudienceStore().committed, columns: [...columns.value] };
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
  }

  /** The columns shown, in the order offered; at least one. */
  function setColumns(ids: readonly string[]): void {
    const next = DEFAULT_COLUMNS.filter((id) => ids.includes(id));
    columns.value = next.length ? next : [...DEFAULT_COLUMNS];
  }

  function toggleColumn(id: string, on: boolean): void {
    if (!isColumn(id)) return;
    const next = on ? [...columns.value, id] : columns.value.filter((c) => c !== id);
    if (next.length) setColumns(next);
  }

  return { columns, restored, restore, start, save, setColumns, toggleColumn };
});
