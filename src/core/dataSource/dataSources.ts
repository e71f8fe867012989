// The "Data source" setting (README, "Data sources"): what the core answers from (the bundled
// dataset, a dataset file of the history, or a ClickHouse server), switched while the app runs and
// reopened at the next start. The ClickHouse user and password go to the SecretStore and nowhere
// else: the renderer learns only that a password is stored (`hasPassword`), never what it is; the
// password is stored with the address it was typed for and sent to no other (passwordBinding.ts).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClickHouseCheck, DataSourceInfo, DatasetRef, InputOf } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import { ClickHouseEngine } from '../clickhouse/clickhouseEngine';
import { checkTarget, nodeUrls, shownAddress, type ClickHouseTarget } from '../clickhouse/connection';
import type { AudienceEngine } from '../audience/contract/engine';
import type { Db } from '../sqlite';
import { answersPing, checkClickHouse, nothingAnswers } from './connectionCheck';
import { DataSourceSettings, type ClickHouseSourceSetting } from './dataSourceSettings';
import { passwordFor } from './passwordBinding';
import type { SecretStore, StoredClickHouseSecret } from './secretStore';

/**
 * How long Use, and the start of the app, wait for the server's /ping before saying it does not answer:
 * an address that drops packets would otherwise hold the window back for the client's whole request timeout.
 */
export const OPEN_PING_MS = 5_000;

/** Opens the engine once the server, or one of its fallback nodes, answers /ping; a clear `unavailable` when none does. */
async function openEngine(target: ClickHouseTarget): Promise<ClickHouseEngine> {
  const answers = await Promise.all(nodeUrls(target).map((url) => answersPing(url, OPEN_PING_MS)));
  if (!answers.includes(true)) throw new AppError('unavailable', nothingAnswers(target));
  return ClickHouseEngine.open(target);
}

type ClickHouseInput = Omit<Extract<InputOf<'datasource/use'>, { kind: 'clickhouse' }>, 'kind'>;

/** What names a ClickHouse source: what the screen sends, or what settings keep. */
interface SourceInput {
  url: string;
  fallbackUrls?: readonly string[];
  database: string;
  user: string;
  password?: string;
}

/** What a ClickHouse dataset is called in saved audiences and the audit log. */
async function clickhouseRef(engine: ClickHouseEngine, setting: ClickHouseSourceSetting): Promise<DatasetRef> {
  const summary = await engine.summary();
  const where = `${shownAddress(setting.url)}/${setting.database}`;
  return { id: `clickhouse:${where}@${summary.createdAt ?? 'unknown'}`, name: `ClickHouse ${where}`, records: summary.records };
}

/** What the Data source setting needs of the core: its app state, its notices and the engine in use (the Core). */
export interface DataSourceHost {
  readonly appState: Db;
  readonly notices: string[];
  readonly importJobs: { running(): boolean };
  openDataset(path: string): unknown;
  useEngine(engine: AudienceEngine, ref: DatasetRef | null): void;
  readonly usesEngine: boolean;
  /** The engine answering now (a dataset file's or another), or null. */
  readonly engineOrNull: AudienceEngine | null;
  readonly activeDatasetPath: string | null;
  readonly datasetRef: DatasetRef | null;
  onDatasetOpened(listener: (path: string) => void): void;
}

export class DataSources {
  private readonly settings: DataSourceSettings;
  /** Why the stored ClickHouse source did not open at start (also one of core.notices); null once one is used. */
  private startError: string | null = null;
  /** Opens at start-up (an explicit dataset, the fallback) are not the user's choice: the stored one stays. */
  private quiet = false;
  /** Why the stored password was not sent to the server opened at start (also one of core.notices); null once one is used. */
  private passwordNotice: string | null = null;

