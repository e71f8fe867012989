// The Data source screen (README "Data sources"): what answers now (the bundled dataset, a dataset
// file, a ClickHouse server), Test connection, and Use. The password typed here goes to the core
// with Test or Use and is then cleared from the form; the core never sends it back (only
// `hasPassword`). Dataset files switch through the Datasets store's own switch, not a second one.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ClickHouseCheck, DataSourceInfo } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';
import { useDatasetsStore } from './datasets';
import { useImportStore } from './importJob';

export const DEFAULT_CLICKHOUSE_DATABASE = 'audience_desk';

/** The fallback nodes field: addresses separated by commas (as `serve --fallback-urls` takes them), blanks ignored. */
export function fallbackList(text: string): string[] {
  return text
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
}

export const useDataSourceStore = defineStore('dataSource', () => {
  const open = ref(false);
  const info = ref<DataSourceInfo | null>(null);
  const url = ref('');
  /** Other nodes of the same cluster, comma separated (fallbackList). */
  const fallbacks = ref('');
  const database = ref(DEFAULT_CLICKHOUSE_DATABASE);
  const user = ref('');
  const password = ref('');
  const check = ref<ClickHouseCheck | null>(null);
  const busy = ref<'check' | 'use' | 'bundled' | 'dataset' | null>(null);
  const error = ref<string | null>(null);
  /** A sentence after a switch ("ClickHouse answers now."), cleared by the next action. */
  const done = ref<string | null>(null);

  async function load(): Promise<void> {
    try {
      info.value = await getBridge()['datasource/get']({});
      const kept = info.value.clickhouse;
      // The form starts from the server last used; a half-typed form is not overwritten.
      if (kept && !url.value) {
        url.value = kept.url;
        fallbacks.value = kept.fallbackUrls.join(', ');
        database.value = kept.database;
        user.value = kept.user;
      }
    } catch (e) {
      error.value = describeError(e);
    }
  }

  async function show(): Promise<void> {
    open.value = true;
    error.value = null;
    done.value = null;
    check.value = null;
    await Promise.all([load(), useDatasetsStore().load()]);
  }

  function hide(): void {
    open.value = false;
    password.value = '';
  }

  /** The form as the core takes it: the password only when one was typed (else the stored one, if it is this server's). */
  function form() {
    return {
      url: url.value.trim(),
      fallbackUrls: fallbackList(fallbacks.value),
      database: database.value.trim() || DEFAULT_CLICKHOUSE_DATABASE,
      user: user.value.trim() || 'default',
      ...(password.value ? { password: password.value } : {}),
    };
  }

  async function run(kind: NonNullable<typeof busy.value>, work: () => Promise<void>): Promise<void> {
    busy.value = kind;
    error.value = null;
    done.value = null;
    try {
      await work();
    } catch (e) {
      error.value = describeError(e);
    } finally {
      busy.value = null;
    }
  }

  async function testConnection(): Promise<void> {
    check.value = null;
    await run('check', async () => {
      check.value = await getBridge()['datasource/check'](form());
    });
  }

  /** The desk answers from the new source at once: the count, the grid, the top bar and this screen reload. */
  async function moved(sentence: string): Promise<void> {
    await useImportStore().moveToNewDataset();
    await Promise.all([load(), useDatasetsStore().load()]);
    done.value = sentence;
  }

  async function useClickHouse(): Promise<void> {
    await run('use', async () => {
      await getBridge()['datasource/use']({ kind: 'clickhouse', ...form() });
      password.value = '';
      await moved('ClickHouse answers now; the app opens it again at its next start.');
    });
  }

  async function useBundled(): Promise<void> {
    await run('bundled', async () => {
      await getBridge()['datasource/use']({ kind: 'bundled' });
      await moved('The bundled dataset answers now.');
    });
  }

  /** A dataset file of the history, through the Datasets store's switch (which reloads the desk). */
  async function useDataset(id: string): Promise<void> {
    await run('dataset', async () => {
      const datasets = useDatasetsStore();
      await datasets.switchTo(id);
      if (datasets.error) throw new Error(datasets.error);
      await load();
      done.value = 'That dataset file answers now.';
    });
  }

  async function forgetPassword(): Promise<void> {
    await run('check', async () => {
      info.value = await getBridge()['datasource/forget-password']({});
    });
  }

  return {
    open,
    info,
    url,
    fallbacks,
    database,
    user,
    password,
    check,
    busy,
    error,
    done,
    load,
    show,
    hide,
    testConnection,
    useClickHouse,
    useBundled,
    useDataset,
    forgetPassword,
  };
});
