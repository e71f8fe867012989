// The normalisation rules of docs/list-controls.md, one case a row: the same functions read a
// suppression list's rows and the dataset's records, so what is equal here matches there.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ABBREVIATIONS,
  NORMALIZATION_RULES,
  normalizeAddress,
  normalizeAddressLine,
  normalizeAnyAddressLine,
  normalizePhone,
  normalizePid,
  normalizeZip,
  UNIT_WORDS,
} from '../../src/shared/normalize';

describe('normalizePhone', () => {
  it.each([
    ['9074815345', '9074815345'],
    ['(907) 481-5345', '9074815345'],
    ['907.481.5345', '9074815345'],
    ['+1 907 481 5345', '9074815345'],
    ['1-907-481-5345', '9074815345'],
    [' 907 481 5345 x12', '9074815345'],
    ['907-481-5345 ext. 4', '9074815345'],
    [9074815345, '9074815345'],
    ['481-5345', null],
    ['29074815345', null],
    ['907481534512345', null],
    ['', null],
    ['n/a', null],
  ])('%j -> %j', (raw, want) => expect(normalizePhone(raw)).toBe(want));
});

describe('normalizePid', () => {
  it.each([
    ['014106C237B3688990C0391137772EE7', '014106C237B3688990C0391137772EE7'],
    ['014106c237b3688990c0391137772ee7', '014106C237B3688990C0391137772EE7'],
    ['  014106c237b3688990c0391137772ee7 ', '014106C237B3688990C0391137772EE7'],
    ['014106c237b3688990c0391137772ee', null],
    ['014106c237b3688990c0391137772ee7a', null],
    ['014106g237b3688990c0391137772ee7', null],
    ['', null],
  ])('%j -> %j', (raw, want) => expect(normalizePid(raw)).toBe(want));
});

describe('normalizeZip', () => {
  it.each([
    ['99516', '99516'],
    ['99516-1234', '99516'],
    ['995161234', '99516'],
    [' 99516 ', '99516'],
    ['2134', '02134'],
    ['21341234', '02134'],
    [2134, '02134'],
    ['12', null],
    ['', null],
    ['1234567890', null],
  ])('%j -> %j', (raw, want) => expect(normalizeZip(raw)).toBe(want));
});

describe('normalizeAddressLine', () => {
  it.each([
    ['5881 TRUITT LN APT 1403', '5881 TRUITT LN APT 1403'],
    ['5881 Truitt Lane, Apartment 1403', '5881 TRUITT LN APT 1403'],
    ['  5881   truitt   ln   apt 1403 ', '5881 TRUITT LN APT 1403'],
    ['5881 Truitt Ln #1403', '5881 TRUITT LN APT 1403'],
    ['5881 Truitt Ln # 1403', '5881 TRUITT LN APT 1403'],
    ['5881 Truitt Ln Apt #1403', '5881 TRUITT LN APT 1403'],
    ['3981 N PIMENTAL ST # 31', '3981 N PIMENTAL ST APT 31'],
    ['3981 North Pimental Street, #31', '3981 N PIMENTAL ST APT 31'],
    ['19578 N.E. Hill Road', '19578 NE HL RD'],
    ['19578 Northeast Hill Rd.', '19578 NE HL RD'],
    ['12 West Oak Boulevard Suite 5', '12 W OAK BLVD STE 5'],
    ['7 South Elm Avenue', '7 S ELM AVE'],
    ['40 East Lake Drive', '40 E LK DR'],
    ['1 Cherry Court', '1 CHERRY CT'],
    ['2 Maple Place', '2 MAPLE PL'],
    ['3 Ocean Terrace', '3 OCEAN TER'],
    ['4 Pine Circle', '4 PINE CIR'],
    ['5 Blue Ridge Parkway', '5 BLUE RDG PKWY'],
    ['6 State Highway 9', '6 STATE HWY 9'],
    ["8 O'Neil Way", '8 ONEIL WAY'],
    ['', null],
    [' ,.- ', null],
  ])('%j -> %j', (raw, want) => expect(normalizeAddressLine(raw)).toBe(want));

  it('takes the quick way only where the rules would give the line back unchanged', () => {
    // Lines already written as the rules write them, and near misses: an abbreviation left to
    // make, a double or outer space, a lower-case letter, punctuation, a number sign.
    const words = ['5881', 'TRUITT', 'LN', 'APT', 'STREET', 'NORTH', 'N', 'ST', '#', '12B', 'Hill', "O'NEIL", 'RD.', ''];
    let seed = 7;
    const next = (n: number): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    let quick = 0;
    for (let i = 0; i < 5_000; i++) {
      const line = Array.from({ length: 1 + next(5) }, () => words[next(words.length)]!).join(next(9) === 0 ? '  ' : ' ');
      const want = normalizeAnyAddressLine(line);
      expect(normalizeAddressLine(line), line).toBe(want);
      if (want === line) quick++;
    }
    expect(quick).toBeGreaterThan(500); // the quick way's lines were among them
  });
});

describe('normalizeAddress', () => {
  it('joins the line and the ZIP, and needs both', () => {
    expect(normalizeAddress('6302 holly street', '99709-1234')).toBe('6302 HOLLY ST|99709');
    expect(normalizeAddress('6302 HOLLY ST', '99709')).toBe(normalizeAddress(' 6302  Holly St. ', 99709));
    expect(normalizeAddress('6302 HOLLY ST', '')).toBeNull();
    expect(normalizeAddress('', '99709')).toBeNull();
  });
});

describe('the rules are versioned', () => {
  // Dataset files keep their records' values normalised and hashed under NORMALIZATION_RULES
  // (dataset/format/listKeys.ts), used only while it is this version's. This digest of the rules' output
  // over every abbreviation, unit word and the cases above changes with any rule: when it does,
  // raise NORMALIZATION_RULES and record the new digest, so older files' keys are no longer trusted.
  it('gives the output recorded for its version', () => {
    const words = [...Object.keys(ABBREVIATIONS), ...Object.values(ABBREVIATIONS), ...UNIT_WORDS];
    const lines = words.flatMap((w) => [`12 ${w.toLowerCase()} # 4`, `12 n. ${w}, apt #4`, `${w}'s 3-B`]);
    const phones = ['+1 (907) 481-5345 x2', '1-907-481-5345', '907.481.5345 ext. 12', '19074815345', '907481534', ''];
    const out = {
      lines: lines.map(normalizeAddressLine),
      addresses: lines.map((l, k) => normalizeAddress(l, ['2134', '99709-1234', '021341234', '12'][k % 4]!)),
      phones: phones.map(normalizePhone),
      pids: [' 014106c2ad2f6f41b5b8d1f8b5d2e2ee7 ', '014106C2AD2F6F41B5B8D1F8B5D2E2EE', 'x'].map(normalizePid),
    };
    const digest = createHash('sha256').update(JSON.stringify(out)).digest('hex');
    expect({ rules: NORMALIZATION_RULES, digest }).toEqual({
      rules: 1,
      digest: '6337847d3adc6c25e869ca64fd9d9f36c126893cefbba5ee20e2d8f20f712895',
    });
  });
});
