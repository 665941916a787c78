/**
 * What the study editor's forms share: the labelled field with its problem in plain words under
 * it, and the problems' source (set by the editor once the researcher tried to save).
 */
import { createContext, useContext, useId, type ReactNode } from 'react';

/** The problem of a field, by its path (`title`, `limits.sessionMinutes`), once the researcher tried to save. */
export const ProblemOf = createContext<(path: string) => string | undefined>(() => undefined);

export interface FieldA11y {
  readonly 'aria-invalid'?: true;
  readonly 'aria-describedby'?: string;
}

/**
 * What is typed in a field is bright, a placeholder muted and in italics: a filled field never looks
 * like an empty one (the label's muted colour is not inherited).
 */
const typed = 'text-slate-100 placeholder:italic placeholder:text-slate-500';
export const input = `h-8 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm ${typed} focus:outline-none focus:ring-2 focus:ring-sky-500`;
export const area = `min-h-24 w-full rounded-md border border-slate-700 bg-slate-950 p-2 font-mono text-sm ${typed} focus:outline-none focus:ring-2 focus:ring-sky-500`;

/**
 * A labelled field with its problem in plain words under it, which the field points to
 * (aria-describedby); the problem stays outside the label, so the field's name is its label alone.
 * `problem` overrides the editor's (a part that checks its own fields as they are edited).
 */
export function Labelled({
  label,
  path,
  className = '',
  small = false,
  problem: own,
  children,
}: {
  label: ReactNode;
  path: string;
  className?: string;
  small?: boolean;
  problem?: string;
  children: (a11y: FieldA11y) => ReactNode;
}) {
  const fromEditor = useContext(ProblemOf)(path);
  const problem = own ?? fromEditor;
  const id = useId();
  const a11y: FieldA11y = problem ? { 'aria-invalid': true, 'aria-describedby': `${id}-problem` } : {};
  return (
    <div className={`flex flex-col gap-1 ${className}`}>
      <label className={`flex flex-col gap-1 ${small ? 'text-xs text-slate-400' : 'text-sm text-slate-300'}`}>
        {label}
        {children(a11y)}
      </label>
      {problem && (
        <p id={`${id}-problem`} className="text-xs text-rose-300" data-testid="field-problem" data-field={path}>
          {problem}
        </p>
      )}
    </div>
  );
}
