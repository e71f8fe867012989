// The installers' contents, checked on electron-builder's unpacked Linux target (`--linux dir`): the
// Electron zip cannot be downloaded here, so a stand-in Electron distribution (a directory with an
// `electron` executable, which electron-builder copies and renames) takes its place. Everything else
// is the real electron-builder.yml: the asar holds main, preload and renderer and the production
// dependencies main imports; better-sqlite3's binary is unpacked beside it; the dataset is in resources.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractFile, listPackage, statFile } from '@electron/asar';
import { build, Platform, type Configuration } from 'electron-builder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_DATASET_PATH, BUNDLED_FILE_NAME } from '../../src/cli/bundledDataset';
import { generateDataset } from '../../src/core/generate';
import { ensureBuilt } from './ensureBuilt';

let work: string;
let appDir: string;
let asar: string;
let packedDataset: { path: string; bytes: number };

beforeAll(async () => {
  await ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'audience-desk-pack-'));
  const electronDist = join(work, 'electron-dist');
  mkdirSync(electronDist);
  writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\necho "stand-in for the Electron binary"\n');
  chmodSync(join(electronDist, 'electron'), 0o755);
  writeFileSync(join(electronDist, 'LICENSE'), 'stand-in\n');

  const config: Configuration = { extends: join(process.cwd(), 'electron-builder.yml'), electronDist, directories: { output: join(work, 'dist') } };
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

describe('packaged app (linux dir target)', () => {
  it('has the renamed executable and an app.asar', () => {
    expect(existsSync(join(appDir, 'audience-desk'))).toBe(true);
    expect(existsSync(asar)).toBe(true);
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
    // Sources, tests and source maps stay out.
    expect(files.some((f) => f.startsWith('/src/') || f.startsWith('/test/') || f.endsWith('.map'))).toBe(false);
  });

  it('carries every package the main bundle imports, and not the renderer-only ones', () => {
    const files = new Set(listPackage(asar, { isPack: false }));
    // Every entry of the main build (the process and the import's worker) and the chunks they share.
    const bare = new Set<string>();
    const seen = new Set<string>();
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, spec] of text(file).matchAll(/^import .* from "([^"]+)";$/gm)) {
        if (spec!.startsWith('./')) walk(join(file, '..', spec!));
        else if (!spec!.startsWith('node:') && spec !== 'electron') bare.add(spec!);
      }
    };
    walk('out/main/index.js');
    walk('out/main/readWorker.js');
    expect([...bare].sort()).toEqual(['better-sqlite3', 'fastify', 'papaparse', 'zod']);
    for (const pkg of bare) expect(files.has(`/node_modules/${pkg}/package.json`)).toBe(true);
    expect(files.has('/node_modules/ag-grid-community/package.json')).toBe(false);
    expect(files.has('/node_modules/electron/package.json')).toBe(false);
  });

  it("unpacks better-sqlite3's native binary (for this platform only) outside the asar", () => {
    const inAsar = 'node_modules/better-sqlite3/prebuilds/linux-x64.node';
    expect(statFile(asar, inAsar)).toMatchObject({ unpacked: true });
    const unpacked = join(appDir, 'resources', 'app.asar.unpacked', inAsar);
    expect(statSync(unpacked).size).toBe(statSync(join('node_modules', 'better-sqlite3', 'prebuilds', 'linux-x64.node')).size);
    expect(existsSync(join(appDir, 'resources', 'app.asar.unpacked', 'node_modules/better-sqlite3/prebuilds/win32-x64.node'))).toBe(false);
    expect(listPackage(asar, { isPack: false }).some((f) => f.startsWith('/node_modules/better-sqlite3/deps'))).toBe(false);
  });

  it('puts the dataset into resources, where the main process looks for it', () => {
    const packed = join(appDir, 'resources', BUNDLED_FILE_NAME);
    expect(statSync(packed).size).toBe(packedDataset.bytes);
    const yml = readFileSync('electron-builder.yml', 'utf8');
    expect(yml).toMatch(new RegExp(`from: resources/${BUNDLED_FILE_NAME}\\s+to: ${BUNDLED_FILE_NAME}`));
  });
});
