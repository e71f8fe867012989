// The headless Chromium the renderer and browser-security tests drive, chosen once for all of them:
//   1. CHROMIUM_PATH, when set (any Chromium or Chrome the machine has);
//   2. /usr/bin/chromium, when present (Debian's or Ubuntu's package);
//   3. otherwise the headless Chromium that `npm ci` brought: the @sparticuz/chromium devDependency
//      ships it brotli-compressed inside its npm package (x86-64 Linux). It is unpacked once into
//      node_modules/.cache/ with the libraries it needs beyond glibc (NSS, NSPR, expat: the package's
//      own Amazon Linux copies, put on LD_LIBRARY_PATH) and a font (Open Sans, plus the system's fonts
//      where the machine has any), so a fresh Debian or Ubuntu needs nothing from apt.
// All three get the same flags; none of @sparticuz/chromium's own serverless flags (they turn off web
// security and site isolation, which the security tests rely on) is needed to run it here.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { withDirLock } from './dirLock';

const ROOT = resolve(import.meta.dirname, '../..');
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** The flags every test browser runs with (extra ones per test, e.g. host-resolver rules, come after). */
export const BROWSER_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface BrowserChoice {
  /** Where it came from, for messages: `CHROMIUM_PATH`, `system` or `@sparticuz/chromium`. */
  source: string;
  executablePath: string;
  /** Extra environment the browser process needs (the unpacked browser's libraries and fonts). */
  env: Record<string, string>;
}

let choice: Promise<BrowserChoice> | undefined;

/** The browser to launch (see the top of this file); the bundled one is unpacked on first use. */
export function chooseBrowser(): Promise<BrowserChoice> {
  choice ??= pick();
  return choice;
}

/**
 * Launches the chosen Chromium headless with BROWSER_FLAGS and `extraArgs`. Its scratch files
 * (.org.chromium.Chromium.*) go to a folder of its own, removed once the browser is gone: a helper
 * process that Chromium ends abruptly at close leaves its file behind, which is Chromium's, not a test's.
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const { executablePath, env } = await chooseBrowser();
  const scratch = mkdtempSync(join(tmpdir(), 'chromium-scratch-'));
  try {
    const browser = await chromium.launch({
      executablePath,
      args: [...BROWSER_FLAGS, ...extraArgs],
      env: { ...process.env, ...env, TMPDIR: scratch },
    });
    browser.on('disconnected', () => rmSync(scratch, { recursive: true, force: true }));
    return browser;
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

async function pick(): Promise<BrowserChoice> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is ${fromEnv}, which does not exist.`);
    return { source: 'CHROMIUM_PATH', executablePath: fromEnv, env: {} };
  }
  if (existsSync(SYSTEM_CHROMIUM)) return { source: 'system', executablePath: SYSTEM_CHROMIUM, env: {} };
  return bundledChromium();
}

const run = promisify(execFile);

/**
 * @sparticuz/chromium's browser, unpacked into node_modules/.cache/sparticuz-chromium-<version>/: the
 * package's own code unpacks it (into os.tmpdir(), so a child process with TMPDIR pointed at a staging
 * folder), then the folder is renamed into place. One unpacking at a time across test workers (a
 * directory lock); a folder without its `.complete` mark (a killed run) is unpacked again.
 */
async function bundledChromium(): Promise<BrowserChoice> {
  if (platform() !== 'linux' || arch() !== 'x64')
    throw new Error(
      `@sparticuz/chromium ships a browser for x86-64 Linux only (this is ${platform()} ${arch()}): install Chromium or set CHROMIUM_PATH.`,
    );
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const packageDir = resolve(dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const dir = join(ROOT, 'node_modules', '.cache', `sparticuz-chromium-${version}`);
  const choice: BrowserChoice = {
    source: '@sparticuz/chromium',
    executablePath: join(dir, 'chromium'),
    env: {
      LD_LIBRARY_PATH: [join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      FONTCONFIG_PATH: join(dir, 'fontconfig'),
    },
  };
  const complete = join(dir, '.complete');
  if (existsSync(complete)) return choice;

  return withDirLock(`${dir}.lock`, async () => {
    if (existsSync(complete)) return choice;
    rmSync(dir, { recursive: true, force: true });
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    // The browser (with its fonts and SwiftShader), then the libraries (unpacked by the package only
    // on Amazon Linux, where it sets LD_LIBRARY_PATH itself).
    const script =
      `const m = await import(${JSON.stringify(pathToFileURL(entry).href)});` +
      `await m.default.executablePath();` +
      `await m.inflate(${JSON.stringify(join(packageDir, 'bin', 'al2023.tar.br'))});`;
    try {
      await run(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: staging }, timeout: 300_000 });
      for (const part of ['chromium', 'fonts', join('al2023', 'lib', 'libnss3.so')])
        if (!existsSync(join(staging, part))) throw new Error(`@sparticuz/chromium did not unpack ${part} into ${staging}.`);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    mkdirSync(join(staging, 'fontconfig'));
    writeFileSync(
      join(staging, 'fontconfig', 'fonts.conf'),
      [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        '<fontconfig>',
        `  <dir>${join(dir, 'fonts', 'fonts')}</dir>`,
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
        `  <cachedir>${join(dir, 'fontconfig', 'cache')}</cachedir>`,
        '</fontconfig>',
        '',
      ].join('\n'),
    );
    writeFileSync(join(staging, '.complete'), `${version}\n`);
    renameSync(staging, dir);
    return choice;
  });
}
