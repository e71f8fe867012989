// @vitest-environment happy-dom
// The filter builder as a person uses it: search the catalog, open a field, tick values (offered
// with their counts), see chips, remove them. The bridge is a fake: the component is the subject.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { FIELDS } from '../../src/shared/fields';
import { setBridge } from '../../src/renderer/src/bridge';
import BuilderPanel from '../../src/renderer/src/components/builder/BuilderPanel.vue';
import { useAudienceStore } from '../../src/renderer/src/stores/audience';
import { useDatasetStore } from '../../src/renderer/src/stores/dataset';
import { fakeBridge } from './support/fakeBridge';

const VALUES: Record<string, Array<{ value: string | number; count: number }>> = {
  GENDER: [
    { value: 'F', count: 104 },
    { value: 'M', count: 96 },
  ],
  AGE: [
    { value: '18-24', count: 20 },
    { value: '25-34', count: 40 },
    { value: '35-44', count: 50 },
    { value: '45-54', count: 40 },
    { value: '55-64', count: 30 },
    { value: '65+', count: 20 },
  ],
  CPI_TRAVEL_INDEX: [0, 1, 2, 3].map((n) => ({ value: n, count: 50 })),
  CT_STRMSUB_SVC1: [
    { value: '', count: 150 },
    { value: 'Y', count: 50 },
  ],
};

let wrapper: VueWrapper;
let bridge: ReturnType<typeof fakeBridge>;

beforeEach(async () => {
  setActivePinia(createPinia());
  bridge = fakeBridge({ 'audience/breakdown': ({ field }) => ({ field, total: 200, ms: 1, values: VALUES[field] ?? [] }) });
  setBridge(bridge);
  await useDatasetStore().load();
  wrapper = mount(BuilderPanel, { attachTo: document.body });
});
afterEach(() => {
  wrapper.unmount();
  // A timer left by the test (the count's debounce) must never reach a real transport.
  setBridge(fakeBridge());
});

async function pickField(query: string, name: string): Promise<void> {
  const input = wrapper.get('[data-testid="field-search"]');
  await input.trigger('focus');
  await input.setValue(query);
  await wrapper.get(`[data-testid="field-option-${name}"]`).trigger('mousedown');
  await flushPromises();
}

