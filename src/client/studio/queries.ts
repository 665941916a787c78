/** The researcher's server data: studies, sessions, results and logs (see docs/api.md). */
import { queryOptions } from '@tanstack/react-query';
import type { LogEvent } from '../../core/log/events';
import { adminJson } from './auth';

export interface StudyListEntry {
  readonly id: string;
  readonly version: number;
  readonly source: string;
  readonly sessions: number;
  readonly title: string;
  readonly createdAt: number;
}

export interface Dist {
  readonly n: number;
  readonly min: number | null;
  readonly p25: number | null;
  readonly median: number | null;
  readonly p75: number | null;
  readonly max: number | null;
  readonly mean: number | null;
  readonly values: number[];
}

export interface BaselineFigure {
  readonly value: number | null;
  readonly completers: number;
}

export interface Participant {
  readonly sessionId: string;
  readonly params: Record<string, string>;
  readonly studyVersion: number;
  readonly state: string;
  readonly createdAt: number;
  readonly finishedAt: number | null;
  readonly itemsDone: number;
  readonly itemsTotal: number;
  readonly activeMs: number;
  readonly actions: number;
  readonly flags: string[];
  readonly playtest: boolean;
}

export interface TaskResult {
  readonly item: string;
  readonly collection: string;
  readonly task: string;
  readonly tests: number;
  readonly participants: number;
  readonly attempted: number;
  readonly solvedWithin: number[];
  readonly solveRate: number[];
  readonly timeToFirstActionMs: Dist;
  readonly timeToSolveMs: Dist;
  readonly actions: Dist;
  readonly tools: Record<string, number>;
}

export interface LevelResult {
  readonly level: number;
  readonly reached: number;
  readonly completed: number;
  readonly actions: Dist;
  readonly timeMs: Dist;
  readonly resets: Dist;
  readonly undos: Dist;
  readonly baselines: Record<'best' | 'second-best' | 'median' | 'upper-median', BaselineFigure>;
  readonly clicks: [number, number, number][];
}

export interface GameResult {
  readonly item: string;
  readonly game: string;
  readonly title: string;
  readonly participants: number;
  readonly levels: LevelResult[];
}

export interface StudyResults {
  readonly study: { id: string; title: string; versions: number[]; version: number | null };
  readonly participants: Participant[];
  readonly tasks: TaskResult[];
  readonly games: GameResult[];
}

export const studiesQuery = queryOptions({
  queryKey: ['admin', 'studies'],
  queryFn: () => adminJson<{ studies: StudyListEntry[] }>('/api/admin/studies').then((r) => r.studies),
});

export const resultsQuery = (studyId: string, version: number | null) => queryOptions({
  queryKey: ['admin', 'results', studyId, version],
  queryFn: () => adminJson<StudyResults>(`/api/admin/studies/${encodeURIComponent(studyId)}/results${version === null ? '' : `?version=${version}`}`),
  staleTime: 10_000,
});

export const sessionEventsQuery = (sessionId: string) => queryOptions({
  queryKey: ['admin', 'events', sessionId],
  queryFn: () => adminJson<{ events: (LogEvent & { receivedAt?: number; practice?: boolean })[] }>(`/api/admin/sessions/${encodeURIComponent(sessionId)}/events`).then((r) => r.events),
});

export const sessionQuery = (sessionId: string) => queryOptions({
  queryKey: ['admin', 'session', sessionId],
  queryFn: () => adminJson<{ session: { id: string; studyId: string; studyVersion: number; params: Record<string, string>; state: string; flags: string[]; seed: number; order: number[]; createdAt: number }; summary: { items: { id: string; kind: string; actions: number; durationMs: number; counts: boolean; practice: boolean }[]; flags: string[] } }>(`/api/admin/sessions/${encodeURIComponent(sessionId)}`),
});