  constructor(
    private readonly core: DataSourceHost,
    private readonly secrets: SecretStore,
    private readonly bundledPath: string | null,
  ) {
    this.settings = new DataSourceSettings(core.appState);
    // A dataset file made current while the app runs (Datasets → Switch, an import) is the user's
    // choice of an embedded source: the next start opens a file too, not ClickHouse.
    core.onDatasetOpened(() => {
      if (this.quiet || this.settings.kind() === 'embedded') return;
      try {
        this.settings.useEmbedded();
      } catch (e) {
        // The switch itself has happened; only the next start's choice could not be written (a full disk).
        console.error('The data source setting could not be written:', (e as Error).message);
      }
    });
  }

  /** What the Data source screen shows. Never the password. */
  async describe(): Promise<DataSourceInfo> {
    const setting = this.settings.clickhouse();
    let stored: StoredClickHouseSecret | null = null;
    let passwordError: string | null = null;
    try {
      stored = await this.secrets.load();
    } catch (e) {
      passwordError = isAppError(e) ? e.message : 'The stored password cannot be read; enter it again.';
    }
    const bundled = this.bundled();
    const engine = this.core.engineOrNull;
    // The stored password as it would go to the server settings name: held back (and said why) unless typed for it.
    const decision = setting ? passwordFor(setting, stored, setting) : null;
    return {
      current: this.current(bundled),
      stored: this.settings.kind(),
      dataset: this.core.datasetRef,
      bundledAvailable: bundled !== null,
      clickhouse: setting ? { ...setting, hasPassword: (decision?.credentials?.password ?? '') !== '' } : null,
      passwordError: passwordError ?? decision?.withheld ?? null,
      secretStore: this.secrets.description,
      startError: this.startError,
      queryError: this.core.usesEngine && engine instanceof ClickHouseEngine ? engine.lastFailure : null,
    };
  }

  /** Test connection: never throws for a server that cannot be used, it says why; bad input (the address) is an error. */
  async check(input: ClickHouseInput): Promise<ClickHouseCheck> {
    return checkClickHouse(await this.target(input));
  }

  /** Switches the running core to the bundled dataset or to a ClickHouse server, and remembers it for the next start. */
  async use(input: InputOf<'datasource/use'>): Promise<DataSourceInfo> {
    if (this.core.importJobs.running())
      throw new AppError('invalid_request', 'An import is running; change the data source once it has finished.');
    if (input.kind === 'bundled') {
      const bundled = this.bundled();
      if (!bundled) throw new AppError('not_found', 'The bundled dataset is not installed with this copy of the app.');
      // Queries move at once; the dataset listeners make the stored choice "embedded" (and main forgets dataset.last).
      if (this.current(bundled) !== 'bundled') this.core.openDataset(bundled);
      this.settings.useEmbedded();
      this.forgetStartError();
      return this.describe();
    }
    const { kind: _kind, ...fields } = input;
    const target = await this.target(fields);
    const fallbackUrls = target.fallbackUrls ?? [];
    const setting: ClickHouseSourceSetting = { url: fields.url, fallbackUrls, database: fields.database, user: fields.user };
    await this.switchToClickHouse(target, setting, async () => {
      const password = target.credentials?.password ?? '';
      if (password === '') await this.secrets.clear();
      // Kept with the addresses it was typed for: it goes nowhere else, whatever settings say later (passwordBinding.ts).
      else await this.secrets.save({ username: fields.user, password, url: fields.url, ...(fallbackUrls.length ? { fallbackUrls } : {}) });
      this.settings.useClickHouse(setting);
    });
    this.forgetStartError();
    return this.describe();
  }

  /** A source chosen since start: the start-up notice about the unreachable server is history. */
  private forgetStartError(): void {
    for (const notice of [this.startError, this.passwordNotice]) {
      const index = notice === null ? -1 : this.core.notices.indexOf(notice);
      if (index >= 0) this.core.notices.splice(index, 1);
    }
    this.startError = null;
    this.passwordNotice = null;
  }

