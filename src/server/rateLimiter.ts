// Per-key token buckets: a burst is allowed, a sustained rate above `perSecond` is answered 429
// with Retry-After. The default is generous (a local tool paging fast is fine); it exists so that
// one runaway client cannot starve the others.
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 5000, burst: 10000 };

/**
 * Requests without a valid key share one bucket: a flood of them (a page guessing keys, a broken
 * script) is answered 429 before its keys are even looked up, and cannot take the CPU from callers
 * with a key. Generous enough that a person fixing a typo never meets it.
 */
export const DEFAULT_UNAUTHENTICATED_LIMIT: RateLimit = { perSecond: 50, burst: 100 };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  constructor(
    private readonly limit: RateLimit = DEFAULT_RATE_LIMIT,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** As take, without spending a token: 0 while the bucket has one, else the whole seconds to wait. */
  peek(key: string): number {
    const bucket = this.refill(key);
    return bucket.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
  }

  private refill(key: string): Bucket {
    const t = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, at: t };
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + ((t - bucket.at) / 1000) * this.limit.perSecond);
    bucket.at = t;
    this.buckets.set(key, bucket);
    return bucket;
  }

  /** 0 when the request may go ahead, else the whole seconds to wait. */
  take(key: string): number {
    const t = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, at: t };
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + ((t - bucket.at) / 1000) * this.limit.perSecond);
    bucket.at = t;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
  }
}

/**
 * A cap on requests being worked on at once (from the moment their key is checked, before any body
 * is read, until the response is written or the connection drops), over all callers and per key.
 * Past the overall cap a request is answered 503 `unavailable`, past its key's cap 429
 * `rate_limited`, both with Retry-After, at once: a burst of callers, or a client that stops reading
 * large answers, cannot pile up memory and work without bound or take every slot. Idle or half-sent
 * connections never reach a hook, so they do not count; the header, request and idle-socket
 * timeouts deal with those. Requests without a valid key or UI token have a budget of their own,
 * apart from and smaller than the overall cap (admission.ts), so they can never take its slots.
 */
export const DEFAULT_MAX_IN_FLIGHT = 256;
export const DEFAULT_MAX_IN_FLIGHT_PER_KEY = 16;
export const DEFAULT_MAX_IN_FLIGHT_KEYLESS = 32;

export class InFlightLimit {
  private readonly current = new Map<string, number>();
  constructor(readonly max: number = DEFAULT_MAX_IN_FLIGHT) {}

  /** A release function (safe to call more than once) for a free slot of `key`, or null when none is free. */
  acquire(key = ''): (() => void) | null {
    const n = this.current.get(key) ?? 0;
    if (n >= this.max) return null;
    this.current.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.current.get(key) ?? 1) - 1;
      if (left > 0) this.current.set(key, left);
      else this.current.delete(key);
    };
  }

  active(key = ''): number {
    return this.current.get(key) ?? 0;
  }
}
