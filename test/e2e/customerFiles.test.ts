// End to end, in real Chromium against the real browser mode of `serve`: consumer opt-outs imported on
// the Opt-outs screen leave the app's count and the loopback API's answers at once, and come back when
// the import is removed; then the Match dialog matches a messy customer file from the inbox and writes
// it back, the customer's bytes first, where exports go. Every number is compared with the API's own
// answer or the plain-SQL oracle's records, never with a constant.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';
import { buildCustomers, csvCell, HEADER, readPeople, type Person } from '../match/matchData';
import { writeOptOutFile } from '../optouts/optOutData';

let desk: Desk;
let people: Person[];
const STATE = 'CA';

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption(STATE);
  people = readPeople(inject('datasetPath'));
});
afterAll(() => stopDesk(desk));

async function apiTotal(): Promise<number> {
  const r = await api(desk, 'preview', { state: STATE, limit: 0 });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.total as number;
}
const countText = () => desk.page.getByTestId('audience-count').innerText();

describe('customer files in the browser', () => {
  it('imports consumer opt-outs on their screen: the count and the API leave them out at once, and take them back on removal', async () => {
    const { page } = desk;
    const everyone = people.filter((p) => p.STATE === STATE).length;
    expect(await apiTotal()).toBe(everyone);
    await expect.poll(countText, { timeout: 15_000 }).toBe(count(everyone));
    const inbox = join(desk.home, 'imports');
    mkdirSync(inbox, { recursive: true });
    const optedOut = writeOptOutFile(join(inbox, 'delete-requests.csv'), people, STATE);
    const left = people.filter((p) => p.STATE === STATE && !optedOut.has(p.PID)).length;
    expect(left).toBeLessThan(everyone - 20);

    await page.getByTestId('open-optouts').click();
    await page.getByTestId('optouts-dialog').waitFor();
    await page.getByTestId('optouts-choose').click();
    await page.getByTestId('optouts-file').selectOption({ label: 'delete-requests.csv' });
    await page.getByTestId('optouts-import-button').click();
    await page.getByTestId('optouts-imported').waitFor();
    expect(await page.getByTestId('optouts-imported').innerText()).toContain(`${count(optedOut.size)} people`);
    expect(await apiTotal()).toBe(left);
    await expect.poll(countText, { timeout: 15_000 }).toBe(count(left));
    await expect.poll(() => page.getByTestId('optouts-in-force').innerText(), { timeout: 15_000 }).toBe('1 in force');
    await shot(page, 'optouts-01-imported');

    await page.getByTestId('optout-remove').click();
    await page.getByTestId('optout-remove-confirm').click();
    await expect.poll(() => page.getByTestId('optouts-in-force').innerText(), { timeout: 15_000 }).toBe('0 in force');
    await page.getByTestId('optout-removed').waitFor();
    expect(await apiTotal()).toBe(everyone);
    await expect.poll(countText, { timeout: 15_000 }).toBe(count(everyone));
    await page.getByTestId('optouts-close').click();
  });

  it('matches a customer file from the inbox in the Match dialog and writes it back where exports go', async () => {
    const { page } = desk;
    const specs = buildCustomers(people);
    const lines = [HEADER.join(','), ...specs.map((s) => s.cells.map(csvCell).join(','))];
    writeFileSync(join(desk.home, 'imports', 'customers.csv'), lines.join('\n') + '\n');

    await page.getByTestId('open-match').click();
    await page.getByTestId('match-dialog').waitFor();
    await page.getByTestId('match-choose').click();
    await page.getByTestId('match-file').selectOption({ label: 'customers.csv' });
    await page.getByTestId('match-fields').fill('GENDER,CITY');
    await page.getByTestId('match-run').click();
    const expected = specs.filter((s) => s.expect !== null);
    await page.getByTestId('match-result').waitFor();
    expect(await page.getByTestId('match-matched').innerText()).toBe(count(expected.length));
    expect(await page.getByTestId('match-rows').innerText()).toBe(count(specs.length));
    const path = await page.getByTestId('match-path').innerText();
    expect(path.startsWith(join(desk.home, 'exports'))).toBe(true);
    const written = readFileSync(path, 'utf8').split('\n');
    const byPid = new Map(people.map((p) => [p.PID, p]));
    specs.forEach((s, i) => {
      const p = s.expect ? byPid.get(s.expect.pid)! : null;
      const appended = p ? `${s.expect!.method},${p.GENDER},${csvCell(p.CITY)}` : ',,';
      expect(written[i + 1], `row ${i + 1}`).toBe(`${lines[i + 1]},${appended}`);
    });
    await shot(page, 'match-01-done');
  });
});
