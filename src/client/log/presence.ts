/**
 * Presence: whether the person is looking at the page and doing something. Practice logs and
 * study sessions both log it through `watchPresence`, as events of their own log:
 *
 * - `visibility {state: "hidden" | "visible"}` when the tab is hidden or shown again;
 * - `blur {}` / `focus {}` when the window loses or regains the keyboard focus;
 * - `idle {state: "idle", ms}` after `ms` without any key, pointer, wheel or touch input while
 *   the tab is visible, and `idle {state: "active", ms}` at the next input (`ms`: how long the
 *   idle stretch lasted).
 *
 * Time on task (`activeTime`, src/core/study/activeTime.ts) takes hidden and idle time out of an
 * item's span. Installing logs nothing: call `logVisibility` where a page load's record starts
 * (a session's start or resume), so that React's development double effects never log twice.
 */
import type { EventSink } from '../player/controller';

/** No input for this long while visible logs `idle`. The quiet time itself still counts as time on task. */
export const IDLE_AFTER_MS = 120_000;

/** What presence listens to; the page's own `window` and `document` by default. */
export interface PresenceEnv {
  readonly window: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  readonly document: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> & {
    readonly visibilityState: DocumentVisibilityState;
  };
}

const INPUT_EVENTS = ['keydown', 'pointerdown', 'pointermove', 'wheel', 'touchstart'] as const;

/** Logs the tab's visibility now: the start of a page load's record. */
export function logVisibility(sink: EventSink, env: PresenceEnv = { window, document }): void {
  sink.append('visibility', { state: env.document.visibilityState === 'hidden' ? 'hidden' : 'visible' });
}

/**
 * Logs presence events to `sink` until the returned function is called, which removes every
 * listener and timer. Safe to install, remove and install again (React's StrictMode does).
 *
 * @example
 * useEffect(() => watchPresence(outbox), [outbox]);
 */
export function watchPresence(sink: EventSink, opts: { idleAfterMs?: number; env?: PresenceEnv } = {}): () => void {
  const idleAfterMs = opts.idleAfterMs ?? IDLE_AFTER_MS;
  const { window: win, document: doc } = opts.env ?? { window, document };
  let lastInput = performance.now();
  let idleSince: number | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const arm = (ms: number) => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(check, ms);
  };
  function check() {
    timer = null;
    if (idleSince !== null || doc.visibilityState === 'hidden') return;
    const quiet = performance.now() - lastInput;
    if (quiet < idleAfterMs) {
      arm(idleAfterMs - quiet);
      return;
    }
    idleSince = performance.now();
    sink.append('idle', { state: 'idle', ms: Math.round(quiet) });
  }
  /** The person is here: an input, a return to the tab or the window. */
  const present = () => {
    lastInput = performance.now();
    if (idleSince !== null) {
      const ms = Math.round(lastInput - idleSince);
      idleSince = null;
      sink.append('idle', { state: 'active', ms });
    }
    if (timer === null) arm(idleAfterMs);
  };
  const onVisibility = () => {
    const state = doc.visibilityState === 'hidden' ? 'hidden' : 'visible';
    sink.append('visibility', { state });
    if (state === 'visible') present();
  };
  const onFocus = () => {
    sink.append('focus', {});
    present();
  };
  const onBlur = () => sink.append('blur', {});

  doc.addEventListener('visibilitychange', onVisibility);
  win.addEventListener('focus', onFocus);
  win.addEventListener('blur', onBlur);
  for (const type of INPUT_EVENTS) win.addEventListener(type, present, { capture: true, passive: true });
  arm(idleAfterMs);

  return () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    doc.removeEventListener('visibilitychange', onVisibility);
    win.removeEventListener('focus', onFocus);
    win.removeEventListener('blur', onBlur);
    for (const type of INPUT_EVENTS) win.removeEventListener(type, present, { capture: true });
  };
}
