/**
 * `GET /api/question-collections/:cid/images/:src`: the images question items show. Only images
 * an item of the mounted file names are served (checked when it was mounted), so no other file
 * of the folder can be reached. Images are part of a question's prompt, not of its answer.
 */
import { readFile } from 'node:fs/promises';
import { Hono } from 'hono';
import type { TaskLibrary } from '../collections/collections';
import { fail } from '../http';

export function questionImageRoutes(library: TaskLibrary): Hono {
  const api = new Hono();
  api.get('/question-collections/:cid/images/:src', async (c) => {
    const found = library.questions.image(c.req.param('cid'), c.req.param('src'));
    if (!found)
      return fail(
        c,
        404,
        'not_found',
        'No such question image: it is not named by an item of a mounted question file.',
      );
    const bytes = await readFile(found.file).catch(() => null);
    if (!bytes)
      return fail(
        c,
        404,
        'not_found',
        'The image file can no longer be read: it was moved or deleted after the server started. Restart the server.',
      );
    return c.body(new Uint8Array(bytes), 200, { 'Content-Type': found.type, 'Cache-Control': 'private, max-age=3600' });
  });
  return api;
}
