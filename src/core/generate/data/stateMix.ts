// Per-state tuning of the synthetic census areas, so a ZIP in New Mexico or Hawaii looks like one.
// `hispanic` is the state's Hispanic or Latino share of the population in percent, rounded, from the
// 2020 Census (P.L. 94-171, table P2); the race factors are this project's own multipliers on the
// national shares (not census figures), chosen so that areas lean the way their state does.
// Missing factors are 1.

export interface StateMix {
  hispanic: number;
  white?: number;
  black?: number;
  amerind?: number;
  asian?: number;
  pacisl?: number;
}

export const STATE_MIX: Readonly<Record<string, StateMix>> = {
  AK: { hispanic: 7, black: 0.25, amerind: 13, asian: 1, pacisl: 2.5 },
  AL: { hispanic: 5, black: 2.1, asian: 0.25 },
  AR: { hispanic: 9, black: 1.2, asian: 0.3 },
  AZ: { hispanic: 31, black: 0.4, amerind: 4 },
  CA: { hispanic: 39, white: 0.65, black: 0.45, asian: 2.6, pacisl: 2 },
  CO: { hispanic: 22, black: 0.3, asian: 0.6 },
  CT: { hispanic: 17, black: 0.8, asian: 0.8 },
  DC: { hispanic: 11, white: 0.6, black: 3.6, asian: 0.8 },
  DE: { hispanic: 11, black: 1.8, asian: 0.7 },
  FL: { hispanic: 27, black: 1.2, asian: 0.5 },
  GA: { hispanic: 10, black: 2.5, asian: 0.8 },
  HI: { hispanic: 10, white: 0.4, black: 0.15, asian: 6, pacisl: 50 },
  IA: { hispanic: 7, white: 1.2, black: 0.35, asian: 0.4 },
  ID: { hispanic: 13, white: 1.2, black: 0.07, asian: 0.25, amerind: 1.2 },
  IL: { hispanic: 18, black: 1.1 },
  IN: { hispanic: 8, black: 0.75, asian: 0.4 },
  KS: { hispanic: 13, black: 0.45, asian: 0.5 },
  KY: { hispanic: 5, white: 1.2, black: 0.65, asian: 0.3 },
  LA: { hispanic: 7, black: 2.6, asian: 0.3 },
  MA: { hispanic: 13, black: 0.55, asian: 1.2 },
  MD: { hispanic: 12, black: 2.5, asian: 1.1 },
  ME: { hispanic: 2, white: 1.3, black: 0.15, asian: 0.2 },
  MI: { hispanic: 6, black: 1.1, asian: 0.6 },
  MN: { hispanic: 6, black: 0.55, asian: 0.9, amerind: 1 },
  MO: { hispanic: 5, black: 0.9, asian: 0.4 },
  MS: { hispanic: 3, black: 3, asian: 0.2 },
  MT: { hispanic: 4, white: 1.2, black: 0.05, asian: 0.15, amerind: 5.5 },
  NC: { hispanic: 11, black: 1.7, asian: 0.6 },
  ND: { hispanic: 4, white: 1.2, black: 0.3, asian: 0.3, amerind: 4.5 },
  NE: { hispanic: 12, black: 0.4, asian: 0.5 },
  NH: { hispanic: 4, white: 1.3, black: 0.15, asian: 0.5 },
  NJ: { hispanic: 22, black: 1, asian: 1.7 },
  NM: { hispanic: 48, black: 0.2, asian: 0.3, amerind: 8.5 },
  NV: { hispanic: 29, black: 0.75, asian: 1.5, pacisl: 3.5, amerind: 1.2 },
  NY: { hispanic: 20, black: 1.2, asian: 1.5 },
  OH: { hispanic: 4, black: 1, asian: 0.4 },
  OK: { hispanic: 12, black: 0.55, asian: 0.4, amerind: 8 },
  OR: { hispanic: 14, black: 0.18, asian: 0.8, amerind: 1.4, pacisl: 2 },
  PA: { hispanic: 8, black: 0.85, asian: 0.6 },
  RI: { hispanic: 17, black: 0.4, asian: 0.6 },
  SC: { hispanic: 7, black: 2.1, asian: 0.3 },
  SD: { hispanic: 5, white: 1.1, black: 0.2, asian: 0.25, amerind: 7.5 },
  TN: { hispanic: 7, black: 1.3, asian: 0.35 },
  TX: { hispanic: 39, black: 1, asian: 0.9 },
  UT: { hispanic: 15, black: 0.1, asian: 0.45, pacisl: 4.5, amerind: 1 },
  VA: { hispanic: 11, black: 1.5, asian: 1.2 },
  VT: { hispanic: 2, white: 1.3, black: 0.12, asian: 0.3 },
  WA: { hispanic: 14, black: 0.35, asian: 1.5, pacisl: 3.5, amerind: 1.4 },
  WI: { hispanic: 8, white: 1.1, black: 0.5, asian: 0.5 },
  WV: { hispanic: 2, white: 1.3, black: 0.3, asian: 0.15 },
  WY: { hispanic: 10, white: 1.1, black: 0.07, asian: 0.15, amerind: 2.2 },
};

/** States where areas lean richer or poorer than the national middle (this project's choice). */
export const HIGH_INCOME_STATES: ReadonlySet<string> = new Set([
  'CA',
  'CO',
  'CT',
  'DC',
  'HI',
  'MA',
  'MD',
  'MN',
  'NH',
  'NJ',
  'UT',
  'VA',
  'WA',
]);
export const LOW_INCOME_STATES: ReadonlySet<string> = new Set(['AL', 'AR', 'KY', 'LA', 'MS', 'NM', 'OK', 'SC', 'WV']);

/** Warm states: more pools, fewer fireplaces. */
export const WARM_STATES: ReadonlySet<string> = new Set(['AZ', 'CA', 'FL', 'HI', 'LA', 'NV', 'TX']);
