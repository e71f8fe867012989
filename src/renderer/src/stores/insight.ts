// The canvas's insight (docs/insight.md): the profile of the committed audience (every coded field and
// AGE, ranked by how surely the audience differs: src/shared/profile.ts, fieldConfidence), the overlap
// of 2 to 5 saved audiences, lists or exports, and the quality of a lookalike seed's model.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { LikeQuality } from '../../../shared/likeQuality';
import { OVERLAP_SETS_MAX, type OverlapAnswer } from '../../../shared/overlap';
import { fieldConfidence, PROFILE_FIELDS, type ProfileAnswer, type ProfileField } from '../../../shared/profile';
import { dictionaryEntry } from '../../../shared/dictionary';
import { getBridge } from '../bridge';
import { audienceQuery, latestAnswer } from '../lib/latestAnswer';
import { useAudienceStore } from './audience';

/** How sure a field's difference is, in words: z of 5 and more is strong, 2 to 5 some, below weak. */
export function confidenceWords(z: number): 'strong' | 'some' | 'weak' {
  return z >= 5 ? 'strong' : z >= 2 ? 'some' : 'weak';
}

export interface RankedField extends ProfileField {
  group: string;
  confidence: number;
}

export const useInsightStore = defineStore('insight', () => {
  // ---- Profile of the committed audience ----
  const profile = ref<ProfileAnswer | null>(null);
  const profileMs = ref<number | null>(null);
  /** The dictionary group shown ('' for every group). */
  const group = ref('');
  const profileQuery = audienceQuery(() => useAudienceStore().committed);

  async function loadProfile(): Promise<void> {
    await profileQuery.run(
      (audience) => getBridge()['audience/profile']({ ...audience, fields: [...PROFILE_FIELDS] }),
      (answer) => {
        const { ms, ...rest } = answer;
        profile.value = rest;
        profileMs.value = ms;
      },
    );
  }

  /** Fields strongest first (a tie: catalog order), in the chosen group. */
  const ranked = computed<RankedField[]>(() => {
    const answer = profile.value;
    if (!answer) return [];
    return answer.fields
      .map((f, k) => ({ ...f, k, group: dictionaryEntry(f.name)?.group ?? '', confidence: fieldConfidence(f, answer.total) }))
      .filter((f) => !group.value || f.group === group.value)
      .sort((a, b) => b.confidence - a.confidence || a.k - b.k);
  });
  const groups = computed(() => [...new Set((profile.value?.fields ?? []).map((f) => dictionaryEntry(f.name)?.group ?? ''))]);

  // ---- Overlap of saved audiences, lists and exports ----
  const overlapSets = ref<string[]>([]);
  const overlap = ref<OverlapAnswer | null>(null);
  const overlapBusy = ref(false);
  const overlapError = ref<string | null>(null);
  const overlapLatest = latestAnswer(overlapBusy, overlapError);

  function addSet(ref: string): void {
    if (ref && !overlapSets.value.includes(ref) && overlapSets.value.length < OVERLAP_SETS_MAX)
      overlapSets.value = [...overlapSets.value, ref];
  }
  function removeSet(ref: string): void {
    overlapSets.value = overlapSets.value.filter((r) => r !== ref);
  }

  async function loadOverlap(state: string): Promise<void> {
    if (overlapSets.value.length < 2) {
      overlap.value = null;
      return;
    }
    await overlapLatest.run(
      () => getBridge()['audience/overlap']({ state, sets: [...overlapSets.value] }),
      (answer) => {
        const { ms: _ms, ...rest } = answer;
        overlap.value = rest;
      },
    );
  }

  // ---- A lookalike seed's model, before use ----
  const quality = ref<LikeQuality | null>(null);
  const qualityBusy = ref(false);
  const qualityError = ref<string | null>(null);
  const qualityLatest = latestAnswer(qualityBusy, qualityError);

  async function loadQuality(state: string, seed: string): Promise<void> {
    quality.value = null;
    await qualityLatest.run(
      () => getBridge()['audience/likeQuality']({ state, seed }),
      (answer) => (quality.value = answer),
    );
  }

  return {
    profile,
    profileMs,
    profileLoading: profileQuery.loading,
    profileError: profileQuery.error,
    group,
    groups,
    ranked,
    loadProfile,
    overlapSets,
    overlap,
    overlapBusy,
    overlapError,
    addSet,
    removeSet,
    loadOverlap,
    quality,
    qualityBusy,
    qualityError,
    loadQuality,
  };
});
