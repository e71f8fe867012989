// @vitest-environment happy-dom
// The list controls in the app against an in-memory fake: the keys every audience request carries,
// the count after each step, saved audiences keeping their controls, the suppression lists dialog
// and the cross-tab with its CSV. Whether the back end applies the keys right: test/e2e.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { flushPromises, mount } from '@vue/test-utils';
import { nextTick } from 'vue';
import type { CrossTab, SavedAudience, SuppressionListInfo } from '../../src/shared/contract';
import { setBridge } from '../../src/renderer/src/bridge';
import { COUNT_DEBOUNCE_MS, useAudienceStore } from '../../src/renderer/src/stores/audience';
import { useListControlsStore } from '../../src/renderer/src/stores/listControls';
import { useSavedStore } from '../../src/renderer/src/stores/saved';
import { useExportStore } from '../../src/renderer/src/stores/exportJob';
import { useBreakdownStore } from '../../src/renderer/src/stores/breakdown';
import { crossTabCsv, useCrossTabStore } from '../../src/renderer/src/stores/crosstab';
import { useSuppressionListsStore } from '../../src/renderer/src/stores/suppressionLists';
import { curlCommand, requestBody } from '../../src/renderer/src/lib/apiSnippets';
import { csvField, toCsv } from '../../src/renderer/src/lib/csv';
import ListControlsPanel from '../../src/renderer/src/components/controls/ListControlsPanel.vue';
import ListsDialog from '../../src/renderer/src/components/lists/ListsDialog.vue';
import CrossTabPanel from '../../src/renderer/src/components/panels/CrossTabPanel.vue';
import { countAnswer, fakeBridge } from './support/fakeBridge';

beforeEach(() => setActivePinia(createPinia()));
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  // A timer left by a test (the count's debounce) must never reach a real transport.
  setBridge(fakeBridge());
});

const settle = async (): Promise<void> => {
  await new Promise((r) => setTimeout(r, COUNT_DEBOUNCE_MS + 5));
  await flushPromises();
};

