// `cli clickhouse load|check`: put a dataset file into a ClickHouse server (atomically: the previous
// table serves until the new one is complete) and test a connection. Credentials come from the
// environment or --credentials FILE (src/core/clickhouse/credentials.ts), never from arguments.
import { resolve } from 'node:path';
import { ClickHouseEngine } from '../../core/clickhouse/clickhouseEngine';
import { ClickHouseConnection, DEFAULT_DATABASE, type ClickHouseTarget } from '../../core/clickhouse/connection';
import { readCredentials } from '../../core/clickhouse/credentials';
import { loadIntoClickHouse } from '../../core/clickhouse/load';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { parse, required, UsageError } from '../args';

const TARGET = {
  url: { type: 'string' },
  database: { type: 'string' },
  credentials: { type: 'string' },
  'ca-cert': { type: 'string' },
  'fallback-urls': { type: 'string' },
} as const;

/**
 * The server, database, credentials and CA of --url, --database, --credentials (or the environment) and
 * --ca-cert; --fallback-urls names other nodes of the same cluster, asked when the first does not answer.
 */
export function clickhouseTarget(values: Record<string, string | undefined>, urlOption = 'url'): ClickHouseTarget {
  const fallbackUrls =
    values['fallback-urls']
      ?.split(',')
      .map((u) => u.trim())
      .filter(Boolean) ?? [];
  return {
    url: required(values, urlOption),
    database: values.database ?? DEFAULT_DATABASE,
    credentials: readCredentials(values.credentials),
    ...(values['ca-cert'] ? { caCertificate: resolve(values['ca-cert']) } : {}),
    ...(fallbackUrls.length > 0 ? { fallbackUrls } : {}),
  };
}

export async function clickhouseCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'load': {
      const { values } = parse(rest, { ...TARGET, db: { type: 'string' }, cluster: { type: 'string' }, 'shard-urls': { type: 'string' } });
      // A load writes to the server named; another server is another copy, not a stand-in.
      if (values['fallback-urls']) throw new UsageError('--fallback-urls is for serve and check, not load');
      const target = clickhouseTarget(values);
      const shardUrls = values['shard-urls']?.split(',').filter(Boolean) ?? [];
      if (values.cluster && shardUrls.length === 0)
        throw new UsageError('--cluster needs --shard-urls URL,URL (the HTTP address of each shard, in order)');
      if (!values.cluster && shardUrls.length) throw new UsageError('--shard-urls is for --cluster');
      let shown = 0;
      const result = await loadIntoClickHouse({
        datasetPath: resolve(values.db ?? BUNDLED_DATASET_PATH),
        target,
        cluster: values.cluster ? { name: values.cluster, shardUrls } : undefined,
        onProgress: (records, total) => {
          if (records - shown >= 100_000 || records === total) {
            shown = records;
            process.stderr.write(`loaded ${records} of ${total} records\n`);
          }
        },
      });
      console.log(JSON.stringify(result));
      return;
    }
    case 'check': {
      const { values } = parse(rest, TARGET);
      const target = clickhouseTarget(values);
      const connection = new ClickHouseConnection(target);
      try {
        const { version } = await connection.check();
        // The node that answered: the address given, or a fallback node standing in for it.
        const answered = new URL(connection.url).host;
        const given = new URL(target.url).host;
        console.log(
          `ClickHouse ${version} answers at ${answered}${answered === given ? '' : ` (a fallback node: ${given} did not answer)`}`,
        );
      } finally {
        await connection.close();
      }
      const engine = await ClickHouseEngine.open(target);
      try {
        const summary = await engine.summary();
        console.log(`dataset in ${target.database}: ${summary.records} records in ${summary.states.length} states`);
      } finally {
        engine.close();
      }
      return;
    }
    default:
      throw new UsageError(
        'usage: cli clickhouse <load|check> --url URL [--database NAME] [--credentials FILE] (see README.md, "Data sources")',
      );
  }
}
