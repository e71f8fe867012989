// @vitest-environment happy-dom
// Components whose presentation is the point: the record drawer's grouping and search, the error
// boundary, the API snippets (never a real key), and a new key shown once. Fake bridge throughout.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineComponent, h } from 'vue';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { FIELDS, FIELD_GROUP_LABELS } from '../../src/shared/fields';
import { setBridge } from '../../src/renderer/src/bridge';
import RecordDrawer from '../../src/renderer/src/components/RecordDrawer.vue';
import ErrorBoundary from '../../src/renderer/src/components/ErrorBoundary.vue';
import KeysSection from '../../src/renderer/src/components/api/KeysSection.vue';
import { curlCommand, requestBody } from '../../src/renderer/src/lib/apiSnippets';
import { useRecordStore } from '../../src/renderer/src/stores/record';
import { useUiStore } from '../../src/renderer/src/stores/ui';
import { fakeBridge } from './support/fakeBridge';

const PID = 'A1B2C3D4E5F60718293A4B5C6D7E8F90';
const record = Object.fromEntries(FIELDS.map((f) => [f.name, f.type === 'string' ? '' : 0])) as Record<string, string | number>;
Object.assign(record, {
  PID,
  FNAME: 'ADA',
  LNAME: 'LOVELACE',
  CITY: 'FRESNO',
  STATE: 'CA',
  ZIP: '93650',
  GENDER: 'F',
  AGE: 36,
  CPI_TRAVEL_INDEX: 7,
});

beforeEach(() => setActivePinia(createPinia()));
// A timer left by a test (the count's debounce) must never reach a real transport.
afterEach(() => setBridge(fakeBridge()));

describe('record drawer', () => {
  it('fetches the person by PID and shows every field under the catalog’s group labels', async () => {
    const bridge = fakeBridge({ 'audience/search': () => ({ total: 1, limit: 1, skip: 0, results: [record] }) });
    setBridge(bridge);
    const wrapper = mount(RecordDrawer);
    await useRecordStore().open(PID, 'CA');
    await flushPromises();
    expect(bridge['audience/search']).toHaveBeenCalledWith({ state: 'CA', filters: [['PID', [PID]]], limit: 1, skip: 0 });
    expect(wrapper.get('[data-testid="record-title"]').text()).toBe('ADA LOVELACE');
    expect(wrapper.findAll('dt')).toHaveLength(FIELDS.length);
    const headings = wrapper.findAll('section.group h2').map((x) => x.text().replace(/\s*\d+$/, ''));
    expect(headings).toEqual([...new Set(FIELDS.map((f) => f.group))].map((g) => FIELD_GROUP_LABELS[g]));
    await wrapper.get('[data-testid="record-search"]').setValue('travel');
    expect(wrapper.findAll('dt .field-name').map((d) => d.text())).toEqual(
      FIELDS.filter((f) => f.name.includes('TRAVEL')).map((f) => f.name),
    );
    expect(wrapper.get('[data-testid="record-field-CPI_TRAVEL_INDEX"]').text()).toBe('7');
    await wrapper.get('[data-testid="record-search"]').setValue('lovelace');
    expect(wrapper.findAll('dt .field-name').map((d) => d.text())).toEqual(['LNAME']);
    await wrapper.get('[data-testid="record-close"]').trigger('click');
    expect(wrapper.find('[data-testid="record-drawer"]').exists()).toBe(false);
  });

  it('shows a failure in place', async () => {
    setBridge(fakeBridge({ 'audience/search': () => Promise.reject({ code: 'unavailable', message: 'The dataset is being replaced.' }) }));
    const wrapper = mount(RecordDrawer);
    await useRecordStore().open(PID, 'CA');
    await flushPromises();
    expect(wrapper.get('[data-testid="record-error"]').text()).toBe('Not available yet: The dataset is being replaced.');
  });
});

describe('error boundary', () => {
  it('shows a child’s render error as a message instead of a blank region, and reports it', async () => {
    // A component whose render always throws: what the boundary exists for.
    const Broken = defineComponent({
      // eslint-disable-next-line vue/require-render-return
      render: () => {
        throw new Error('The grid could not start.');
      },
    });
    const wrapper = mount(ErrorBoundary, { props: { label: 'The people grid' }, slots: { default: () => h(Broken) } });
    await flushPromises();
    expect(wrapper.get('[data-testid="error-boundary"]').text()).toContain('The people grid could not be shown.');
    expect(wrapper.text()).toContain('The grid could not start.');
    expect(useUiStore().errors.map((e) => e.message)).toEqual(['The people grid: The grid could not start.']);
  });
});

describe('API snippets', () => {
  it('writes the exact request body and a curl command with a key placeholder', () => {
    expect(
      JSON.parse(
        requestBody({
          state: 'CA',
          filters: [
            ['GENDER', ['F']],
            ['AGE', ['25-34']],
          ],
        }),
      ),
    ).toEqual({
      state: 'CA',
      limit: 25,
      skip: 0,
      filters: [
        ['GENDER', ['F']],
        ['AGE', ['25-34']],
      ],
    });
    const curl = curlCommand('http://127.0.0.1:4321/', { state: 'CA', filters: [['LNAME', ["O'BRIEN"]]] });
    expect(curl).toContain("'http://127.0.0.1:4321/api/audiences/preview'");
    expect(curl).toContain("-H 'X-API-KEY: <your key>'");
    expect(curl).toContain(`"O'\\''BRIEN"`);
  });
});

describe('keys', () => {
  it('shows a new key once, lists keys with last use, and revokes after a confirmation', async () => {
    const keys = [
      {
        id: 'k1',
        name: 'etl',
        prefix: 'adk_Ab12',
        createdAt: '2026-01-02T10:00:00Z',
        lastUsedAt: null as string | null,
        revokedAt: null as string | null,
      },
    ];
    const bridge = fakeBridge({
      'keys/list': () => keys.map((k) => ({ ...k })),
      'keys/create': ({ name }) => ({ info: { ...keys[0]!, id: 'k2', name }, key: 'adk_SECRET' }),
      'keys/revoke': ({ id }) => {
        keys.find((k) => k.id === id)!.revokedAt = '2026-01-03T10:00:00Z';
        return { ok: true as const };
      },
    });
    setBridge(bridge);
    const wrapper = mount(KeysSection);
    await wrapper.get('[data-testid="key-name"]').setValue('report');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('[data-testid="new-key-value"]').text()).toBe('adk_SECRET');
    await wrapper.get('[data-testid="new-key-dismiss"]').trigger('click');
    expect(wrapper.text()).not.toContain('adk_SECRET');
    expect(wrapper.get('[data-testid="key-row-etl"]').text()).toContain('never');
    await wrapper.get('[data-testid="key-revoke"]').trigger('click');
    expect(bridge['keys/revoke']).not.toHaveBeenCalled();
    await wrapper.get('[data-testid="key-revoke-confirm"]').trigger('click');
    await flushPromises();
    expect(bridge['keys/revoke']).toHaveBeenCalledWith({ id: 'k1' });
    expect(wrapper.get('[data-testid="key-row-etl"]').text()).toContain('revoked');
  });
});
