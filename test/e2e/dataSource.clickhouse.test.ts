// End to end, in real Chromium against the real browser mode of `serve` and a real local ClickHouse
// (a 4,000-record dataset loaded by the loader user): the Data source screen tests a connection with
// a wrong password (a clear error), then the read-only user (records, read-only), switches the desk to
// ClickHouse (the count equals the embedded engine's for the same audience), keeps it over a reload,
// switches back to the bundled dataset, then to the dataset file. No password reaches the page, the bridge's answers,
// serve's output or app state; browser mode keeps it in an owner-only file. Fallback nodes (issue 38): a bad one is
// refused by name and nothing changes; with the entry node silent, Test connection names the fallback node that
// answered, Use keeps the nodes, and the screen shows them again after a reload.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { generateDataset } from '../../src/core/generate';
import { CREDENTIALS_FILE } from '../../src/core/dataSource/fileSecretStore';
import { BUNDLED_FILE_NAME } from '../../src/core/appState/homeLayout';
import { LOADER, READER } from '../clickhouse/support/localServers';
import { describeClickHouse, useLocalClickHouse } from '../clickhouse/support/localClickHouse';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';

const DATABASE = 'e2e_datasource';
const WRONG = 'Wrong-Secret-e2e-4c7b';
const STATE = 'CA';
/** A few thousand records: enough for a real count, quick to load. */
const ROWS = 4000;

/** A loopback port nothing listens on (bound, then closed): an entry node that does not answer. */
async function closedPort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

