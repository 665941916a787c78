/**
 * One way to read tasks whatever their source: a collection on the server, or the tasks imported
 * in this browser.
 */
import type { UseQueryOptions } from '@tanstack/react-query';
import { taskIdsQuery, taskQuery } from '../api';
import type { ArcTask } from '../../core/formats/arcTask';
import { IMPORTED, importedListQuery, importedTaskQuery } from './imported';

export function taskIdsOf(collection: string): UseQueryOptions<string[], Error, string[], readonly unknown[]> {
  return (collection === IMPORTED ? importedListQuery : taskIdsQuery(collection)) as UseQueryOptions<string[], Error, string[], readonly unknown[]>;
}

export function taskOf(collection: string, taskId: string): UseQueryOptions<ArcTask, Error, ArcTask, readonly unknown[]> {
  return (collection === IMPORTED ? importedTaskQuery(taskId) : taskQuery(collection, taskId)) as UseQueryOptions<ArcTask, Error, ArcTask, readonly unknown[]>;
}
