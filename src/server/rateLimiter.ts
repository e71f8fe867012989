// Per-key token buckets: a burst is allowed, a sustained rate above `perSecond` is answered 429
// with Retry-After. The default is generous (a local tool paging fast is fine); it exists so that
// one runaway client cannot starve the others.
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 5000, burst: 10000 };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  constructor(private readonly limit: RateLimit = DEFAULT_RATE_LIMIT, private readonly now: () => number = () => performance.now()) {}

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
