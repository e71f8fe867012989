// End to end, in real Chromium against the real browser mode of `serve`: vendor files put in the
// inbox are chosen on the import screen, a file that cannot be imported says why and is removed,
// the header mapping shows what is ignored, the import runs with progress, then asks (the dataset in
// use beside the new one) before anything switches, and its summary accounts for every row; the
// desk, the API and its keys then answer from the new dataset, saved audiences are still there and
// say they were saved on another dataset, and the Datasets panel switches back to the previous one
// and forward again (its list inside a 1024x700 and a 1440x900 window in both schemes, names whole, no
// serious axe violation). A second, large import is cancelled and changes nothing.
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CSV_HEADER, type RecordValues } from '../../src/core/dataset/codec/recordFormat';
import { recordToCsvLine } from '../support/recordReference';
import { FIELDS, fieldIndex } from '../../src/shared/fields';
import { fixture, readRecords, readRejects } from '../import/helpers';
import { axeViolations } from './support/axe';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';
import { atEverySize, cutLabels, overflows, pageOverflow } from './support/layout';

let desk: Desk;
let inbox: string;
let source: RecordValues[];
const PID = fieldIndex('PID');
const STATE = fieldIndex('STATE');
const FNAME = fieldIndex('FNAME');
const GENDER = fieldIndex('GENDER');

/** The first `n` records of the test dataset in their stored (STATE, PID) order, as vendor CSV. */
const csvOf = (records: RecordValues[], extra: string[] = []): string =>
  [CSV_HEADER, ...records.map(recordToCsvLine), ...extra].join('\r\n') + '\r\n';

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  inbox = join(desk.home, 'imports');
  mkdirSync(inbox, { recursive: true });
  source = readRecords(inject('datasetPath'));
  const kept = source.slice(0, 2000);
  // Three bad rows (new PIDs, one fault each), and the first record again with another first name:
  // the later row replaces the earlier one.
  const changed = (from: RecordValues, change: Record<number, string>): RecordValues => Object.assign([...from], change);
  const bad = [
    changed(kept[1]!, { [PID]: 'NOT-A-PID' }),
    changed(kept[2]!, { [PID]: 'EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE1', [STATE]: 'ZZ' }),
    changed(kept[3]!, { [PID]: 'EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE2', [GENDER]: 'X' }),
  ];
  const again = changed(kept[0]!, { [FNAME]: 'REPLACED' });
  writeFileSync(join(inbox, 'vendor-main.csv'), csvOf(kept, [...bad, again].map(recordToCsvLine)));
  copyFileSync(fixture('missing-and-extra.csv'), join(inbox, 'vendor-extra.csv'));
  writeFileSync(join(inbox, 'wrong-file.csv'), 'PID,STATE\nA0000000000000000000000000000001,CA\n');
  await desk.page.getByTestId('dataset-info').waitFor();
});
afterAll(() => stopDesk(desk));

const text = async (testId: string): Promise<string> => (await desk.page.getByTestId(testId).innerText()).trim();

