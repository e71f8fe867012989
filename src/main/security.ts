// Electron's security checklist, applied once to the app's session and to every web contents:
// no permissions, no navigation, no new windows, no webviews, nothing loaded from outside the app,
// and the Content-Security-Policy sent as a response header as well as index.html's meta tag.
import type { Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../server/uiSecurity';
import { isAllowedRequest, type AppLocation } from './appPaths';

export function hardenSession(session: Session, loc: AppLocation): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedRequest(loc, details.url) }));
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...details.responseHeaders };
    // Drop any policy a response brought (header names arrive in any case) and send ours.
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-security-policy') delete headers[name];
    headers['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
    callback({ responseHeaders: headers });
  });
}

/** For every web contents the app ever creates (app 'web-contents-created'). */
export function hardenWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}
