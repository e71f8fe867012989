// The audience being built: its states (one, several or all), its filters and the list controls
// (stores/listControls), the debounced request that the count, the grid, the breakdown, the cross-tab
// and the export all read, and the live count with its steps and its count in each state. Each count
// request carries a sequence number; an answer to anything but the latest request is dropped.
// Every committed change is a step of the edit history: undo() and redo() walk it (Ctrl+Z, Ctrl+Shift+Z).
//
// For other views (the maps): `states` is the chosen state codes in code order, `committed.states`
// is set only when there are several, and `byState` is the committed audience's count per state.
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { AudienceSteps, Filter, StateCount } from '../../../shared/contract';
import type { ListControlsInput } from '../../../shared/listControls';
import { fieldByName } from '../../../shared/fields';
import { getBridge } from '../bridge';
import { audienceQuery } from '../lib/latestAnswer';
import { useListControlsStore } from './listControls';

export const COUNT_DEBOUNCE_MS = 150;
/** Edits the history keeps; older ones are forgotten. */
export const HISTORY_MAX = 100;

export interface FilterEntry {
  field: string;
  values: string[];
}

/**
 * An audience as every audience operation takes it: state, filters and the list controls' keys;
 * `states` (in code order, `state` being the first) when it spans several states.
 */
export interface AudienceRequestShape extends ListControlsInput {
  state: string;
  states?: string[];
  filters: Filter[];
}

const copyOf = (a: AudienceRequestShape): AudienceRequestShape => JSON.parse(JSON.stringify(a)) as AudienceRequestShape;

