// The loopback HTTP API (Fastify): the two audience operations, the data dictionary, health and the
// OpenAPI document, every answer in the one error shape of decisions.md. It listens on 127.0.0.1 only.
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError, isAppError, type ErrorCode } from '../shared/errors';
import type { Core } from '../core/createCore';
import { keyHash, type VerifiedKey } from '../core/keys/keyStore';
import { AnswerBuffers } from './answerBuffers';
import { searchAnswerJson } from './searchAnswer';
import { normalizeAudienceRequest } from '../shared/audienceRequest';
import { normalizeProfileRequest } from '../shared/profile';
import { normalizeOverlapRequest } from '../shared/overlap';
import { DATA_DICTIONARY } from '../shared/dictionary';
import { buildOpenApiDocument } from './openapi';
import { answerClientError, checkContentEncoding, checkHost, checkJsonContentType, checkOrigin, loggablePath } from './requestGuards';
import { DEFAULT_MAX_IN_FLIGHT_PER_KEY, DEFAULT_UNAUTHENTICATED_LIMIT, InFlightLimit, RateLimiter } from './rateLimiter';
import { Admission, closeIfBodyUnread, wantsContinue } from './admission';
import { parseJsonBody } from './jsonBody';
import { RequestLog, type RequestLogEntry } from './requestLog';
import { BODY_LIMIT_BYTES, LISTEN_HOST, type ApiServerOptions } from './serverOptions';
import { warmRequestBodies } from './warmRequestPath';
import { warmThroughSocket, type RequestHandler, type WarmRequest } from './warmSocket';

export { BODY_LIMIT_BYTES, LISTEN_HOST, type ApiServerOptions } from './serverOptions';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: VerifiedKey;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';
const UNAUTHENTICATED = '';

/** The headers of every answer; set here too for errors answered before the onRequest hook ran (the router's). */
function apiHeaders(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store');
  reply.header('X-Content-Type-Options', 'nosniff');
}

/** Why each refused request was refused, for the request log (its code and message: never a body, record data or a key). */
const refusals = new WeakMap<object, AppError>();

function sendError(reply: FastifyReply, error: AppError): void {
  refusals.set(reply.raw, error);
  apiHeaders(reply);
  reply.code(error.status).type(JSON_TYPE).send(JSON.stringify(error.toBody()));
}

const TOO_LARGE = `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB.`;

/** The refusal of a request answered with an error, as the request log keeps it. */
function refusalOf(reply: FastifyReply): Pick<RequestLogEntry, 'error'> {
  const error = refusals.get(reply.raw);
  if (!error) return {};
  return { error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) } };
}

/** Who warmUp()'s keyed requests are: no key of the store (request.apiKey is only read for the request log, which skips them). */
const WARM_UP_KEY: VerifiedKey = { id: '(warm-up)', name: '(warm-up)' };

