// End to end, in real Chromium against the real browser mode of `serve`: files reach the inbox by
// upload. A suppression list chosen with the file input is uploaded, chosen and imported, and its
// people are left out by the count; a vendor file dropped on the import screen joins that import alone
// (the other inbox files stay out), its header mapped; a second upload of one name is kept beside the
// first, never over it. Each of those screens (the suppression lists with their upload, the import
// screen with dropped files, a header mapped, the confirmation and the summary) lies inside a
// 1024x700 and a 1440x900 window in both colour schemes, its labels whole, with no serious or
// critical axe-core violation.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CSV_HEADER } from '../../src/core/dataset/codec/recordFormat';
import { recordToCsvLine } from '../support/recordReference';
import { readRecords } from '../import/helpers';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';
import { atEverySize, cutLabels, cutSelects, overflows, pageOverflow } from './support/layout';

let desk: Desk;
let inbox: string;

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  inbox = join(desk.home, 'imports');
  mkdirSync(inbox, { recursive: true });
  // Already in the inbox: it must not join an import by being there.
  writeFileSync(join(inbox, 'old-vendor.csv'), 'PID,STATE,GENDER\nA0000000000000000000000000000001,CA,F\n');
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption('WY');
});
afterAll(() => stopDesk(desk));

const countText = () => desk.page.getByTestId('audience-count').innerText();

/** The words of a dialog that must be whole: headings, labels, file names, badges, table heads. */
const labelsOf = (dialog: string): string =>
  ['h2', 'h3', 'label', 'strong', 'summary', 'th', 'legend', '.badge', 'button']
    .map((tag) => `[data-testid="${dialog}-dialog"] ${tag}`)
    .join(', ');

/**
 * The dialog as it stands, at 1024x700 and 1440x900 in the light and the dark scheme: the sheet
 * inside the window, its parts (`parts`, which may scroll up and down inside the sheet) no wider than
 * it, labels and chosen menu options whole, the page not scrolling, no serious axe violation.
 */
async function fitsEverywhere(page: Page, dialog: string, parts: string[], name: string): Promise<void> {
  await atEverySize(page, async (size) => {
    const where = `${name} at ${size}`;
    expect(await overflows(page, [`[data-testid="${dialog}-dialog"]`]), where).toEqual([]);
    expect(await overflows(page, parts, true), where).toEqual([]);
    expect(await cutLabels(page, labelsOf(dialog)), where).toEqual([]);
    expect(await cutSelects(page, `[data-testid="${dialog}-dialog"] select`), where).toEqual([]);
    expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
    expect(await axeViolations(page), where).toEqual([]);
    await shot(page, `${name}-${size.replace(/[ ()]+/g, '-').replace(/-$/, '')}`);
  });
}

/** Long enough to need a second line in the dialog at 1024 wide: it must wrap, not be cut. */
const LIST_NAME = 'Uploaded DNC: the do-not-call requests of the spring and the summer mailing campaigns of this year';
const IMPORT_PARTS = ['[data-testid="import-files"]', '[data-testid="import-upload"]', '[data-testid^="import-file-"]'];

