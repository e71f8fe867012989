// The normalisation rules of docs/list-controls.md, one case a row: the same functions read a
// suppression list's rows and the dataset's records, so what is equal here matches there.
import { describe, expect, it } from 'vitest';
import { normalizeAddress, normalizeAddressLine, normalizePhone, normalizePid, normalizeZip } from '../../src/core/lists/normalize';

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
});

describe('normalizeAddress', () => {
  it('joins the line and the ZIP, and needs both', () => {
    expect(normalizeAddress('6302 holly street', '99709-1234')).toBe('6302 HOLLY ST|99709');
    expect(normalizeAddress('6302 HOLLY ST', '99709')).toBe(normalizeAddress(' 6302  Holly St. ', 99709));
    expect(normalizeAddress('6302 HOLLY ST', '')).toBeNull();
    expect(normalizeAddress('', '99709')).toBeNull();
  });
});