describe('the import screen', () => {
  it('chooses the inbox files, explains a file it cannot read, and shows each header mapping', async () => {
    const { page } = desk;
    await page.getByTestId('tab-saved').click();
    await page.getByTestId('save-name').fill('kept through imports');
    await page.getByTestId('save-button').click();
    await page.getByTestId('saved-kept through imports').waitFor();
    await page.getByTestId('open-import').click();
    await page.getByTestId('import-dialog').waitFor();
    await page.getByTestId('import-choose').click();
    await page.getByTestId('import-file-wrong-file.csv').waitFor();
    expect(await text('import-inbox')).toContain(inbox);
    expect(await page.getByTestId('import-file-wrong-file.csv').getByTestId('import-file-error').innerText()).toMatch(/no GENDER column/);
    expect(await page.getByTestId('import-start').isDisabled()).toBe(true);

    await page.getByTestId('import-file-wrong-file.csv').getByTestId('import-remove').click();
    await expect.poll(() => page.getByTestId('import-file-wrong-file.csv').count()).toBe(0);
    await expect.poll(() => page.getByTestId('import-start').isDisabled()).toBe(false);
    const extra = page.getByTestId('import-file-vendor-extra.csv');
    expect(await extra.getByTestId('import-file-ignored').innerText()).toContain('VENDOR_ID, notes');
    expect(await extra.getByTestId('import-file-summary').innerText()).toMatch(
      `4 of 6 columns map onto record fields; ${count(FIELDS.length - 4)} fields`,
    );
    await extra.getByTestId('import-mapping').locator('summary').click();
    // Each column and its field; a column the import does not know offers a field or "skip".
    const mappingRows = () =>
      extra
        .getByTestId('import-mapping')
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => {
            const cells = [...row.querySelectorAll('td')];
            const select = cells[2]!.querySelector('select');
            const field = select ? select.options[select.selectedIndex]!.text : cells[2]!.textContent!.trim();
            return [cells[0]!.textContent!.trim(), cells[1]!.textContent!.trim(), field].join('\t');
          }),
        );
    expect(await mappingRows()).toEqual([
      '1\tPID\tPID',
      '2\tSTATE\tSTATE',
      '3\tGENDER\tGENDER',
      '4\tVENDOR_ID\tignored (skip this column)',
      '5\tMS_BOOKS\tMS_BOOKS',
      '6\tnotes\tignored (skip this column)',
    ]);
    // The vendor's id goes into INTERNAL7: the file now fills 5 of its 6 columns, and the import uses it.
    await extra.getByTestId('import-column-VENDOR_ID').getByTestId('import-column-field').selectOption('INTERNAL7');
    await expect.poll(() => extra.getByTestId('import-file-summary').innerText()).toMatch(/^5 of 6 columns map onto record fields/);
    expect((await mappingRows())[3]).toMatch(/^4\tVENDOR_ID\tINTERNAL7/);
    expect(await page.getByTestId('import-file-vendor-main.csv').getByTestId('import-file-summary').innerText()).toMatch(
      `${FIELDS.length} of ${FIELDS.length} columns`,
    );
    await shot(page, '10-import-files');
  });

  it('imports, accounts for every row, and moves the desk and the API onto the new dataset', async () => {
    const { page } = desk;
    const keyWorked = await api(desk, 'preview', { state: 'CA', limit: 0 });
    expect(keyWorked.status).toBe(200);
    await page.getByTestId('import-start').click();
    // It asks first: nothing has switched yet, and the screen says what would change.
    await page.getByTestId('import-confirm').waitFor({ timeout: 60_000 });
    const records = inject('testRows');
    expect(await text('confirm-current-records')).toBe(count(records));
    expect(await text('confirm-new-records')).toBe('2,002');
    expect(await text('confirm-rejected')).toBe('2,006 / 3');
    expect(await text('confirm-shrinks')).toContain(`${count(records - 2002)} fewer people`);
    await shot(page, '12-import-confirm');
    expect((await api(desk, 'preview', { state: 'CA', limit: 0 })).json.total).toBe(keyWorked.json.total);
    expect(await text('dataset-info')).toContain(`${count(records)} people`);
    await page.getByTestId('import-switch').click();
    await page.getByTestId('import-summary').waitFor({ timeout: 60_000 });
    await shot(page, '12-import-summary');
    // 2,004 rows in the main file (2,000 + 3 bad + 1 repeat) and 2 in the other.
    expect(await text('import-read')).toBe('2,006');
    expect(await text('import-imported')).toBe('2,003');
    expect(await text('import-rejected')).toBe('3');
    expect(await text('import-replaced')).toBe('1');
    expect(await text('import-records')).toBe('2,002');
    const rejectsPath = await text('import-rejects-path');
    expect(readRejects(rejectsPath).map((r) => [r.file.split('/').pop(), r.field])).toEqual([
      ['vendor-main.csv', 'PID'],
      ['vendor-main.csv', 'STATE'],
      ['vendor-main.csv', 'GENDER'],
    ]);
    const dataset = await text('import-dataset-path');
    expect(dataset.startsWith(join(desk.home, 'datasets'))).toBe(true);
    expect(await page.getByTestId('import-show-rejects').count()).toBe(0); // browser mode: no file manager

    await page.getByTestId('import-done').click();
    await expect.poll(() => page.getByTestId('import-dialog').count()).toBe(0);
    await expect.poll(() => text('dataset-info')).toContain('2,002 people');
    expect(await text('dataset-info')).toContain(dataset);

    // The same key, and the API answers from the new dataset: the people of the file, value for value.
    const state = String(source[0]![STATE]);
    const inFile = source.slice(0, 2000).filter((r) => r[STATE] === state);
    const searched = await api(desk, 'search', { state, limit: 100 });
    expect(searched.status).toBe(200);
    // vendor-extra.csv holds one person in DC and one in AK.
    expect(searched.json.total).toBe(inFile.length + (['DC', 'AK'].includes(state) ? 1 : 0));
    const first = searched.json.results.find((r: Record<string, unknown>) => r.PID === source[0]![PID]);
    expect(first.FNAME).toBe('REPLACED');
    // The column mapped on the import screen filled its field (upper-cased as every string field is).
    const mapped = await api(desk, 'search', { state: 'DC', filters: [['PID', ['D0000000000000000000000000000001']]] });
    expect(mapped.json.results[0].INTERNAL7).toBe('V-1');
    const other = searched.json.results.find((r: Record<string, unknown>) => r.PID === inFile[1]![PID]);
    expect(other).toEqual(Object.fromEntries(FIELDS.map((f, i) => [f.name, inFile[1]![i]])));
    await expect
      .poll(() => text('audience-count'))
      .toBe(count((await api(desk, 'preview', { state: await page.getByTestId('state-select').inputValue(), limit: 0 })).json.total));

    await page.getByTestId('tab-saved').click();
    await expect.poll(() => page.getByTestId('saved-list').innerText()).toContain('kept through imports');
    // Saved on the dataset before: its count now comes from another, and it says so.
    await expect.poll(() => page.getByTestId('saved-other-dataset').innerText()).toContain(`(${count(inject('testRows'))} people)`);
    await page.getByTestId('tab-export').click();
    await expect.poll(() => page.getByTestId('export-history').innerText()).toContain('import · 2,002 records');
  });

  it('the Datasets panel lists both datasets and switches back to the previous one, and forward again', async () => {
    const { page } = desk;
    const records = inject('testRows');
    await page.getByTestId('open-datasets').click();
    await page.getByTestId('datasets-dialog').waitFor();
    const rows = page.getByTestId('datasets-list').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toContain('2,002');
    expect(await rows.nth(0).getByTestId('dataset-active').count()).toBe(1);
    expect(await rows.nth(0).innerText()).toMatch(/vendor-(main|extra)\.csv, vendor-(main|extra)\.csv/);
    expect(await rows.nth(1).innerText()).toContain(count(records));
    await shot(page, '13-datasets');
    // Both datasets whole (names never cut), the dialog inside the window, the "In use" row readable:
    // at both sizes, in both schemes.
    await atEverySize(page, async (where) => {
      expect(await overflows(page, ['[data-testid="datasets-dialog"]']), where).toEqual([]);
      expect(await overflows(page, ['[data-testid="datasets-list"]'], true), where).toEqual([]);
      expect(
        await cutLabels(page, '[data-testid="dataset-name"], [data-testid="datasets-dialog"] th, [data-testid="datasets-dialog"] button'),
        where,
      ).toEqual([]);
      expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
      expect(await axeViolations(page), where).toEqual([]);
    });
    await rows.nth(1).getByTestId('dataset-switch').click();
    await expect.poll(() => text('dataset-info')).toContain(`${count(records)} people`);
    expect((await api(desk, 'preview', { state: 'CA', limit: 0 })).json.total).toBeGreaterThan(2002);
    await expect.poll(() => page.getByTestId('datasets-list').locator('tbody tr').nth(0).innerText()).toContain(count(records));
    await page.getByTestId('datasets-list').locator('tbody tr').nth(1).getByTestId('dataset-switch').click();
    await expect.poll(() => text('dataset-info')).toContain('2,002 people');

    // A backup of app state, then a restore of it (asked twice): the saved audience is still there.
    await page.getByTestId('backup-create').click();
    await expect.poll(() => text('backup-made')).toMatch(/^Saved audience-desk-backup-\d{8}-\d{6}\.sqlite/);
    const backup = page.getByTestId('backups-list').locator('li').first();
    await backup.getByTestId('backup-restore').click();
    await backup.getByTestId('backup-restore-confirm').click();
    await expect.poll(() => text('backup-restored')).toMatch(/^Restored: \d+ keys, 1 saved audiences/);
    await shot(page, '14-datasets-backup');
    expect((await api(desk, 'preview', { state: 'CA', limit: 0 })).status).toBe(200); // the desk's key survived its own restore
    await page.getByTestId('datasets-close').click();
  });

  it('cancels a large import, and the desk keeps its dataset', async () => {
    const { page } = desk;
    const big = csvOf([...source].reverse()); // not in (STATE, PID) order: every row is staged, then sorted
    writeFileSync(join(inbox, 'vendor-big.csv.gz'), gzipSync(big));
    writeFileSync(join(inbox, 'vendor-big-2.csv'), big);
    const before = await text('dataset-info');
    await page.getByTestId('open-import').click();
    // "Done" closed the last import's summary: the screen starts empty.
    expect(await page.getByTestId('import-file-vendor-main.csv').count()).toBe(0);
    await page.getByTestId('import-choose').click();
    for (const name of ['vendor-extra.csv', 'vendor-main.csv', 'wrong-file.csv'])
      await page.getByTestId(`import-file-${name}`).getByTestId('import-remove').click();
    await expect.poll(() => page.getByTestId('import-start').innerText()).toBe('Import 2 files');
    await page.getByTestId('import-start').click();
    await page.getByTestId('import-job-running').waitFor();
    await expect.poll(() => text('import-rows'), { timeout: 30_000 }).not.toMatch(/^0 rows/);
    await shot(page, '11-import-progress');
    expect(await text('import-speed')).toMatch(/^[\d,]+ rows\/s$/);
    await page.getByTestId('import-cancel').click();
    await page.getByTestId('import-cancelled').waitFor({ timeout: 30_000 });
    expect(await text('dataset-info')).toBe(before);
    // The files stay chosen, ready to try again.
    expect(await page.getByTestId('import-start').isDisabled()).toBe(false);
    expect(existsSync(join(inbox, 'vendor-big.csv.gz'))).toBe(true);
  });
});
