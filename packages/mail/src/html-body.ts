// The HTML part sent beside every mail's text: the same words, escaped,
// paragraphs kept, and each web address a link. Mail readers (and the
// development inbox's default HTML view) then show a link to click instead
// of an empty pane or text to copy.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
const ADDRESS = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)]/g;

/** One paragraph: escaped text with line breaks kept and addresses linked. */
function paragraph(text: string): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(ADDRESS)) {
    out += escape(text.slice(at, m.index));
    const href = escape(m[0]);
    out += `<a href="${href}">${href}</a>`;
    at = m.index + m[0].length;
  }
  out += escape(text.slice(at));
  return `<p>${out.replace(/\n/g, '<br>\n')}</p>`;
}

/** The mail's text as a small HTML document. */
export function htmlBody(text: string): string {
  const paragraphs = text.trim().split(/\n{2,}/).map(paragraph).join('\n');
  return `<!doctype html>\n<html><body style="font-family: system-ui, sans-serif; line-height: 1.5">\n${paragraphs}\n</body></html>\n`;
}