describe('uploads in browser mode', () => {
  it('uploads a suppression list with the file input, imports it, and leaves its people out', async () => {
    const { page } = desk;
    const people = await api(desk, 'preview', { state: 'WY', limit: 15 });
    const pids: string[] = people.json.results.map((p: { pid: string }) => p.pid);
    await page.getByTestId('lists-open').click();
    await page.getByTestId('lists-dialog').waitFor();
    await page.getByTestId('list-upload-input').setInputFiles({
      name: '../../secret/.do not call.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['PID', ...pids].join('\n') + '\n'),
    });
    // The page keeps only a tame name of the file's own, in the inbox; then it is the file chosen.
    await expect.poll(async () => (await page.getByTestId('list-file').inputValue()).split('/').pop()).toBe('do not call.csv');
    expect(readFileSync(join(inbox, 'do not call.csv'), 'utf8').split('\n')[1]).toBe(pids[0]);
    await page.getByTestId('list-name').fill(LIST_NAME);
    await page.getByTestId('list-import-button').click();
    const item = page.getByTestId(`list-${LIST_NAME}`);
    await item.waitFor();
    expect(await item.getByTestId('list-pids').innerText()).toBe('15 PIDs');
    await shot(page, 'up-01-list-uploaded');
    await fitsEverywhere(
      page,
      'lists',
      ['[data-testid="list-import"]', '[data-testid="list-upload"]', '[data-testid="lists"]'],
      'up-lists',
    );
    await page.getByTestId('lists-close').click();

    const option = page.locator('[data-testid="exclusion-add"] option', { hasText: LIST_NAME });
    await page.getByTestId('exclusion-add').selectOption((await option.getAttribute('value'))!);
    const everyone = (await api(desk, 'preview', { state: 'WY', limit: 0 })).json.total as number;
    await expect.poll(countText).toBe(count(everyone - 15));
    await page.getByTestId('controls-reset').click();
  });

  it('a vendor file dropped on the import screen joins the import alone; the same name again is kept beside it', async () => {
    const { page } = desk;
    const records = readRecords(inject('datasetPath')).slice(0, 50);
    const csv = [CSV_HEADER, ...records.map(recordToCsvLine)].join('\r\n') + '\r\n';
    await page.getByTestId('open-import').click();
    await page.getByTestId('import-dialog').waitFor();
    const drop = async (name: string, content: string): Promise<void> => {
      const transfer = await page.evaluateHandle(
        ([n, c]) => {
          // In the page: the browser's own DataTransfer, as a real drop carries.
          const Transfer = (globalThis as unknown as { DataTransfer: new () => { items: { add(file: File): void } } }).DataTransfer;
          const dt = new Transfer();
          dt.items.add(new File([c], n, { type: 'text/csv' }));
          return dt;
        },
        [name, content] as const,
      );
      await page.getByTestId('import-upload').dispatchEvent('drop', { dataTransfer: transfer });
    };
    await drop('vendor.csv', csv);
    const dropped = page.getByTestId('import-file-vendor.csv');
    await dropped.waitFor();
    expect(await dropped.getByTestId('import-file-summary').innerText()).toMatch(/^392 of 392 columns map onto record fields/);
    // Only the uploaded file joined; the one already in the inbox did not.
    expect(await page.getByTestId('import-file-old-vendor.csv').count()).toBe(0);
    await drop('vendor.csv', csv.replace(/\r\n[^\r\n]+\r\n$/, '\r\n'));
    await page.getByTestId('import-file-vendor (2).csv').waitFor();
    expect(
      readdirSync(inbox)
        .filter((n) => n.startsWith('vendor'))
        .sort(),
    ).toEqual(['vendor (2).csv', 'vendor.csv']);
    expect(readFileSync(join(inbox, 'vendor.csv'), 'utf8')).toBe(csv);
    // The second file is still being checked when its row appears: the start waits for it.
    await expect.poll(() => page.getByTestId('import-start').isDisabled()).toBe(false);
    await shot(page, 'up-02-import-dropped');
    await fitsEverywhere(page, 'import', IMPORT_PARTS, 'up-import-dropped');
  });

  it('a vendor header the import does not know is mapped onto a record field, and the file can then be imported', async () => {
    const { page } = desk;
    const input = page.getByTestId('import-upload-input');
    await input.setInputFiles({
      name: 'renamed.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('Person Key,State,Sex,Given Name\nB0000000000000000000000000000001,WY,F,Ann\n'),
    });
    const file = page.getByTestId('import-file-renamed.csv');
    await file.waitFor();
    expect(await file.getByTestId('import-file-error').innerText()).toMatch(/no PID, GENDER columns/);
    expect(await page.getByTestId('import-start').isDisabled()).toBe(true);
    for (const [header, field] of [
      ['Person Key', 'PID'],
      ['Sex', 'GENDER'],
      ['Given Name', 'FNAME'],
    ] as const)
      await file.getByTestId(`import-column-${header}`).getByTestId('import-column-field').selectOption(field);
    // Each choice inspects the file again; the plan of the last choice is the one shown.
    await expect.poll(() => file.getByTestId('import-file-summary').innerText()).toMatch(/^4 of 4 columns map onto record fields/);
    expect(await file.getByTestId('import-file-error').count()).toBe(0);
    expect(await page.getByTestId('import-start').isDisabled()).toBe(false);
    await shot(page, 'up-03-import-mapped');
    await fitsEverywhere(page, 'import', [...IMPORT_PARTS, '[data-testid="import-mapping"]'], 'up-import-mapped');
    // The import uses the mapping: the 50 people of vendor.csv (vendor (2).csv holds 49 of them again)
    // and Ann, whose file has no column named PID; then the dataset in use is kept.
    await page.getByTestId('import-start').click();
    await page.getByTestId('import-confirm').waitFor({ timeout: 60_000 });
    expect((await page.getByTestId('confirm-new-records').innerText()).trim()).toBe('51');
    const started = desk.rpcCalls.filter((c) => c.op === 'import/start').at(-1)!;
    expect(started.input.columns).toEqual({ 'Person Key': 'PID', Sex: 'GENDER', 'Given Name': 'FNAME' });
    await fitsEverywhere(page, 'import', ['[data-testid="import-confirm"]'], 'up-import-confirm');
    await page.getByTestId('import-keep-current').click();
    await page.getByTestId('import-summary').waitFor({ timeout: 60_000 });
    await fitsEverywhere(page, 'import', ['[data-testid="import-summary"]'], 'up-import-summary');
    expect(desk.consoleErrors).toEqual([]);
  });
});
