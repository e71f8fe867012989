// Local ClickHouse servers for the tests and benchmarks (bench/clickhouse/startServers.ts starts
// them by hand): one single node, and two shards that a cluster named `two_shards` (remote_servers)
// joins. Each server gets its own folder (data, logs,
// a config derived from the packaged defaults: paths, ports and listen_host changed) and listens on
// 127.0.0.1 only. Needs Debian's clickhouse-server (18.16); `.ci/run` installs it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const CLICKHOUSE_SERVER = process.env.CLICKHOUSE_SERVER_BIN ?? '/usr/bin/clickhouse';
export const CLUSTER_NAME = 'two_shards';

/** The serving user: read-only (readonly=2, so the client may still send per-query settings), with a password. */
export const READER = { username: 'reader', password: 'reader-secret-0a9f' };
/** The loading user: may create, insert and rename tables; loopback only. */
export const LOADER = { username: 'loader', password: 'loader-secret-77c1' };

export interface LocalServer {
  name: string;
  url: string;
  /** The single node also answers https on this address, with a certificate signed by `caCertificate`. */
  httpsUrl?: string;
  /** The test CA's certificate (PEM file) that signed the https certificate. */
  caCertificate?: string;
  httpPort: number;
  tcpPort: number;
  dir: string;
  process: ChildProcess;
}

export interface LocalClickHouse {
  single: LocalServer;
  shards: [LocalServer, LocalServer];
  stop(): Promise<void>;
}

/** Whether the packaged server is installed; the caller decides what its absence means. */
export function clickHouseInstalled(): boolean {
  return existsSync(CLICKHOUSE_SERVER) || existsSync('/usr/sbin/clickhouse-server');
}

function serverCommand(): { command: string; args: string[] } {
  if (existsSync('/usr/sbin/clickhouse-server')) return { command: '/usr/sbin/clickhouse-server', args: [] };
  return { command: CLICKHOUSE_SERVER, args: ['server'] };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

const sha256Hex = async (text: string): Promise<string> => (await import('node:crypto')).createHash('sha256').update(text).digest('hex');

/**
 * A throw-away CA and a certificate it signs for 127.0.0.1, made with openssl: the https test needs a
 * certificate that a client trusts only when given this CA, as with a company's own CA.
 */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=Audience Desk test CA',
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.crt'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.crt'),
    '-days',
    '2',
    '-extfile',
    at('san.ext'),
  );
  return { ca: at('ca.crt'), cert: at('server.crt'), key: at('server.key') };
}

function tlsXml(httpsPort: number, tls: { cert: string; key: string }): string {
  return `<https_port>${httpsPort}</https_port>
  <openSSL><server><certificateFile>${tls.cert}</certificateFile><privateKeyFile>${tls.key}</privateKeyFile><verificationMode>none</verificationMode><loadDefaultCAFile>false</loadDefaultCAFile><cacheSessions>true</cacheSessions><disableProtocols>sslv2,sslv3</disableProtocols><preferServerCiphers>true</preferServerCiphers></server></openSSL>`;
}

