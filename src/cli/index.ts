// The headless entry: the same core and server as the desktop app, without Electron.
// Usage errors print one line and exit 2; other failures print one line and exit 1.
import { isAppError } from '../shared/errors';
import { UsageError } from './args';
type Command = (argv: string[]) => void | Promise<void>;

// Each command's code is loaded when it is the one asked for: loading every command's modules (the
// server, the HTTP framework, the ClickHouse client...) took ~0.4 s before any command ran.
const COMMANDS: Record<string, () => Promise<Command>> = {
  generate: async () => (await import('./commands/generate')).generateCommand,
  keys: async () => (await import('./commands/keys')).keysCommand,
  serve: async () => (await import('./commands/serve')).serveCommand,
  export: async () => (await import('./commands/export')).exportCommand,
  import: async () => (await import('./commands/import')).importCommand,
  lists: async () => (await import('./commands/lists')).listsCommand,
  match: async () => (await import('./commands/match')).matchCommand,
  optouts: async () => (await import('./commands/optouts')).optoutsCommand,
  profile: async () => (await import('./commands/profile')).profileCommand,
  verify: async () => (await import('./commands/verify')).verifyCommand,
  upgrade: async () => (await import('./commands/upgrade')).upgradeCommand,
  backup: async () => (await import('./commands/backup')).backupCommand,
  restore: async () => (await import('./commands/backup')).restoreCommand,
  datasets: async () => (await import('./commands/datasets')).datasetsCommand,
  clickhouse: async () => (await import('./commands/clickhouse')).clickhouseCommand,
};

const USAGE =
  'usage: cli <generate|keys|serve|export|import|lists|match|optouts|profile|backup|restore|datasets|verify|upgrade|clickhouse> [options] (see README.md)';

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const load = command && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) throw new UsageError(command ? `unknown command "${command}"; ${USAGE}` : USAGE);
  await (
    await load()
  )(rest);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) {
    console.error(`error: ${e.message}`);
    process.exit(2);
  }
  console.error(`error: ${isAppError(e) || e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
