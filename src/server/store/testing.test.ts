import { describe, expect, it } from 'vitest';
import { backends } from './testing';

describe.each(backends)('test stores on $name', (backend) => {
  it('give each store an empty database: nothing a closed store wrote is seen by the next', async () => {
    for (const title of ['one', 'two', 'three']) {
      const store = await backend.open();
      expect(await store.listStudies()).toEqual([]);
      expect(await store.saveStudy('kept', { title }, 'studio', 1)).toEqual({ version: 1, created: true });
      expect(await store.listStudies()).toHaveLength(1);
      await store.close();
      // A second close must not give its database to two stores.
      await store.close();
    }
  });
});