describeClickHouse('Data source screen (Chromium, browser mode, local ClickHouse)', () => {
  const clickhouse = useLocalClickHouse(DATABASE);
  let desk: Desk;
  /** Every rpc answer's body and every console line of the page. */
  const answers: Array<{ op: string; body: string }> = [];
  const consoleLines: string[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audience-desk-e2e-datasource-'));
    const datasetPath = join(dir, 'field-office.sqlite');
    generateDataset({ rows: ROWS, seed: 15, out: datasetPath });
    await loadIntoClickHouse({ datasetPath, target: clickhouse().singleLoad });
    desk = await startDesk(datasetPath);
    desk.page.on('console', (m) => consoleLines.push(m.text()));
    desk.page.on('response', async (r) => {
      const m = /\/ui\/rpc\/(.+)$/.exec(new URL(r.url()).pathname);
      if (m) answers.push({ op: m[1]!, body: await r.text().catch(() => '') });
    });
  });
  afterAll(async () => {
    await stopDesk(desk);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Use and Test connection go to a ClickHouse server (Use waits up to 5 s for its /ping by design): on
  // a busy CI machine that takes longer than expect.poll's 1 s default.
  const SERVER_ROUND_TRIP = { timeout: 30_000 };
  const countText = () => desk.page.getByTestId('audience-count').innerText();
  const secrets = [READER.password, LOADER.password, WRONG];

  async function fillForm(password: string): Promise<void> {
    const { page } = desk;
    await page.getByTestId('ch-url').fill(clickhouse().servers.single.url);
    await page.getByTestId('ch-database').fill(DATABASE);
    await page.getByTestId('ch-user').fill(READER.username);
    await page.getByTestId('ch-password').fill(password);
  }

  /** Nothing the page shows or holds in its markup, and no answer of the bridge, names a password. */
  async function noPasswordInPage(): Promise<void> {
    const html = await desk.page.content();
    const text = await desk.page.locator('body').innerText();
    for (const secret of secrets) {
      expect(html).not.toContain(secret);
      expect(text).not.toContain(secret);
      for (const a of answers) expect(a.body, a.op).not.toContain(secret);
    }
  }

  it('tests a connection: a wrong password is a clear error, the read-only user finds the loaded records', async () => {
    const { page } = desk;
    await page.getByTestId('dataset-info').waitFor();
    await page.getByTestId('state-select').selectOption(STATE);
    await page.getByTestId('open-datasource').click();
    await page.getByTestId('datasource-dialog').waitFor();
    await expect.poll(() => page.getByTestId('datasource-current').innerText(), SERVER_ROUND_TRIP).toMatch(/In use now: a dataset file/);

    await fillForm(WRONG);
    await page.getByTestId('ch-test').click();
    await expect.poll(() => page.getByTestId('ch-check-error').innerText(), SERVER_ROUND_TRIP).toMatch(/refused the user or password/);
    expect(await page.getByTestId('ch-check-reachable').innerText()).toMatch(/^✓ http:\/\/127\.0\.0\.1:\d+ answers$/);
    expect(await page.getByTestId('ch-check-signin').innerText()).toMatch(/✗ user and password accepted/);
    await shot(page, 'datasource-01-wrong-password');
    await noPasswordInPage();

    await page.getByTestId('ch-password').fill(READER.password);
    await page.getByTestId('ch-test').click();
    await page.getByTestId('ch-check-ok').waitFor();
    expect(await page.getByTestId('ch-check-reachable').innerText()).toMatch(/answers \(ClickHouse 18\.\d+/);
    expect(await page.getByTestId('ch-check-table').innerText()).toContain(`${count(ROWS)} records from field-office.sqlite`);
    expect(await page.getByTestId('ch-check-readonly').innerText()).toContain('read-only user');
    expect(await page.getByTestId('ch-check-warning').count()).toBe(0);
    await shot(page, 'datasource-02-reader');
    await noPasswordInPage();
  });

  it('switches the desk to ClickHouse: the count is the embedded engine’s; a reload keeps it; back to bundled', async () => {
    const { page } = desk;
    // The embedded engine's answer for the audience on screen, before the switch.
    const embedded = await api(desk, 'preview', { state: STATE, limit: 0 });
    expect(embedded.status).toBe(200);
    await expect.poll(countText, SERVER_ROUND_TRIP).toBe(count(embedded.json.total));

    const countsBefore = desk.rpcCalls.filter((c) => c.op === 'audience/count').length;
    const answeredBefore = answers.filter((a) => a.op === 'audience/count').length;
    await page.getByTestId('ch-use').click();
    await expect.poll(() => page.getByTestId('datasource-done').innerText(), SERVER_ROUND_TRIP).toMatch(/ClickHouse answers now/);
    expect(await page.getByTestId('datasource-current').innerText()).toMatch(/In use now: a ClickHouse server/);
    // The password field is emptied; what the bridge answers says only that a password is stored.
    expect(await page.getByTestId('ch-password').inputValue()).toBe('');
    await page.getByTestId('ch-password-stored').waitFor();
    const used = JSON.parse(answers.filter((a) => a.op === 'datasource/use').at(-1)!.body) as { ok: boolean; value: any };
    expect(used).toMatchObject({ ok: true, value: { current: 'clickhouse', clickhouse: { user: READER.username, hasPassword: true } } });
    expect(Object.keys(used.value.clickhouse).sort()).toEqual(['database', 'fallbackUrls', 'hasPassword', 'url', 'user']);
    expect(used.value.clickhouse.fallbackUrls).toEqual([]);
    await page.getByTestId('datasource-close').click();

    // The count bar answered again, from ClickHouse, with the embedded engine's number.
    await expect
      .poll(() => page.getByTestId('dataset-info').innerText(), SERVER_ROUND_TRIP)
      .toContain(`clickhouse ${clickhouse().servers.single.url}/${DATABASE}`);
    await expect.poll(() => desk.rpcCalls.filter((c) => c.op === 'audience/count').length, SERVER_ROUND_TRIP).toBeGreaterThan(countsBefore);
    // The number on screen is the embedded engine's already: what proves ClickHouse's answer is the
    // count's own answer (ok, the same total), and the bar no longer busy nor showing an error.
    const countAnswers = () => answers.filter((a) => a.op === 'audience/count');
    await expect
      .poll(
        () =>
          countAnswers().length > answeredBefore && (JSON.parse(countAnswers().at(-1)!.body) as { ok: boolean; value?: { total: number } }),
        SERVER_ROUND_TRIP,
      )
      .toMatchObject({ ok: true, value: { total: embedded.json.total } });
    await page.locator('[data-testid="audience-count"][aria-busy="false"]').waitFor(SERVER_ROUND_TRIP);
    expect(await page.getByTestId('count-error').count()).toBe(0);
    await expect.poll(countText, SERVER_ROUND_TRIP).toBe(count(embedded.json.total));
    // The loopback API answers from ClickHouse too, the same total.
    expect((await api(desk, 'preview', { state: STATE, limit: 0 })).json.total).toBe(embedded.json.total);
    await page.getByTestId('preview-grid').locator('.ag-row').first().waitFor();
    await shot(page, 'datasource-03-clickhouse');

    await page.reload();
    await page.getByTestId('dataset-info').waitFor();
    expect(await page.getByTestId('dataset-info').innerText()).toContain('clickhouse');
    await expect.poll(countText, SERVER_ROUND_TRIP).toBe(count(embedded.json.total));
    await page.getByTestId('open-datasource').click();
    await expect
      .poll(() => page.getByTestId('datasource-current').innerText(), SERVER_ROUND_TRIP)
      .toMatch(/In use now: a ClickHouse server/);
    expect(await page.getByTestId('ch-user').inputValue()).toBe(READER.username);
    expect(await page.getByTestId('ch-password').inputValue()).toBe('');
    expect(await page.getByTestId('ch-password').getAttribute('placeholder')).toMatch(/stored/);
    // Test connection with the field left empty uses the stored password (it never came back to the page).
    await page.getByTestId('ch-test').click();
    await page.getByTestId('ch-check-ok').waitFor();

    await page.getByTestId('datasource-use-bundled').click();
    await expect.poll(() => page.getByTestId('datasource-done').innerText(), SERVER_ROUND_TRIP).toMatch(/bundled dataset answers now/);
    await page.getByTestId('datasource-bundled-active').waitFor();
    await page.getByTestId('datasource-close').click();
    await expect.poll(() => page.getByTestId('dataset-info').innerText(), SERVER_ROUND_TRIP).toContain(BUNDLED_FILE_NAME);
    const bundled = await api(desk, 'preview', { state: STATE, limit: 0 });
    await expect.poll(countText, SERVER_ROUND_TRIP).toBe(count(bundled.json.total));

    // A dataset file the app knows, through the Datasets history's own switch.
    await page.getByTestId('open-datasource').click();
    await page.getByTestId('datasource-file-field-office').getByTestId('datasource-file-use').click();
    await expect.poll(() => page.getByTestId('datasource-done').innerText(), SERVER_ROUND_TRIP).toMatch(/dataset file answers now/);
    expect(await page.getByTestId('datasource-current').innerText()).toMatch(/In use now: a dataset file — field-office/);
    expect(desk.rpcCalls.filter((c) => c.op === 'datasets/switch')).toHaveLength(1);
    await page.getByTestId('datasource-close').click();
    await expect.poll(() => page.getByTestId('dataset-info').innerText(), SERVER_ROUND_TRIP).toContain('field-office.sqlite');
    await expect.poll(countText, SERVER_ROUND_TRIP).toBe(count(embedded.json.total));
    await noPasswordInPage();
  });

  it('kept the password only in the owner-only credentials file: not in app state, any log or the console', () => {
    const file = join(desk.home, CREDENTIALS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // With the address it was typed for: it is sent to no other (src/core/dataSource/passwordBinding.ts).
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      user: READER.username,
      password: READER.password,
      url: clickhouse().servers.single.url,
    });
    for (const name of readdirSync(desk.home).filter((n) => n.startsWith('app-state'))) {
      const bytes = readFileSync(join(desk.home, name));
      for (const secret of secrets) expect(bytes.includes(Buffer.from(secret)), name).toBe(false);
    }
    for (const secret of secrets) {
      expect(desk.serveOutput.join('\n')).not.toContain(secret);
      expect(consoleLines.join('\n')).not.toContain(secret);
      // The page never sent the wrong password anywhere but to Test connection.
      for (const call of desk.rpcCalls.filter((c) => JSON.stringify(c.input).includes(secret)))
        expect(['datasource/check', 'datasource/use']).toContain(call.op);
    }
    expect(desk.consoleErrors).toEqual([]);
  });

  // Last: its refused requests are console errors of the page (a 400 answer), which the test above forbids.
  it('fallback nodes: a bad one is refused by name; the node that answered is shown; Use keeps them over a reload', async () => {
    const { page } = desk;
    const server = clickhouse().servers.single.url;
    const entry = `http://127.0.0.1:${await closedPort()}`;
    await page.getByTestId('open-datasource').click();
    await expect.poll(() => page.getByTestId('datasource-current').innerText(), SERVER_ROUND_TRIP).toMatch(/In use now: a dataset file/);
    expect(await page.getByTestId('ch-fallbacks-hint').innerText()).toMatch(/separated by commas/);
    await fillForm(READER.password);
    await page.getByTestId('ch-url').fill(entry);

    const refusedBefore = answers.filter((a) => a.op === 'datasource/use').length;
    await page.getByTestId('ch-fallbacks').fill(`${server}, ftp://127.0.0.1:21`);
    await page.getByTestId('ch-test').click();
    await expect
      .poll(() => page.getByTestId('datasource-error').innerText(), SERVER_ROUND_TRIP)
      .toContain('The fallback node address ftp://127.0.0.1:21 must start with http:// or https://.');
    expect(await page.getByTestId('ch-check').count()).toBe(0);
    await page.getByTestId('ch-use').click();
    await expect.poll(() => answers.filter((a) => a.op === 'datasource/use').length, SERVER_ROUND_TRIP).toBe(refusedBefore + 1);
    expect(await page.getByTestId('datasource-error').innerText()).toContain('The fallback node address ftp://127.0.0.1:21');
    expect(await page.getByTestId('datasource-current').innerText()).toMatch(/In use now: a dataset file/);
    expect((await api(desk, 'preview', { state: STATE, limit: 0 })).status).toBe(200);
    expect(await page.getByTestId('dataset-info').innerText()).toContain('field-office.sqlite');

    // The entry node silent, the real server its fallback node: Test connection says which node answered.
    await page.getByTestId('ch-fallbacks').fill(` ${server} , `);
    await page.getByTestId('ch-test').click();
    await page.getByTestId('ch-check-ok').waitFor(SERVER_ROUND_TRIP);
    expect(desk.rpcCalls.filter((c) => c.op === 'datasource/check').at(-1)!.input.fallbackUrls).toEqual([server]);
    expect(await page.getByTestId('ch-check-reachable').innerText()).toBe(`! ${entry} does not answer`);
    expect(await page.getByTestId('ch-check-fallback').innerText()).toBe(`✓ fallback node ${server} answers`);
    expect(await page.getByTestId('ch-check-answered').innerText()).toMatch(
      new RegExp(`^✓ ${server.replace(/\./g, '\\.')} answered the test's queries \\(ClickHouse 18\\.`),
    );
    expect(await page.getByTestId('ch-check-warning').allInnerTexts()).toEqual([
      `${entry} does not answer: requests go to its fallback node ${server} meanwhile.`,
    ]);
    await shot(page, 'datasource-04-fallback-node');

    await page.getByTestId('ch-use').click();
    await expect.poll(() => page.getByTestId('datasource-done').innerText(), SERVER_ROUND_TRIP).toMatch(/ClickHouse answers now/);
    const used = JSON.parse(answers.filter((a) => a.op === 'datasource/use').at(-1)!.body) as { value: any };
    expect(used.value.clickhouse).toMatchObject({ url: entry, fallbackUrls: [server], hasPassword: true });
    await page.getByTestId('datasource-close').click();
    await expect.poll(() => page.getByTestId('dataset-info').innerText(), SERVER_ROUND_TRIP).toContain(`clickhouse ${server}/${DATABASE}`);

    await page.reload();
    await page.getByTestId('dataset-info').waitFor();
    await page.getByTestId('open-datasource').click();
    await expect.poll(() => page.getByTestId('ch-url').inputValue(), SERVER_ROUND_TRIP).toBe(entry);
    expect(await page.getByTestId('ch-fallbacks').inputValue()).toBe(server);
    expect(await page.getByTestId('ch-password').getAttribute('placeholder')).toMatch(/stored/);
    await noPasswordInPage();
  });
});
