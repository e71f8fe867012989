// The headless entry: the same core and server as the desktop app, without Electron.
// Usage errors print one line and exit 2; other failures print one line and exit 1.
import { isAppError } from '../shared/errors';
import { UsageError } from './args';
import { backupCommand, restoreCommand } from './commands/backup';
import { clickhouseCommand } from './commands/clickhouse';
import { datasetsCommand } from './commands/datasets';
import { exportCommand } from './commands/export';
import { generateCommand } from './commands/generate';
import { importCommand } from './commands/import';
import { keysCommand } from './commands/keys';
import { listsCommand } from './commands/lists';
import { matchCommand } from './commands/match';
import { optoutsCommand } from './commands/optouts';
import { profileCommand } from './commands/profile';
import { serveCommand } from './commands/serve';
import { upgradeCommand } from './commands/upgrade';
import { verifyCommand } from './commands/verify';

const COMMANDS: Record<string, (argv: string[]) => void | Promise<void>> = {
  generate: generateCommand,
  keys: keysCommand,
  serve: serveCommand,
  export: exportCommand,
  import: importCommand,
  lists: listsCommand,
  match: matchCommand,
  optouts: optoutsCommand,
  profile: profileCommand,
  verify: verifyCommand,
  upgrade: upgradeCommand,
  backup: backupCommand,
  restore: restoreCommand,
  datasets: datasetsCommand,
  clickhouse: clickhouseCommand,
};

const USAGE =
  'usage: cli <generate|keys|serve|export|import|lists|match|optouts|profile|backup|restore|datasets|verify|upgrade|clickhouse> [options] (see README.md)';

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run) throw new UsageError(command ? `unknown command "${command}"; ${USAGE}` : USAGE);
  await run(rest);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) {
    console.error(`error: ${e.message}`);
    process.exit(2);
  }
  console.error(`error: ${isAppError(e) || e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