  /** Forgets the stored password (the address and user stay); the server in use keeps answering until switched. */
  async forgetPassword(): Promise<DataSourceInfo> {
    await this.secrets.clear();
    return this.describe();
  }

  /**
   * At start: an explicit dataset (command line, tests) wins; else the stored ClickHouse source when
   * that is the choice; if it cannot be opened, a notice says why and the bundled dataset answers,
   * the stored choice kept for the next start. Else `fallback` (the remembered or bundled file).
   */
  async openAtStart(fallback: () => void, explicitDataset = false): Promise<void> {
    const setting = this.settings.kind() === 'clickhouse' ? this.settings.clickhouse() : null;
    if (setting && !explicitDataset) {
      try {
        const { target, withheld } = await this.resolve({ ...setting });
        // The server is tried without the password, and the user told why (a restore can name another server).
        if (withheld) this.core.notices.push((this.passwordNotice = withheld));
        await this.switchToClickHouse(target, setting);
        return;
      } catch (e) {
        const why = isAppError(e) ? e.message : 'it could not be opened';
        this.startError =
          `The ClickHouse data source (${shownAddress(setting.url)}, database ${setting.database}) is not available: ${why} ` +
          'The bundled dataset answers meanwhile; the setting is kept, so the next start tries again (or use Data source… to switch).';
        this.core.notices.push(this.startError);
      }
    }
    this.quietly(() => {
      const bundled = this.bundled();
      if (setting && !explicitDataset && bundled) this.core.openDataset(bundled);
      else fallback();
    });
  }

  /**
   * Opens the server, then keeps what `keep` keeps and makes the core answer from it. Everything that
   * can fail comes before the switch, and a failure closes the engine: a refused switch changes nothing.
   */
  private async switchToClickHouse(target: ClickHouseTarget, setting: ClickHouseSourceSetting, keep?: () => Promise<void>): Promise<void> {
    const engine = await openEngine(target);
    try {
      const ref = await clickhouseRef(engine, setting);
      await keep?.();
      this.core.useEngine(engine, ref);
    } catch (e) {
      engine.close();
      throw e;
    }
  }

  /** What answers now: a ClickHouse server, the bundled dataset, another dataset file, or nothing yet. */
  private current(bundled: string | null): DataSourceInfo['current'] {
    if (this.core.usesEngine) return 'clickhouse';
    const path = this.core.activeDatasetPath;
    if (!path) return 'none';
    return bundled && resolve(path) === bundled ? 'bundled' : 'dataset';
  }

  private quietly(work: () => void): void {
    this.quiet = true;
    try {
      work();
    } finally {
      this.quiet = false;
    }
  }

  private bundled(): string | null {
    return this.bundledPath && existsSync(this.bundledPath) ? resolve(this.bundledPath) : null;
  }

  /**
   * The target for a URL, its fallback nodes, database and user; without a password, the stored one when it was
   * typed for them (passwordBinding.ts).
   */
  private async target(input: SourceInput): Promise<ClickHouseTarget> {
    return (await this.resolve(input)).target;
  }

  /** target(), and why a stored password was held back from it, if one was. */
  private async resolve(input: SourceInput): Promise<{ target: ClickHouseTarget; withheld: string | null }> {
    const fallbackUrls = input.fallbackUrls ?? [];
    const partial: ClickHouseTarget = {
      url: input.url,
      database: input.database,
      credentials: null,
      ...(fallbackUrls.length ? { fallbackUrls: [...fallbackUrls] } : {}),
    };
    checkTarget(partial); // before the secret store is read: a bad address (or fallback node) never gets the stored password
    if (input.password !== undefined)
      return { target: { ...partial, credentials: { username: input.user, password: input.password } }, withheld: null };
    const { credentials, withheld } = passwordFor(input, await this.secrets.load(), this.settings.clickhouse());
    return { target: { ...partial, credentials: { username: input.user, password: credentials?.password ?? '' } }, withheld };
  }
}
