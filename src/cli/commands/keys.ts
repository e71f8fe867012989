import { onePositional, parse, required, UsageError } from '../args';
import { withCore } from '../withCore';

const HOME = { home: { type: 'string' } } as const;

export async function keysCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'create': {
      const { values } = parse(rest, { ...HOME, name: { type: 'string' } });
      const name = required(values, 'name');
      await withCore({ homeDir: values.home }, (core) => {
        const { info, key } = core.keys.create(name);
        console.log(`created key ${info.id} "${info.name}"; it is shown only now:`);
        console.log(key);
      });
      return;
    }
    case 'list': {
      const { values } = parse(rest, HOME);
      await withCore({ homeDir: values.home }, (core) => {
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
      });
      return;
    }
    case 'revoke': {
      const { values, value: id } = onePositional(rest, HOME, 'keys revoke needs the key id (see keys list)');
      await withCore({ homeDir: values.home }, (core) => {
        core.keys.revoke(id);
        console.log(`revoked key ${id}`);
      });
      return;
    }
    default:
      throw new UsageError('keys takes create, list or revoke');
  }
}
