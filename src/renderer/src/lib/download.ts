// Saving what the app made (a cross-tab as CSV, a map as SVG or PNG) as a file: a Blob behind an
// <a download>, which the browser and Electron both turn into a save. The object URL is released once
// the click is handled.
export function saveBlobFile(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function saveTextFile(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  saveBlobFile(fileName, new Blob([text], { type }));
}
