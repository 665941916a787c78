/**
 * The frame of a playtest page, one for built-in and arcengine games alike: the bar naming the
 * game (with a way back to the games), that it is a playtest and where its actions go, and the
 * level picker of the playtest's toolbar. Each page puts its own player and panels inside.
 */
import type { ReactNode } from 'react';
import { Link } from 'wouter';

export interface PlaytestShellProps {
  readonly title: string;
  /** Chips after "Playtest": the engine, the code version, a notice. */
  readonly badges?: ReactNode;
  /** Where the actions go, at the right of the bar. */
  readonly note: string;
  /** Buttons after the note. */
  readonly actions?: ReactNode;
  readonly children: ReactNode;
}

export function PlaytestShell({ title, badges, note, actions, children }: PlaytestShellProps) {
  return (
    <div className="flex h-full flex-col">
      {/* Wraps on a phone rather than pushing the note and buttons off the screen. */}
      <div
        className="flex min-h-9 shrink-0 flex-wrap items-center gap-x-2 gap-y-1 border-b border-slate-800 px-4 py-1 text-sm"
        data-testid="playtest-header"
      >
        <Link href="/games" className="text-slate-400 hover:text-white">
          Games
        </Link>
        <span className="text-slate-600">/</span>
        <span className="min-w-0 break-all text-slate-200">{title}</span>
        <span className="rounded bg-violet-600/30 px-1.5 py-0.5 text-[11px] uppercase tracking-wide text-violet-200">
          Playtest
        </span>
        {badges}
        <span className="ml-auto text-xs text-slate-500">{note}</span>
        {actions}
      </div>
      {children}
    </div>
  );
}

/** The toolbar's level picker: choosing a level restarts the playtest there (`onChoose`). */
export function LevelSelect({
  levels,
  level,
  onChoose,
  name = (i) => `Level ${i + 1}`,
}: {
  readonly levels: number;
  readonly level: number;
  readonly onChoose: (level: number) => void;
  readonly name?: (level: number) => string;
}) {
  return (
    <label className="flex items-center justify-between gap-2 text-slate-300">
      Level
      <select
        aria-label="Level"
        value={level}
        onChange={(e) => onChoose(Number(e.target.value))}
        className="h-8 rounded-md border border-slate-700 bg-slate-950 px-2"
      >
        {Array.from({ length: levels }, (_, i) => (
          <option key={i} value={i}>
            {name(i)}
          </option>
        ))}
      </select>
    </label>
  );
}
