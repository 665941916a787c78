/**
 * One way to read tasks whatever their source: a collection on the server, or the tasks imported
 * in this browser. Server collections are sealed or practice (docs/api.md, "Sealing"): a sealed
 * one opens only with the researcher's token, which these reads send when the researcher is
 * logged in in this browser; a practice one sends its tasks without test outputs.
 */
import { queryOptions, type UseQueryOptions } from '@tanstack/react-query';
import { ApiError, getJson } from '../api';
import { setResearcherToken, signedIn, useResearcher } from '../studio/auth';
import type { ArcTask } from '../../core/formats/arcTask';
import { IMPORTED, importedListQuery, importedTaskQuery } from './imported';

export type { CollectionAccess, CollectionInfo } from '../../core/protocol/api';
import type { CollectionAccess, CollectionInfo } from '../../core/protocol/api';

/** A task as the player gets it, and how its answers are checked. */
export interface LoadedTask {
  readonly task: ArcTask;
  /**
   * `browser`: the task holds its answers (imported here, or a sealed task the researcher
   * previews); `server`: a practice task without answers, checked by the server.
   */
  readonly answers: 'browser' | 'server';
}

/** Reads a collection route, with the researcher's token when logged in; a refused token logs out. */
async function collectionJson<T>(url: string): Promise<T> {
  const token = useResearcher.getState().token;
  try {
    return await getJson<T>(url, token ? { headers: { Authorization: `Bearer ${token}` } } : undefined);
  } catch (e) {
    if (token && e instanceof ApiError && e.status === 403) setResearcherToken(null);
    throw e;
  }
}

const path = (collection: string, taskId?: string) =>
  `/api/collections/${encodeURIComponent(collection)}/tasks${taskId === undefined ? '' : `/${taskId.split('/').map(encodeURIComponent).join('/')}`}`;

/** A refusal (sealed, no such task) is final; only failures of the network or the server are tried again. */
const noRetryWhenRefused = (failures: number, e: Error) =>
  !(e instanceof ApiError && e.status > 0 && e.status < 500) && failures < 1;

/** Whether the reads below go out as the researcher: part of their keys, so a login refetches. */
const asResearcher = () => signedIn(useResearcher.getState());

export const collectionsQuery = queryOptions({
  queryKey: ['collections'],
  queryFn: () => getJson<{ collections: CollectionInfo[] }>('/api/collections').then((r) => r.collections),
});

export const taskIdsQuery = (collection: string) =>
  queryOptions({
    queryKey: ['collections', collection, 'tasks', asResearcher()],
    queryFn: () => collectionJson<{ tasks: string[] }>(path(collection)).then((r) => r.tasks),
    retry: noRetryWhenRefused,
  });

export const taskQuery = (collection: string, taskId: string) =>
  queryOptions({
    queryKey: ['collections', collection, 'task', taskId, asResearcher()],
    queryFn: async (): Promise<LoadedTask> => {
      const r = await collectionJson<{ task: ArcTask; access: CollectionAccess }>(path(collection, taskId));
      return { task: r.task, answers: r.access === 'practice' ? 'server' : 'browser' };
    },
    retry: noRetryWhenRefused,
    staleTime: Infinity,
  });

export function taskIdsOf(collection: string): UseQueryOptions<string[], Error, string[], readonly unknown[]> {
  return (collection === IMPORTED ? importedListQuery : taskIdsQuery(collection)) as UseQueryOptions<
    string[],
    Error,
    string[],
    readonly unknown[]
  >;
}

export function taskOf(
  collection: string,
  taskId: string,
): UseQueryOptions<LoadedTask, Error, LoadedTask, readonly unknown[]> {
  return (collection === IMPORTED ? importedTaskQuery(taskId) : taskQuery(collection, taskId)) as UseQueryOptions<
    LoadedTask,
    Error,
    LoadedTask,
    readonly unknown[]
  >;
}
