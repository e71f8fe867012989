// The Electron side of the app:// scheme (checklist #18): declared privileged before the app is
// ready (Electron accepts that only then, and only once), and answered on the window's session after
// it, by src/main/appProtocol.ts from the renderer's own folder and nothing else.
import { protocol, type Session } from 'electron';
import { rendererRootPath, type AppLocation } from './appPaths';
import { APP_SCHEME, serveAppRequest } from './appProtocol';

/**
 * Before `ready`. standard: relative URLs and an origin of its own (so CSP 'self' and storage work);
 * secure: treated like https; supportFetchAPI: fetch() may use it. Not bypassCSP, not corsEnabled,
 * no service workers: nothing the renderer needs.
 */
export function registerAppSchemePrivileged(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/** After `ready`, on the session the window uses. */
export function serveAppScheme(session: Session, loc: AppLocation): void {
  const root = rendererRootPath(loc);
  session.protocol.handle(APP_SCHEME, (request) => serveAppRequest(root, request));
}
