// The audience being built: a state, its filters and the list controls (stores/listControls), the
// debounced request that the count, the grid, the breakdown, the cross-tab and the export all read,
// and the live count with its steps. Each count request carries a sequence number; an answer to
// anything but the latest request is dropped.
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { AudienceSteps, Filter } from '../../../shared/contract';
import type { ListControlsInput } from '../../../shared/listControls';
import { fieldByName } from '../../../shared/fields';
import { getBridge } from '../bridge';
import { audienceQuery } from '../lib/latestAnswer';
import { useListControlsStore } from './listControls';

export const COUNT_DEBOUNCE_MS = 150;

export interface FilterEntry {
  field: string;
  values: string[];
}

/** An audience as every audience operation takes it: state, filters and the list controls' keys. */
export interface AudienceRequestShape extends ListControlsInput {
  state: string;
  filters: Filter[];
}

const copyOf = (a: AudienceRequestShape): AudienceRequestShape => JSON.parse(JSON.stringify(a)) as AudienceRequestShape;

export const useAudienceStore = defineStore('audience', () => {
  const controls = useListControlsStore();
  const state = ref('');
  const filters = ref<FilterEntry[]>([]);
  /** The request as of the last debounce: what the count, grid, breakdown and export use. */
  const committed = ref<AudienceRequestShape | null>(null);
  /** Bumped on every commit, so views can tell a new audience from the old one. */
  const version = ref(0);
  const total = ref<number | null>(null);
  const ms = ref<number | null>(null);
  /** How many are left after each step of the controls, for the committed audience. */
  const steps = ref<AudienceSteps | null>(null);

  const { loading: counting, error, run } = audienceQuery(() => committed.value);
  let timer: ReturnType<typeof setTimeout> | null = null;

  const requestFilters = computed<Filter[]>(() =>
    filters.value.filter((f) => f.values.length > 0).map((f) => [f.field, [...f.values]] as Filter),
  );
  const request = computed<AudienceRequestShape>(() => ({ state: state.value, filters: requestFilters.value, ...controls.input }));
  const incomplete = computed(() => filters.value.filter((f) => f.values.length === 0).map((f) => f.field));

  async function refreshCount(): Promise<void> {
    await run(
      (target) => getBridge()['audience/count'](target),
      (answer) => {
        total.value = answer.total;
        ms.value = answer.ms;
        steps.value = answer.steps ?? null;
      },
    );
  }

  function commitNow(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const next = request.value;
    if (committed.value && JSON.stringify(committed.value) === JSON.stringify(next)) return;
    committed.value = copyOf(next);
    version.value++;
    void refreshCount();
  }

  /** The same audience asked again of a different dataset: the count, grid and breakdown reload. */
  function recount(): void {
    committed.value = null;
    commitNow();
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
    state.value = code.toUpperCase();
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
    const { state: nextState, filters: nextFilters, ...keys } = next;
    controls.load(keys);
    state.value = nextState.toUpperCase();
    const merged = new Map<string, string[]>();
    for (const [field, values] of nextFilters) {
      const name = fieldByName(field)?.name ?? field.toUpperCase();
      merged.set(name, [...(merged.get(name) ?? []), ...values.map(String)]);
    }
    filters.value = [...merged].map(([field, values]) => ({ field, values: [...new Set(values)] }));
  }

  return {
    state,
    filters,
    committed,
    version,
    total,
    ms,
    steps,
    counting,
    error,
    request,
    requestFilters,
    incomplete,
    entry,
    setState,
    addFilter,
    setValues,
    toggleValue,
    removeFilter,
    clearFilters,
    load,
    commitNow,
    refreshCount,
    recount,
  };
});
