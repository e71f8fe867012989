// The fixed, varied workload both engines answer: counts with 1 to 5 filters on varied fields,
// preview pages and search pages at skips spread over the audience. Filter values that depend on
// the data (ZIPs, household codes) are taken from the dataset itself, deterministically.
import type { EmbeddedEngine } from '../src/core/query/embeddedEngine';
import { fieldIndex } from '../src/shared/fields';

export type Filters = Array<[string, Array<string | number>]>;
export interface AudienceSpec {
  label: string;
  state: string;
  filters: Filters;
}

export const STATES = ['CA', 'TX', 'NY', 'WY'];

/** Count audiences: five filter sets (1 to 5 filters) in four states of very different sizes. */
export function countAudiences(engine: EmbeddedEngine): AudienceSpec[] {
  const out: AudienceSpec[] = [];
  for (const state of STATES) {
    const topZips = engine.valueCounts({ state, filters: [] }, fieldIndex('ZIP'), 20).map((v) => String(v.value));
    const homeowner = String(engine.valueCounts({ state, filters: [] }, fieldIndex('HOMEOWNERC'), 1)[0]?.value ?? 'H');
    const sets: Array<[string, Filters]> = [
      ['1 filter: GENDER', [['GENDER', ['F']]]],
      [
        '2 filters: GENDER, MARRIEDCD',
        [
          ['GENDER', ['F']],
          ['MARRIEDCD', ['M']],
        ],
      ],
      [
        '3 filters: seed (GENDER, MARRIEDCD, AGE bands)',
        [
          ['GENDER', ['F']],
          ['MARRIEDCD', ['M']],
          ['AGE', ['20-24', '25-29', '45-49']],
        ],
      ],
      [
        '4 filters: CPI band, CT flag, MS N+, HOMEOWNERC',
        [
          ['CPI_TRAVEL_INDEX', ['5-9']],
          ['CT_STRMSUB_SVC1', ['Y']],
          ['MS_BOOKS', ['2+']],
          ['HOMEOWNERC', [homeowner]],
        ],
      ],
      [
        '5 filters: ZIP list, AGE, GENDER, CT flag, CPI',
        [
          ['ZIP', topZips],
          ['AGE', ['65+']],
          ['GENDER', ['M']],
          ['CT_POLITICAL_PARTYAFF_IND', ['Y']],
          ['CPI_PETS_DOGS_INDEX', ['3-9']],
        ],
      ],
    ];
    for (const [label, filters] of sets) out.push({ label, state, filters });
  }
  return out;
}

/** Paging audiences: the largest state whole, and with the seed's filters. */
export function pagingAudiences(): AudienceSpec[] {
  return [
    { label: 'CA, no filters', state: 'CA', filters: [] },
    {
      label: 'CA, seed filters',
      state: 'CA',
      filters: [
        ['GENDER', ['F']],
        ['MARRIEDCD', ['M']],
        ['AGE', ['20-24', '25-29', '45-49']],
      ],
    },
  ];
}

/** `points` skips spread evenly from 0 to the last full page of an audience of `total`. */
export function spreadSkips(total: number, pageSize: number, points = 11): number[] {
  const last = Math.max(0, total - pageSize);
  return Array.from({ length: points }, (_, i) => Math.round((last * i) / (points - 1)));
}
