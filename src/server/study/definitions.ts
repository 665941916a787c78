/**
 * Study definitions as the routes read them: parsed from the database once and kept, since a
 * version stored under a session never changes.
 */
import type { StudyDefinition } from '../../core/study/schema';
import type { StudyRecord, StudyStore } from '../store/types';
import { definitionOf } from './studies';

/** Most stored records kept parsed by {@link StudyDefinitions.ofRecord} before the cache starts over. */
const MAX_PARSED_RECORDS = 1000;

/**
 * The study definitions of one app, parsed once.
 *
 * WARNING: a version no session has run yet may be replaced in place (`PUT /admin/studies/:id`);
 * whoever saves or deletes a study calls {@link StudyDefinitions.forget}, or {@link StudyDefinitions.at}
 * keeps answering the old definition.
 */
export interface StudyDefinitions {
  /**
   * The definition of a stored version: the one a session runs. Throws when the version is not in
   * the database, which for a session's own version means the database lost it.
   */
  at(id: string, version: number): Promise<StudyDefinition>;
  /** A record's definition, parsed once per save (keyed by when it was saved, so a version replaced in place is read anew). */
  ofRecord(rec: StudyRecord): StudyDefinition;
  /** Drops one cached version of a study, or all of them when `version` is absent. */
  forget(id: string, version?: number): void;
}

/**
 * The definitions read from `store`.
 *
 * @example
 * const definitions = studyDefinitions(store);
 * const study = await definitions.at(session.studyId, session.studyVersion);
 */
export function studyDefinitions(store: Pick<StudyStore, 'getStudy'>): StudyDefinitions {
  const versions = new Map<string, StudyDefinition>();
  const records = new Map<string, StudyDefinition>();
  return {
    async at(id, version) {
      const key = `${id}@${version}`;
      let d = versions.get(key);
      if (!d) {
        const rec = await store.getStudy(id, version);
        if (!rec) throw new Error(`Study ${key} is missing from the database.`);
        d = definitionOf(rec);
        versions.set(key, d);
      }
      return d;
    },
    ofRecord(rec) {
      const key = `${rec.id}@${rec.version}@${rec.createdAt}`;
      let d = records.get(key);
      if (!d) {
        if (records.size >= MAX_PARSED_RECORDS) records.clear();
        records.set(key, (d = definitionOf(rec)));
      }
      return d;
    },
    forget(id, version) {
      if (version !== undefined) versions.delete(`${id}@${version}`);
      else for (const key of [...versions.keys()]) if (key.startsWith(`${id}@`)) versions.delete(key);
    },
  };
}
