import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { LogEvent } from '../../core/log/events';
import { replayMarks, type MarkKind, type ReplayMark } from '../../core/study/replayMarks';
import { formatMs } from './widgets';

/** Each kind's colour and legend word; a submission's colour is its verdict's. */
const KINDS: Record<MarkKind, { tone: string; legend: string; lane: 'point' | 'tool' | 'presence' }> = {
  item: { tone: 'bg-sky-400', legend: 'item start', lane: 'point' },
  submit: { tone: 'bg-rose-500', legend: 'submit', lane: 'point' },
  level: { tone: 'bg-emerald-400', legend: 'level completed', lane: 'point' },
  reset: { tone: 'bg-amber-400', legend: 'reset', lane: 'point' },
  undo: { tone: 'bg-violet-400', legend: 'undo', lane: 'point' },
  'game-over': { tone: 'bg-rose-500', legend: 'game over', lane: 'point' },
  blur: { tone: 'bg-slate-400', legend: 'focus lost', lane: 'point' },
  tool: { tone: 'bg-cyan-700', legend: 'tool action', lane: 'tool' },
  hidden: { tone: 'bg-slate-500', legend: 'tab hidden', lane: 'presence' },
  idle: { tone: 'bg-amber-700', legend: 'idle', lane: 'presence' },
  paused: { tone: 'bg-indigo-500', legend: 'break', lane: 'presence' },
};

const VERDICT_TONES: Record<string, string> = {
  correct: 'bg-emerald-400',
  wrong: 'bg-rose-500',
  duplicate: 'bg-amber-400',
};

const toneOf = (m: ReplayMark) =>
  m.kind === 'submit' ? (VERDICT_TONES[m.verdict ?? ''] ?? KINDS.submit.tone) : KINDS[m.kind].tone;

/** A mark in words, with its length (a stretch) and its time from the item's start. */
function markText(m: ReplayMark, events: readonly LogEvent[]): string {
  const at = formatMs(events[m.from].t - events[0].t);
  return `${m.label}${m.ms !== undefined ? ` for ${formatMs(m.ms)}` : ''}, at ${at}`;
}

/**
 * The labelled marks of one item's log above the scrubber: item starts and submissions (with
 * their verdicts) and a game's resets and levels as lines, runs of grid tool actions and the
 * hidden and idle stretches as bars. Each mark is a button named by what it marks; the whole row
 * is one Tab stop whose arrow keys go from mark to mark, and choosing a mark moves the replay
 * there.
 */
export function ReplayTimeline({
  events,
  pos,
  onSeek,
}: {
  events: readonly LogEvent[];
  pos: number;
  onSeek: (pos: number) => void;
}) {
  const marks = useMemo(() => replayMarks(events), [events]);
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const [shown, setShown] = useState<number | null>(null);
  // The mark the position is at or last passed: the Tab stop, and what the caption names.
  let current = -1;
  for (let k = 0; k < marks.length && marks[k].from < pos; k++) current = k;
  const focus = Math.max(0, current);
  const caption = shown ?? (current >= 0 ? current : null);
  const n = Math.max(1, events.length);
  const go = (k: number) => {
    const i = Math.max(0, Math.min(marks.length - 1, k));
    refs.current[i]?.focus();
    setShown(i);
    onSeek(marks[i].at);
  };
  const onKey = (e: KeyboardEvent) => {
    const from = shown ?? focus;
    const moves: Record<string, number> = {
      ArrowRight: from + 1,
      ArrowDown: from + 1,
      ArrowLeft: from - 1,
      ArrowUp: from - 1,
      Home: 0,
      End: marks.length - 1,
    };
    if (!(e.key in moves)) return;
    e.preventDefault();
    // The replay's own arrow keys step one event; here they go from mark to mark.
    e.stopPropagation();
    go(moves[e.key]);
  };
  const counts = new Map<string, number>();
  for (const m of marks) {
    const key = m.kind === 'submit' ? `submit ${m.verdict}` : m.kind;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (marks.length === 0)
    return (
      <p className="mb-1 text-xs text-slate-400" data-testid="timeline-caption">
        Nothing to mark in this item's log.
      </p>
    );
  return (
    <div className="mb-1">
      <div
        role="toolbar"
        aria-label="Timeline marks"
        aria-orientation="horizontal"
        className="relative h-6"
        onKeyDown={onKey}
        data-testid="timeline"
      >
        <span aria-hidden className="absolute inset-x-0 top-[9px] h-1 rounded bg-slate-800" />
        <span aria-hidden className="absolute top-0 h-6 w-px bg-sky-300/70" style={{ left: `${(100 * pos) / n}%` }} />
        {marks.map((m, k) => {
          const kind = KINDS[m.kind];
          const left = (100 * m.from) / n;
          const width = Math.max(0, (100 * (m.to + 1 - m.from)) / n);
          const place =
            kind.lane === 'point'
              ? {
                  className: 'top-0 h-6 w-2 -translate-x-1/2 z-10',
                  style: { left: `${(100 * (m.from + 1)) / n}%` },
                  bar: 'mx-auto h-full w-0.5',
                }
              : {
                  className: `${kind.lane === 'tool' ? 'top-0' : 'top-3'} h-3 min-w-1.5`,
                  style: { left: `${left}%`, width: `${width}%` },
                  bar: 'h-2 w-full rounded-sm',
                };
          return (
            <button
              key={`${m.from}-${m.kind}`}
              ref={(el) => {
                refs.current[k] = el;
              }}
              type="button"
              tabIndex={k === focus ? 0 : -1}
              aria-label={markText(m, events)}
              title={markText(m, events)}
              data-kind={m.kind}
              data-verdict={m.verdict}
              aria-current={k === current ? 'true' : undefined}
              onClick={() => go(k)}
              onFocus={() => setShown(k)}
              onBlur={() => setShown(null)}
              onMouseEnter={() => setShown(k)}
              onMouseLeave={() => setShown(null)}
              className={`absolute flex items-center rounded-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-300 ${place.className}`}
              style={place.style}
            >
              <span
                aria-hidden
                className={`block ${place.bar} ${toneOf(m)} ${k === current ? 'ring-1 ring-white' : ''}`}
              />
            </button>
          );
        })}
      </div>
      <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-400">
        <p className="w-full truncate text-slate-200 lg:w-auto lg:min-w-0 lg:flex-1" data-testid="timeline-caption">
          {caption !== null ? (
            <>
              Mark {caption + 1} of {marks.length}: {markText(marks[caption], events)}
            </>
          ) : (
            `${marks.length} marks: choose one, or use the arrow keys on the marks`
          )}
        </p>
        <ul className="flex flex-wrap gap-x-3" aria-label="Timeline legend">
          {[...counts].map(([key, count]) => {
            const [kind, verdict] = key.split(' ') as [MarkKind, string | undefined];
            return (
              <li key={key} className="flex items-center gap-1">
                <span
                  aria-hidden
                  className={`inline-block h-2 w-2 rounded-sm ${kind === 'submit' ? (VERDICT_TONES[verdict ?? ''] ?? KINDS.submit.tone) : KINDS[kind].tone}`}
                />
                {count} {verdict ? `${verdict} submit` : KINDS[kind].legend}
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}
