// A replicated cluster on loopback for the tests: a ZooKeeper (Debian's zookeeperd package, run as
// its own process on a private port with its own data folder, not the system service) and four
// ClickHouse servers, two shards of two replicas, each with the cluster `two_by_two` in its
// remote_servers (internal_replication: a shard's replicas copy one another through ZooKeeper) and
// its own {shard} and {replica} macros. `.ci/run` installs zookeeperd.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, LOADER, startServer, stopServer, type LocalServer } from './localServers';

export const REPLICATED_CLUSTER = 'two_by_two';
const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';

export interface ReplicatedCluster {
  /** Shard 1's replicas, then shard 2's. */
  nodes: [LocalServer, LocalServer, LocalServer, LocalServer];
  stopNode(node: LocalServer): Promise<void>;
  stop(): Promise<void>;
}

export function zookeeperInstalled(): boolean {
  return existsSync(ZOOKEEPER_JAR) && existsSync('/usr/bin/java');
}

/** ZooKeeper's answer to a four-letter command, or '' when nothing answers yet. */
function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('connect', () => socket.write(command));
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(''));
  });
}

/**
 * Whether ZooKeeper opens a session: a client's ConnectRequest answered. "ruok" is answered before the
 * server takes sessions, and a ClickHouse 18.16 whose first handshake fails keeps a DDL worker without
 * ZooKeeper that crashes on the first ON CLUSTER query; so the servers start only after this says yes.
 */
function opensSession(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = Buffer.alloc(4 + 45);
    request.writeInt32BE(45, 0); // length; then protocol 0, last zxid 0, timeout, session 0, a 16-byte password, read-only false
    request.writeInt32BE(10_000, 4 + 4 + 8);
    request.writeInt32BE(16, 4 + 4 + 8 + 4 + 8);
    const socket = connect(port, '127.0.0.1');
    let received = 0;
    socket.on('connect', () => socket.write(request));
    socket.on('data', (d) => {
      received += d.length;
      socket.destroy();
    });
    socket.on('close', () => resolve(received > 0));
    socket.on('error', () => resolve(false));
  });
}

async function startZooKeeper(dir: string): Promise<{ port: number; process: ChildProcess }> {
  mkdirSync(join(dir, 'data'), { recursive: true });
  const port = await freePort();
  const config = join(dir, 'zoo.cfg');
  writeFileSync(
    config,
    `tickTime=500\ndataDir=${join(dir, 'data')}\nclientPort=${port}\nclientPortAddress=127.0.0.1\n` +
      'admin.enableServer=false\nmaxClientCnxns=500\n4lw.commands.whitelist=ruok\n',
  );
  const out = openSync(join(dir, 'zookeeper.log'), 'a');
  const child = spawn(
    '/usr/bin/java',
    ['-cp', `/etc/zookeeper/conf:${ZOOKEEPER_JAR}`, 'org.apache.zookeeper.server.ZooKeeperServerMain', config],
    {
      stdio: ['ignore', out, out],
    },
  );
  const deadline = Date.now() + 60_000;
  while ((await ask(port, 'ruok')) !== 'imok' || !(await opensSession(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`ZooKeeper in ${dir} did not start (see zookeeper.log).`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port, process: child };
}

export async function startReplicatedCluster(root: string): Promise<ReplicatedCluster> {
  if (!zookeeperInstalled())
    throw new Error(
      'ZooKeeper is not installed, so the replicated cluster cannot start: `apt-get install -y zookeeperd` (.ci/run does it).',
    );
  // As startLocalClickHouse does: a port found free can be taken by another test file's server before
  // ClickHouse binds it; then the whole cluster starts again on new ports (each node's port is in every
  // node's remote_servers, so one cannot move alone).
  for (let attempt = 1; ; attempt++) {
    try {
      return await startCluster(join(root, `attempt-${attempt}`));
    } catch (error) {
      if (attempt === 3 || !/Address already in use/.test(String((error as Error)?.message))) throw error;
    }
  }
}

async function startCluster(root: string): Promise<ReplicatedCluster> {
  const zookeeper = await startZooKeeper(join(root, 'zookeeper'));
  const tcp = [await freePort(), await freePort(), await freePort(), await freePort()];
  const replica = (port: number) =>
    `<replica><host>127.0.0.1</host><port>${port}</port><user>${LOADER.username}</user><password>${LOADER.password}</password></replica>`;
  const shard = (ports: number[]) => `<shard><internal_replication>true</internal_replication>${ports.map(replica).join('')}</shard>`;
  const remoteServers = `<${REPLICATED_CLUSTER}>${shard(tcp.slice(0, 2))}${shard(tcp.slice(2))}</${REPLICATED_CLUSTER}>`;
  const started: LocalServer[] = [];
  const stopAll = async () => {
    await Promise.all(started.map(stopServer));
    await new Promise<void>((resolve) => {
      if (zookeeper.process.exitCode !== null) return resolve();
      zookeeper.process.once('exit', () => resolve());
      zookeeper.process.kill('SIGTERM');
    });
  };
  try {
    const names = ['s1r1', 's1r2', 's2r1', 's2r2'];
    const results = await Promise.allSettled(
      names.map((name, i) =>
        startServer(root, name, null, tcp[i]!, false, {
          remoteServers,
          xml:
            `<zookeeper><node><host>127.0.0.1</host><port>${zookeeper.port}</port></node><session_timeout_ms>10000</session_timeout_ms></zookeeper>` +
            `<macros><shard>0${Math.floor(i / 2) + 1}</shard><replica>r${(i % 2) + 1}</replica></macros>`,
        }).then((server) => (started.push(server), server)),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const nodes = results.map((r) => (r as PromiseFulfilledResult<LocalServer>).value);
    return { nodes: nodes as ReplicatedCluster['nodes'], stopNode: stopServer, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
