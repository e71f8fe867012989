// Placeholder preload until the desktop-app issue.
export {};
