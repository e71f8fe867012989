// One running Audience Desk for an end-to-end test file: the renderer built, the real `serve` CLI on
// a free port over the shared test dataset with its own home folder, an API key made by the real
// `keys create` CLI, and a headless Chromium page on the printed ui: address.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../support/browser';
import { cli } from '../../support/cli';
import { withDirLock } from '../../support/dirLock';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts');
const BIN = join(ROOT, 'node_modules', '.bin');
const ENV = { ...process.env, PATH: `${BIN}:${process.env.PATH ?? ''}`, NO_COLOR: '1' };

export interface Desk {
  home: string;
  apiUrl: string;
  uiUrl: string;
  key: string;
  browser: Browser;
  page: Page;
  /** Every rpc call the page made: operation and parsed input. */
  rpcCalls: Array<{ op: string; input: Record<string, unknown> }>;
  /** Rpc calls sent and not yet answered, and when that last changed (for rpcSettled). */
  rpcPending: { count: number; changedAt: number };
  /** Console errors and uncaught page errors (CSP violations show up here too). */
  consoleErrors: string[];
  serve: ChildProcess;
  /** Everything `serve` printed (stdout lines and stderr), to check that nothing secret reached a log. */
  serveOutput: string[];
}

function newest(dir: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds out/renderer when it is missing or older than its sources; one builder at a time. */
export async function ensureRendererBuilt(): Promise<void> {
  const index = join(ROOT, 'out', 'renderer', 'index.html');
  const sourcesAt = () => Math.max(newest(join(ROOT, 'src', 'renderer')), newest(join(ROOT, 'src', 'shared')));
  const fresh = () => existsSync(index) && statSync(index).mtimeMs >= sourcesAt();
  if (fresh()) return;
  await withDirLock(join(ROOT, 'out', '.e2e-build-lock'), () => {
    if (!fresh()) execFileSync('npx', ['electron-vite', 'build'], { cwd: ROOT, env: ENV, stdio: 'pipe', timeout: 180_000 });
  });
}

/** The real CLI's stdout; a failure (an exit status other than 0, or 60 s gone) is thrown with its stderr. */
async function cliOutput(args: string[]): Promise<string> {
  const r = await cli(args, { env: ENV, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${r.signal ?? r.code}: ${r.stderr}`);
  return r.stdout;
}

/** Starts `serve` and resolves with its api: and ui: addresses. */
function startServe(datasetPath: string, home: string, output: string[]): Promise<{ child: ChildProcess; apiUrl: string; uiUrl: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/index.ts', 'serve', '--db', datasetPath, '--port', '0', '--home', home],
    {
      cwd: ROOT,
      env: ENV,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    output.push(d.toString());
  });
  return new Promise((res, rej) => {
    let apiUrl = '';
    const timer = setTimeout(() => rej(new Error(`serve printed no ui: line in 60 s; stderr: ${stderr}`)), 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      if (line.startsWith('api: ')) apiUrl = line.slice(5).trim();
      if (!line.startsWith('ui: ')) return;
      clearTimeout(timer);
      const uiUrl = line.slice(4).trim();
      if (!uiUrl.startsWith('http')) rej(new Error(`browser mode is not available: ${line}`));
      else res({ child, apiUrl, uiUrl });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`serve exited with ${code}: ${stderr}`));
    });
  });
}

export async function startDesk(datasetPath: string): Promise<Desk> {
  await ensureRendererBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  const home = mkdtempSync(join(tmpdir(), 'audience-desk-e2e-'));
  const serveOutput: string[] = [];
  const { child, apiUrl, uiUrl } = await startServe(datasetPath, home, serveOutput);
  const key = (await cliOutput(['keys', 'create', '--name', 'e2e', '--home', home])).trim().split('\n').pop()!.trim();
  const browser = await launchChromium();
  // Reduced motion: the app then drops its transitions, so screenshots show settled screens.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, reducedMotion: 'reduce' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(uiUrl).origin });
  const page = await context.newPage();
  const rpcCalls: Desk['rpcCalls'] = [];
  const rpcPending: Desk['rpcPending'] = { count: 0, changedAt: Date.now() };
  const rpcOp = (url: string) => /\/ui\/rpc\/(.+)$/.exec(new URL(url).pathname)?.[1];
  const pending = (step: number) => (url: string) => {
    if (rpcOp(url) === undefined) return;
    rpcPending.count += step;
    rpcPending.changedAt = Date.now();
  };
  page.on('request', (r) => {
    const op = rpcOp(r.url());
    if (op !== undefined) rpcCalls.push({ op, input: JSON.parse(r.postData() ?? '{}') as Record<string, unknown> });
    pending(1)(r.url());
  });
  page.on('requestfinished', (r) => pending(-1)(r.url()));
  page.on('requestfailed', (r) => pending(-1)(r.url()));
  const consoleErrors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
  await page.goto(uiUrl);
  return { home, apiUrl, uiUrl, key, browser, page, rpcCalls, rpcPending, consoleErrors, serve: child, serveOutput };
}

/**
 * Resolves once the page has no rpc call unanswered and has sent none for `quietMs`: what a screen
 * loads on opening (a dialog's lists, a tab's answers) is in. Playwright's 'networkidle' load state
 * cannot say this: it fires once a navigation and then returns at once.
 */
export async function rpcSettled(desk: Desk, quietMs = 300, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { count, changedAt } = desk.rpcPending;
    if (count === 0 && Date.now() - changedAt >= quietMs) return;
    if (Date.now() > until) throw new Error(`rpc calls still unanswered after ${timeoutMs} ms: ${count}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function stopDesk(desk: Desk | undefined): Promise<void> {
  if (!desk) return;
  await desk.browser.close().catch(() => undefined);
  stopServe(desk);
  await serveGone(desk);
  rmSync(desk.home, { recursive: true, force: true });
}

/** Stops this test's own `serve` (its process group: npx, tsx and node). */
export function stopServe(desk: Desk): void {
  if (desk.serve.exitCode === null && desk.serve.pid) {
    try {
      process.kill(-desk.serve.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
}

const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Resolves once every process of this test's `serve` group has exited. If SIGTERM has not ended it
 * in 15 s (seen now and then under a loaded full run: tsx and node both still up), the group gets
 * SIGKILL and a warning with `ps`, so a slow shutdown is reported without failing the UI test.
 */
export async function serveGone(desk: Desk): Promise<void> {
  const pid = desk.serve.pid;
  if (!pid) return;
  for (let i = 0; i < 150 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (!groupAlive(pid)) return;
  const ps = execFileSync('ps', ['-o', 'pid,stat,etime,args', '-g', String(pid)], { encoding: 'utf8' });
  let sockets = '';
  try {
    sockets = execFileSync(
      'sh',
      [
        '-c',
        `ss -tanp | grep -E "pid=(${ps
          .split('\n')
          .slice(1)
          .map((l) => l.trim().split(/\s+/)[0])
          .filter(Boolean)
          .join('|')})," || true`,
      ],
      { encoding: 'utf8' },
    );
  } catch {
    /* ss is optional */
  }
  console.warn(`serve did not exit within 15 s of SIGTERM; killing it:\n${ps}${sockets}`);
  process.kill(-pid, 'SIGKILL');
  for (let i = 0; i < 50 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

/** A POST to the loopback API with a key, as a local tool would send it. */
export async function api(desk: Desk, op: 'preview' | 'search', body: unknown, key = desk.key): Promise<{ status: number; json: any }> {
  const r = await fetch(`${desk.apiUrl}/api/audiences/${op}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-KEY': key },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

export function count(n: number): string {
  return new Intl.NumberFormat('en-US').format(n);
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}
