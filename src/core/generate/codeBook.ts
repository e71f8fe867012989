// This project's own code book for coded fields whose meaning the interface does not give: small,
// plausible code sets with rates, so counts and breakdowns look like real vendor data.
// CODEBOOK.md beside this file is the human-readable version; keep the two in step.
import { sampler, type WeightedSampler } from './prng';

type Codes = ReadonlyArray<readonly [string, number]>;

const letters = (from: string, to: string, weight: (i: number) => number = () => 1): Codes =>
  Array.from({ length: to.charCodeAt(0) - from.charCodeAt(0) + 1 }, (_, i) => [String.fromCharCode(from.charCodeAt(0) + i), weight(i)] as const);
const numbered = (n: number, width = 2): Codes => Array.from({ length: n }, (_, i) => [String(i + 1).padStart(width, '0'), 1] as const);
const flag = (rate: number): Codes => [['Y', rate], ['', 1 - rate]];
const bell = (i: number, centre: number) => Math.exp(-((i - centre) ** 2) / 8);

/** Codes drawn once per household (everyone at the address shares them). */
export const HOUSEHOLD_CODES: Readonly<Record<string, Codes>> = {
  HOMEOWNERC: [['H', 64], ['R', 31], ['U', 5]], // homeowner, renter, unknown
  EHI: letters('A', 'L', (i) => bell(i, 5)), // estimated household income, A (<$15k) .. L ($250k+)
  EHI_V2: letters('A', 'O', (i) => bell(i, 6)),
  WEALTHSCR: letters('A', 'I', (i) => bell(i, 4)), // wealth score band, A lowest
  WEALTHSCR_V2: letters('A', 'L', (i) => bell(i, 5)),
  MRKTHOMEVAL: letters('A', 'S', (i) => bell(i, 7)), // market home value band, A (<$25k) .. S ($1M+)
  SPANISHSPCD: flag(0.13),
  SOHOCD: flag(0.09), // small office / home office
  LANGUAGECD: [['EN', 78], ['ES', 13], ['ZH', 2], ['VI', 1], ['TL', 1], ['KO', 1], ['FR', 1], ['DE', 1], ['AR', 1], ['RU', 1]],
  ETHNICITYCD: [['W', 60], ['H', 17], ['B', 12], ['A', 6], ['M', 3], ['N', 1], ['O', 1]],
  MOBHOMECD: flag(0.04),
  POOL: flag(0.1),
  FIREPLCD: flag(0.3),
  HHCLSTRDCD: numbered(70),
  NEIGHBORHOOD_CLSTRDCD: numbered(66),
  FMCLSTRDCD: numbered(30),
  DIGITALCLSTRDCD: numbered(20),
  MESSAGING_CLSTRDCD: numbered(12),
};

/** Codes drawn per person. */
export const PERSON_CODES: Readonly<Record<string, Codes>> = {
  EDUCATIONCD: [['1', 30], ['2', 28], ['3', 27], ['4', 15]], // high school, some college, bachelor, graduate
  OCCUPATIONCD: letters('A', 'K'), // A professional .. K retired
  OCCUPATIONCD_V2: numbered(25),
  RELIGIONCD: [['P', 40], ['C', 22], ['J', 2], ['M', 1], ['B', 1], ['X', 10], ['', 24]],
  VETERANCD: flag(0.07),
  CREDITCARD: flag(0.62),
  CHARITYDNR: flag(0.21),
  INTERNAL7: letters('A', 'F'),
  INTERNAL9: [['P', 50], ['S', 30], ['T', 20]],
};

export function buildSamplers(codes: Readonly<Record<string, Codes>>): Array<[string, WeightedSampler<string>]> {
  return Object.entries(codes).map(([field, pairs]) => [field, sampler(pairs)]);
}

/** Behaviour-flag groups where a person has exactly one value (or, with the rest, none). */
export const ONE_OF_GROUPS: ReadonlyArray<ReadonlyArray<readonly [string, number]>> = [
  [['CT_POLITICAL_PARTYAFF_DEMOCRAT', 34], ['CT_POLITICAL_PARTYAFF_GOP', 33], ['CT_POLITICAL_PARTYAFF_IND', 24], ['', 9]],
  [['CT_POLITICAL_OUTLK_VCONSERV', 12], ['CT_POLITICAL_OUTLK_SWCONSERV', 20], ['CT_POLITICAL_OUTLK_MID', 30], ['CT_POLITICAL_OUTLK_SWLIBERAL', 18], ['CT_POLITICAL_OUTLK_VLIBERAL', 10], ['', 10]],
  [['CT_ONLINESHOPSEG_OFFLINE', 15], ['CT_ONLINESHOPSEG_TRAD', 25], ['CT_ONLINESHOPSEG_STRAITFWD', 25], ['CT_ONLINESHOPSEG_DEALSEEK', 20], ['CT_ONLINESHOPSEG_QUALSEEK', 15]],
  [['CT_TECHTUDESEG_PHOBES', 12], ['CT_TECHTUDESEG_LAGGRDS', 20], ['CT_TECHTUDESEG_XPLOIT', 20], ['CT_TECHTUDESEG_GAMER', 12], ['CT_TECHTUDESEG_THUSIAST', 18], ['CT_TECHTUDESEG_XPLOR', 18]],
  [['CT_SMRTPHN_TYPEOWNS_OS1', 52], ['CT_SMRTPHN_TYPEOWNS_OS2', 41], ['', 7]],
];

/** Independent behaviour flags and their rates; flags in no list here get a rate from their position. */
export const FLAG_RATES: Readonly<Record<string, number>> = {
  CT_SOCIALUSAGE30_NET1: 0.68, CT_SOCIALUSAGE30_NET2: 0.47, CT_SOCIALUSAGE30_NET3: 0.33,
  CT_SOCIALUSAGE30_NET4: 0.24, CT_SOCIALUSAGE30_NET5: 0.16, CT_SOCIALUSAGE30_NET6: 0.09,
  CT_STRMSUB_SVC1: 0.56, CT_STRMSUB_SVC2: 0.34, CT_STRMSUB_SVC3: 0.21,
  CT_HOMEIMPROVE12_ANY: 0.22, CT_HOMEREMODEL12_ANY: 0.08,
  CT_DNR_CONTRIBAMT_HIGH: 0.05, CT_VOLUNTEER_CHTYORG: 0.14,
};
