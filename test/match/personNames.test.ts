// Name agreement, the rule that keeps match and append from handing a row a stranger's data.
import { describe, expect, it } from 'vitest';
import { nameAgreement, normalizeName, splitFullName } from '../../src/core/match/personNames';

describe('person names', () => {
  it('writes names one way: upper case, no accents, letters only', () => {
    expect(normalizeName("  O'Néil-Smith ")).toBe('ONEILSMITH');
    expect(normalizeName('mARY jANE')).toBe('MARYJANE');
  });

  it('splits full names with and without a comma, without titles and suffixes', () => {
    expect(splitFullName('Dr. John Q. Public Jr.')).toEqual({ first: 'JOHN', last: 'PUBLIC' });
    expect(splitFullName('Public, John Q')).toEqual({ first: 'JOHN', last: 'PUBLIC' });
    expect(splitFullName('Cher')).toEqual({ first: '', last: 'CHER' });
  });

  it('agrees on the same last name and the same first name or its initial, never otherwise', () => {
    const record = { first: 'JOHN', last: 'PUBLIC' };
    expect(nameAgreement({ first: 'JOHN', last: 'PUBLIC' }, record)).toBe(2);
    expect(nameAgreement({ first: 'J', last: 'PUBLIC' }, record)).toBe(1);
    expect(nameAgreement({ first: 'JOHN', last: 'PUBLIC' }, { first: 'J', last: 'PUBLIC' })).toBe(1);
    expect(nameAgreement({ first: 'JANE', last: 'PUBLIC' }, record)).toBe(0);
    expect(nameAgreement({ first: 'JOHN', last: 'PUBLICO' }, record)).toBe(0);
    expect(nameAgreement({ first: '', last: 'PUBLIC' }, record)).toBe(0);
  });
});
