/**
 * downloadText saves text as a file named fileName: a Blob behind a
 * temporary link, clicked, then let go, so nothing stays in memory.
 */
export function downloadText(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click's task, when the download has the Blob.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}
