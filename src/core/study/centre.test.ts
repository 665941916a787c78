import { describe, expect, it } from 'vitest';
import { STATION_OFFLINE_MS, stationStatus, type StationSessionInput } from './centre';
import { parseStudy } from './schema';
import type { StoredEvent } from './rules';

const study = (() => {
  const r = parseStudy({
    id: 'centre',
    title: 'Centre',
    consent: 'ok',
    completion: { code: 'DONE' },
    limits: { sessionMinutes: 60, itemSoftMinutes: 5, itemHardMinutes: 10 },
    items: [
      { kind: 'page', id: 'welcome', markdown: 'hi' },
      { kind: 'pool', id: 'p', draw: 1, candidates: [{ kind: 'game', id: 'g', game: 'push' }] },
    ],
  });
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.study;
})();
const MIN = 60_000;
const t0 = 1_000_000;
const ev = (seq: number, kind: string, data: Record<string, unknown>, at: number): StoredEvent => ({
  seq,
  t: seq,
  kind,
  data,
  receivedAt: at,
});
const station = { id: 's', name: 'A', lastSeenAt: t0 + 10 * MIN, pendingParticipant: null, outboxPending: 0 };
const session = (extra: Partial<StationSessionInput> = {}): StationSessionInput => ({
  sessionId: 'x',
  participant: 'p1',
  checkedInAt: t0,
  state: 'active',
  createdAt: t0,
  order: [0, 1],
  flags: [],
  notes: [],
  last: {
    'item.start': ev(3, 'item.start', { item: 'g' }, t0 + 2 * MIN),
    'game.action': ev(9, 'game.action', { level: 2 }, t0 + 9 * MIN),
  },
  ...extra,
});

describe('a station as the console shows it', () => {
  it('shows the candidate, its level and the time left on both clocks, breaks left out', () => {
    const now = t0 + 10 * MIN;
    const s = stationStatus(study, station, session({ pauses: [{ from: t0 + 3 * MIN, to: t0 + 5 * MIN }] }), now);
    expect(s.state).toBe('running');
    expect(s.session!.item).toEqual({ id: 'g', kind: 'game', candidate: true, level: 2, msLeft: 4 * MIN });
    expect(s.session!.sessionMsLeft).toBe(52 * MIN);
    expect(s.session!.pausedMs).toBe(2 * MIN);
  });

  it('goes offline after the silence, and says paused, away, idle, finished, waiting and free', () => {
    const now = t0 + 10 * MIN;
    expect(stationStatus(study, { ...station, lastSeenAt: now - STATION_OFFLINE_MS - 1 }, session(), now).state).toBe(
      'offline',
    );
    expect(stationStatus(study, station, session({ pauses: [{ from: now - 1, to: null }] }), now).state).toBe('paused');
    const hidden = { ...session().last, visibility: ev(10, 'visibility', { state: 'hidden' }, now - 5) };
    expect(stationStatus(study, station, session({ last: hidden }), now).state).toBe('away');
    const idle = { ...session().last, idle: ev(10, 'idle', { state: 'idle' }, now - 5) };
    expect(stationStatus(study, station, session({ last: idle }), now).state).toBe('idle');
    expect(stationStatus(study, station, session({ state: 'finished' }), now).state).toBe('finished');
    expect(stationStatus(study, { ...station, pendingParticipant: 'p2' }, null, now).state).toBe('waiting');
    expect(stationStatus(study, station, null, now).state).toBe('free');
  });

  it('says retired before anything else, silent or not', () => {
    const now = t0 + 10 * MIN;
    const retired = { ...station, retiredAt: now - MIN };
    expect(stationStatus(study, retired, null, now)).toMatchObject({ state: 'retired', retiredAt: now - MIN });
    expect(stationStatus(study, { ...retired, lastSeenAt: null }, null, now).state).toBe('retired');
    expect(stationStatus(study, station, null, now).retiredAt).toBeNull();
  });
});
