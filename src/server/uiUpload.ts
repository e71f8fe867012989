// Browser mode's uploads: a vendor file or a suppression list chosen in the page (a file input or a
// drop) is sent as the raw body of `POST /ui/upload?name=<file name>` and lands in the home's inbox,
// `<home>/imports/`, the one folder browser mode imports from. Nothing else changes: the import and
// lists screens then pick from the inbox as before (`import/pick`, `lists/pick`), and only a file
// picked there may be read.
//
// - The rpc token in X-UI-TOKEN, as every operation; Content-Type application/octet-stream; no
//   Content-Encoding. Checked before a byte of the body is read.
// - At most `maxBytes` (413 `payload_too_large`, from Content-Length when sent, else once the body
//   passes it; the partial file is removed).
// - The name is the file's own name only: path parts, control characters and leading dots are taken
//   off, other characters outside letters, digits, space and `._()-` become `_`; an existing file is
//   never replaced: `list.csv` becomes `list (2).csv`.
// - Written owner-only under a hidden partial name, synced, then linked into place (a link fails when
//   the name is taken, so two uploads of one name never overwrite each other) and the partial removed.
import { randomBytes } from 'node:crypto';
import { link, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { homeLayout } from '../core/appState/homeLayout';
import { fsyncPath } from '../core/fs/atomicFile';
import { createPrivateFileHandle, makePrivateDir } from '../core/fs/privateFile';
import { removeStaleFiles } from '../core/fs/staleFiles';
import { AppError } from '../shared/errors';
import { UPLOAD_PATH } from '../shared/rpcPaths';
import { checkContentEncoding } from './requestGuards';

export { UPLOAD_PATH };
/** The default largest upload: 2 GiB (a bigger file is copied into the inbox by hand). */
export const UPLOAD_MAX_BYTES_DEFAULT = 2 * 1024 ** 3;
const NAME_MAX = 120;

export interface UploadAnswer {
  /** The name the file was given in the inbox. */
  name: string;
  bytes: number;
  inbox: string;
}

/** A file's name as the inbox will hold it: no path, no control characters, no leading dot, tame characters. */
export function inboxName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const tame = base
    .split('')
    .filter((c) => c.charCodeAt(0) >= 32 && c.charCodeAt(0) !== 127)
    .join('')
    .replace(/[^A-Za-z0-9 ._()-]/g, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  if (!tame) throw new AppError('invalid_request', 'The file needs a name of letters or digits (not only dots or path parts).', 'name');
  if (tame.length <= NAME_MAX) return tame;
  const ext = extname(tame).slice(0, 12);
  return tame.slice(0, NAME_MAX - ext.length) + ext;
}

/** `name`, then `name (2)`, `name (3)`… before the extension. */
function candidate(name: string, n: number): string {
  if (n === 1) return name;
  const ext = extname(name);
  return `${name.slice(0, name.length - ext.length)} (${n})${ext}`;
}

const PARTIAL = /^\.upload-(\d+)-[0-9a-f]+\.partial$/;

async function writeUpload(body: Readable, inbox: string, name: string, maxBytes: number): Promise<UploadAnswer> {
  makePrivateDir(inbox);
  // A killed upload cannot remove its partial file: the next one does (live writers' are kept).
  removeStaleFiles(inbox, PARTIAL);
  const temp = join(inbox, `.upload-${process.pid}-${randomBytes(6).toString('hex')}.partial`);
  const handle = await createPrivateFileHandle(temp);
  let bytes = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw tooLarge(maxBytes);
      await handle.write(chunk);
    }
    if (bytes === 0) throw new AppError('invalid_request', 'The file is empty: there is nothing to upload.', 'file');
    await handle.sync();
    await handle.close();
    for (let n = 1; ; n++) {
      const target = join(inbox, candidate(name, n));
      try {
        await link(temp, target);
        fsyncPath(inbox);
        return { name: candidate(name, n), bytes, inbox };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw e;
      }
    }
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw e;
  } finally {
    await rm(temp, { force: true });
  }
}

const tooLarge = (maxBytes: number): AppError =>
  new AppError(
    'payload_too_large',
    `The file is larger than the ${Math.floor(maxBytes / 1024 ** 2)} MB an upload may be; copy it into the inbox folder instead.`,
  );

/**
 * Registers the upload route in its own plugin (its own body parser: the raw stream), behind `checkToken`
 * (the rpc token check, which also admits the request to the in-flight cap).
 */
export async function registerUpload(
  app: FastifyInstance,
  options: {
    homeDir: string;
    maxBytes?: number;
    checkToken: (request: FastifyRequest) => Promise<void>;
    /** Answers a refusal as the rpc routes do (an Envelope with the error's status). */
    sendError: (reply: FastifyReply, error: unknown) => void;
  },
): Promise<void> {
  const maxBytes = options.maxBytes ?? UPLOAD_MAX_BYTES_DEFAULT;
  const inbox = homeLayout(options.homeDir).imports;
  await app.register(async (child) => {
    child.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
    const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      await options.checkToken(request);
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/octet-stream')
        throw new AppError('unsupported_media_type', 'Send the file as the request body with Content-Type: application/octet-stream.');
      checkContentEncoding(request.headers['content-encoding'], reply);
      if (Number(request.headers['content-length']) > maxBytes) throw tooLarge(maxBytes);
    };
    child.post(
      UPLOAD_PATH,
      { onRequest: guard, errorHandler: (e, _request, reply) => options.sendError(reply, e) },
      async (request, reply) => {
        const name = inboxName(String((request.query as Record<string, unknown>).name ?? ''));
        if (!request.body) throw new AppError('invalid_request', 'The file is empty: there is nothing to upload.', 'file');
        const answer = await writeUpload(request.body as Readable, inbox, name, maxBytes);
        reply.type('application/json; charset=utf-8').send(JSON.stringify({ ok: true, value: answer }));
      },
    );
  });
}
