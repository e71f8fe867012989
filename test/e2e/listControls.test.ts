// End to end, in real Chromium against the real browser mode of `serve`: the list controls beside
// the filters and the count after each step, a suppression list imported from the inbox and left
// out, a saved audience that keeps its controls and whose JSON the API answers alike, an export
// left out of the next list, and the cross-tab with its CSV. Every number the app shows is
// compared with the loopback API's own answer or an independent count, never with a constant.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { csvField } from '../../src/core/dataset/codec/recordFormat';
import { codeLabel } from '../../src/shared/codebook';
import { SqlOracle } from '../support/oracle';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';
import { atEverySize, cutLabels, cutSelects } from './support/layout';

let desk: Desk;
const STATE = 'CA';
const CALLABLE = { contact: { phone: 'callable' } };

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption(STATE);
});
afterAll(() => stopDesk(desk));

/** The API's total for the state and these request keys. */
async function apiTotal(keys: Record<string, unknown> = {}): Promise<number> {
  const r = await api(desk, 'preview', { state: STATE, limit: 0, ...keys });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.total as number;
}

const stepText = (id: string) => desk.page.getByTestId(`step-${id}`).getByTestId('step-count').innerText();
const countText = () => desk.page.getByTestId('audience-count').innerText();

/**
 * The list controls lie inside the window: the section and its step counts as they stand, and each
 * control once scrolled to (the section scrolls inside itself when the window is short). Nothing is
 * wider than the section.
 */
async function expectControlsInside(page: Page): Promise<void> {
  const viewport = page.viewportSize()!;
  const inside = async (locator: ReturnType<Page['getByTestId']>, name: string): Promise<void> => {
    const box = (await locator.boundingBox())!;
    expect(box, name).not.toBeNull();
    expect(box.x, name).toBeGreaterThanOrEqual(0);
    expect(box.y, name).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, name).toBeLessThanOrEqual(viewport.width);
    expect(box.y + box.height, name).toBeLessThanOrEqual(viewport.height);
  };
  await inside(page.getByTestId('list-controls'), 'list-controls');
  await inside(page.getByTestId('control-steps'), 'control-steps');
  for (const id of ['control-phone', 'control-mail', 'exclusion-add', 'lists-open', 'control-households-one', 'control-sample-mode']) {
    await page.getByTestId(id).scrollIntoViewIfNeeded();
    await inside(page.getByTestId(id), id);
    await inside(page.getByTestId('control-steps'), `control-steps with ${id} in view`);
  }
  const section = await page.getByTestId('list-controls').evaluate((e) => e.scrollWidth - e.clientWidth);
  expect(section).toBe(0);
  // The page itself never scrolls: the window holds the whole desk.
  const overflow = await page.locator('html').evaluate((e) => ({ x: e.scrollWidth - e.clientWidth, y: e.scrollHeight - e.clientHeight }));
  expect(overflow).toEqual({ x: 0, y: 0 });
}

