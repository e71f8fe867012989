import { resolve } from 'node:path';
import { createCore } from '../../core/createCore';
import { collectStartupGarbage, tuneHeapForServing } from '../../server/heapTuning';
import { spendDetachProtector } from '../../server/detachProtector';
import { ApiServer } from '../../server/apiServer';
import { warmRequestPath } from '../../server/warmRequestPath';
import { shutdown } from '../../server/shutdown';
import { mountBrowserUi, UI_NOT_BUILT } from '../../server/uiBrowserMode';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { parse, UsageError, wholeNumber } from '../args';
import { ClickHouseEngine } from '../../core/clickhouse/clickhouseEngine';
import { clickhouseTarget } from './clickhouse';
import { writeNativeHeapAhead } from '../../core/query/nativeHeapAhead';

export async function serveCommand(argv: string[]): Promise<void> {
  // Before the dataset opens: its start-up's collections are at the serving factor too.
  tuneHeapForServing();
  spendDetachProtector();
  const { values } = parse(argv, {
    db: { type: 'string' },
    port: { type: 'string' },
    home: { type: 'string' },
    // A ClickHouse server instead of a dataset file (README, "Data sources").
    clickhouse: { type: 'string' },
    database: { type: 'string' },
    credentials: { type: 'string' },
    'ca-cert': { type: 'string' },
    'fallback-urls': { type: 'string' },
  });
  const port = wholeNumber(values.port, 'port', 0);
  if (port > 65535) throw new UsageError('--port must be at most 65535');
  if (values.clickhouse && values.db) throw new UsageError('--db and --clickhouse name two data sources; give one');
  if (values['fallback-urls'] && !values.clickhouse) throw new UsageError('--fallback-urls is for --clickhouse');
  // As early as it can, on a thread beside the start-up: the first requests' reads of a dataset file
  // then land on mapped memory. A ClickHouse server's answers are not read from such a file.
  if (!values.clickhouse) void writeNativeHeapAhead();
  const engine = values.clickhouse ? await ClickHouseEngine.open(clickhouseTarget(values, 'clickhouse')) : undefined;
  const core = createCore({
    homeDir: values.home,
    datasetPath: values.db === undefined ? undefined : resolve(values.db),
    engine,
    bundledDatasetPath: BUNDLED_DATASET_PATH,
  });
  // Neither --db nor --clickhouse: the home folder's Data source setting, as the desktop app opens it.
  if (values.db === undefined && !engine) await core.dataSources.openAtStart(() => core.openDataset(resolve(BUNDLED_DATASET_PATH)));
  for (const notice of core.notices) process.stderr.write(`notice: ${notice}\n`);
  // Before it listens: the first request is not the one to compile the request path.
  await warmRequestPath(core);
  const server = new ApiServer(core);
  const ui = await mountBrowserUi(core, server);
  // Its routes all added: Fastify takes none once it has answered a request.
  await server.warmUp();
  collectStartupGarbage();
  const url = await server.listen(port);
  console.log(`api: ${url}`);
  console.log(ui.available ? `ui: ${ui.url()}` : UI_NOT_BUILT);
  let stopping: Promise<void> | null = null;
  const stop = (): void => {
    stopping ??= shutdown(core, server).then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(`error: shutdown failed: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
