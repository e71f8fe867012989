// Concurrent HTTP load on the real server (`serve` in a child process): 16 connections for 10 s,
// mixed preview and search requests at varied skips, measured with autocannon. Besides requests/s
// it reports the CPU each side spent per request (server: its process tree from /proc; load
// generator: this process), because on a shared 2-core machine requests/s is noisy and the
// generator competes with the server for the same cores.
import { execFileSync, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { processTreeCpuMs } from './processCpu';

export interface HttpResult {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  startupMs: number;
  requests: number;
  /** Server CPU (user + system, all its threads) per answered request, in ms; null without /proc. */
  serverCpuMsPerRequest: number | null;
  /** The load generator's CPU per request, in ms (it runs in this process). */
  loadGeneratorCpuMsPerRequest: number;
}

export interface HttpLoadOptions {
  seconds?: number;
  connections?: number;
  /** Extra NODE_OPTIONS for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
  serverNodeOptions?: string;
}

export async function httpLoad(datasetPath: string, home: string, options: HttpLoadOptions = {}): Promise<HttpResult> {
  const { seconds = 10, connections = 16 } = options;
  const key = execFileSync('tsx', ['src/cli/index.ts', 'keys', 'create', '--name', 'bench', '--home', home], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  const started = performance.now();
  const env = options.serverNodeOptions
    ? { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${options.serverNodeOptions}` }
    : process.env;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/index.ts', 'serve', '--db', datasetPath, '--port', '0', '--home', home],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /api: (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    await fetch(`${url}/api/health`);
    const startupMs = performance.now() - started;
    const seed = [
      ['GENDER', ['F']],
      ['MARRIEDCD', ['M']],
      ['AGE', ['20-24', '25-29', '45-49']],
    ];
    const bodies = [
      ...[0, 500, 2000, 8000].map((skip) => ({ path: '/api/audiences/preview', body: { state: 'CA', limit: 50, skip, filters: seed } })),
      ...[0, 3000, 20000, 60000].map((skip) => ({ path: '/api/audiences/preview', body: { state: 'CA', limit: 50, skip } })),
      // Search at the API's default page size: a full record is ~8 KB of JSON, so page size, not
      // the engine, sets the cost of a search request (100 records = 0.8 MB; docs/performance.md).
      ...[0, 5000].map((skip) => ({ path: '/api/audiences/search', body: { state: 'TX', limit: 25, skip, filters: seed.slice(0, 2) } })),
      {
        path: '/api/audiences/preview',
        body: {
          state: 'NY',
          limit: 0,
          filters: [
            ['CPI_TRAVEL_INDEX', ['5-9']],
            ['CT_STRMSUB_SVC1', ['Y']],
          ],
        },
      },
    ];
    const serverCpuBefore = processTreeCpuMs(child.pid!);
    const ownCpuBefore = process.cpuUsage();
    const result = await autocannon({
      url,
      connections,
      duration: seconds,
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      requests: bodies.map((b) => ({ method: 'POST', path: b.path, body: JSON.stringify(b.body) })),
    });
    const ownCpu = process.cpuUsage(ownCpuBefore);
    const serverCpuAfter = processTreeCpuMs(child.pid!);
    const requests = result.requests.total;
    return {
      requestsPerSecond: result.requests.average,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      startupMs,
      requests,
      serverCpuMsPerRequest: serverCpuBefore !== null && serverCpuAfter !== null ? (serverCpuAfter - serverCpuBefore) / requests : null,
      loadGeneratorCpuMsPerRequest: (ownCpu.user + ownCpu.system) / 1000 / requests,
    };
  } finally {
    child.kill('SIGTERM');
    // Give the server a moment to exit (and write a CPU profile when asked for one).
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      setTimeout(resolve, 5000).unref();
    });
  }
}
