// End to end, in real Chromium against the real browser mode of `serve`: the map of the state's
// counties shaded by the audience's count (each county's count equal to the loopback API's), a click
// on a county adding it to the county filter, the distance control whose count equals an independent
// great-circle computation over the dataset file, pasted lists split and checked (unknown and
// out-of-state values flagged and left out), the country view's count per state, the count report's
// CSV, the picture as SVG and PNG, and every new panel inside the window at 1024x700 and 1440x900.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { pasteText } from './support/paste';
import type { Locator, Page } from 'playwright-core';
import { parse } from 'csv-parse/sync';
import { COUNTY_NAMES } from '../../src/shared/countyNames';
import { stateFips } from '../../src/shared/geography';
import { STATE_CODES } from '../../src/shared/states';
import { openDatasetSql } from '../support/datasetSql';
import { SqlOracle } from '../support/oracle';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';

const STATE = 'NY';
const FIPS = stateFips(STATE)!;
let desk: Desk;
let oracle: SqlOracle;
/** The state's people by each value of a field, most first, by one query of the dataset file (not the engine). */
let countsBy: (field: 'ZIP' | 'CNTYCD') => Array<{ value: string; n: number }>;

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  oracle = new SqlOracle(inject('datasetPath'));
  const db = openDatasetSql(inject('datasetPath'));
  const cache = new Map<string, Array<{ value: string; n: number }>>();
  countsBy = (field) => {
    if (!cache.has(field))
      cache.set(
        field,
        db
          .prepare(`SELECT "${field}" AS value, count(*) AS n FROM people WHERE "STATE" = ? GROUP BY 1 ORDER BY 2 DESC, 1`)
          .all(STATE) as Array<{
          value: string;
          n: number;
        }>,
      );
    return cache.get(field)!;
  };
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption(STATE);
});
/** Each test starts from the whole state: no filters, no list controls, the window at 1440x900. */
beforeEach(async () => {
  const { page } = desk;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.keyboard.press('Escape');
  if (await page.getByTestId('filter-done').isVisible()) await page.getByTestId('filter-done').click();
  if (await page.getByTestId('clear-filters').isVisible()) await page.getByTestId('clear-filters').click();
  if (await page.getByTestId('controls-reset').isVisible()) await page.getByTestId('controls-reset').click();
  if ((await page.getByTestId('state-select').inputValue()) !== STATE) await page.getByTestId('state-select').selectOption(STATE);
  await expect.poll(countText, SLOW).toBe(count(oracle.count(STATE)));
});
afterAll(async () => {
  oracle?.close();
  await stopDesk(desk);
});

/** The API's total for the state and these request keys. */
async function apiTotal(keys: Record<string, unknown> = {}, state = STATE): Promise<number> {
  const r = await api(desk, 'preview', { state, limit: 0, ...keys });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.total as number;
}

/** Runs `work` over the items, four requests at a time (as a local tool would), answers in item order. */
async function fewAtATime<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i]!);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return out;
}

/** Great-circle miles by the spherical law of cosines: not the engine's haversine. */
function miles(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = Math.PI / 180;
  const c = Math.sin(a.lat * r) * Math.sin(b.lat * r) + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.cos((a.lon - b.lon) * r);
  return 3958.8 * Math.acos(Math.min(1, Math.max(-1, c)));
}

const countText = () => desk.page.getByTestId('audience-count').innerText();
/** Counts asked of a real server by a real page: give them time on a loaded machine. */
const SLOW = { timeout: 20_000 };
const area = (page: Page, id: string) => page.getByTestId(`map-area-${id}`);
/** Every drawn area's count as the map holds it, by area id. */
const shownCounts = (page: Page): Promise<Record<string, number>> =>
  page
    .locator('[data-testid^="map-area-"]')
    .evaluateAll((els) =>
      Object.fromEntries(els.map((e) => [e.getAttribute('data-testid')!.slice(9), Number(e.getAttribute('data-count'))])),
    );

async function openMap(page: Page): Promise<void> {
  await page.getByTestId('tab-map').click();
  await page.getByTestId('map-view-state').click();
  await page.getByTestId('geo-map').waitFor();
}

async function openFilter(page: Page, query: string, field: string): Promise<void> {
  await page.getByTestId('field-search').fill(query);
  await page.getByTestId(`field-option-${field}`).click();
  await page.getByTestId(`filter-editor-${field}`).waitFor();
}

