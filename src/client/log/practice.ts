/**
 * The practice session: one per page load, kept in IndexedDB until the study server takes over
 * logging. Presence (visibility, focus, blur, idle) is logged by `watchPresence`, the same code
 * as in a study session, because a person's time away is part of their timing data.
 */
import { logVisibility, watchPresence } from './presence';
import { SessionLog } from './sessionLog';

let current: SessionLog | null = null;

/** The page's practice log, started on first use and kept for the life of the page. */
export function practiceLog(): SessionLog {
  if (current) return current;
  const log = new SessionLog('practice');
  current = log;
  log.append('session.start', {
    mode: 'practice',
    wallClock: log.startedAt,
    userAgent: navigator.userAgent,
    viewport: { width: window.innerWidth, height: window.innerHeight, dpr: window.devicePixelRatio },
  });
  logVisibility(log);
  // Never removed: the practice log lives as long as the page.
  watchPresence(log);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void log.flush();
  });
  window.addEventListener('pagehide', () => {
    log.append('page.hide', {});
    void log.flush();
  });
  return log;
}