const SAVED: SavedAudience = {
  id: 7,
  name: 'Donors',
  state: 'TX',
  controls: { contact: { mail: 'deliverable' }, exclude: ['list:dnc'], households: 'one', sample: { size: 500, seed: 3 } },
  filters: [['GENDER', ['F']]],
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

const LIST: SuppressionListInfo = {
  id: 'dnc',
  name: 'Do not contact',
  createdAt: '2026-01-02T00:00:00Z',
  rows: 12,
  pids: 5,
  phones: 4,
  addresses: 1,
  rejected: 2,
  rejects: [
    { line: 4, reason: 'not a PID, phone or address' },
    { line: 9, reason: 'empty row' },
  ],
  matched: 9,
};

describe('list controls store', () => {
  it('sends near (within miles of a ZIP or a point) only once it is valid, and loads it back', () => {
    const c = useListControlsStore();
    c.nearMode = 'zip';
    c.nearZip = '1120';
    c.nearMiles = 5;
    expect(c.nearProblem).toMatch(/ZIP/);
    expect(c.input).toEqual({});
    c.nearZip = '11201';
    expect(c.input).toEqual({ near: { zip: '11201', miles: 5 } });
    c.nearMiles = 501;
    expect(c.nearProblem).toMatch(/Miles/);
    expect(c.input).toEqual({});
    c.nearMode = 'point';
    c.nearMiles = 25;
    c.nearLat = 95;
    c.nearLon = -73.9;
    expect(c.nearProblem).toMatch(/Latitude/);
    c.nearLat = 40.7;
    expect(c.input).toEqual({ near: { lat: 40.7, lon: -73.9, miles: 25 } });
    c.load({ near: { zip: '10001', miles: 3 } });
    expect([c.nearMode, c.nearZip, c.nearMiles]).toEqual(['zip', '10001', 3]);
    c.reset();
    expect(c.nearMode).toBe('none');
    expect(c.input).toEqual({});
  });

  it('sends only the keys that do something, and leaves out a sample being typed until it is valid', () => {
    const c = useListControlsStore();
    expect(c.input).toEqual({});
    c.phone = true;
    c.addExclusion('saved:3');
    c.addExclusion('saved:3');
    c.addExclusion('export:12');
    c.households = 'one';
    c.sampleMode = 'every';
    c.every = 10;
    expect(c.input).toEqual({
      contact: { phone: 'callable' },
      exclude: ['saved:3', 'export:12'],
      households: 'one',
      sample: { every: 10 },
    });
    c.every = 0;
    expect(c.sampleProblem).toMatch(/whole number/);
    expect(c.input.sample).toBeUndefined();
    c.sampleMode = 'size';
    c.size = 250;
    c.seed = 42;
    expect(c.input.sample).toEqual({ size: 250, seed: 42 });
    c.removeExclusion('saved:3');
    expect(c.input.exclude).toEqual(['export:12']);
  });

  it('loads request keys back into the form, and resets', () => {
    const c = useListControlsStore();
    c.load(SAVED.controls);
    expect(c.input).toEqual(SAVED.controls);
    c.reset();
    expect(c.input).toEqual({});
    expect(c.active).toBe(false);
  });
});

describe('the audience carries the controls', () => {
  it('into the count, the grid’s committed request, the breakdown, the cross-tab and the export; steps are kept', async () => {
    const steps = { filtered: 200, matched: 200, afterContact: 170, afterExclusions: 150, afterHouseholds: 120, total: 12 };
    const bridge = fakeBridge({
      'audience/count': () => ({ total: 12, ms: 2, steps }),
      'audience/crosstab': (input) => ({
        rows: input.rows,
        columns: input.columns,
        rowValues: [],
        columnValues: [],
        counts: [],
        total: 12,
        ms: 1,
      }),
      'export/start': (input) => ({
        id: 'e1',
        status: 'done',
        format: input.format,
        path: '/x.csv',
        written: 12,
        total: 12,
        recordsPerSecond: 0,
        secondsLeft: 0,
      }),
    });
    setBridge(bridge);
    const a = useAudienceStore();
    const c = useListControlsStore();
    a.setState('CA');
    c.mail = true;
    c.addExclusion('list:dnc');
    c.households = 'one';
    c.sampleMode = 'every';
    c.every = 10;
    await nextTick();
    await settle();
    const keys = { contact: { mail: 'deliverable' }, exclude: ['list:dnc'], households: 'one', sample: { every: 10 } };
    expect(bridge['audience/count']).toHaveBeenLastCalledWith({ state: 'CA', filters: [], ...keys });
    expect(a.committed).toEqual({ state: 'CA', filters: [], ...keys });
    expect(a.steps).toEqual(steps);

    await useBreakdownStore().load();
    expect(bridge['audience/breakdown']).toHaveBeenLastCalledWith(expect.objectContaining({ state: 'CA', ...keys, field: 'GENDER' }));
    await useCrossTabStore().load();
    expect(bridge['audience/crosstab']).toHaveBeenLastCalledWith(expect.objectContaining({ ...keys, rows: 'AGE', columns: 'EHI' }));
    await useExportStore().start();
    expect(bridge['export/start']).toHaveBeenLastCalledWith({ state: 'CA', filters: [], ...keys, format: 'csv', header: 'names' });
  });

  it('saves the controls with an audience, restores them on opening it, and forgets a deleted audience as an exclusion', async () => {
    const bridge = fakeBridge({
      'audiences/save': (input) => ({ ...SAVED, id: 8, name: input.name }),
      'audiences/list': () => [SAVED],
      'audiences/delete': () => ({ ok: true as const }),
    });
    setBridge(bridge);
    const a = useAudienceStore();
    const c = useListControlsStore();
    const saved = useSavedStore();
    a.setState('TX');
    c.phone = true;
    c.addExclusion('saved:7');
    await saved.save('Callable');
    expect(bridge['audiences/save']).toHaveBeenCalledWith({
      name: 'Callable',
      state: 'TX',
      filters: [],
      contact: { phone: 'callable' },
      exclude: ['saved:7'],
    });
    await saved.remove(7);
    expect(c.exclude).toEqual([]);

    saved.apply(SAVED);
    expect(a.request).toEqual({ state: 'TX', filters: [['GENDER', ['F']]], ...SAVED.controls });
    expect(c.phone).toBe(false);
  });

  it('copies as JSON and curl with the controls in the body', () => {
    const body = JSON.parse(requestBody({ ...SAVED.controls, state: 'TX', filters: SAVED.filters }));
    expect(body).toEqual({ state: 'TX', limit: 25, skip: 0, filters: [['GENDER', ['F']]], ...SAVED.controls });
    expect(curlCommand(null, { state: 'TX', filters: [], households: 'one' })).toContain('"households":"one"');
  });
});

describe('list controls section', () => {
  it('is keyboard-usable fieldsets whose choices reach the count, with the count after each step', async () => {
    const bridge = fakeBridge({
      'audience/count': (input) =>
        input.contact
          ? {
              total: 40,
              ms: 1,
              steps: { filtered: 200, matched: 200, afterContact: 120, afterExclusions: 90, afterHouseholds: 60, total: 40 },
            }
          : countAnswer(200),
      'audiences/list': () => [SAVED],
      'lists/list': () => [LIST],
      'audit/list': () => [
        {
          id: 31,
          at: '2026-01-03T00:00:00Z',
          actor: 'app',
          action: 'export',
          audience: { state: 'CA', filters: [] },
          records: 100,
          file: '/home/a/exports/mail.csv',
          outcome: 'done',
          excludable: true,
        },
        {
          id: 32,
          at: '2026-01-03T00:00:00Z',
          actor: 'app',
          action: 'import',
          audience: { state: 'CA', filters: [] },
          records: 100,
          file: '/x',
          outcome: 'done',
          excludable: false,
        },
      ],
    });
    setBridge(bridge);
    const a = useAudienceStore();
    a.setState('CA');
    const wrapper = mount(ListControlsPanel);
    await settle();
    expect(wrapper.findAll('fieldset legend').map((l) => l.text())).toEqual([
      'Distance',
      'Contact',
      'Only the people of',
      'Leave out',
      'Lookalikes of',
      'Households',
      'Sample',
    ]);
    // Every input has a label: wrapped in one, or named by aria-label.
    for (const input of wrapper.findAll('input')) expect(input.element.closest('label') || input.attributes('aria-label')).toBeTruthy();
    expect(wrapper.find('#exclusion-add').exists() && wrapper.find('label[for="exclusion-add"]').exists()).toBe(true);

    const options = wrapper.findAll('[data-testid="exclusion-add"] option').map((o) => o.attributes('value'));
    expect(options).toContain('saved:7');
    expect(options).toContain('list:dnc');
    expect(options).toContain('export:31');
    expect(options).not.toContain('export:32');

    await wrapper.get('[data-testid="control-phone"]').setValue(true);
    await wrapper.get('[data-testid="exclusion-add"]').setValue('list:dnc');
    await wrapper.get('[data-testid="control-households-one"]').setValue(true);
    await settle();
    expect(bridge['audience/count']).toHaveBeenLastCalledWith({
      state: 'CA',
      filters: [],
      contact: { phone: 'callable' },
      exclude: ['list:dnc'],
      households: 'one',
    });
    expect(wrapper.get('[data-testid="exclusion-list:dnc"]').text()).toContain('Do not contact');
    const shown = wrapper.findAll('[data-testid="step-count"]').map((s) => s.text());
    expect(shown).toEqual(['200', '200', '120', '90', '60', '40']);
    // Each step that applies names the people it removed (not the exclusions it holds).
    const removed = wrapper.findAll('[data-testid="step-removed"]').map((s) => s.text());
    expect(removed).toEqual(['−80 people', '−30 people', '−30 people']);
    expect(wrapper.get('[data-testid="step-afterContact"]').text()).toContain('Callable');
    expect(wrapper.get('[data-testid="step-matched"]').classes()).toContain('off');
    expect(wrapper.get('[data-testid="step-total"]').classes()).toContain('off');

    await wrapper.get('[data-testid="control-sample-mode"]').setValue('every');
    await wrapper.get('[data-testid="control-sample-every-n"]').setValue('');
    expect(wrapper.get('[data-testid="control-sample-problem"]').text()).toMatch(/Until then no sample is taken/);
    await wrapper.get('[data-testid="controls-reset"]').trigger('click');
    expect(useListControlsStore().input).toEqual({});
  });
});

describe('suppression lists dialog', () => {
  it('picks from the inbox, imports under a name, shows what the list holds, and deletes only after asking', async () => {
    let lists: SuppressionListInfo[] = [];
    const bridge = fakeBridge({
      'lists/pick': () => ({ files: ['/home/a/imports/dnc-2026.csv'], inbox: '/home/a/imports' }),
      'lists/import': ({ name }) => {
        lists = [{ ...LIST, name }];
        return lists[0]!;
      },
      'lists/list': () => lists,
      'lists/delete': () => {
        lists = [];
        return { ok: true as const };
      },
    });
    setBridge(bridge);
    const store = useSuppressionListsStore();
    store.show();
    useListControlsStore().addExclusion('list:dnc');
    const wrapper = mount(ListsDialog);
    await flushPromises();
    expect(wrapper.find('[data-testid="lists-empty"]').exists()).toBe(true);
    await wrapper.get('[data-testid="list-choose"]').trigger('click');
    await flushPromises();
    expect(wrapper.get('[data-testid="list-inbox"]').text()).toContain('/home/a/imports');
    expect((wrapper.get('[data-testid="list-name"]').element as HTMLInputElement).value).toBe('dnc-2026');
    await wrapper.get('[data-testid="list-name"]').setValue('Do not contact');
    await wrapper.get('[data-testid="list-import"]').trigger('submit');
    await flushPromises();
    expect(bridge['lists/import']).toHaveBeenCalledWith({ file: '/home/a/imports/dnc-2026.csv', name: 'Do not contact' });
    const item = wrapper.get('[data-testid="list-Do not contact"]');
    expect(item.get('[data-testid="list-rows"]').text()).toBe('12 rows');
    expect(item.get('[data-testid="list-rejected"]').text()).toBe('2 rejected');
    expect(item.get('[data-testid="list-matched"]').text()).toContain('9 people');
    expect(item.get('[data-testid="list-rejects"]').text()).toContain('line 4: not a PID, phone or address');

    await item.get('[data-testid="list-delete"]').trigger('click');
    expect(bridge['lists/delete']).not.toHaveBeenCalled();
    await wrapper.get('[data-testid="list-delete-confirm"]').trigger('click');
    await flushPromises();
    expect(bridge['lists/delete']).toHaveBeenCalledWith({ id: 'dnc' });
    expect(useListControlsStore().exclude).toEqual([]);
    expect(wrapper.find('[data-testid="lists-empty"]').exists()).toBe(true);
  });
});

describe('cross-tab', () => {
  const TAB: CrossTab = {
    rows: 'AGE',
    columns: 'CITY',
    rowValues: ['25-34', '65+'],
    columnValues: ['FRESNO', 'SAN "X", CA', ''],
    counts: [
      [10, 2, 0],
      [5, 30, 1],
    ],
    total: 50,
    ms: 3,
  };

  it('writes RFC 4180 CSV: header of column values, first column of row values', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(toCsv([['x', 1]])).toBe('x,1\r\n');
    expect(crossTabCsv(TAB)).toBe(
      'AGE \\ CITY,FRESNO,"SAN ""X"", CA",(empty),Total\r\n25-34,10,2,0,12\r\n65+,5,30,1,36\r\nTotal,15,32,1,48\r\n',
    );
    // Row percentages: each row sums to 100; the total row is each column's share of the whole.
    expect(crossTabCsv(TAB, 'row').split('\r\n')).toEqual([
      'AGE \\ CITY (Row %),FRESNO,"SAN ""X"", CA",(empty),Total',
      '25-34,83.3%,16.7%,0.0%,100.0%',
      '65+,13.9%,83.3%,2.8%,100.0%',
      'Total,31.3%,66.7%,2.1%,100.0%',
      '',
    ]);
    expect(crossTabCsv(TAB, 'column').split('\r\n')[1]).toBe('25-34,66.7%,6.3%,0.0%,25.0%');
  });

  it('shows the table with labels and shading, the people outside it, and saves the CSV as a download', async () => {
    setBridge(fakeBridge({ 'audience/crosstab': () => TAB }));
    const a = useAudienceStore();
    a.setState('CA');
    a.commitNow();
    const created: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => (created.push(b as Blob), 'blob:x'));
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    const clicks: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });
    const wrapper = mount(CrossTabPanel);
    await flushPromises();
    expect(wrapper.findAll('thead th').map((t) => t.text())).toEqual(['AGE \\ CITY', 'FRESNO', 'SAN "X", CA', '(empty)', 'Total']);
    expect(wrapper.get('[data-testid="crosstab-row-total-1"]').text()).toBe('36');
    expect(wrapper.get('[data-testid="crosstab-column-total-1"]').text()).toBe('32');
    expect(wrapper.get('[data-testid="crosstab-grand-total"]').text()).toBe('48');
    expect(wrapper.findAll('tbody th').map((t) => t.text())).toEqual(['25-34', '65+']);
    const peak = wrapper.get('[data-testid="crosstab-cell-1-1"]');
    const faint = wrapper.get('[data-testid="crosstab-cell-0-2"]');
    expect(peak.text()).toBe('30');
    expect(peak.attributes('style')).toContain('58.0%');
    expect(faint.attributes('style')).toContain('6.0%');
    expect(wrapper.get('[data-testid="crosstab-outside"]').text()).toContain('2 more');
    await wrapper.get('[data-testid="crosstab-csv"]').trigger('click');
    expect(clicks).toEqual(['crosstab-AGE-by-CITY.csv']);
    expect(await created[0]!.text()).toBe(crossTabCsv(TAB));
    // Column percentages: the cells and the CSV say shares of each column.
    await wrapper.get('[data-testid="crosstab-measure-column"]').trigger('click');
    expect(wrapper.get('[data-testid="crosstab-cell-1-1"]').text()).toBe('93.8%');
    await wrapper.get('[data-testid="crosstab-csv"]').trigger('click');
    expect(clicks.at(-1)).toBe('crosstab-AGE-by-CITY-column-percent.csv');
    expect(await created.at(-1)!.text()).toBe(crossTabCsv(TAB, 'column'));
  });
});
