import { totalmem } from 'node:os';

// Every AUDIENCE_DESK_* environment setting, declared once (name, default, help, parse) and read
// once, on first use: none is read when a module loads. They exist for tests and measurements;
// users never need them. Tests change them in-process with overrideSettings().
// See docs/import.md (the import's settings) and README.md.

export interface Settings {
  /** Records whose vectors a ColumnSet holds before it appends them to its spill file (vectorSpill.ts). */
  spillRows: number;
  /** Whether the import reads and orders on worker threads (else on the calling thread). */
  importWorkers: boolean;
  /** Input bytes from which staged rows are read by two readers over two halves of the input. */
  importSplitBytes: number;
  /** Whether the generator makes its records on a worker thread. */
  generateWorker: boolean;
  /** Whether an opened dataset is checked whole in the background (dataset/verify/verify.ts). */
  backgroundVerify: boolean;
  /** Positions a state needs before its filter scans are split over two cores (query/twoCoreScan.ts); 0: never. */
  scanSplitFrom: number;
  /** Megabytes of vectors an open dataset keeps in memory before it drops the least recently used fields (dataset/read/keptVectors.ts). */
  vectorMemoryMb: number;
}

interface Setting<T> {
  env: string;
  default: T;
  help: string;
  /** The value, or undefined when the text is not one. */
  parse(text: string): T | undefined;
}

const positiveInteger = (text: string): number | undefined => {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};
const onOff = (text: string): boolean | undefined => (text === '1' ? true : text === '0' ? false : undefined);
const positiveOrZero = (text: string): number | undefined => (text === '0' ? 0 : positiveInteger(text));

export const SETTINGS: { readonly [K in keyof Settings]: Setting<Settings[K]> } = {
  spillRows: {
    env: 'AUDIENCE_DESK_SPILL_ROWS',
    default: 1 << 16,
    help: 'records a vector chunk holds before it goes to the spill file; tests lower it so small inputs cross chunks',
    parse: positiveInteger,
  },
  importWorkers: {
    env: 'AUDIENCE_DESK_IMPORT_WORKER',
    default: true,
    help: '0 reads and orders an import on the calling thread (same results, one core)',
    parse: onOff,
  },
  importSplitBytes: {
    env: 'AUDIENCE_DESK_IMPORT_SPLIT_BYTES',
    default: 8 << 20,
    help: 'input bytes from which staged rows are read by two readers; tests lower it so small files are cut',
    parse: positiveInteger,
  },
  generateWorker: {
    env: 'AUDIENCE_DESK_GENERATE_WORKER',
    default: true,
    help: '0 generates records on the calling thread',
    parse: onOff,
  },
  backgroundVerify: {
    env: 'AUDIENCE_DESK_BACKGROUND_VERIFY',
    default: true,
    help: '0 leaves an opened dataset to the checks made on read (no full verify in the background)',
    parse: onOff,
  },
  scanSplitFrom: {
    env: 'AUDIENCE_DESK_SCAN_SPLIT_FROM',
    default: 200_000,
    help: 'positions a state needs before its filter scans run on two cores; 0 keeps every scan on one',
    parse: positiveOrZero,
  },
  vectorMemoryMb: {
    env: 'AUDIENCE_DESK_VECTOR_MEMORY_MB',
    // A third of the machine's memory, at least 512 MB: room for ~100 fields of California in a
    // national file, and for the app, the OS page cache and other programs beside it.
    default: Math.max(512, Math.floor(totalmem() / 3 / 2 ** 20)),
    help: 'megabytes of field vectors an open dataset keeps in memory before it drops the least recently used (read again on next use)',
    parse: positiveInteger,
  },
};

/** Parses the settings from `env`; an unparsable value is an error naming the variable, not a silent default. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const read = <K extends keyof Settings>(key: K): Settings[K] => {
    const setting = SETTINGS[key];
    const text = env[setting.env];
    if (text === undefined || text === '') return setting.default;
    const value = setting.parse(text);
    if (value === undefined) throw new Error(`${setting.env}=${JSON.stringify(text)} is not valid: ${setting.help}.`);
    return value;
  };
  // Each value is checked alone; no setting constrains another.
  return {
    spillRows: read('spillRows'),
    importWorkers: read('importWorkers'),
    importSplitBytes: read('importSplitBytes'),
    generateWorker: read('generateWorker'),
    backgroundVerify: read('backgroundVerify'),
    scanSplitFrom: read('scanSplitFrom'),
    vectorMemoryMb: read('vectorMemoryMb'),
  };
}

let current: Settings | undefined;

/** The settings of this process (of this thread: a worker reads its own copy of the environment). */
export function settings(): Settings {
  return (current ??= readSettings());
}

/** Tests: changes some settings of this thread until the returned function restores them. */
export function overrideSettings(changes: Partial<Settings>): () => void {
  const before = settings();
  current = { ...before, ...changes };
  return () => {
    current = before;
  };
}
