/**
 * Instruction pages are Markdown written by researchers and shown to participants. The pages
 * render Markdown without raw HTML; this also removes it at the source so a stored study
 * cannot carry markup or script links to any other reader of its JSON.
 */

const TAG = /<\/?[A-Za-z!][^<>]*>/g;
const SCRIPT_LINK = /\]\(\s*(?:javascript|vbscript|data):(?:[^()]|\([^()]*\))*\)/gi;
const SCRIPT_REF = /^(\s*\[[^\]]+\]:\s*)(?:javascript|vbscript|data):.*$/gim;

/** Removes raw HTML tags and HTML comments, and turns `javascript:`/`data:` link targets into `#`. */
export function sanitizeMarkdown(text: string): string {
  let out = text.replace(/<!--[\s\S]*?-->/g, '');
  // Repeat: removing one tag can join the halves of another (`<scr<b>ipt>`).
  for (let prev = ''; prev !== out;) {
    prev = out;
    out = out.replace(TAG, '');
  }
  return out.replace(SCRIPT_LINK, '](#)').replace(SCRIPT_REF, '$1#');
}
