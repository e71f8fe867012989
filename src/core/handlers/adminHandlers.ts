// The app's own housekeeping: API keys, the API's status, saved audiences and the audit log.
// These change app state, which only the app and the CLI may do (never the HTTP API).
import { AUDIT_LIST_DEFAULT } from '../appState/auditLog';
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';
import type { HandlerDeps } from './types';

export function registerAdminHandlers(registry: HandlerRegistry, core: Core, deps: HandlerDeps): void {
  registry.register('keys/list', () => core.keys.list());
  registry.register('keys/create', ({ name }) => core.keys.create(name));
  registry.register('keys/revoke', ({ id }) => {
    core.keys.revoke(id);
    return { ok: true as const };
  });

  registry.register('api/status', () => deps.apiStatus());

  registry.register('audiences/list', () => core.savedAudiences.list());
  registry.register('audiences/save', ({ replace, ...input }) => core.savedAudiences.save(input, { replace }));
  registry.register('audiences/rename', ({ id, name }) => core.savedAudiences.rename(id, name));
  registry.register('audiences/delete', ({ id }) => {
    core.savedAudiences.delete(id);
    return { ok: true as const };
  });

  registry.register('audit/list', ({ limit }) => core.auditLog.list(limit ?? AUDIT_LIST_DEFAULT));
}