describe('filter builder', () => {
  it('offers every state with its count and starts on the biggest', () => {
    const options = wrapper.findAll('[data-testid="state-select"] option');
    expect(options).toHaveLength(51);
    expect(wrapper.get('[data-testid="state-select"] option[value="CA"]').text()).toContain('(200)');
    expect(useAudienceStore().state).toBe('CA');
  });

  it('searches the whole field catalog by name and by group', async () => {
    const input = wrapper.get('[data-testid="field-search"]');
    await input.trigger('focus');
    await input.setValue('interest sports');
    const names = wrapper.findAll('[data-testid^="field-option-"]').map((o) => o.find('.name').text());
    expect(names.length).toBeGreaterThan(5);
    expect(names.every((n) => n.startsWith('CPI_SPORTS'))).toBe(true);
    await input.setValue('lat');
    expect(wrapper.get('[data-testid="field-option-LATITUDE"]').attributes('disabled')).toBeDefined();
    await input.setValue('');
    expect(wrapper.get('[data-testid="field-results"]').text()).toContain(`type to search all ${FIELDS.length}`);
  });

  it('opens the results on a click, on typing or on ↓, and not when focus is only given back to the search', async () => {
    const input = wrapper.get('[data-testid="field-search"]');
    const results = () => wrapper.find('[data-testid="field-results"]').exists();
    await input.trigger('focus');
    expect(results()).toBe(false);
    await input.trigger('click');
    expect(results()).toBe(true);
    await input.trigger('blur');
    expect(results()).toBe(false);
    await input.trigger('keydown', { key: 'ArrowDown' });
    expect(results()).toBe(true);
    await input.trigger('keydown', { key: 'Escape' });
    expect(results()).toBe(false);
    // Focus given back by script (an editor closed with Done or Esc) leaves them closed.
    (input.element as HTMLInputElement).blur();
    (input.element as HTMLInputElement).focus();
    await flushPromises();
    expect(document.activeElement).toBe(input.element);
    expect(results()).toBe(false);
  });

  it('offers a coded field’s actual values with counts and makes checked ones a chip', async () => {
    await pickField('gend', 'GENDER');
    expect(bridge['audience/breakdown']).toHaveBeenCalledWith({ state: 'CA', filters: [], field: 'GENDER', max: 200 });
    const female = wrapper.get('[data-testid="value-GENDER-F"]');
    expect(female.text()).toContain('104');
    await female.get('input').setValue(true);
    expect(useAudienceStore().requestFilters).toEqual([['GENDER', ['F']]]);
    expect(wrapper.get('[data-testid="chip-GENDER"]').text()).toContain('F');
    await wrapper.get('[data-testid="chip-remove-GENDER"]').trigger('click');
    expect(useAudienceStore().filters).toEqual([]);
    expect(wrapper.find('[data-testid="chip-GENDER"]').exists()).toBe(false);
  });

  it('offers AGE’s standard bands and checks typed ranges with the core’s own rules', async () => {
    await pickField('age', 'AGE');
    const bands = wrapper.findAll('[data-testid^="value-AGE-"]').map((b) => b.find('.mono').text());
    expect(bands).toEqual(['18-24', '25-34', '35-44', '45-54', '55-64', '65+']);
    await wrapper.get('[data-testid="value-AGE-65+"] input').setValue(true);
    await wrapper.get('[data-testid="range-input"]').setValue('40-30');
    await wrapper.get('[data-testid="range-add"]').trigger('submit');
    expect(wrapper.get('[data-testid="range-problem"]').text()).toMatch(/low end is above its high end/);
    await wrapper.get('[data-testid="range-input"]').setValue('30-39, 70+');
    await wrapper.get('[data-testid="range-input"]').trigger('submit');
    expect(wrapper.find('[data-testid="range-problem"]').exists()).toBe(false);
    expect(useAudienceStore().requestFilters).toEqual([['AGE', ['65+', '30-39', '70+']]]);
  });

  it('offers every value of a small integer field, and Y / empty for a flag', async () => {
    await pickField('cpi_travel_index', 'CPI_TRAVEL_INDEX');
    expect(wrapper.findAll('[data-testid^="value-CPI_TRAVEL_INDEX-"]')).toHaveLength(4);
    await wrapper.get('[data-testid="filter-done"]').trigger('click');
    await pickField('strmsub svc1', 'CT_STRMSUB_SVC1');
    const empty = wrapper.get('[data-testid="value-CT_STRMSUB_SVC1-EMPTY"]');
    expect(empty.text()).toContain('150');
    await empty.get('input').setValue(true);
    expect(useAudienceStore().requestFilters).toEqual([['CT_STRMSUB_SVC1', ['']]]);
    // The chip reads the flag's meaning; the code (empty) stays in its title.
    const chip = wrapper.get('[data-testid="chip-CT_STRMSUB_SVC1"]');
    expect(chip.text()).toContain('No');
    expect(chip.get('.chip-body').attributes('title')).toContain('No (empty)');
  });

  it('shows a failed value lookup in place, with a retry', async () => {
    setBridge(
      fakeBridge({
        'audience/breakdown': () =>
          Promise.reject(Object.assign(new Error('x'), { code: 'unavailable', message: 'No dataset is open yet; try again in a moment.' })),
      }),
    );
    await pickField('marr', 'MARRIEDCD');
    const err = wrapper.get('[data-testid="filter-editor-MARRIEDCD"] [role="alert"]');
    expect(err.text()).toContain('No dataset is open yet');
    expect(err.text()).toContain('Try again');
  });
});
