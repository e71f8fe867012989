// ClickHouse credentials for the CLI: from the environment (AUDIENCE_DESK_CLICKHOUSE_USER and
// AUDIENCE_DESK_CLICKHOUSE_PASSWORD) or a file (--credentials FILE: {"user": …, "password": …}),
// never from the command line (where `ps` and shell history would keep them) and never echoed:
// errors name the file or the variable, not what is in it. The desktop app keeps them in the OS
// keychain instead (src/main, Electron's safeStorage).
import { readFileSync } from 'node:fs';
import { AppError } from '../../shared/errors';
import type { ClickHouseCredentials } from './connection';

export const USER_ENV = 'AUDIENCE_DESK_CLICKHOUSE_USER';
export const PASSWORD_ENV = 'AUDIENCE_DESK_CLICKHOUSE_PASSWORD';

/** Credentials from a file when one is named, else from the environment, else none (the server's `default` user). */
export function readCredentials(file: string | undefined, env: NodeJS.ProcessEnv = process.env): ClickHouseCredentials | null {
  if (file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      throw new AppError('invalid_request', `The credentials file ${file} cannot be read as JSON {"user": "...", "password": "..."}.`);
    }
    const { user, password } = (parsed ?? {}) as { user?: unknown; password?: unknown };
    if (typeof user !== 'string' || user === '' || (password !== undefined && typeof password !== 'string'))
      throw new AppError(
        'invalid_request',
        `The credentials file ${file} must hold {"user": "...", "password": "..."} with a non-empty user.`,
      );
    return { username: user, password: password ?? '' };
  }
  const user = env[USER_ENV];
  if (user) return { username: user, password: env[PASSWORD_ENV] ?? '' };
  if (env[PASSWORD_ENV]) throw new AppError('invalid_request', `${PASSWORD_ENV} is set without ${USER_ENV}.`);
  return null;
}
