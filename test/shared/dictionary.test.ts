// The data dictionary (src/shared/dictionary.ts): analyst words for every field, the codebook's codes
// for every coded field, search by the words people use, and docs/data-dictionary.md kept up to date.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODEBOOK } from '../../src/shared/codebook';
import { DATA_DICTIONARY, DICTIONARY_GROUPS, DICTIONARY_GROUP_NOTES, dictionaryEntry, searchFields } from '../../src/shared/dictionary';
import { FIELDS, FIELD_NAMES } from '../../src/shared/fields';
import { DICTIONARY_PAGE_PATH, dictionaryPage } from '../support/writeDictionaryPage';

const names = (query: string, limit?: number) => searchFields(query, limit).map((e) => e.name);

describe('DATA_DICTIONARY', () => {
  it('has every field of the catalog, in catalog order, with its type', () => {
    expect(DATA_DICTIONARY.map((e) => e.name)).toEqual(FIELD_NAMES);
    expect(DATA_DICTIONARY).toHaveLength(392);
    DATA_DICTIONARY.forEach((e, i) => expect(e.type).toBe(FIELDS[i]!.type));
  });

  it('gives every field a label that is not its name, a known group, a plain description and synonyms', () => {
    for (const e of DATA_DICTIONARY) {
      expect(e.label, e.name).not.toBe(e.name);
      expect(e.label.toUpperCase(), e.name).not.toBe(e.name);
      expect(e.label.trim(), e.name).toBe(e.label);
      expect(DICTIONARY_GROUPS, e.name).toContain(e.group);
      expect(e.description.length, e.name).toBeGreaterThan(15);
      expect(e.description, e.name).not.toMatch(/[`*_#[\]]|\|/);
      expect(e.description, e.name).toMatch(/^[A-Z].*\.$/);
      expect(e.synonyms.length, e.name).toBeGreaterThan(0);
      for (const s of e.synonyms) expect(s, e.name).toBe(s.toLowerCase());
    }
    expect(new Set(DATA_DICTIONARY.map((e) => e.label)).size).toBe(DATA_DICTIONARY.length);
    // Every group is used and explained.
    expect(new Set(DATA_DICTIONARY.map((e) => e.group))).toEqual(new Set(DICTIONARY_GROUPS));
    for (const g of DICTIONARY_GROUPS) expect(DICTIONARY_GROUP_NOTES[g]).toBeTruthy();
  });

  it("gives every coded field the codebook's codes in natural order, and free fields null", () => {
    for (const e of DATA_DICTIONARY) expect(e.values, e.name).toBe(CODEBOOK[e.name] ?? null);
    expect(dictionaryEntry('EHI')!.values!.map((v) => v.code)).toEqual('ABCDEFGHIJKL'.split(''));
    expect(dictionaryEntry('FNAME')!.values).toBeNull();
    expect(dictionaryEntry('AGE')!.values).toBeNull();
  });

  it('describes the regular families by rule, with their units and scales', () => {
    expect(dictionaryEntry('CPI_TRAVEL_INDEX')!.label).toBe('Interest: travel');
    expect(dictionaryEntry('CPI_SPORTS_GOLF_INDEX')!.label).toBe('Interest: sports (golf)');
    expect(dictionaryEntry('MS_BOOKS')!.label).toBe('Mail-order purchases: books');
    for (const e of DATA_DICTIONARY) {
      if (e.name.startsWith('CPI_')) expect(e.description, e.name).toMatch(/0 \(no interest\) to 9 \(strongest interest\)/);
      if (e.name.startsWith('MS_')) expect(e.description, e.name).toMatch(/count from 0 to 9.*mostly 1 to 3/);
      if (e.name.startsWith('CT_')) expect(e.description, e.name).toMatch(/^Y when .*Empty otherwise\.$/);
      if (e.name.startsWith('CENSPCT_')) expect(e.description, e.name).toMatch(/percent of .*from 0 to 100/);
      if (/^CENS(PCT)?_/.test(e.name)) expect(e.group, e.name).toBe('Census area');
    }
    expect(dictionaryEntry('CENSPCT_HH_FAMILY')!.description).toContain('percent of households');
    expect(dictionaryEntry('CENS_POP_DENSITY')!.description).toContain('People per square mile');
    expect(dictionaryEntry('CENS_HH_AVGSIZE')!.description).toContain('hundredths');
    expect(dictionaryEntry('CENS_POP_MEDAGE')!.description).toContain('years');
    // Labels an analyst recognises.
    expect(dictionaryEntry('FNAME')!.label).toBe('First name');
    expect(dictionaryEntry('dnc')!.label).toBe('Do not call (phone 1)');
    expect(dictionaryEntry('CNTYCD')!.label).toBe('County code');
    expect(dictionaryEntry('MRKTHOMEVAL')!.label).toBe('Market home value');
    expect(dictionaryEntry('NOPE')).toBeUndefined();
  });
});

describe('searchFields', () => {
  it('finds income fields by the words people use, EHI first', () => {
    for (const q of ['income', 'Income', 'salary', 'earnings', 'household income']) {
      expect(names(q).slice(0, 2), q).toEqual(['EHI', 'EHI_V2']);
    }
  });

  it('finds the marital status by "married" and "marital"', () => {
    expect(names('married')[0]).toBe('MARRIEDCD');
    expect(names('marital')[0]).toBe('MARRIEDCD');
  });

  it('finds the children fields by "children" and "kids"', () => {
    const child = ['CHILD', 'CHILDAGECD_6', 'CHILDAGECD_6_10', 'CHILDAGECD_11_15', 'CHILDAGECD_16_17', 'CHILDNBRCD'];
    const top = names('children', 7);
    for (const n of child) expect(top).toContain(n);
    expect(top[0]).toBe('CHILD');
    for (const n of child) expect(names('kids')).toContain(n);
  });

  it('finds the home value, the do-not-call flags, the county fields and the first name', () => {
    expect(names('home value')[0]).toBe('MRKTHOMEVAL');
    expect(names('house price')[0]).toBe('MRKTHOMEVAL');
    expect(names('do not call').slice(0, 3)).toEqual(['DNC', 'DNC2', 'DNC3']);
    expect(names('DNC').slice(0, 3)).toEqual(['DNC', 'DNC2', 'DNC3']);
    expect(names('county').slice(0, 2)).toEqual(['CNTYCD', 'CNTYSIZECD']);
    expect(names('first name')[0]).toBe('FNAME');
    expect(names('given name')[0]).toBe('FNAME');
  });

  it('ranks an exact field name first, then label, synonym, description and code label matches', () => {
    expect(names('ehi_v2')[0]).toBe('EHI_V2');
    expect(names('cpi travel index')[0]).toBe('CPI_TRAVEL_INDEX');
    expect(names('travel')[0]).toBe('CPI_TRAVEL_INDEX');
    expect(names('golf')).toEqual(['CPI_SPORTS_GOLF_INDEX']);
    // Only the code labels say "bachelor" for EDUCATIONCD.
    expect(names('bachelor')).toContain('EDUCATIONCD');
    expect(names("Bachelor's degree")).toContain('EDUCATIONCD');
    // A label match beats a description match: "density" is in both census density labels.
    expect(names('density').slice(0, 2)).toEqual(['CENS_POP_DENSITY', 'CENS_HU_DENSITY']);
  });

  it('needs every word, honours the limit, and answers nothing for nothing', () => {
    expect(names('zzzz')).toEqual([]);
    expect(names('')).toEqual([]);
    expect(names('   ')).toEqual([]);
    expect(names('interest', 5)).toHaveLength(5);
    expect(names('interest')).toHaveLength(20);
    expect(names('interest', 0)).toEqual([]);
    expect(names('income golf')).toEqual([]);
  });
});

describe('docs/data-dictionary.md', () => {
  it('is what the dictionary gives (run npx tsx test/support/writeDictionaryPage.ts after changing it)', () => {
    expect(readFileSync(DICTIONARY_PAGE_PATH, 'utf8')).toBe(dictionaryPage());
  });

  it('has a table per group with every field', () => {
    const page = dictionaryPage();
    for (const g of DICTIONARY_GROUPS) expect(page).toContain(`\n## ${g}\n`);
    for (const e of DATA_DICTIONARY) expect(page).toContain(`| \`${e.name}\` | ${e.label.replace(/\|/g, '\\|')} |`);
  });
});
