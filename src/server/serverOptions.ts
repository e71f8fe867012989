// The HTTP server's limits and options, apart from apiServer.ts so that the OpenAPI document
// (openapi.ts), which states them, does not import the server it describes.
import type { RateLimit } from './rateLimiter';

export const BODY_LIMIT_BYTES = 256 * 1024;
export const LISTEN_HOST = '127.0.0.1';

export interface ApiServerOptions {
  allowedOrigins?: readonly string[];
  /** Per-key request rate; see rateLimiter.ts for the default. */
  rateLimit?: RateLimit;
  /** The rate of requests without a valid key, all together (rateLimiter.ts). */
  unauthenticatedLimit?: RateLimit;
  /** Whole-request and idle-socket limits, so slow or idle clients cannot hold the server. */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** How often Node checks the two timeouts above (its own default, 30 s, would let them overrun). */
  timeoutCheckIntervalMs?: number;
  /** Requests with a valid key (or UI token) worked on at once; past it, 503 `unavailable` (see rateLimiter.ts). */
  maxInFlight?: number;
  /** Requests without one worked on at once, counted apart (admission.ts); past it, 503 `unavailable`. */
  maxInFlightKeyless?: number;
  /** How long a request without a valid key may be worked on before its connection is closed. */
  keylessTimeoutMs?: number;
  /** Requests one key may have in flight at once; past it, 429 `rate_limited`. */
  maxInFlightPerKey?: number;
  /** A socket that makes no progress for this long (e.g. a client that stopped reading an answer) is closed. */
  idleSocketTimeoutMs?: number;
}
