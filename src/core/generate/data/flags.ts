// Rates of the CT_* behaviour flags (this project's code book; see CODEBOOK.md). Independent flags
// have a base rate, tilted by age for media and donation habits. Groups of mutually exclusive
// flags (a person has one party affiliation, one shopping segment...) have weights per age band:
// 18-24, 25-34, 35-44, 45-54, 55-64, 65+. An empty name is "none of them".

export const FLAG_RATES: Readonly<Record<string, number>> = {
  CT_MEDIA_HEAVYUSAGE_MAGAZINE: 0.12,
  CT_MEDIA_HEAVYUSAGE_NEWSPAPER: 0.15,
  CT_MEDIA_HEAVYUSAGE_RADIO: 0.22,
  CT_MEDIA_HEAVYUSAGE_PTRADIO: 0.08,
  CT_MEDIA_HEAVYUSAGE_TV: 0.3,
  CT_MEDIA_HEAVYUSAGE_INTERNET: 0.35,
  CT_MEDIA_HEAVYUSAGE_ODRMDA: 0.18,
  CT_SOCIALUSAGE30_NET1: 0.68,
  CT_SOCIALUSAGE30_NET2: 0.47,
  CT_SOCIALUSAGE30_NET3: 0.33,
  CT_SOCIALUSAGE30_NET4: 0.24,
  CT_SOCIALUSAGE30_NET5: 0.16,
  CT_SOCIALUSAGE30_NET6: 0.09,
  CT_STRMSUB_SVC1: 0.56,
  CT_STRMSUB_SVC2: 0.34,
  CT_STRMSUB_SVC3: 0.21,
  CT_HOMEIMPROVE12_ANY: 0.22,
  CT_HOMEREMODEL12_ANY: 0.08,
  CT_DNR_CONTRIB_ORG1: 0.12,
  CT_DNR_CONTRIB_ORG2: 0.08,
  CT_DNR_CONTRIB_RELIGIOUS: 0.14,
  CT_DNR_CONTRIB_ARTS: 0.04,
  CT_DNR_CONTRIB_EDU: 0.05,
  CT_DNR_CONTRIB_ENVIRO: 0.04,
  CT_DNR_CONTRIB_HEALTH: 0.07,
  CT_DNR_CONTRIB_POL: 0.05,
  CT_DNR_CONTRIB_SOCSERV: 0.06,
  CT_DNR_CONTRIB_NONREL: 0.1,
  CT_DNR_CONTRIBAMT_HIGH: 0.04,
  CT_VOLUNTEER_CHTYORG: 0.12,
};

/** Flags whose rate falls with age (x1.5 at 18-24 down to x0.5 at 65+), and ones that rise. */
export const YOUNG_FLAGS = ['_INTERNET', 'ODRMDA', 'SOCIALUSAGE', 'STRMSUB'];
export const OLD_FLAGS = ['MAGAZINE', 'NEWSPAPER', 'RADIO', '_TV', 'DNR_', 'VOLUNTEER'];

type Group = ReadonlyArray<readonly [name: string, weightsByAgeBand: readonly number[]]>;

/** One-of groups; the party group comes first (political outlook and indexes follow it). */
export const EXCLUSIVE_FLAGS: readonly Group[] = [
  [
    ['CT_POLITICAL_PARTYAFF_DEMOCRAT', [38, 36, 33, 31, 30, 30]],
    ['CT_POLITICAL_PARTYAFF_GOP', [22, 25, 30, 33, 36, 38]],
    ['CT_POLITICAL_PARTYAFF_IND', [30, 30, 28, 27, 25, 23]],
    ['', [10, 9, 9, 9, 9, 9]],
  ],
  [
    ['CT_ONLINESHOPSEG_OFFLINE', [5, 7, 10, 14, 20, 30]],
    ['CT_ONLINESHOPSEG_TRAD', [15, 18, 22, 26, 28, 30]],
    ['CT_ONLINESHOPSEG_STRAITFWD', [25, 27, 27, 25, 23, 20]],
    ['CT_ONLINESHOPSEG_DEALSEEK', [35, 30, 25, 22, 18, 12]],
    ['CT_ONLINESHOPSEG_QUALSEEK', [20, 18, 16, 13, 11, 8]],
  ],
  [
    ['CT_TECHTUDESEG_PHOBES', [3, 4, 6, 10, 16, 28]],
    ['CT_TECHTUDESEG_LAGGRDS', [8, 10, 14, 18, 24, 30]],
    ['CT_TECHTUDESEG_XPLOIT', [22, 22, 22, 20, 18, 14]],
    ['CT_TECHTUDESEG_GAMER', [28, 22, 16, 10, 6, 3]],
    ['CT_TECHTUDESEG_THUSIAST', [22, 22, 20, 18, 14, 10]],
    ['CT_TECHTUDESEG_XPLOR', [17, 20, 22, 24, 22, 15]],
  ],
  [
    ['CT_SMRTPHN_TYPEOWNS_OS1', [55, 55, 53, 52, 50, 45]],
    ['CT_SMRTPHN_TYPEOWNS_OS2', [43, 43, 44, 44, 43, 35]],
    ['', [2, 2, 3, 4, 7, 20]],
  ],
];

/** Political outlook: one of these (or none), drawn given the party; see scores.ts. */
export const OUTLOOK_FLAGS = [
  'CT_POLITICAL_OUTLK_VCONSERV',
  'CT_POLITICAL_OUTLK_SWCONSERV',
  'CT_POLITICAL_OUTLK_MID',
  'CT_POLITICAL_OUTLK_SWLIBERAL',
  'CT_POLITICAL_OUTLK_VLIBERAL',
];
