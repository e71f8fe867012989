// Which in-flight cap a request is worked on under, chosen only once its route's own key or UI-token
// check has run (Fastify's preParsing stage: after every onRequest hook, just before a body would be
// read). A request that passed such a check takes a slot of the main cap. Any other (health, the
// OpenAPI document, the UI's page files) takes a slot of a separate, smaller keyless budget, for a
// short time only, and never has a body read. Everything refused earlier (Host, Origin, 404, 405,
// 401, 429) is answered at once and takes no slot. So requests without a key, however many and however
// slowly they send, cannot take the slots callers with a key need (issue 39).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_KEYLESS, InFlightLimit } from './rateLimiter';

/** Long enough for health on a slow ClickHouse; a third of the whole-request limit callers with a key get. */
export const DEFAULT_KEYLESS_TIMEOUT_MS = 10_000;

export interface AdmissionLimits {
  maxInFlight?: number;
  maxInFlightKeyless?: number;
  keylessTimeoutMs?: number;
}

// Fastify never reads a body for these.
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/** Whether a request announces a body: a length other than 0, or chunks. */
export function declaresBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

// Node's own test for the expectation (lib/_http_server.js): the token anywhere in the field, any case.
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * Whether the request waits for `100 Continue` before sending the body it announced, and that body
 * would be read (Node asks this server, through its 'checkContinue' event, instead of sending 100 at
 * once; the answer comes from the preParsing hook, once every check but the body's own has passed).
 */
export function wantsContinue(request: FastifyRequest): boolean {
  const expect = request.headers.expect;
  return (
    request.raw.httpVersion === '1.1' &&
    typeof expect === 'string' &&
    CONTINUE.test(expect) &&
    !BODYLESS.has(request.method) &&
    declaresBody(request)
  );
}

/**
 * An answer sent before the body the request announced has all arrived is the connection's last:
 * otherwise Node would go on reading (and discarding) that body to keep the connection alive, and a
 * client that sends it a byte at a time would hold the socket until the request timeout.
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (declaresBody(request) && !request.raw.complete) reply.header('Connection', 'close');
}

export class Admission {
  private readonly keyed: InFlightLimit;
  private readonly keyless: InFlightLimit;
  private readonly credentialed = new WeakSet<FastifyRequest>();
  private readonly keylessTimeoutMs: number;

  constructor(limits: AdmissionLimits = {}) {
    this.keyed = new InFlightLimit(limits.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    // A server set up for less work overall allows no more keyless work than that either.
    this.keyless = new InFlightLimit(limits.maxInFlightKeyless ?? Math.min(DEFAULT_MAX_IN_FLIGHT_KEYLESS, this.keyed.max));
    this.keylessTimeoutMs = limits.keylessTimeoutMs ?? DEFAULT_KEYLESS_TIMEOUT_MS;
  }

  /** For a route's own key or token check, once the request has passed it. */
  markCredentialed(request: FastifyRequest): void {
    this.credentialed.add(request);
  }

  /** The preParsing hook: a slot of the request's cap, or 503 `unavailable` with Retry-After. */
  admit(request: FastifyRequest, reply: FastifyReply): void {
    const keyed = this.credentialed.has(request);
    // No route without a key check takes a body today; should one appear, its body still stays unread.
    if (!keyed && !BODYLESS.has(request.method) && declaresBody(request))
      throw new AppError('unauthorized', 'A valid X-API-KEY header is required to send a request body.');
    const release = (keyed ? this.keyed : this.keyless).acquire();
    if (!release) {
      reply.header('Retry-After', '1');
      throw new AppError('unavailable', 'The server is busy with other requests; retry in a moment.');
    }
    reply.raw.once('close', release);
    if (keyed) return;
    // Every keyless answer is quick: one that is not yet written by now is held on purpose (a client
    // that does not read it, say), so its connection is closed, and its slot with it.
    const timer = setTimeout(() => request.raw.socket.destroy(), this.keylessTimeoutMs);
    reply.raw.once('close', () => clearTimeout(timer));
  }
}
