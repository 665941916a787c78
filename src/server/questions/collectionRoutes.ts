/**
 * The researcher's view of the mounted question collections, for the study editor's question
 * picker: `GET /api/admin/question-collections` lists them, and
 * `GET /api/admin/question-collections/:cid/questions` gives a collection's questions as a
 * participant would see them (no answers or rubrics: the editor does not need them), each with
 * its answer `type` (`choice`, `number`, `symbolic`, `free-response`).
 */
import { Hono } from 'hono';
import type { TaskLibrary } from '../collections/collections';
import { fail } from '../http';
import { adminGuard } from '../study/context';
import { questionFacts } from '../../core/analysis/questions';

export function questionCollectionRoutes(library: TaskLibrary, adminTokenHash: string): Hono {
  const admin = new Hono();
  admin.use('*', adminGuard(adminTokenHash));
  admin.get('/question-collections', (c) => c.json({ collections: library.questions.list() }));
  admin.get('/question-collections/:cid/questions', (c) => {
    const cid = c.req.param('cid');
    const items = library.questions.items(cid);
    if (!items) {
      const known = library.questions.list().map((q) => q.id);
      return fail(
        c,
        404,
        'not_found',
        `No question collection "${cid}". ${known.length ? `Collections: ${known.join(', ')}.` : 'Mount one with serve --questions NAME=FILE.'}`,
      );
    }
    // Each with its answer type as the results name it, so the editor's picker uses the same words.
    return c.json({
      questions: items.map((q) => ({ ...library.questions.publicView(cid, q), type: questionFacts(q).type })),
    });
  });
  return admin;
}
