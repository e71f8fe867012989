// Browser mode: `serve` also hands the built renderer to a browser at /ui/?token=..., on the API's
// own Fastify instance and port, and carries its operations as POST /ui/rpc/<domain>/<verb> to the
// same handler table the Electron IPC uses. The wire is documented in src/shared/rpcPaths.ts.
//
// Protection: the API's Host check applies unchanged; the API's Origin rule is widened for /ui/*
// only, and only to the UI's own origin; nothing under /ui/ answers without the per-start token
// (static files: the ?token= of the page URL, or the cookie it sets, which holds a value derived
// from the token that opens static files only; rpc: the X-UI-TOKEN header and nothing else).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { dispatch, type HandlerTable } from '../core/handlers';
import { RPC_PREFIX, RPC_TOKEN_HEADER, RPC_TOKEN_QUERY, UI_PATH, uiUrl } from '../shared/rpcPaths';
import { AppError, ERROR_STATUS, type ErrorCode } from '../shared/errors';
import { toAppError, type ApiServer } from './apiServer';
import { checkJsonContentType } from './requestGuards';
import { pageCookieValue, readCookie, tokenMatches, UI_SECURITY_HEADERS } from './uiSecurity';
import { hasIndex, readStaticFile } from './uiStatic';
import { registerUpload } from './uiUpload';

export interface UiOptions {
  handlers: HandlerTable;
  /** The built renderer (electron-vite's out/renderer). */
  rendererDir: string;
  /** The page token of this start of `serve` (uiSecurity.createUiToken). */
  token: string;
  /** The home folder whose inbox uploads go to (uiUpload.ts); without it there is no upload route. */
  homeDir?: string;
  /** The largest upload, in bytes (uiUpload.ts's default otherwise). */
  uploadMaxBytes?: number;
}

export interface UiMount {
  /** False when the renderer is not built: nothing is registered then. */
  available: boolean;
  /** The page address with its token, once the server listens. */
  url(): string | null;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const isUiPath = (path: string): boolean => path === '/ui' || path.startsWith(UI_PATH);
// Cookies are not isolated by port: the name carries it, so two starts of `serve` on two ports do not
// overwrite each other's. Another local server still receives it (browsers send it to every port),
// which is why it holds only pageCookieValue(), never the token.
const cookieName = (port: number): string => `adk_ui_${port}`;

/** Every rpc answer is an Envelope, refusals included (Host, Origin, body size...), with the error's HTTP status. */
function sendEnvelopeError(reply: FastifyReply, error: unknown): void {
  const appError = toAppError(error);
  reply
    .code(appError.status)
    .type(JSON_TYPE)
    .send(JSON.stringify({ ok: false, error: appError.toBody().error }));
}

export async function registerUi(server: ApiServer, options: UiOptions): Promise<UiMount> {
  const { handlers, rendererDir, token } = options;
  const pageCookie = pageCookieValue(token);
  if (!(await hasIndex(rendererDir))) return { available: false, url: () => null };
  const app = server.app;
  server.allowOrigins((path, port) => (isUiPath(path) ? [`http://127.0.0.1:${port}`, `http://localhost:${port}`] : []));

  /** Before the body is read: the header token, then a JSON body (no HTML form can send either). */
  const requireHeaderToken = async (request: FastifyRequest): Promise<void> => {
    if (!tokenMatches(request.headers[RPC_TOKEN_HEADER.toLowerCase()], token))
      throw new AppError('unauthorized', `A valid ${RPC_TOKEN_HEADER} header is required; open the ui: address that serve printed.`);
    server.markCredentialed(request);
    checkJsonContentType(request.headers['content-type']);
  };

  app.post(
    `${RPC_PREFIX}*`,
    { onRequest: requireHeaderToken, errorHandler: (e, _req, reply) => sendEnvelopeError(reply, e) },
    async (request, reply) => {
      const name = (request.params as { '*': string })['*'];
      const envelope = await dispatch(handlers, name, request.body);
      const status = envelope.ok ? 200 : (ERROR_STATUS[envelope.error.code as ErrorCode] ?? 500);
      reply.code(status).type(JSON_TYPE).send(JSON.stringify(envelope));
    },
  );

  /**
   * The page and its files: the URL's token (which then sets the cookie) or that cookie. The page
   * takes the token out of its URL once loaded and keeps it in its tab's sessionStorage, which
   * belongs to this origin (port included), so a reload finds both the cookie and the token.
   */
  const requirePageToken = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const name = cookieName(server.listeningPort);
    const query = (request.query as Record<string, unknown>)[RPC_TOKEN_QUERY];
    if (tokenMatches(query, token)) {
      reply.header('Set-Cookie', `${name}=${pageCookie}; Path=${UI_PATH}; HttpOnly; SameSite=Strict`);
      return;
    }
    if (!tokenMatches(readCookie(request.headers.cookie, name), pageCookie))
      throw new AppError('unauthorized', 'Open the ui: address that serve printed; it carries the page token.');
  };

  if (options.homeDir)
    await registerUpload(app, {
      homeDir: options.homeDir,
      maxBytes: options.uploadMaxBytes,
      // The rpc token, as every operation (a page's cookie does not authorise an upload).
      checkToken: async (request) => {
        if (!tokenMatches(request.headers[RPC_TOKEN_HEADER.toLowerCase()], token))
          throw new AppError('unauthorized', `A valid ${RPC_TOKEN_HEADER} header is required; open the ui: address that serve printed.`);
        server.markCredentialed(request);
      },
      sendError: sendEnvelopeError,
    });

  app.get('/ui', async (request, reply) => {
    const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    reply.redirect(`${UI_PATH}${search}`);
  });
  app.get(`${UI_PATH}*`, { onRequest: requirePageToken }, async (request, reply) => {
    const file = await readStaticFile(rendererDir, (request.params as { '*': string })['*']);
    if (!file) throw new AppError('not_found', 'There is no such file in the UI.');
    reply.headers(UI_SECURITY_HEADERS).type(file.type).send(file.body);
  });

  return { available: true, url: () => (server.listeningPort ? uiUrl(server.url, token) : null) };
}
