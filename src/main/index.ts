// Placeholder main process until the desktop-app issue.
export {};
