// The list controls of extensions.md as the analyst sets them: contact rules, exclusions, one person
// a household, a sample. The form keeps what is typed (a sample size being edited may be empty);
// `input` is only the request keys that do something and are valid, which the audience store adds
// to every request, so the count, grid, breakdown, cross-tab, export and save all see the same keys.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ListControlsInput } from '../../../shared/listControls';

export type SampleMode = 'none' | 'every' | 'size';

const whole = (n: number | null, min: number): boolean => n !== null && Number.isSafeInteger(n) && n >= min;

export const useListControlsStore = defineStore('listControls', () => {
  const phone = ref(false);
  const mail = ref(false);
  /** "saved:<id>", "list:<id>", "export:<id>", in the order chosen. */
  const exclude = ref<string[]>([]);
  const households = ref<'all' | 'one'>('all');
  const sampleMode = ref<SampleMode>('none');
  const every = ref<number | null>(10);
  const size = ref<number | null>(1000);
  const seed = ref<number | null>(1);

  /** Why the sample as typed cannot be sent (it is then left out of the request), or null. */
  const sampleProblem = computed<string | null>(() => {
    if (sampleMode.value === 'every' && !whole(every.value, 1)) return 'Every how many: a whole number of 1 or more.';
    if (sampleMode.value === 'size') {
      if (!whole(size.value, 1)) return 'Sample size: a whole number of 1 or more.';
      if (!whole(seed.value, 0)) return 'Seed: a whole number.';
    }
    return null;
  });

  const input = computed<ListControlsInput>(() => {
    const out: ListControlsInput = {};
    if (phone.value || mail.value)
      out.contact = { ...(phone.value ? { phone: 'callable' as const } : {}), ...(mail.value ? { mail: 'deliverable' as const } : {}) };
    if (exclude.value.length) out.exclude = [...exclude.value];
    if (households.value === 'one') out.households = 'one';
    if (!sampleProblem.value) {
      if (sampleMode.value === 'every') out.sample = { every: every.value! };
      if (sampleMode.value === 'size') out.sample = { size: size.value!, seed: seed.value! };
    }
    return out;
  });

  const active = computed(() => Object.keys(input.value).length > 0);

  function addExclusion(ref: string): void {
    if (ref && !exclude.value.includes(ref)) exclude.value = [...exclude.value, ref];
  }

  function removeExclusion(ref: string): void {
    exclude.value = exclude.value.filter((r) => r !== ref);
  }

  /** Replaces every control with these request keys (a saved audience being reopened). */
  function load(keys: ListControlsInput): void {
    phone.value = keys.contact?.phone === 'callable';
    mail.value = keys.contact?.mail === 'deliverable';
    exclude.value = [...new Set(keys.exclude ?? [])];
    households.value = keys.households === 'one' ? 'one' : 'all';
    const s = keys.sample;
    if (s && 'every' in s) {
      sampleMode.value = 'every';
      every.value = s.every;
    } else if (s) {
      sampleMode.value = 'size';
      size.value = s.size;
      seed.value = s.seed;
    } else sampleMode.value = 'none';
  }

  function reset(): void {
    load({});
  }

  return {
    phone,
    mail,
    exclude,
    households,
    sampleMode,
    every,
    size,
    seed,
    sampleProblem,
    input,
    active,
    addExclusion,
    removeExclusion,
    load,
    reset,
  };
});
