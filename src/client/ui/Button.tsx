import type { ButtonHTMLAttributes, ReactNode } from 'react';

type Tone = 'default' | 'primary' | 'active' | 'ghost';

const TONES: Record<Tone, string> = {
  default: 'border-slate-700 bg-slate-800 text-slate-100 hover:bg-slate-700',
  primary: 'border-emerald-500 bg-emerald-700 text-white hover:bg-emerald-800 font-semibold',
  active: 'border-sky-400 bg-sky-600/30 text-sky-100',
  ghost: 'border-transparent bg-transparent text-slate-300 hover:bg-slate-800 hover:text-white',
};

export function Button({
  tone = 'default',
  className = '',
  children,
  kbd,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { tone?: Tone; kbd?: string; children: ReactNode }) {
  return (
    <button
      type="button"
      {...rest}
      className={`inline-flex h-8 items-center gap-1.5 rounded-md border px-2.5 text-sm transition-colors disabled:cursor-not-allowed disabled:opacity-40 ${TONES[tone]} ${className}`}
    >
      {children}
      {/* A key to press is no help on a phone. */}
      {kbd && (
        <kbd className="hidden rounded bg-black/30 px-1 sm:inline font-mono text-[10px] text-slate-300">{kbd}</kbd>
      )}
    </button>
  );
}
