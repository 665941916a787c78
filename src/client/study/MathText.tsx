import { Fragment, useLayoutEffect, useRef, type ReactNode } from 'react';

type RenderMath = (tex: string, into: HTMLElement, display: boolean) => void;
let mathLoad: Promise<RenderMath> | null = null;
let mathReady: RenderMath | null = null;

/**
 * Starts loading KaTeX (a script of its own, `katexRender.ts`) if it is not loaded or loading.
 * The study page calls it once its first screen is up, so formulas render at once when a question
 * shows them, and a participant who goes offline after that still sees them.
 * A failed load is tried again at the next call; until KaTeX is there a formula shows as its TeX.
 */
export function loadMath(): Promise<RenderMath> {
  mathLoad ??= import('./katexRender').then(
    (m) => (mathReady = m.renderMath),
    (e: unknown) => {
      mathLoad = null;
      throw e;
    },
  );
  return mathLoad;
}

/**
 * A question's prompt: paragraphs of text with `**bold**`, `*italic*` and LaTeX math, inline
 * between `$...$` and displayed between `$$...$$`, rendered by KaTeX. Nothing is inserted as
 * HTML: KaTeX builds the formula's DOM itself (with `trust: false` it renders no links, classes
 * or styles from the source).
 *
 * A `$` opens math only when a non-space follows it and closes it only when a non-space
 * precedes it and no digit follows, so "costs $200, not $300" stays text; `\$` is a dollar sign.
 */
export function MathText({ text }: { text: string }) {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '');
  return (
    <div className="flex flex-col gap-3 leading-relaxed">
      {paragraphs.map((p, i) => (
        <p key={i}>{segments(p)}</p>
      ))}
    </div>
  );
}

function segments(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push(<Fragment key={out.length}>{emphasis(plain)}</Fragment>);
    plain = '';
  };
  for (let i = 0; i < text.length;) {
    if (text.startsWith('\\$', i)) {
      plain += '$';
      i += 2;
      continue;
    }
    if (text.startsWith('$$', i)) {
      const end = text.indexOf('$$', i + 2);
      if (end > i + 2) {
        flush();
        out.push(<MathSpan key={out.length} tex={text.slice(i + 2, end)} display />);
        i = end + 2;
        continue;
      }
    }
    if (text[i] === '$' && i + 1 < text.length && !/\s/.test(text[i + 1])) {
      const end = closingDollar(text, i + 1);
      if (end > 0) {
        flush();
        out.push(<MathSpan key={out.length} tex={text.slice(i + 1, end)} />);
        i = end + 1;
        continue;
      }
    }
    plain += text[i];
    i++;
  }
  flush();
  return out;
}

function closingDollar(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] === '\\') {
      j++;
      continue;
    }
    if (text[j] === '$' && !/\s/.test(text[j - 1]) && !/\d/.test(text[j + 1] ?? '')) return j;
  }
  return -1;
}

// KaTeX positions glyphs with style attributes, which the server's Content-Security-Policy
// (style-src 'self') refuses in parsed HTML; `katex.render` builds the DOM itself and sets
// styles through the CSSOM, which the policy allows. So no `renderToString` here.
function MathSpan({ tex, display = false }: { tex: string; display?: boolean }) {
  const ref = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const into = ref.current;
    if (!into) return;
    if (mathReady) return mathReady(tex, into, display);
    into.textContent = tex;
    let current = true;
    loadMath().then(
      (render) => {
        if (current) render(tex, into, display);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [tex, display]);
  return display ? (
    <div ref={ref as React.RefObject<HTMLDivElement>} className="my-2 overflow-x-auto" data-math={tex} />
  ) : (
    <span ref={ref as React.RefObject<HTMLSpanElement>} data-math={tex} />
  );
}

function emphasis(text: string): ReactNode[] {
  return text.split(/(\*\*[^*]+\*\*|\*[^*\s][^*]*\*)/g).map((part, i) => {
    if (part.startsWith('**') && part.endsWith('**') && part.length > 4)
      return <strong key={i}>{part.slice(2, -2)}</strong>;
    if (part.startsWith('*') && part.endsWith('*') && part.length > 2) return <em key={i}>{part.slice(1, -1)}</em>;
    return part;
  });
}
