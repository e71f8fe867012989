// The app:// scheme's answers (checklist #18), with real files in a temporary folder: a renderer
// root, and beside it the files an escape would reach (a secret, a file through a symlink), so every
// refusal below is a refusal of something that exists.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_INDEX_URL, appUrlToRelativePath, contentTypeFor, resolveAppFile, serveAppRequest } from '../../src/main/appProtocol';
import { CONTENT_SECURITY_POLICY } from '../../src/server/uiSecurity';

let base: string;
let root: string;
const INDEX = '<!doctype html><title>index</title>';
const SCRIPT = 'console.log("app");';

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'audience-desk-protocol-'));
  root = join(base, 'out', 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), INDEX);
  writeFileSync(join(root, 'assets', 'index-abc.js'), SCRIPT);
  writeFileSync(join(root, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(join(root, 'assets', 'font file.woff2'), Buffer.from([0x77, 0x4f, 0x46, 0x32]));
  // What escapes would reach: a secret beside the renderer, the main bundle, an absolute system-like path.
  writeFileSync(join(base, 'out', 'secret.txt'), 'SECRET');
  mkdirSync(join(base, 'out', 'main'));
  writeFileSync(join(base, 'out', 'main', 'index.js'), 'MAIN');
  mkdirSync(join(root, 'etc'));
  // A symlink inside the root pointing out of it, and one pointing to a file inside it.
  symlinkSync(join(base, 'out', 'secret.txt'), join(root, 'assets', 'link-out.txt'));
  symlinkSync(join(root, 'assets', 'index-abc.js'), join(root, 'assets', 'link-in.js'));
  symlinkSync(join(base, 'out'), join(root, 'dir-out'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const get = (url: string, method = 'GET') => serveAppRequest(root, new Request(url, { method }));

describe('app:// URL to a path inside the renderer folder', () => {
  it('maps our host and plain paths, / to index.html, and ignores query and hash', () => {
    expect(appUrlToRelativePath('app://audience-desk/')).toBe('index.html');
    expect(appUrlToRelativePath('app://audience-desk')).toBe('index.html');
    expect(appUrlToRelativePath(APP_INDEX_URL)).toBe('index.html');
    expect(appUrlToRelativePath('app://audience-desk/assets/index-abc.js?v=1#x')).toBe('assets/index-abc.js');
    expect(appUrlToRelativePath('app://audience-desk/assets/font%20file.woff2')).toBe('assets/font file.woff2');
  });

  it('refuses other schemes, hosts, ports and credentials', () => {
    for (const url of [
      'file:///etc/passwd',
      'https://audience-desk/index.html',
      'app://evil.example/index.html',
      'app://audience-desk.evil.example/index.html',
      'app://AUDIENCE-DESK/index.html', // Chromium lower-cases standard hosts; anything else is not from it
      'app://audience-desk:8080/index.html',
      'app://user:pw@audience-desk/index.html',
      'app:///etc/passwd',
      'app:index.html',
      'not a url',
    ])
      expect(appUrlToRelativePath(url), url).toBeNull();
  });

  it('refuses encoded separators, dot segments, backslashes, NUL, colons and empty segments', () => {
    for (const url of [
      'app://audience-desk/..%2fsecret.txt',
      'app://audience-desk/assets%2f..%2f..%2fsecret.txt',
      'app://audience-desk/%2e%2e%2fsecret.txt',
      'app://audience-desk/assets/%2E%2E%5Csecret.txt',
      'app://audience-desk/..\\secret.txt',
      'app://audience-desk/assets\\..\\..\\secret.txt',
      'app://audience-desk/index.html%00.js',
      'app://audience-desk/C:%5Cwindows%5Cwin.ini',
      'app://audience-desk/c:/windows/win.ini',
      'app://audience-desk//etc/passwd',
      'app://audience-desk/assets/',
      'app://audience-desk/%',
      'app://audience-desk/%E0%A4%A',
    ])
      expect(appUrlToRelativePath(url), url).toBeNull();
  });
});

describe('resolving to a file', () => {
  it('finds files under the root, following symlinks that stay inside', () => {
    expect(resolveAppFile(root, 'app://audience-desk/')).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://audience-desk/assets/index-abc.js')).toBe(join(root, 'assets', 'index-abc.js'));
    expect(resolveAppFile(root, 'app://audience-desk/assets/link-in.js')).toBe(join(root, 'assets', 'index-abc.js'));
  });

  it('never reaches a file outside the root, however the URL is written', () => {
    const outside = [
      'app://audience-desk/../secret.txt', // the URL parser folds this to /secret.txt: inside, and absent
      'app://audience-desk/%2e%2e/secret.txt',
      'app://audience-desk/assets/%2e%2E/%2e%2e/main/index.js',
      'app://audience-desk/..%2fsecret.txt',
      'app://audience-desk/..%2fmain%2findex.js',
      'app://audience-desk/assets/link-out.txt', // symlink to a file outside
      'app://audience-desk/dir-out/secret.txt', // symlinked directory outside
      'app://audience-desk/dir-out/main/index.js',
      `app://audience-desk/${encodeURIComponent(join(base, 'out', 'secret.txt'))}`, // an absolute path, encoded
      'app://audience-desk/etc/passwd', // what ../../etc/passwd folds to: stays inside the root
      'app://audience-desk/assets', // a directory, not a file
      'app://audience-desk/missing.js',
    ];
    for (const url of outside) expect(resolveAppFile(root, url), url).toBeNull();
  });
});

describe('answers', () => {
  it('serves index.html for / and /index.html, with its type, the CSP and nosniff', async () => {
    for (const url of ['app://audience-desk/', APP_INDEX_URL, `${APP_INDEX_URL}#/export`]) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(await res.text()).toBe(INDEX);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('gives module scripts, styles and fonts their types (Chromium refuses a module script of any other type)', async () => {
    const js = await get('app://audience-desk/assets/index-abc.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe(SCRIPT);
    expect((await get('app://audience-desk/assets/index-abc.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const font = await get('app://audience-desk/assets/font%20file.woff2');
    expect(font.headers.get('content-type')).toBe('font/woff2');
    expect(Buffer.from(await font.arrayBuffer())).toEqual(Buffer.from([0x77, 0x4f, 0x46, 0x32]));
    expect(contentTypeFor('x.unknown')).toBe('application/octet-stream');
  });

  it('answers 404 (with the CSP) for missing files and every refused URL, without their content', async () => {
    for (const url of [
      'app://audience-desk/missing.js',
      'app://audience-desk/..%2fsecret.txt',
      'app://audience-desk/assets/link-out.txt',
      'app://evil.example/index.html',
      'app://audience-desk/..\\secret.txt',
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(404);
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(await res.text()).not.toContain('SECRET');
    }
  });

  it('answers HEAD without a body and refuses writes', async () => {
    const head = await get(APP_INDEX_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(INDEX)));
    expect(await head.text()).toBe('');
    const post = await get(APP_INDEX_URL, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
