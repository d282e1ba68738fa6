/** Browser downloads of text the page built (exports of the Live tap and Dead letters views). */

/**
 * Starts a download of `text` as file `name` with MIME `type`, through a Blob URL that is
 * released a minute later (revoking at once can cancel a download that has not read it yet).
 */
export function downloadText(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
