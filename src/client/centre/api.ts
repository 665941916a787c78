/**
 * The testing centre's requests: the proctor's (signed in, through the studio's `adminJson`) and
 * the station's (its secret as the bearer). Bodies follow `core/protocol/centre.ts`.
 */
import { queryOptions } from '@tanstack/react-query';
import { getJson } from '../api';
import { adminJson } from '../studio/auth';
import type { ConsoleView, PayoutsView, StationCreated, StationView } from '../../core/protocol/centre';

/** How often the console asks again: every station's state shows within a second. */
export const CONSOLE_POLL_MS = 500;

const study = (studyId: string) => `/api/admin/studies/${encodeURIComponent(studyId)}/centre`;
const session = (sessionId: string) => `/api/admin/sessions/${encodeURIComponent(sessionId)}/centre`;
const post = <T>(url: string, body: unknown = {}) => adminJson<T>(url, { method: 'POST', body: JSON.stringify(body) });

/** The console's reading; with `withRetired`, the retired stations too. */
export const consoleQuery = (studyId: string, withRetired = false) =>
  queryOptions({
    queryKey: ['admin', 'centre', studyId, withRetired],
    queryFn: () => adminJson<ConsoleView>(`${study(studyId)}${withRetired ? '?retired=1' : ''}`),
    refetchInterval: CONSOLE_POLL_MS,
  });

export const payoutsQuery = (studyId: string, day: string | null) =>
  queryOptions({
    queryKey: ['admin', 'centre-payouts', studyId, day],
    queryFn: () => adminJson<PayoutsView>(`${study(studyId)}/payouts${day ? `?day=${day}` : ''}`),
  });

export const payoutsCsvUrl = (studyId: string, day: string | null) =>
  `${study(studyId)}/payouts.csv${day ? `?day=${day}` : ''}`;

export const addStation = (studyId: string, name: string) =>
  post<StationCreated>(`${study(studyId)}/stations`, { name });
export const checkIn = (studyId: string, stationId: string, participantId: string) =>
  post(`${study(studyId)}/stations/${encodeURIComponent(stationId)}/checkin`, { participantId });
/** Takes a station out of service (`retire` true) or puts it back. */
export const retireStation = (studyId: string, stationId: string, retire: boolean) =>
  post(`${study(studyId)}/stations/${encodeURIComponent(stationId)}/${retire ? 'retire' : 'unretire'}`);
export const pauseSession = (sessionId: string, pause: boolean) =>
  post(`${session(sessionId)}/${pause ? 'pause' : 'resume'}`);
export const endSession = (sessionId: string, reason: string) => post(`${session(sessionId)}/end`, { reason });
export const noteSession = (sessionId: string, text: string, flag: boolean) =>
  post(`${session(sessionId)}/notes`, { text, flag });

/** A station's own request, its secret as the bearer. */
function stationPost<T>(secret: string, path: string, body: unknown): Promise<T> {
  return getJson<T>(`/api/centre/station/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` },
    body: JSON.stringify(body),
  });
}

export const stationPing = (secret: string, sessionId: string | null, pending: number) =>
  stationPost<StationView>(secret, 'ping', { sessionId, pending });
export const stationBegan = (secret: string, sessionId: string, token: string) =>
  stationPost(secret, 'sessions', { sessionId, token });
export const stationCleared = (secret: string, sessionId: string) => stationPost(secret, 'cleared', { sessionId });