function configXml(
  dir: string,
  ports: { http: number; tcp: number; interserver: number; https?: number },
  shards: Array<{ tcp: number }>,
  tls?: { cert: string; key: string },
  extra?: ServerExtras,
): string {
  const shardXml = shards
    .map(
      (s) =>
        `<shard><replica><host>127.0.0.1</host><port>${s.tcp}</port><user>${LOADER.username}</user><password>${LOADER.password}</password></replica></shard>`,
    )
    .join('');
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/server.err.log</errorlog><size>10M</size><count>2</count></logger>
  <http_port>${ports.http}</http_port>
  ${ports.https && tls ? tlsXml(ports.https, tls) : ''}
  <tcp_port>${ports.tcp}</tcp_port>
  <interserver_http_port>${ports.interserver}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>256</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>64</max_concurrent_queries>
  <uncompressed_cache_size>1073741824</uncompressed_cache_size>
  <mark_cache_size>536870912</mark_cache_size>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <remote_servers>${extra?.remoteServers ?? `<${CLUSTER_NAME}>${shardXml}</${CLUSTER_NAME}>`}</remote_servers>
  ${extra?.xml ?? ''}
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
  <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
  <query_log><database>system</database><table>query_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>
  <part_log><database>system</database><table>part_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></part_log>
</yandex>
`;
}

// The default profile also allows LowCardinality: 18.16's distributed DDL (ON CLUSTER) runs a CREATE on
// each node with the server's default profile, not the query's settings (docs/clickhouse.md).
async function usersXml(): Promise<string> {
  const local = '<networks><ip>127.0.0.1</ip><ip>::1</ip></networks>';
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>4000000000</max_memory_usage><use_uncompressed_cache>0</use_uncompressed_cache><load_balancing>random</load_balancing><log_queries>1</log_queries><allow_experimental_low_cardinality_type>1</allow_experimental_low_cardinality_type></default>
    <reader><readonly>2</readonly><max_memory_usage>4000000000</max_memory_usage></reader>
  </profiles>
  <users>
    <default><password_sha256_hex>${await sha256Hex(LOADER.password + '-default')}</password_sha256_hex>${local}<profile>default</profile><quota>default</quota></default>
    <${LOADER.username}><password_sha256_hex>${await sha256Hex(LOADER.password)}</password_sha256_hex>${local}<profile>default</profile><quota>default</quota></${LOADER.username}>
    <${READER.username}><password_sha256_hex>${await sha256Hex(READER.password)}</password_sha256_hex>${local}<profile>reader</profile><quota>default</quota></${READER.username}>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
}

async function waitForPing(url: string, child: ChildProcess, dir: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      // Bounded: a port another process took between freePort and the server's bind may hold a
      // listener that never answers HTTP (a native-protocol port), and an unbounded fetch waits forever.
      const res = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const errors = existsSync(`${dir}/log/server.err.log`) ? readFileSync(`${dir}/log/server.err.log`, 'utf8').slice(-2000) : '';
  const stderr = existsSync(`${dir}/log/stderr.log`) ? readFileSync(`${dir}/log/stderr.log`, 'utf8').slice(-2000) : '';
  throw new Error(`ClickHouse in ${dir} did not answer /ping (exit ${child.exitCode}):\n${errors}\n${stderr}`);
}

/** What a server of another topology (replicatedCluster.ts) adds to the config: its clusters, ZooKeeper, macros. */
export interface ServerExtras {
  /** The inside of <remote_servers>, replacing the two-shard cluster. */
  remoteServers?: string;
  /** More top-level elements. */
  xml?: string;
}

export async function startServer(
  root: string,
  name: string,
  shardPorts: Array<{ tcp: number }> | null,
  tcp: number,
  withHttps = false,
  extra?: ServerExtras,
): Promise<LocalServer> {
  const dir = join(root, name);
  for (const sub of ['data', 'tmp', 'user_files', 'format_schemas', 'log']) mkdirSync(join(dir, sub), { recursive: true });
  const ports = { http: await freePort(), tcp, interserver: await freePort(), https: withHttps ? await freePort() : undefined };
  const tls = withHttps ? makeCertificates(dir) : undefined;
  writeFileSync(join(dir, 'config.xml'), configXml(dir, ports, shardPorts ?? [], tls, extra));
  writeFileSync(join(dir, 'users.xml'), await usersXml());
  const { command, args } = serverCommand();
  const out = openSync(join(dir, 'log', 'stderr.log'), 'a');
  const child = spawn(command, [...args, `--config-file=${join(dir, 'config.xml')}`], {
    cwd: dir,
    stdio: ['ignore', out, out],
    detached: false,
  });
  const url = `http://127.0.0.1:${ports.http}`;
  await waitForPing(url, child, dir);
  const https = tls && ports.https ? { httpsUrl: `https://127.0.0.1:${ports.https}`, caCertificate: tls.ca } : {};
  return { name, url, httpPort: ports.http, tcpPort: ports.tcp, dir, process: child, ...https };
}

export function stopServer(server: LocalServer): Promise<void> {
  return new Promise((resolve) => {
    if (server.process.exitCode !== null) return resolve();
    const timer = setTimeout(() => server.process.kill('SIGKILL'), 10_000);
    server.process.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    server.process.kill('SIGTERM');
  });
}

/** Starts the single node and the two shards (each shard's remote_servers names both) under `root`. */
export async function startLocalClickHouse(root: string): Promise<LocalClickHouse> {
  if (!clickHouseInstalled())
    throw new Error(
      'clickhouse-server is not installed: `apt-get install -y clickhouse-server clickhouse-client` (Debian 12), as .ci/run does.',
    );
  // A free port is found by binding and closing it, so another process (a test file starting its own
  // servers at the same moment) can take it before ClickHouse binds it: then start all three again on
  // new ports (a shard's port is also in the other shard's remote_servers, so one cannot move alone).
  for (let attempt = 1; ; attempt++) {
    const tcp = [await freePort(), await freePort(), await freePort()];
    const cluster = [{ tcp: tcp[1]! }, { tcp: tcp[2]! }];
    const names = ['single', 'shard1', 'shard2'];
    const results = await Promise.allSettled(names.map((name, i) => startServer(root, name, cluster, tcp[i]!, name === 'single')));
    const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (!failed) {
      const [single, shard1, shard2] = started as [LocalServer, LocalServer, LocalServer];
      return { single, shards: [shard1, shard2], stop: async () => void (await Promise.all(started.map(stopServer))) };
    }
    await Promise.all(started.map(stopServer));
    if (attempt === 3 || !/Address already in use/.test(String((failed.reason as Error)?.message))) throw failed.reason;
    for (const name of names) rmSync(join(root, name), { recursive: true, force: true });
  }
}
