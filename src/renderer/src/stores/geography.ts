// Where the committed audience lives, for the map and its count report: its count in each county of
// its state(s) (one breakdown by CNTYCD a state), in each ZIP (a breakdown by ZIP), and, for the
// country view, in every state (one count a state, the same filters and controls). The radius's
// centre when `near` names a ZIP: the mean position of the ZIP's people, as the engine measures it.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ValueCount } from '../../../shared/contract';
import type { NearInput } from '../../../shared/listControls';
import { stateFips } from '../../../shared/geography';
import { STATE_CODES } from '../../../shared/states';
import { describeError, getBridge } from '../bridge';
import { latestAnswer } from '../lib/latestAnswer';
import { useAudienceStore, type AudienceRequestShape } from './audience';

export type MapView = 'state' | 'country';
export type ReportBy = 'county' | 'zip';

/** A breakdown's ceiling: more counties than any state has (Texas 254), the ZIPs of a big state. */
export const AREA_MAX = 1000;
/** Count requests under way at once for the country view. */
const PARALLEL = 4;
/** People whose positions make a ZIP's centre for the drawing (everyone in all but the biggest ZIPs). */
const CENTRE_SAMPLE = 1000;

/** The states an audience spans (several when the workspace chose several). */
export function audienceStates(a: AudienceRequestShape): string[] {
  return (a as { states?: string[] }).states ?? [a.state];
}

/** The audience in one state alone: the same filters and list controls. */
export function inState(a: AudienceRequestShape, state: string): AudienceRequestShape {
  const copy = { ...a, state } as AudienceRequestShape & { states?: string[] };
  delete copy.states;
  return copy;
}

export const useGeographyStore = defineStore('geography', () => {
  const view = ref<MapView>('state');
  const reportBy = ref<ReportBy>('county');

  /** County counts by 5-digit FIPS (state FIPS + CNTYCD), with the total of the states drawn. */
  const counties = ref<Map<string, number>>(new Map());
  const countiesTotal = ref<number | null>(null);
  const countiesLoading = ref(false);
  const countiesError = ref<string | null>(null);
  const countiesAnswer = latestAnswer(countiesLoading, countiesError);

  const zips = ref<ValueCount[]>([]);
  const zipsTruncated = ref(false);
  const zipsLoading = ref(false);
  const zipsError = ref<string | null>(null);
  const zipsAnswer = latestAnswer(zipsLoading, zipsError);

  /** Count by USPS state code; null where that state's count failed (its error in stateErrors). */
  const states = ref<Map<string, number | null>>(new Map());
  const stateErrors = ref<Map<string, string>>(new Map());
  const statesLoading = ref(false);
  const statesError = ref<string | null>(null);
  const statesAnswer = latestAnswer(statesLoading, statesError);

  const centres = ref<Map<string, { lat: number; lon: number } | null>>(new Map());

  const committed = () => useAudienceStore().committed;

  async function loadCounties(): Promise<void> {
    const audience = committed();
    if (!audience?.state) return;
    await countiesAnswer.run(
      () =>
        Promise.all(
          audienceStates(audience).map(async (s) => {
            const answer = await getBridge()['audience/breakdown']({ ...inState(audience, s), field: 'CNTYCD', max: AREA_MAX });
            return { fips: stateFips(s) ?? '', answer };
          }),
        ),
      (answers) => {
        const next = new Map<string, number>();
        for (const { fips, answer } of answers) for (const v of answer.values) next.set(fips + String(v.value), v.count);
        counties.value = next;
        countiesTotal.value = answers.reduce((sum, a) => sum + a.answer.total, 0);
      },
    );
  }

  async function loadZips(): Promise<void> {
    const audience = committed();
    if (!audience?.state) return;
    await zipsAnswer.run(
      () => getBridge()['audience/breakdown']({ ...audience, field: 'ZIP', max: AREA_MAX }),
      (answer) => {
        zips.value = answer.values;
        zipsTruncated.value = answer.values.length >= AREA_MAX;
      },
    );
  }

  /** The audience's count in every state: one count request a state, a few at a time. */
  async function loadStates(): Promise<void> {
    const audience = committed();
    if (!audience?.state) return;
    await statesAnswer.run(
      async () => {
        const counts = new Map<string, number | null>();
        const errors = new Map<string, string>();
        const queue = [...STATE_CODES];
        const worker = async (): Promise<void> => {
          for (let s = queue.shift(); s; s = queue.shift()) {
            try {
              counts.set(s, (await getBridge()['audience/count'](inState(audience, s))).total);
            } catch (e) {
              counts.set(s, null);
              errors.set(s, describeError(e));
            }
          }
        };
        await Promise.all(Array.from({ length: PARALLEL }, worker));
        return { counts, errors };
      },
      ({ counts, errors }) => {
        states.value = counts;
        stateErrors.value = errors;
      },
    );
  }

  /** Where `near` is measured from: its point, or the mean position of its ZIP's people in the state. */
  async function centreOf(state: string, near: NearInput): Promise<{ lat: number; lon: number } | null> {
    if ('lat' in near) return { lat: near.lat, lon: near.lon };
    const key = `${state}|${near.zip}`;
    if (centres.value.has(key)) return centres.value.get(key)!;
    const answer = await getBridge()['audience/search']({
      state,
      filters: [['ZIP', [near.zip]]],
      sample: { size: CENTRE_SAMPLE, seed: 1 },
      limit: CENTRE_SAMPLE,
    });
    const places = answer.results.map((r) => ({ lat: Number(r.LATITUDE), lon: Number(r.LONGITUDE) })).filter((p) => Number.isFinite(p.lat));
    const centre = places.length
      ? { lat: places.reduce((s, p) => s + p.lat, 0) / places.length, lon: places.reduce((s, p) => s + p.lon, 0) / places.length }
      : null;
    centres.value = new Map(centres.value).set(key, centre);
    return centre;
  }

  function clear(): void {
    counties.value = new Map();
    countiesTotal.value = null;
    zips.value = [];
    states.value = new Map();
    stateErrors.value = new Map();
    centres.value = new Map();
  }

  return {
    view,
    reportBy,
    counties,
    countiesTotal,
    countiesLoading,
    countiesError,
    zips,
    zipsTruncated,
    zipsLoading,
    zipsError,
    states,
    stateErrors,
    statesLoading,
    statesError,
    loadCounties,
    loadZips,
    loadStates,
    centreOf,
    clear,
  };
});
