import { createCore } from '../../core/createCore';
import { parse, required, UsageError } from '../args';

const HOME = { home: { type: 'string' } } as const;

export async function keysCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'create': {
      const { values } = parse(rest, { ...HOME, name: { type: 'string' } });
      const name = required(values, 'name');
      const core = createCore({ homeDir: values.home });
      try {
        const { info, key } = core.keys.create(name);
        console.log(`created key ${info.id} "${info.name}"; it is shown only now:`);
        console.log(key);
      } finally {
        await core.shutdown();
      }
      return;
    }
    case 'list': {
      const { values } = parse(rest, HOME);
      const core = createCore({ homeDir: values.home });
      try {
        for (const k of core.keys.list())
          console.log(
            [
              k.id,
              k.name,
              `${k.prefix}…`,
              `created ${k.createdAt}`,
              `last used ${k.lastUsedAt ?? 'never'}`,
              k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
            ].join('\t'),
          );
      } finally {
        await core.shutdown();
      }
      return;
    }
    case 'revoke': {
      const { values, positionals } = parse(rest, HOME, 1);
      const id = positionals[0];
      if (!id) throw new UsageError('keys revoke needs the key id (see keys list)');
      const core = createCore({ homeDir: values.home });
      try {
        core.keys.revoke(id);
        console.log(`revoked key ${id}`);
      } finally {
        await core.shutdown();
      }
      return;
    }
    default:
      throw new UsageError('keys takes create, list or revoke');
  }
}