/** Maps Fastify's own body errors onto decisions.md's codes; anything unknown is internal. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const code = (error as { code?: string }).code;
  const status = (error as { statusCode?: number }).statusCode;
  const byCode: Record<string, [ErrorCode, string]> = {
    FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', TOO_LARGE],
    FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.'],
    FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'The request body is empty; send a JSON object.'],
  };
  const known = code ? byCode[code] : undefined;
  if (known) return new AppError(known[0], known[1]);
  if (status === 400) return new AppError('invalid_request', 'The request could not be read.');
  return new AppError('internal_error', 'The service failed unexpectedly; try again.');
}

export class ApiServer {
  readonly app: FastifyInstance;
  readonly requestLog = new RequestLog();
  private readonly rateLimiter: RateLimiter;
  private readonly unauthenticated: RateLimiter;
  private activeKeys = { hashes: new Set<string>(), at: -Infinity, changes: -1 };
  private readonly admission: Admission;
  private readonly keyInFlight: InFlightLimit;
  /** Search answers are written into kept buffers (answerBuffers.ts says why). */
  readonly answerBuffers = new AnswerBuffers();
  private readonly originRules: Array<(path: string, port: number) => readonly string[]> = [];
  private port = 0;
  /** While warmUp() runs, before listen: its requests are neither logged nor counted against the keyless limit. */
  private warming = false;
  /**
   * The credential of warmUp()'s own keyed requests: random, made for one warm-up and dropped after
   * it, and taken only while warming, which is only before the server listens: the one socket then is
   * the warm-up's own, private to this user (warmSocket.ts), so no one else can present it. No key of
   * the key store is used or marked as used.
   */
  private warmToken: string | null = null;

  constructor(
    private readonly core: Core,
    private readonly options: ApiServerOptions = {},
  ) {
    this.rateLimiter = new RateLimiter(options.rateLimit);
    this.unauthenticated = new RateLimiter(options.unauthenticatedLimit ?? DEFAULT_UNAUTHENTICATED_LIMIT);
    this.admission = new Admission(options);
    this.keyInFlight = new InFlightLimit(options.maxInFlightPerKey ?? DEFAULT_MAX_IN_FLIGHT_PER_KEY);
    this.app = Fastify({
      logger: false,
      bodyLimit: BODY_LIMIT_BYTES,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      connectionTimeout: options.idleSocketTimeoutMs ?? 30_000,
      http: {
        headersTimeout: options.headersTimeoutMs ?? 10_000,
        connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 1_000,
        // An HTTP/1.1 request without Host is refused by checkHost, in the envelope, not by Node's bare 400.
        requireHostHeader: false,
      },
      clientErrorHandler: answerClientError,
      // A path that is not a valid URL (e.g. `/api/%ff`) is refused by the router itself: same envelope.
      frameworkErrors: (_error, request, reply) => {
        closeIfBodyUnread(request, reply);
        sendError(reply, new AppError('invalid_request', 'The request path is not a valid URL.'));
      },
      return503OnClosing: true,
    });
    // With a 'checkContinue' listener Node sends no `100 Continue` by itself: the preParsing hook sends
    // it once key, rate limit, media type, in-flight cap and size have passed, so a refused request
    // never invites its body. Any other expectation is ignored (RFC 9110, 10.1.1) rather than answered
    // with Node's bare 417.
    this.app.server.on('checkContinue', (req, res) => this.app.routing(req, res));
    this.app.server.on('checkExpectation', (req, res) => this.app.routing(req, res));
    this.installParsers();
    this.installHooks();
    this.installRoutes();
  }

  private installParsers(): void {
    this.app.removeAllContentTypeParsers();
    this.app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (error) {
        done(error as AppError, undefined);
      }
    });
    // Any other media type is refused by the route hook before its body is read; this only
    // keeps Fastify from answering in its own words.
    this.app.addContentTypeParser('*', (_req, _payload, done) =>
      done(new AppError('unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.'), undefined),
    );
  }

  private installHooks(): void {
    const allowed = this.options.allowedOrigins ?? [];
    const notFound = (request: FastifyRequest) =>
      new AppError('not_found', `There is no ${request.method} ${request.url.split('?')[0]!.slice(0, 100)}.`);
    this.app.addHook('onRequest', async (request, reply) => {
      apiHeaders(reply);
      checkHost(request.headers.host, this.port, request.raw.rawHeaders, request.raw.httpVersion);
      const origin = request.headers.origin;
      const site = request.headers['sec-fetch-site'];
      const path = request.url.split('?')[0]!;
      const extra = this.originRules.flatMap((rule) => rule(path, this.port));
      checkOrigin(
        typeof origin === 'string' ? origin : undefined,
        typeof site === 'string' ? site : undefined,
        extra.length ? [...allowed, ...extra] : allowed,
      );
      // Here rather than in the not-found handler, which Fastify runs only after reading the body.
      if (request.is404) throw notFound(request);
    });
    // After every route's own key or token check, before any body is read; then, for a client that
    // waits for it, the size it announced and `100 Continue`.
    this.app.addHook('preParsing', async (request, reply) => {
      this.admission.admit(request, reply);
      if (!wantsContinue(request)) return;
      if (Number(request.headers['content-length']) > BODY_LIMIT_BYTES) throw new AppError('payload_too_large', TOO_LARGE);
      reply.raw.writeContinue();
    });
    this.app.addHook('onSend', async (request, reply, payload) => {
      closeIfBodyUnread(request, reply);
      return payload;
    });
    this.app.addHook('onResponse', async (request, reply) => {
      // A warm-up's answer of 100 records can finish here after warmUp() has returned (its client read
      // the last byte first): its credential still says whose it was.
      if (this.warming || request.apiKey === WARM_UP_KEY || !request.url.startsWith('/api/')) return;
      this.requestLog.add({
        at: new Date().toISOString(),
        keyName: request.apiKey?.name ?? null,
        operation: `${request.method} ${request.routeOptions.url ?? loggablePath(request.url.split('?')[0]!)}`,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...refusalOf(reply),
      });
    });
    this.app.setErrorHandler((error, _request, reply) => sendError(reply, toAppError(error)));
    this.app.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)));
  }

  /** Key check before the body is read: an unauthenticated caller costs us nothing. */
  private authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    this.verifyKey(request, reply);
    checkJsonContentType(request.headers['content-type']);
    checkContentEncoding(request.headers['content-encoding'], reply);
  };

  /**
   * Whether a presented key may be valid: its hash is an active key's. The hashes are read again when
   * one is missing and the copy is 100 ms old, so a key made by another process a moment ago is found
   * while a flood of bad keys costs at most ten reads a second.
   */
  private mayBeValid(presented: string | undefined): boolean {
    if (!presented) return false;
    const hash = keyHash(presented);
    const keys = this.core.keys;
    if (this.activeKeys.changes === keys.changes && this.activeKeys.hashes.has(hash)) return true;
    const now = performance.now();
    // Keys made here are known at once; keys another process made, within 100 ms.
    if (this.activeKeys.changes === keys.changes && now - this.activeKeys.at < 100) return false;
    this.activeKeys = { hashes: keys.activeHashes(), at: now, changes: keys.changes };
    return this.activeKeys.hashes.has(hash);
  }

  /** The key and its rate limits, for every keyed route (a GET has no body, so no content type to check). */
  private verifyKey = (request: FastifyRequest, reply: FastifyReply): void => {
    const header = request.headers['x-api-key'];
    const presented = typeof header === 'string' ? header : undefined;
    if (this.warming && this.warmToken !== null && presented === this.warmToken) {
      request.apiKey = WARM_UP_KEY;
      this.admission.markCredentialed(request);
      return;
    }
    // While requests without a valid key are over their limit, only a key that may be valid is looked
    // up: a flood of bad keys costs a hash each, and every real key, new ones included, is served.
    if (this.unauthenticated.peek(UNAUTHENTICATED) > 0 && !this.mayBeValid(presented)) {
      const wait = this.unauthenticated.peek(UNAUTHENTICATED);
      reply.header('Retry-After', String(wait));
      throw new AppError('rate_limited', `Too many requests without a valid key; retry in ${wait} s.`);
    }
    const key = this.core.keys.verify(presented);
    if (!key) {
      if (!this.warming) this.unauthenticated.take(UNAUTHENTICATED);
      throw new AppError('unauthorized', 'A valid X-API-KEY header is required.');
    }
    request.apiKey = key;
    const wait = this.rateLimiter.take(key.id);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      throw new AppError('rate_limited', `Too many requests with this key; retry in ${wait} s.`);
    }
    const release = this.keyInFlight.acquire(key.id);
    if (!release) {
      reply.header('Retry-After', '1');
      throw new AppError('rate_limited', 'Too many requests with this key at once; wait for the answers you asked for, then retry.');
    }
    reply.raw.once('close', release);
    this.admission.markCredentialed(request);
  };

  /**
   * For a check of another credential on this instance (browser mode's UI token), once it has passed:
   * the request is then worked on under the main in-flight cap and its body may be read.
   */
  markCredentialed(request: FastifyRequest): void {
    this.admission.markCredentialed(request);
  }

  private installRoutes(): void {
    const app = this.app;
    // Refused in onRequest: a handler would run only after Fastify read the body.
    const methodNotAllowed = (allow: string) => ({
      onRequest: async (_req: FastifyRequest, reply: FastifyReply) => {
        reply.header('Allow', allow);
        throw new AppError('method_not_allowed', `Use ${allow} for this path.`);
      },
      handler: async () => undefined,
    });
    const others = (allowed: string[]) =>
      ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].filter((m) => !allowed.includes(m)) as never[];

    // Both operations: the body checked by decisions.md's rules, then the audience service.
    app.post('/api/audiences/preview', { onRequest: this.authenticate }, async (request, reply) => {
      const { total, results } = await this.core.audiences.preview(normalizeAudienceRequest(request.body));
      reply.type(JSON_TYPE).send(JSON.stringify({ total, results }));
    });
    app.post('/api/audiences/search', { onRequest: this.authenticate }, async (request, reply) => {
      const answer = await this.core.audiences.search(normalizeAudienceRequest(request.body));
      let kept: Buffer | undefined;
      const body = searchAnswerJson(answer, (size) => (kept = this.answerBuffers.take(size)));
      if (kept) this.answerBuffers.returnAfter(kept, reply.raw);
      reply.type(JSON_TYPE).send(body);
    });
    // extensions.md: the profile of an audience against everyone in its state (docs/insight.md).
    app.post('/api/audiences/profile', { onRequest: this.authenticate }, async (request, reply) => {
      const { audience, fields } = normalizeProfileRequest(request.body);
      const { total, base, fields: counted } = await this.core.audiences.profile(audience, fields);
      reply.type(JSON_TYPE).send(JSON.stringify({ total, base, fields: counted }));
    });
    // Overlap of 2 to 5 saved audiences, lists or exports of one state (docs/insight.md).
    app.post('/api/audiences/overlap', { onRequest: this.authenticate }, async (request, reply) => {
      const { ms: _ms, ...answer } = await this.core.audiences.overlap(normalizeOverlapRequest(request.body));
      reply.type(JSON_TYPE).send(JSON.stringify(answer));
    });
    for (const url of ['/api/audiences/preview', '/api/audiences/search', '/api/audiences/profile', '/api/audiences/overlap'])
      app.route({ method: others(['POST']), url, ...methodNotAllowed('POST') });

    // The data dictionary (extensions.md): the same for every request, so built once.
    const fieldsJson = JSON.stringify({
      fields: DATA_DICTIONARY.map(({ name, label, group, type, description, values }) => ({
        name,
        label,
        group,
        type,
        description,
        values,
      })),
    });
    app.get('/api/fields', { onRequest: async (request, reply) => this.verifyKey(request, reply) }, async (_request, reply) => {
      reply.type(JSON_TYPE).send(fieldsJson);
    });
    app.route({ method: others(['GET', 'HEAD']), url: '/api/fields', ...methodNotAllowed('GET') });

    app.get('/api/health', async (_request, reply) => {
      const { records } = await this.core.audiences.summary();
      reply.type(JSON_TYPE).send(JSON.stringify({ status: 'ok', records }));
    });
    app.get('/api/openapi.json', async (_request, reply) => {
      reply.type(JSON_TYPE).send(JSON.stringify(buildOpenApiDocument(this.url, this.options)));
    });
    for (const url of ['/api/health', '/api/openapi.json']) app.route({ method: others(['GET', 'HEAD']), url, ...methodNotAllowed('GET') });
  }

  /** Lets a plugin on this instance allow more origins on its own paths (browser mode: the UI's own origin on /ui/*). */
  allowOrigins(rule: (path: string, port: number) => readonly string[]): void {
    this.originRules.push(rule);
  }

  /**
   * Before it listens: requests of its own through the whole request path, so the first real ones
   * do not compile it. One without a key (routing, the hooks, the refusal and its reply: ~5 ms of a
   * first page at 10M); then, on a dataset file, the start-up's searches and count (warmRequestBodies)
   * under a one-time credential (warmToken): the body's parse and checks, the handlers, the answer's
   * JSON and its reply, which California's very first page at 30M paid for (~10 ms of it,
   * docs/performance.md). They go through a private socket served by this server's own handler
   * (warmSocket.ts), not inject(), so Node's HTTP path is compiled too. None is logged, counts
   * against a limit or marks a key as used; their answers are dropped. Never once the server listens.
   */
  async warmUp(): Promise<void> {
    if (this.app.server.listening) return;
    this.warming = true;
    const headers = { host: `127.0.0.1:${this.port}`, 'content-type': 'application/json' };
    try {
      await this.app.ready();
      const requests: WarmRequest[] = [{ url: '/api/audiences/search', headers, payload: '{}' }];
      const bodies = await warmRequestBodies(this.core).catch(() => undefined);
      if (bodies) {
        this.warmToken = randomBytes(32).toString('base64url');
        const keyed = { ...headers, 'x-api-key': this.warmToken };
        requests.push(
          { url: '/api/audiences/search', headers: keyed, payload: JSON.stringify(bodies.first) },
          { url: '/api/audiences/preview', headers: keyed, payload: JSON.stringify({ ...bodies.first, limit: 0 }) },
          // An answer of 100 full records (~0.8 MB) goes out in many writes, a path of its own.
          { url: '/api/audiences/search', headers: keyed, payload: JSON.stringify(bodies.deep) },
        );
      }
      // Best effort: a socket that cannot be made (a temporary folder not writable) leaves the first
      // real request to compile the path, as before any warm-up.
      await warmThroughSocket(this.app.server.listeners('request')[0] as RequestHandler, requests).catch(() => undefined);
    } finally {
      this.warming = false;
      this.warmToken = null;
    }
  }

  /** Listens on 127.0.0.1 (never another interface); returns the base URL with the real port. */
  async listen(port = 0): Promise<string> {
    await this.app.listen({ host: LISTEN_HOST, port });
    const address = this.app.server.address();
    this.port = typeof address === 'object' && address ? address.port : port;
    return this.url;
  }

  get url(): string {
    return `http://${LISTEN_HOST}:${this.port}`;
  }

  get listeningPort(): number {
    return this.port;
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}