async function closeFilter(page: Page): Promise<void> {
  await page.getByTestId('filter-done').click();
}

/** The element lies wholly inside the window. */
async function expectInside(page: Page, locator: Locator, name: string): Promise<void> {
  const viewport = page.viewportSize()!;
  await locator.scrollIntoViewIfNeeded();
  const box = (await locator.boundingBox())!;
  expect(box, name).not.toBeNull();
  expect(box.x, name).toBeGreaterThanOrEqual(0);
  expect(box.y, name).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${name} right edge at ${viewport.width}x${viewport.height}`).toBeLessThanOrEqual(viewport.width);
  expect(box.y + box.height, `${name} bottom edge at ${viewport.width}x${viewport.height}`).toBeLessThanOrEqual(viewport.height);
}

describe('the county map', () => {
  it('shades every county by the audience’s count, each equal to the API’s count of that county', { timeout: 180_000 }, async () => {
    const { page } = desk;
    await openMap(page);
    const codes = oracle.distinct(STATE, 'CNTYCD').map(String);
    expect(codes.length).toBeGreaterThan(20);
    const drawn = Object.keys(COUNTY_NAMES).filter((id) => id.startsWith(FIPS));
    // The API's count of each county (every county of the atlas; those with no one are 0), asked at once.
    const expected: Record<string, number> = Object.fromEntries(
      await fewAtATime(drawn, async (id) => [id, await apiTotal({ filters: [['CNTYCD', [id.slice(2)]]] })] as const),
    );
    for (const { value, n } of countsBy('CNTYCD')) expect(expected[FIPS + value], value).toBe(n);
    expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBe(await apiTotal());
    await expect.poll(() => shownCounts(page), SLOW).toEqual(expected);
    // Hovering says the county's name and count.
    const busiest = countsBy('CNTYCD')[0]!.value;
    await area(page, FIPS + busiest).hover();
    await expect
      .poll(() => page.getByTestId('map-hover').innerText(), SLOW)
      .toBe(`${COUNTY_NAMES[FIPS + busiest]} (${FIPS}${busiest}): ${count(oracle.count(STATE, [['CNTYCD', [busiest]]]))} people`);
    await shot(page, 'geography-county-map');
  });

  it('adds a county to the filter when clicked, and takes it out on a second click', async () => {
    const { page } = desk;
    await openMap(page);
    const code = String(oracle.distinct(STATE, 'CNTYCD')[0]);
    await area(page, FIPS + code).click();
    await page.getByTestId('chip-CNTYCD').waitFor();
    // The chip and the count line name the county, not its code.
    await expect.poll(() => page.getByTestId('chip-CNTYCD').innerText(), SLOW).toContain(COUNTY_NAMES[FIPS + code]!);
    await expect.poll(() => page.getByTestId('count-filters').innerText(), SLOW).toContain(COUNTY_NAMES[FIPS + code]!);
    const expected = await apiTotal({ filters: [['CNTYCD', [code]]] });
    await expect.poll(countText, SLOW).toBe(count(expected));
    await expect.poll(() => area(page, FIPS + code).getAttribute('class'), SLOW).toMatch(/\bon\b/);
    // The map now shows the audience: only that county has anyone. Polled, as the county counts are
    // their own request beside the count's (which may land first), and the county's own count is the
    // same before and after.
    await expect.poll(() => area(page, FIPS + code).getAttribute('data-count'), SLOW).toBe(String(expected));
    const others = () =>
      page
        .locator('html')
        .evaluate(
          (html, id) => [
            ...new Set(
              [...html.ownerDocument.querySelectorAll('[data-testid^="map-area-"]')]
                .filter((e) => e.getAttribute('data-testid') !== `map-area-${id}`)
                .map((e) => e.getAttribute('data-count')),
            ),
          ],
          FIPS + code,
        );
    await expect.poll(others, SLOW).toEqual(['0']);
    // The report lists the county by name with the same count.
    const row = page.locator(`[data-testid="report-row"][data-key="${FIPS}${code}"]`);
    await expect.poll(() => row.innerText(), SLOW).toContain(COUNTY_NAMES[FIPS + code]!);
    expect(await row.getByTestId('report-count').innerText()).toBe(count(expected));

    await area(page, FIPS + code).click();
    await page.getByTestId('chip-CNTYCD').waitFor({ state: 'detached' });
    await expect.poll(countText, SLOW).toBe(count(await apiTotal()));
  });

  it('saves the count report as CSV and the map as SVG and PNG', { timeout: 120_000 }, async () => {
    const { page } = desk;
    await openMap(page);
    await page.getByTestId('report-by-county').click();
    await expect.poll(() => page.getByTestId('report-row').count(), SLOW).toBe(oracle.distinct(STATE, 'CNTYCD').length);
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-csv').click()]);
    const rows = parse(readFileSync((await csvDownload.path())!, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(rows.length).toBe(oracle.distinct(STATE, 'CNTYCD').length);
    for (const r of rows) {
      expect(r.state).toBe(STATE);
      expect(r.county).toBe(COUNTY_NAMES[r.county_fips!]);
      expect(Number(r.people), r.county_fips).toBe(countsBy('CNTYCD').find((c) => FIPS + c.value === r.county_fips)?.n);
    }

    await page.getByTestId('report-by-zip').click();
    const zips = oracle.distinct(STATE, 'ZIP').map(String);
    await expect.poll(() => page.getByTestId('report-row').count(), SLOW).toBe(zips.length);
    const top = page.getByTestId('report-row').first();
    const topZip = (await top.getAttribute('data-key'))!;
    expect(await top.getByTestId('report-count').innerText()).toBe(count(oracle.count(STATE, [['ZIP', [topZip]]])));
    await page.getByTestId('report-by-county').click();

    const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('map-export-svg').click()]);
    expect(svgDownload.suggestedFilename()).toBe(`map-${STATE}.svg`);
    const svg = readFileSync((await svgDownload.path())!, 'utf8');
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<svg');
    expect(svg.match(/<path /g)!.length).toBeGreaterThanOrEqual(oracle.distinct(STATE, 'CNTYCD').length);
    expect(svg).not.toContain('data-testid');

    const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('map-export-png').click()]);
    expect(pngDownload.suggestedFilename()).toBe(`map-${STATE}.png`);
    const png = readFileSync((await pngDownload.path())!);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBeGreaterThan(500); // width, drawn at twice the SVG's size
    expect(desk.consoleErrors).toEqual([]);
  });

  it('shades the country by the audience’s count in each state, equal to the API’s', { timeout: 180_000 }, async () => {
    const { page } = desk;
    await openMap(page);
    await page.getByTestId('map-view-country').click();
    const expected: Record<string, number> = Object.fromEntries(
      await fewAtATime(STATE_CODES, async (s) => [stateFips(s)!, await apiTotal({}, s)] as const),
    );
    await expect.poll(() => shownCounts(page), SLOW).toEqual(expected);
    expect(await page.locator('[data-testid^="map-area-"]').count()).toBe(51);
    await area(page, stateFips('TX')!).hover();
    await expect.poll(() => page.getByTestId('map-hover').innerText(), SLOW).toBe(`Texas: ${count(await apiTotal({}, 'TX'))} people`);
    // Clicking a state opens it.
    await area(page, stateFips('WY')!).click();
    await expect.poll(() => page.getByTestId('state-select').inputValue(), SLOW).toBe('WY');
    await expect.poll(countText, SLOW).toBe(count(await apiTotal({}, 'WY')));
    await page.getByTestId('state-select').selectOption(STATE);
    await expect.poll(countText, SLOW).toBe(count(await apiTotal()));
  });
});

describe('distance (near)', () => {
  it(
    'counts the people within N miles of a ZIP or a point as an independent great-circle computation does, and draws the radius',
    { timeout: 180_000 },
    async () => {
      const { page } = desk;
      await openMap(page);
      const zip = countsBy('ZIP')[0]!.value;
      const centre = oracle.zipCentre(zip);
      const people = oracle.places(STATE);
      for (const radius of [8, 40]) {
        const expected = people.filter((p) => miles(centre, p) <= radius).length;
        expect(expected).toBeGreaterThan(0);
        expect(expected).toBeLessThan(people.length);
        await page.getByTestId('control-near-mode').selectOption('zip');
        await page.getByTestId('control-near-zip').fill(zip);
        await page.getByTestId('control-near-miles').fill(String(radius));
        await expect.poll(countText, SLOW).toBe(count(expected));
        expect(await apiTotal({ near: { zip, miles: radius } })).toBe(expected);
      }
      await page.getByTestId('map-radius').waitFor();
      expect(await page.getByTestId('map-radius').getAttribute('d')).toMatch(/^M[\d.-]+,[\d.-]+L/);
      // The map's counties now add up to the people within the radius.
      await expect
        .poll(
          () =>
            page
              .locator('[data-testid^="map-area-"]')
              .evaluateAll((els) => els.reduce((s, e) => s + Number(e.getAttribute('data-count')), 0)),
          SLOW,
        )
        .toBe(people.filter((p) => miles(centre, p) <= 40).length);
      await shot(page, 'geography-radius');

      const point = { lat: 42.65, lon: -73.75 };
      const expected = people.filter((p) => miles(point, p) <= 60).length;
      await page.getByTestId('control-near-mode').selectOption('point');
      // The point pasted as one piece of text into the latitude box fills both boxes.
      await pasteText(page.getByTestId('control-near-lat'), `${point.lat}, ${point.lon}`);
      await expect.poll(() => page.getByTestId('control-near-lat').inputValue()).toBe(String(point.lat));
      await expect.poll(() => page.getByTestId('control-near-lon').inputValue()).toBe(String(point.lon));
      await page.getByTestId('control-near-miles').fill('60');
      await expect.poll(countText, SLOW).toBe(count(expected));

      // A value being typed that is not valid is said so and not applied.
      await page.getByTestId('control-near-miles').fill('900');
      await page.getByTestId('control-near-problem').waitFor();
      await expect.poll(countText, SLOW).toBe(count(oracle.count(STATE)));
      await page.getByTestId('control-near-mode').selectOption('none');
      await page.getByTestId('map-radius').waitFor({ state: 'detached' });
    },
  );
});

describe('pasted lists', () => {
  async function paste(page: Page, text: string): Promise<void> {
    const runs = Number(await page.getByTestId('paste-values').getAttribute('data-runs'));
    await page.getByTestId('paste-text').fill(text);
    await page.getByTestId('paste-add').click();
    await expect.poll(() => page.getByTestId('paste-values').getAttribute('data-runs'), SLOW).toBe(String(runs + 1));
  }
  const problems = (page: Page) => page.getByTestId('paste-problem').evaluateAll((els) => els.map((e) => e.getAttribute('data-value')));
  const chosen = (page: Page, field: string) =>
    page
      .locator(`[data-testid="filter-editor-${field}"] [data-testid^="value-${field}-"] input:checked`)
      .evaluateAll((els) => els.map((e) => e.closest('label')!.getAttribute('data-value')));

  it('splits ZIPs at commas and spaces into separate values, each checked against the state', { timeout: 180_000 }, async () => {
    const { page } = desk;
    const known = new Set(oracle.distinct(STATE, 'ZIP').map(String));
    await openFilter(page, 'zip', 'ZIP');
    // The issue's own list: each ZIP is a value of its own (or flagged), never one value that matches nobody.
    const issue = ['11208', '11206', '10025', '11201'];
    await paste(page, '11208, 11206, 10025 11201');
    expect((await chosen(page, 'ZIP')).sort()).toEqual(issue.filter((z) => known.has(z)).sort());
    expect(await problems(page)).toEqual(issue.filter((z) => !known.has(z)));
    await page.getByTestId('chip-remove-ZIP').click();

    // Four ZIPs the state's people live in, written the same way: four values, and the API's count.
    const four = countsBy('ZIP')
      .slice(0, 4)
      .map((r) => r.value);
    await openFilter(page, 'zip', 'ZIP');
    await paste(page, `${four[0]}, ${four[1]}, ${four[2]} ${four[3]}`);
    expect((await chosen(page, 'ZIP')).sort()).toEqual([...four].sort());
    expect(await page.getByTestId('paste-problems').count()).toBe(0);
    const expected = oracle.count(STATE, [['ZIP', four]]);
    expect(await apiTotal({ filters: [['ZIP', four]] })).toBe(expected);
    await expect.poll(countText, SLOW).toBe(count(expected));

    // An out-of-state ZIP and a malformed one are flagged with the reason and left out.
    await paste(page, '90210\nabcde');
    expect(await problems(page)).toEqual(['90210', 'abcde']);
    expect(await page.getByTestId('paste-problems').innerText()).toMatch(/90210: no one in NY lives in ZIP 90210[\s\S]*abcde: not a ZIP/);
    expect((await chosen(page, 'ZIP')).sort()).toEqual([...four].sort());
    await expect.poll(countText, SLOW).toBe(count(expected));

    // A 3-digit prefix is the state's ZIPs that start with it.
    const prefix = four[0]!.slice(0, 3);
    await page.getByTestId('chip-remove-ZIP').click();
    await openFilter(page, 'zip', 'ZIP');
    await paste(page, prefix);
    const withPrefix = [...known].filter((z) => z.startsWith(prefix)).sort();
    expect((await chosen(page, 'ZIP')).sort()).toEqual(withPrefix);
    await expect.poll(countText, SLOW).toBe(count(oracle.count(STATE, [['ZIP', withPrefix]])));
    await expectInside(page, page.getByTestId('paste-values'), 'paste-values');
    await closeFilter(page);
    await page.getByTestId('chip-remove-ZIP').click();
  });

  it('reads counties by name and cities by name, flagging the ones of other states', { timeout: 120_000 }, async () => {
    const { page } = desk;
    const codes = oracle.distinct(STATE, 'CNTYCD').map(String).slice(0, 2);
    const names = codes.map((c) => COUNTY_NAMES[FIPS + c]!);
    await openFilter(page, 'county code', 'CNTYCD');
    await paste(page, `${names[0]} County\n${names[1]!.toLowerCase()}, Los Angeles`);
    expect((await chosen(page, 'CNTYCD')).sort()).toEqual([...codes].sort());
    expect(await page.getByTestId('paste-problems').innerText()).toContain('Los Angeles: a county of CA, not NY');
    await expect.poll(countText, SLOW).toBe(count(oracle.count(STATE, [['CNTYCD', codes]])));
    await closeFilter(page);
    await page.getByTestId('chip-remove-CNTYCD').click();

    const cities = oracle.distinct(STATE, 'CITY').map(String);
    const twoWords = cities.find((c) => c.includes(' '))!;
    const oneWord = cities.find((c) => !c.includes(' '))!;
    await openFilter(page, 'city', 'CITY');
    await paste(page, `${twoWords.toLowerCase()} ${oneWord}, Springfeld`);
    expect((await chosen(page, 'CITY')).sort()).toEqual([twoWords, oneWord].sort());
    expect(await problems(page)).toEqual(['Springfeld']);
    await expect.poll(countText, SLOW).toBe(count(oracle.count(STATE, [['CITY', [twoWords, oneWord]]])));
    await closeFilter(page);
    await page.getByTestId('chip-remove-CITY').click();
  });
});

describe('layout', () => {
  it.each([
    [1024, 700],
    [1440, 900],
  ])(
    'keeps the map, the report, the distance control and the paste box inside a %ix%i window',
    { timeout: 120_000 },
    async (width, height) => {
      const { page } = desk;
      await page.setViewportSize({ width, height });
      await openMap(page);
      await page.getByTestId('control-near-mode').selectOption('zip');
      for (const id of ['map-panel', 'geo-map', 'map-export-png', 'geo-report', 'report-csv', 'control-near', 'control-near-zip']) {
        await expectInside(page, page.getByTestId(id), id);
      }
      await page.getByTestId('control-near-mode').selectOption('none');
      await page.getByTestId('map-view-country').click();
      await expectInside(page, page.getByTestId('geo-map'), 'country map');
      await page.getByTestId('map-view-state').click();
      await openFilter(page, 'zip', 'ZIP');
      await expectInside(page, page.getByTestId('paste-values'), 'paste-values');
      await closeFilter(page);
      await page.getByTestId('chip-remove-ZIP').click();
      const overflow = await page
        .locator('html')
        .evaluate((e) => ({ x: e.scrollWidth - e.clientWidth, y: e.scrollHeight - e.clientHeight }));
      expect(overflow).toEqual({ x: 0, y: 0 });
      const panel = await page.getByTestId('map-panel').evaluate((e) => e.scrollWidth - e.clientWidth);
      expect(panel).toBe(0);
      await shot(page, `geography-${width}x${height}`);
    },
  );
});
