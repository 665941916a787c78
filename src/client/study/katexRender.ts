/**
 * KaTeX and its stylesheet, in a script of their own: most studies have no formula, and KaTeX is
 * a third of what the participant's first screen would otherwise download. Loaded by `loadMath`
 * (MathText.tsx).
 */
import katex from 'katex';
import 'katex/dist/katex.min.css';

/** Renders `tex` into `into`, building the DOM itself (see MathText.tsx on why not as HTML). */
export function renderMath(tex: string, into: HTMLElement, display: boolean): void {
  katex.render(tex, into, { displayMode: display, throwOnError: false, trust: false, strict: 'ignore' });
}
