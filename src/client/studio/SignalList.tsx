/**
 * Signals of help and low effort as the studio shows them: one badge per signal, its rule on
 * hover, in amber (a reason to look) where the flags that hold a session back are red.
 */
import { isSignalFlag, SIGNAL_RULES, type SignalKind } from '../../core/analysis/signals';
import type { CampaignSignalSession } from './queries';

const { away, burst, sameActions, sameWrong, sameDescription } = SIGNAL_RULES;

/** Each signal's rule in a sentence (docs/researchers.md, "Signals of help and low effort"). */
export const SIGNAL_RULE_TEXT: Record<SignalKind, string> = {
  pasted_text: 'Text was pasted into a description or a written answer of this item.',
  away_from_tab: `The tab was hidden or the window out of focus for ${away.minMs / 1000} s or more during this item.`,
  action_burst: `${burst.actions} game actions within ${burst.withinMs} ms: faster than a person presses keys.`,
  same_wrong_answer: `The same wrong grid as another session, on at least ${sameWrong.minItems} tasks.`,
  same_game_actions: `The same sequence of ${sameActions.minActions} or more game actions as another session.`,
  same_description: `A description at least ${Math.round(sameDescription.similarity * 100)}% like another session's.`,
};

/** "pasted text", "item q1" and its rule, from a flag such as `pasted_text:q1`. */
export function signalParts(flag: string): { label: string; item: string | null; rule: string } {
  const colon = flag.indexOf(':');
  const kind = (colon < 0 ? flag : flag.slice(0, colon)) as SignalKind;
  return {
    label: kind.replace(/_/g, ' '),
    item: colon < 0 ? null : flag.slice(colon + 1),
    rule: SIGNAL_RULE_TEXT[kind] ?? '',
  };
}

/** One session's flags as badges: signals in amber with their rule, other flags in red. */
export function FlagBadges({ flags }: { flags: readonly string[] }) {
  return (
    <span className="flex flex-wrap gap-1">
      {flags.map((f) => {
        if (!isSignalFlag(f))
          return (
            <span key={f} className="rounded bg-rose-600/30 px-1.5 py-0.5 text-xs text-rose-200">
              {f.replace(/_/g, ' ')}
            </span>
          );
        const { label, item, rule } = signalParts(f);
        return (
          <span
            key={f}
            title={rule}
            data-signal={f}
            className="rounded bg-amber-600/30 px-1.5 py-0.5 text-xs text-amber-100"
          >
            {label}
            {item !== null && <span className="font-mono text-amber-200/80"> · {item}</span>}
          </span>
        );
      })}
    </span>
  );
}

/** The campaign's sessions with signals, to look at before paying. */
export function CampaignSignals({ sessions }: { sessions: readonly CampaignSignalSession[] }) {
  return (
    <section className="flex flex-col gap-2" aria-labelledby="signals-title" data-testid="campaign-signals">
      <h2 id="signals-title" className="font-semibold text-white">
        Signals of help and low effort <span className="text-sm font-normal text-slate-400">({sessions.length})</span>
      </h2>
      <p className="text-xs text-slate-400">
        Reasons to look at a session before counting or paying it, never exclusions: hover a signal for its rule.
      </p>
      {sessions.length === 0 ? (
        <p className="rounded-lg border border-slate-800 p-3 text-sm text-slate-400">No session shows a signal.</p>
      ) : (
        <ul className="flex flex-col gap-1" aria-label="Sessions with signals">
          {sessions.map((s) => (
            <li key={s.sessionId} className="flex flex-wrap items-center gap-2 text-sm">
              <span className="font-mono text-slate-100">{s.participant ?? s.sessionId.slice(0, 8)}</span>
              <FlagBadges flags={s.signals} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