export const useAudienceStore = defineStore('audience', () => {
  const controls = useListControlsStore();
  /** The chosen states' codes, in code order. */
  const states = ref<string[]>([]);
  /** The first chosen state ('' before one is chosen): what one-state views (saved audiences, the record drawer) use. */
  const state = computed(() => states.value[0] ?? '');
  const filters = ref<FilterEntry[]>([]);
  /** The request as of the last debounce: what the count, grid, breakdown and export use. */
  const committed = ref<AudienceRequestShape | null>(null);
  /** Bumped on every commit, so views can tell a new audience from the old one. */
  const version = ref(0);
  const total = ref<number | null>(null);
  const ms = ref<number | null>(null);
  /** How many are left after each step of the controls, for the committed audience. */
  const steps = ref<AudienceSteps | null>(null);
  /** The committed audience's count in each of its states, in code order. */
  const byState = ref<StateCount[]>([]);
  /** Committed audiences before (undo) and after (redo) the current one. */
  const undoStack = ref<AudienceRequestShape[]>([]);
  const redoStack = ref<AudienceRequestShape[]>([]);
  const canUndo = computed(() => undoStack.value.length > 0);
  const canRedo = computed(() => redoStack.value.length > 0);

  const { loading: counting, error, run } = audienceQuery(() => committed.value);
  let timer: ReturnType<typeof setTimeout> | null = null;

  const requestFilters = computed<Filter[]>(() =>
    filters.value.filter((f) => f.values.length > 0).map((f) => [f.field, [...f.values]] as Filter),
  );
  const request = computed<AudienceRequestShape>(() => ({
    state: state.value,
    ...(states.value.length > 1 ? { states: [...states.value] } : {}),
    filters: requestFilters.value,
    ...controls.input,
  }));
  const incomplete = computed(() => filters.value.filter((f) => f.values.length === 0).map((f) => f.field));

  async function refreshCount(): Promise<void> {
    await run(
      (target) => getBridge()['audience/count'](target),
      (answer) => {
        total.value = answer.total;
        ms.value = answer.ms;
        steps.value = answer.steps ?? null;
        byState.value = answer.byState ?? [];
      },
    );
  }

  /** Commits the audience as it stands; a change is a step of the history unless it is an undo or redo. */
  function commitNow(record = true): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const next = request.value;
    if (committed.value && JSON.stringify(committed.value) === JSON.stringify(next)) return;
    if (record && committed.value) {
      undoStack.value = [...undoStack.value.slice(1 - HISTORY_MAX), committed.value];
      redoStack.value = [];
    }
    committed.value = copyOf(next);
    version.value++;
    void refreshCount();
  }

  /** The same audience asked again of a different dataset: the count, grid and breakdown reload. */
  function recount(): void {
    committed.value = null;
    commitNow();
  }

  /** Goes back to the audience before the last edit (an edit still waiting to be counted is committed first). */
  function undo(): void {
    if (timer) commitNow();
    const previous = undoStack.value.at(-1);
    if (!previous || !committed.value) return;
    undoStack.value = undoStack.value.slice(0, -1);
    redoStack.value = [...redoStack.value, committed.value];
    load(previous);
    commitNow(false);
  }

  /** Goes forward again to the audience an undo left. */
  function redo(): void {
    const next = redoStack.value.at(-1);
    if (!next || !committed.value) return;
    redoStack.value = redoStack.value.slice(0, -1);
    undoStack.value = [...undoStack.value, committed.value];
    load(next);
    commitNow(false);
  }

  function schedule(): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(commitNow, COUNT_DEBOUNCE_MS);
  }

  watch(
    () => JSON.stringify(request.value),
    () => {
      if (state.value) schedule();
    },
  );

  function entry(field: string): FilterEntry | undefined {
    return filters.value.find((f) => f.field === field);
  }

  function setState(code: string): void {
    states.value = code ? [code.toUpperCase()] : [];
  }

  /** Several states (or every one): unique codes in code order; an empty list is refused (a state is needed). */
  function setStates(codes: readonly string[]): void {
    const next = [...new Set(codes.map((c) => c.toUpperCase()).filter(Boolean))].sort();
    if (next.length === 0 || JSON.stringify(next) === JSON.stringify(states.value)) return;
    states.value = next;
  }

  /** Adds an (empty) filter on a field; an existing one is kept. */
  function addFilter(field: string): void {
    const def = fieldByName(field);
    if (!def || entry(def.name)) return;
    filters.value.push({ field: def.name, values: [] });
  }

  function setValues(field: string, values: string[]): void {
    const e = entry(field);
    const unique = [...new Set(values)];
    if (e) e.values = unique;
    else filters.value.push({ field, values: unique });
  }

  function toggleValue(field: string, value: string, on?: boolean): void {
    const e = entry(field) ?? (addFilter(field), entry(field));
    if (!e) return;
    const has = e.values.includes(value);
    const want = on ?? !has;
    if (want && !has) e.values = [...e.values, value];
    if (!want && has) e.values = e.values.filter((v) => v !== value);
  }

  function removeFilter(field: string): void {
    filters.value = filters.value.filter((f) => f.field !== field);
  }

  function clearFilters(): void {
    filters.value = [];
  }

  /** Replaces the whole audience, list controls included (a saved audience being reopened). */
  function load(next: AudienceRequestShape): void {
    const { state: nextState, states: nextStates, filters: nextFilters, ...keys } = next;
    controls.load(keys);
    if (nextStates?.length) setStates(nextStates);
    else setState(nextState);
    const merged = new Map<string, string[]>();
    for (const [field, values] of nextFilters) {
      const name = fieldByName(field)?.name ?? field.toUpperCase();
      merged.set(name, [...(merged.get(name) ?? []), ...values.map(String)]);
    }
    filters.value = [...merged].map(([field, values]) => ({ field, values: [...new Set(values)] }));
  }

  return {
    state,
    states,
    filters,
    committed,
    version,
    total,
    ms,
    steps,
    byState,
    canUndo,
    canRedo,
    counting,
    error,
    request,
    requestFilters,
    incomplete,
    entry,
    setState,
    setStates,
    addFilter,
    setValues,
    toggleValue,
    removeFilter,
    clearFilters,
    load,
    commitNow,
    refreshCount,
    recount,
    undo,
    redo,
  };
});
