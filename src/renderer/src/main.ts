// Placeholder until the desktop-app issue builds the workspace.
document.querySelector('#app')!.textContent = 'Audience Desk';
