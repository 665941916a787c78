/**
 * The practice session: one per page load, kept in IndexedDB until the study server takes over
 * logging. It also logs when the window gains or loses focus and when the tab is hidden, because
 * a person's time away is part of their timing data.
 */
import { SessionLog } from './sessionLog';

let current: SessionLog | null = null;

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
  window.addEventListener('focus', () => log.append('window.focus', {}));
  window.addEventListener('blur', () => log.append('window.blur', {}));
  document.addEventListener('visibilitychange', () => {
    log.append('visibility', { state: document.visibilityState });
    if (document.visibilityState === 'hidden') void log.flush();
  });
  window.addEventListener('pagehide', () => { log.append('page.hide', {}); void log.flush(); });
  return log;
}
