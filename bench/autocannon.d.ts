// The little of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    requests?: Array<{ method?: string; path?: string; body?: string }>;
  }
  interface Result {
    requests: { average: number; total: number };
    latency: { p99: number };
    non2xx: number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
