import { Fragment, type ReactNode } from 'react';

/**
 * Renders the Markdown of consent and instruction pages as React elements: headings,
 * paragraphs, lists, bold, italics, code and http(s) links. Nothing is ever inserted as HTML, so
 * a study text cannot run script in a participant's browser.
 *
 * Why not a library: markdown-it (14) or marked produce an HTML string, which would have to be
 * inserted with dangerouslySetInnerHTML and sanitised (link schemes, raw HTML) to keep that
 * promise; and markdown-it adds 52.7 kB gzipped to the app where this renderer is 0.9 kB
 * (esbuild --minify, gzip -9). Study texts use the few constructs above.
 */
export function Markdown({ text }: { text: string }) {
  return <div className="markdown flex flex-col gap-3 leading-relaxed">{blocks(text)}</div>;
}

function blocks(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const h = /^(#{1,3})\s+(.*)$/.exec(line);
    if (h) {
      const cls =
        h[1].length === 1
          ? 'text-2xl font-semibold text-white'
          : h[1].length === 2
            ? 'text-xl font-semibold text-white'
            : 'text-lg font-semibold text-slate-100';
      const Tag = `h${h[1].length + 1}` as 'h2' | 'h3' | 'h4';
      out.push(
        <Tag key={i} className={cls}>
          {inline(h[2])}
        </Tag>,
      );
      i++;
      continue;
    }
    const bullet = /^\s*[-*+]\s+/;
    const number = /^\s*\d+[.)]\s+/;
    if (bullet.test(line) || number.test(line)) {
      const ordered = number.test(line);
      const re = ordered ? number : bullet;
      const items: ReactNode[] = [];
      while (i < lines.length && re.test(lines[i])) {
        items.push(<li key={i}>{inline(lines[i].replace(re, ''))}</li>);
        i++;
      }
      out.push(
        ordered ? (
          <ol key={`l${i}`} className="ml-6 list-decimal space-y-1">
            {items}
          </ol>
        ) : (
          <ul key={`l${i}`} className="ml-6 list-disc space-y-1">
            {items}
          </ul>
        ),
      );
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i].trim() !== '' &&
      !/^(#{1,3})\s/.test(lines[i]) &&
      !bullet.test(lines[i]) &&
      !number.test(lines[i])
    ) {
      para.push(lines[i].trim());
      i++;
    }
    out.push(<p key={`p${i}`}>{inline(para.join(' '))}</p>);
  }
  return out;
}

const INLINE = /(\*\*[^*]+\*\*|\*[^*]+\*|_[^_]+_|`[^`]+`|\[[^\]]+\]\([^)\s]+\))/g;

function inline(text: string): ReactNode {
  const parts = text.split(INLINE);
  return parts.map((p, k) => {
    if (p.startsWith('**') && p.endsWith('**') && p.length > 4)
      return (
        <strong key={k} className="font-semibold text-white">
          {p.slice(2, -2)}
        </strong>
      );
    if ((p.startsWith('*') && p.endsWith('*')) || (p.startsWith('_') && p.endsWith('_')))
      return p.length > 2 ? <em key={k}>{p.slice(1, -1)}</em> : p;
    if (p.startsWith('`') && p.endsWith('`') && p.length > 2)
      return (
        <code key={k} className="rounded bg-slate-800 px-1 font-mono text-sm">
          {p.slice(1, -1)}
        </code>
      );
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(p);
    if (link) {
      return /^https?:\/\//i.test(link[2]) ? (
        <a key={k} href={link[2]} target="_blank" rel="noopener noreferrer" className="text-sky-300 underline">
          {link[1]}
        </a>
      ) : (
        <Fragment key={k}>{link[1]}</Fragment>
      );
    }
    return <Fragment key={k}>{p}</Fragment>;
  });
}
