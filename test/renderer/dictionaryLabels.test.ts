// @vitest-environment happy-dom
// The analyst's language in the renderer: coded values turned into words and sorted in the
// codebook's natural order (lib/valueLabels), field words and plain descriptions (lib/fieldInfo),
// the picker's dictionary search (lib/filterKinds), and the breakdown bars, value checklist and
// chips that show them. The bridge is a fake: the labels and order are the subject.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { CODEBOOK } from '../../src/shared/codebook';
import { setBridge } from '../../src/renderer/src/bridge';
import BuilderPanel from '../../src/renderer/src/components/builder/BuilderPanel.vue';
import BreakdownPanel from '../../src/renderer/src/components/panels/BreakdownPanel.vue';
import { groupMatches, searchFields } from '../../src/renderer/src/lib/filterKinds';
import { fieldDescription, fieldLabel, plainText } from '../../src/renderer/src/lib/fieldInfo';
import {
  fieldValueLabel,
  sortFieldValues,
  valueCodeNote,
  valuesSummary,
  valueText,
  valueWithCode,
} from '../../src/renderer/src/lib/valueLabels';
import { useAudienceStore } from '../../src/renderer/src/stores/audience';
import { useBreakdownStore } from '../../src/renderer/src/stores/breakdown';
import { useDatasetStore } from '../../src/renderer/src/stores/dataset';
import { fakeBridge } from './support/fakeBridge';

const EHI_CODES = CODEBOOK.EHI!.map((c) => c.code);
const EHI_LABELS = CODEBOOK.EHI!.map((c) => c.label);

