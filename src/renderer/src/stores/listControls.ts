// The list controls of extensions.md as the analyst sets them: a radius (near), contact rules,
// exclusions, one person a household, a sample. The form keeps what is typed (a sample size being edited may be empty);
// `input` is only the request keys that do something and are valid, which the audience store adds
// to every request, so the count, grid, breakdown, cross-tab, export and save all see the same keys.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { NEAR_MILES_MAX, type ListControlsInput, type NearInput } from '../../../shared/listControls';

export type SampleMode = 'none' | 'every' | 'size';
export type NearMode = 'none' | 'zip' | 'point';

const whole = (n: number | null, min: number): boolean => n !== null && Number.isSafeInteger(n) && n >= min;

export const useListControlsStore = defineStore('listControls', () => {
  const nearMode = ref<NearMode>('none');
  const nearZip = ref('');
  const nearLat = ref<number | null>(null);
  const nearLon = ref<number | null>(null);
  const nearMiles = ref<number | null>(10);
  /** A ZIP found to be no one's in the audience's states (NearFieldset asks), and those states' names. */
  const nearZipAbsent = ref<{ zip: string; where: string } | null>(null);
  const phone = ref(false);
  const mail = ref(false);
  /** "saved:<id>", "list:<id>", "export:<id>", in the order chosen. */
  const exclude = ref<string[]>([]);
  /** `include` (docs/insight.md): only the people of at least one of these references. */
  const include = ref<string[]>([]);
  /** `like`: the seed's reference ('' for none) and how many lookalikes to keep. */
  const likeSeed = ref('');
  const likeTop = ref<number | null>(1000);
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

  /** Why the radius as typed cannot be sent (it is then left out of the request), or null. */
  const nearProblem = computed<string | null>(() => {
    if (nearMode.value === 'none') return null;
    const miles = nearMiles.value;
    if (miles === null || !Number.isFinite(miles) || miles <= 0 || miles > NEAR_MILES_MAX)
      return `Miles: more than 0 and at most ${NEAR_MILES_MAX}.`;
    if (nearMode.value === 'zip' && !/^\d{5}$/.test(nearZip.value.trim())) return 'ZIP: 5 digits.';
    const absent = nearZipAbsent.value;
    // As a pasted list flags a ZIP of another state, and leaves it out rather than count 0.
    if (nearMode.value === 'zip' && absent && absent.zip === nearZip.value.trim())
      return `No one in ${absent.where} lives in ZIP ${absent.zip}.`;
    if (nearMode.value === 'point') {
      if (nearLat.value === null || !Number.isFinite(nearLat.value) || Math.abs(nearLat.value) > 90) return 'Latitude: -90 to 90 degrees.';
      if (nearLon.value === null || !Number.isFinite(nearLon.value) || Math.abs(nearLon.value) > 180)
        return 'Longitude: -180 to 180 degrees.';
    }
    return null;
  });

  /** The radius as the request's `near` key, or null when there is none or it is not valid yet. */
  const near = computed<NearInput | null>(() => {
    if (nearMode.value === 'none' || nearProblem.value) return null;
    if (nearMode.value === 'zip') return { zip: nearZip.value.trim(), miles: nearMiles.value! };
    return { lat: nearLat.value!, lon: nearLon.value!, miles: nearMiles.value! };
  });

  const input = computed<ListControlsInput>(() => {
    const out: ListControlsInput = {};
    if (near.value) out.near = near.value;
    if (phone.value || mail.value)
      out.contact = { ...(phone.value ? { phone: 'callable' as const } : {}), ...(mail.value ? { mail: 'deliverable' as const } : {}) };
    if (exclude.value.length) out.exclude = [...exclude.value];
    if (include.value.length) out.include = [...include.value];
    if (likeSeed.value && whole(likeTop.value, 1)) out.like = { seed: likeSeed.value, top: likeTop.value! };
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
    const n = keys.near;
    nearMode.value = n ? ('zip' in n ? 'zip' : 'point') : 'none';
    if (n && 'zip' in n) nearZip.value = n.zip;
    if (n && 'lat' in n) {
      nearLat.value = n.lat;
      nearLon.value = n.lon;
    }
    if (n) nearMiles.value = n.miles;
    phone.value = keys.contact?.phone === 'callable';
    mail.value = keys.contact?.mail === 'deliverable';
    exclude.value = [...new Set(keys.exclude ?? [])];
    include.value = [...new Set(keys.include ?? [])];
    likeSeed.value = keys.like?.seed ?? '';
    if (keys.like) likeTop.value = keys.like.top;
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
    nearMode,
    nearZip,
    nearLat,
    nearLon,
    nearMiles,
    nearZipAbsent,
    nearProblem,
    near,
    phone,
    mail,
    exclude,
    include,
    likeSeed,
    likeTop,
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