describe('list controls in the browser', () => {
  it('applies contact, households and a sample, with the API’s count after each step', async () => {
    const { page } = desk;
    await page.getByTestId('control-phone').check();
    await page.getByTestId('control-households-one').check();
    await page.getByTestId('control-sample-mode').selectOption('every');
    await page.getByTestId('control-sample-every-n').fill('7');

    const matched = await apiTotal();
    const afterContact = await apiTotal(CALLABLE);
    const afterHouseholds = await apiTotal({ ...CALLABLE, households: 'one' });
    const total = await apiTotal({ ...CALLABLE, households: 'one', sample: { every: 7 } });
    expect(afterContact).toBeLessThan(matched);
    expect(total).toBe(Math.ceil(afterHouseholds / 7));
    await expect.poll(countText).toBe(count(total));
    expect(await stepText('matched')).toBe(count(matched));
    expect(await stepText('afterExclusions')).toBe(count(afterContact));
    expect(await stepText('afterHouseholds')).toBe(count(afterHouseholds));
    expect(await stepText('total')).toBe(count(total));
    // The grid pages through exactly those people.
    await expect.poll(() => page.getByTestId('grid-range').innerText()).toContain(`of ${count(total)}`);
    const first = await api(desk, 'preview', { state: STATE, limit: 1, ...CALLABLE, households: 'one', sample: { every: 7 } });
    await expect.poll(() => page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().innerText()).toBe(first.json.results[0].pid);
    await shot(page, 'lc-01-controls');
  });

  it('fits at 1440x900 and at 1024x700, light and dark, its labels whole', async () => {
    const { page } = desk;
    await atEverySize(page, async (where) => {
      await expectControlsInside(page);
      expect(
        await cutLabels(page, '[data-testid="list-controls"] legend, [data-testid="list-controls"] label:not(.sr-only)'),
        where,
      ).toEqual([]);
      expect(await cutSelects(page, '[data-testid="list-controls"] select'), where).toEqual([]);
      await shot(page, `lc-02-controls-${where.replace(/[ ()]+/g, '-').replace(/-$/, '')}`);
    });
  });

  it('imports a suppression list from the inbox, shows what it holds, and leaves its people out', async () => {
    const { page } = desk;
    await page.getByTestId('controls-reset').click();
    await expect.poll(countText).toBe(count(await apiTotal()));
    // Twenty people of the audience by PID, and two rows that are nothing.
    const people = await api(desk, 'preview', { state: STATE, limit: 20, skip: 100 });
    const pids: string[] = people.json.results.map((p: { pid: string }) => p.pid);
    const inbox = join(desk.home, 'imports');
    mkdirSync(inbox, { recursive: true });
    writeFileSync(join(inbox, 'dnc.csv'), ['PID', ...pids.slice(0, 10), 'not a pid', ...pids.slice(10), '???'].join('\n') + '\n');

    await page.getByTestId('lists-open').click();
    await page.getByTestId('lists-dialog').waitFor();
    await page.getByTestId('list-choose').click();
    await expect.poll(() => page.getByTestId('list-inbox').innerText()).toContain(inbox);
    await page.getByTestId('list-file').selectOption({ label: 'dnc.csv' });
    await page.getByTestId('list-name').fill('Do not mail');
    await page.getByTestId('list-import-button').click();
    const item = page.getByTestId('list-Do not mail');
    await item.waitFor();
    expect(await item.getByTestId('list-rows').innerText()).toBe('22 rows');
    expect(await item.getByTestId('list-pids').innerText()).toBe('20 PIDs');
    expect(await item.getByTestId('list-rejected').innerText()).toBe('2 rejected');
    expect(await item.getByTestId('list-matched').innerText()).toContain('20 people');
    await item.locator('summary').click();
    expect(await item.getByTestId('list-rejects').innerText()).toMatch(/line 12: .+\n?line 23: .+/);
    await shot(page, 'lc-03-lists');
    await page.getByTestId('lists-close').click();

    const option = page.locator('[data-testid="exclusion-add"] option', { hasText: 'Do not mail' });
    const ref = (await option.getAttribute('value'))!;
    expect(ref).toMatch(/^list:/);
    await page.getByTestId('exclusion-add').selectOption(ref);
    const matched = await apiTotal();
    await expect.poll(() => stepText('afterExclusions')).toBe(count(matched - 20));
    expect(await apiTotal({ exclude: [ref] })).toBe(matched - 20);
    await expect.poll(countText).toBe(count(matched - 20));
  });

  it('saves an audience with its controls, opens it again, and its JSON body gets the same count from the API', async () => {
    const { page } = desk;
    await page.getByTestId('control-mail').check();
    const ref = (await page.locator('[data-testid="exclusion-add"] option', { hasText: 'Do not mail' }).getAttribute('value'))!;
    const expected = await apiTotal({ contact: { mail: 'deliverable' }, exclude: [ref] });
    await expect.poll(countText).toBe(count(expected));
    await page.getByTestId('tab-saved').click();
    await page.getByTestId('save-name').fill('mailable minus dnc');
    await page.getByTestId('save-button').click();
    await page.getByTestId('saved-mailable minus dnc').waitFor();

    await page.getByTestId('controls-reset').click();
    await expect.poll(countText).toBe(count(await apiTotal()));
    await page.getByTestId('saved-mailable minus dnc').getByTestId('saved-load-button').click();
    await expect.poll(() => page.getByTestId('control-mail').isChecked()).toBe(true);
    expect(await page.getByTestId(`exclusion-${ref}`).innerText()).toContain('Do not mail');
    await expect.poll(countText).toBe(count(expected));

    await page.getByTestId('current-snippet').getByTestId('copy-json').click();
    const body = JSON.parse(await page.getByTestId('current-snippet').getByTestId('snippet-json').innerText());
    expect(body).toMatchObject({ state: STATE, contact: { mail: 'deliverable' }, exclude: [ref] });
    const fromApi = await api(desk, 'preview', body);
    expect(fromApi.json.total).toBe(expected);
  });

  it('exports exactly the people counted, and that export can be left out of the next list', async () => {
    const { page } = desk;
    await page.getByTestId('controls-reset').click();
    await page.getByTestId('control-phone').check();
    await page.getByTestId('control-sample-mode').selectOption('size');
    await page.getByTestId('control-sample-size-n').fill('300');
    await page.getByTestId('control-sample-seed').fill('11');
    const keys = { ...CALLABLE, sample: { size: 300, seed: 11 } };
    await expect.poll(countText).toBe(count(await apiTotal(keys)));

    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-start').click();
    await page.getByTestId('export-job-done').waitFor({ timeout: 30_000 });
    const path = await page.getByTestId('export-path').innerText();
    const lines = readFileSync(path, 'utf8').trim().split(/\r?\n/);
    const header = lines[0]!.split(',');
    const pidColumn = header.indexOf('PID');
    const written = lines.slice(1).map((l) => l.split(',')[pidColumn]!.replace(/"/g, ''));
    const sample = await api(desk, 'preview', { state: STATE, limit: 1000, ...keys });
    // The sample's people, written in the file's order (households by ZIP: docs/dataset-format.md, "Record order").
    const oracle = new SqlOracle(inject('datasetPath'));
    try {
      expect(written).toEqual(oracle.inStorageOrder(sample.json.results.map((p: { pid: string }) => p.pid)));
    } finally {
      oracle.close();
    }

    // The sample's people left out of the callable audience: the rest are the ones not yet written.
    await page.getByTestId('control-sample-mode').selectOption('none');
    const option = page.locator('[data-testid="exclusion-add"] option[value^="export:"]').first();
    await page.getByTestId('exclusion-add').focus();
    await expect.poll(() => option.count()).toBe(1);
    await page.getByTestId('exclusion-add').selectOption((await option.getAttribute('value'))!);
    const callable = await apiTotal(CALLABLE);
    await expect.poll(() => stepText('afterExclusions')).toBe(count(callable - written.length));
    await expect.poll(countText).toBe(count(callable - written.length));
  });

  it('cross-tabs age band by income with the API’s counts, and saves the table as CSV', async () => {
    const { page } = desk;
    await page.getByTestId('controls-reset').click();
    await page.getByTestId('control-phone').check();
    const total = await apiTotal(CALLABLE);
    await expect.poll(countText).toBe(count(total));
    await page.getByTestId('tab-crosstab').click();
    await page.getByTestId('crosstab-rows').selectOption('AGE');
    await page.getByTestId('crosstab-columns').selectOption('EHI');
    const table = page.getByTestId('crosstab-table');
    await table.waitFor();
    await expect.poll(() => page.getByTestId('crosstab-total').innerText()).toBe(`${count(total)} people`);

    const columnLabels = (await table.locator('thead th').allInnerTexts()).slice(1, -1);
    const rows = await table.locator('tbody th').allInnerTexts();
    expect(rows).toContain('25-34');
    // Income bands read as the codebook's meanings, from the lowest band to the highest.
    const columns = await table.locator('thead th[data-code]').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-code')!));
    expect(columns).toEqual([...columns].sort());
    expect(columnLabels).toEqual(columns.map((code) => codeLabel('EHI', code)));
    expect(columnLabels[0]).toMatch(/\$/);
    const cells: number[][] = [];
    for (let r = 0; r < rows.length; r++) {
      const texts = await table.locator('tbody tr').nth(r).locator('td:not(.total)').allInnerTexts();
      cells.push(texts.map((t) => Number(t.replace(/,/g, ''))));
    }
    const outside = (await page.getByTestId('crosstab-outside').count())
      ? Number((await page.getByTestId('crosstab-outside').innerText()).replace(/,/g, '').match(/\d+/)![0])
      : 0;
    expect(cells.flat().reduce((a, b) => a + b, 0) + outside).toBe(total);
    // Two cells checked against the API with both values as filters.
    const r = rows.indexOf('25-34');
    for (const c of [0, columns.length - 1]) {
      const value = columns[c]!;
      expect(cells[r]![c]).toBe(
        await apiTotal({
          ...CALLABLE,
          filters: [
            ['AGE', ['25-34']],
            ['EHI', [value]],
          ],
        }),
      );
    }
    await shot(page, 'lc-04-crosstab');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('crosstab-csv').click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const csvLines = csv.split('\r\n');
    expect(csvLines.at(-1)).toBe('');
    expect(csvLines[0]).toBe(['AGE \\ EHI', ...columnLabels, 'Total'].map(csvField).join(','));
    expect(csvLines.slice(1, -2)).toEqual(rows.map((label, i) => [label, ...cells[i]!, cells[i]!.reduce((a, b) => a + b, 0)].join(',')));
    expect(desk.consoleErrors).toEqual([]);
  });
});