describe('value labels', () => {
  it('turns codes into the codebook’s words, keeps the code, and marks unknown codes', () => {
    expect(valueText('EHI', 'E')).toEqual({ code: 'E', label: '$50,000–$74,999', coded: true, unknown: false });
    expect(fieldValueLabel('EDUCATIONCD', '3')).toBe("Bachelor's degree");
    expect(fieldValueLabel('ETHNICITYCD', 'H')).toBe('Hispanic');
    expect(fieldValueLabel('WEALTHSCR', 'C')).toBe('3 of 9');
    expect(fieldValueLabel('ehi', 'A')).toBe('Under $15,000');
    expect(valueWithCode('EHI', 'E')).toBe('$50,000–$74,999 (E)');
    expect(valueWithCode('DNC', '')).toBe('No (empty)');
    expect(valueCodeNote('EHI', 'E')).toBe('code E');
    // A code the book does not know is shown bare and marked, never dropped.
    expect(valueText('EHI', 'Q')).toEqual({ code: 'Q', label: 'Q', coded: true, unknown: true });
    expect(fieldValueLabel('EHI', 'Q')).toBe('Q (unknown code)');
    expect(valueCodeNote('EHI', 'Q')).toBe('unknown code Q');
    // Fields without codes read as they are.
    expect(valueText('CITY', 'FRESNO')).toEqual({ code: 'FRESNO', label: 'FRESNO', coded: false, unknown: false });
    expect(fieldValueLabel('CITY', '')).toBe('(empty)');
    expect(valuesSummary('GENDER', ['F', 'M'])).toBe('Female, Male');
    expect(valuesSummary('EHI', ['A', 'B', 'C', 'D', 'E', 'F'])).toBe(
      'Under $15,000, $15,000–$24,999, $25,000–$34,999, $35,000–$49,999 +2',
    );
  });

  it('sorts coded values in natural order (income bands low to high), unknown codes last, others untouched', () => {
    const byCount = ['E', 'F', 'D', 'Z', 'C', 'G', 'B', 'H', 'A', 'I', 'J', 'K', 'L'].map((value, i) => ({ value, count: 100 - i }));
    const sorted = sortFieldValues('EHI', byCount);
    expect(sorted.map((v) => v.value)).toEqual([...EHI_CODES, 'Z']);
    expect(sorted.find((v) => v.value === 'E')!.count).toBe(100);
    expect(byCount[0]!.value).toBe('E');
    expect(sortFieldValues('EDUCATIONCD', [{ value: '4' }, { value: '1' }, { value: '3' }, { value: '2' }]).map((v) => v.value)).toEqual([
      '1',
      '2',
      '3',
      '4',
    ]);
    const cities = [{ value: 'OAKLAND' }, { value: 'ARCATA' }];
    expect(sortFieldValues('CITY', cities)).toEqual(cities);
  });

  it('gives fields their dictionary labels and plain-text descriptions', () => {
    expect(fieldLabel('EHI')).toBe('Estimated household income');
    expect(fieldLabel('NOT_A_FIELD')).toBe('NOT_A_FIELD');
    expect(plainText('string, `Y` or empty; see **the codebook** and [docs](x.md)')).toBe('string, Y or empty; see the codebook and docs');
    for (const name of ['EHI', 'DNC', 'CT_STRMSUB_SVC1', 'CENSPCT_POP_HISPANIC', 'CPI_SPORTS_INDEX'])
      expect(fieldDescription(name)).not.toMatch(/[`*]/);
  });
});

describe('field search', () => {
  const top = (q: string) => searchFields(q, 80).map((m) => m.def.name);
  it('finds fields in the analyst’s words', () => {
    expect(top('income')[0]).toBe('EHI');
    expect(top('married')[0]).toBe('MARRIEDCD');
    expect(top('marital')[0]).toBe('MARRIEDCD');
    expect(top('do not call').slice(0, 3)).toEqual(['DNC', 'DNC2', 'DNC3']);
    expect(top('county')).toContain('CNTYCD');
    expect(top('home value')[0]).toBe('MRKTHOMEVAL');
    expect(top('first name')[0]).toBe('FNAME');
    expect(top('children')).toEqual(expect.arrayContaining(['CHILD', 'CHILDNBRCD']));
    expect(top('bachelor')).toContain('EDUCATIONCD');
    // Code names still work.
    expect(top('marriedcd')[0]).toBe('MARRIEDCD');
    expect(top('cpi_travel_index')[0]).toBe('CPI_TRAVEL_INDEX');
    expect(searchFields('income')[0]!.entry.label).toBe('Estimated household income');
  });

  it('groups matches by the dictionary’s group, the best match’s group first', () => {
    const groups = groupMatches(searchFields('income', 80));
    expect(groups[0]!.group).toBe('Income and wealth');
    expect(groups[0]!.matches[0]!.def.name).toBe('EHI');
    expect(new Set(groups.map((g) => g.group)).size).toBe(groups.length);
  });
});

const BREAKDOWN_BY_COUNT = [
  { value: 'E', count: 50 },
  { value: 'D', count: 40 },
  { value: 'Q', count: 3 },
  { value: 'A', count: 30 },
  { value: 'L', count: 5 },
];

describe('panels in the analyst’s language', () => {
  let wrapper: VueWrapper | undefined;
  beforeEach(async () => {
    setActivePinia(createPinia());
    setBridge(
      fakeBridge({
        'audience/breakdown': ({ field }) => ({
          field,
          total: 128,
          ms: 1,
          values: field === 'EHI' ? BREAKDOWN_BY_COUNT : [],
        }),
      }),
    );
    await useDatasetStore().load();
  });
  afterEach(() => {
    wrapper?.unmount();
    wrapper = undefined;
    setBridge(fakeBridge());
  });

  it('the picker shows the label first, the code name and kind after, no markdown', async () => {
    wrapper = mount(BuilderPanel, { attachTo: document.body });
    const input = wrapper.get('[data-testid="field-search"]');
    await input.trigger('focus');
    await input.setValue('income');
    const first = wrapper.findAll('[data-testid^="field-option-"]')[0]!;
    expect(first.attributes('data-testid')).toBe('field-option-EHI');
    expect(first.get('.label').text()).toBe('Estimated household income');
    expect(first.get('.name').text()).toBe('EHI');
    expect(first.text()).not.toContain('`');
    expect(first.attributes('title')).toContain('Estimated household income (EHI)');
    expect(wrapper.get('[data-testid="field-results"]').text()).toContain('Income and wealth');
  });

  it('the value checklist shows income bands in order with their codes, unknown ones marked, and chips in words', async () => {
    wrapper = mount(BuilderPanel, { attachTo: document.body });
    const input = wrapper.get('[data-testid="field-search"]');
    await input.trigger('focus');
    await input.setValue('income');
    await wrapper.get('[data-testid="field-option-EHI"]').trigger('mousedown');
    await flushPromises();
    const rows = wrapper.findAll('[data-testid^="value-EHI-"]');
    expect(rows.map((r) => r.attributes('data-value'))).toEqual(['A', 'D', 'E', 'L', 'Q']);
    expect(rows[0]!.text()).toContain('Under $15,000');
    expect(rows[0]!.text()).toContain('A');
    expect(rows[4]!.text()).toContain('unknown code');
    await wrapper.get('[data-testid="value-EHI-E"] input').setValue(true);
    expect(useAudienceStore().requestFilters).toEqual([['EHI', ['E']]]);
    const chip = wrapper.get('[data-testid="chip-EHI"]');
    expect(chip.text()).toContain('Estimated household income');
    expect(chip.text()).toContain('$50,000–$74,999');
    expect(chip.get('.chip-body').attributes('title')).toContain('$50,000–$74,999 (E)');
  });

  it('the breakdown bars read as income bands in natural order, with the code kept', async () => {
    const audience = useAudienceStore();
    audience.setState('CA');
    audience.commitNow();
    wrapper = mount(BreakdownPanel);
    useBreakdownStore().choose('EHI');
    await flushPromises();
    const bars = wrapper.findAll('[data-testid^="breakdown-bar-"]');
    expect(bars.map((b) => b.attributes('data-value'))).toEqual(['A', 'D', 'E', 'L', 'Q']);
    expect(bars.map((b) => b.get('.bar-text').text())).toEqual([EHI_LABELS[0], EHI_LABELS[3], EHI_LABELS[4], EHI_LABELS[11], 'Q']);
    expect(bars.map((b) => b.get('.bar-count').text())).toEqual(['30', '40', '50', '5', '3']);
    expect(bars[4]!.text()).toContain('unknown code');
    expect(wrapper.get('[data-testid="breakdown-field-label"]').text()).toBe('Estimated household income');
    expect(wrapper.get('[data-testid="breakdown-field"]').text()).toBe('EHI');
  });
});
