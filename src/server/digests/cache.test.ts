import { describe, expect, it } from 'vitest';
import type { SessionDigest } from '../../core/analysis/results';
import { newDigestFold } from '../../core/analysis/fold';
import { DigestCache, digestCacheBytesFromEnv } from './cache';

const digest = (actions: number): SessionDigest => ({
  analysis: 1,
  itemsDone: 0,
  itemsTotal: 1,
  activeMs: 0,
  actions,
  flags: [],
  tasks: {},
  games: {},
  questions: {},
});

describe('digest cache', () => {
  it('makes a study complete once all its stored digests are kept, and never replaces a kept entry with a stored row', () => {
    const cache = new DigestCache(1024 * 1024);
    const fold = newDigestFold();
    cache.set('a', 'st', 'k2', digest(2), fold);
    expect(cache.isComplete('st')).toBe(false);
    cache.setStored(
      'st',
      new Map([
        ['a', { key: 'k1', digest: digest(1) }],
        ['b', { key: 'kb', digest: digest(5) }],
      ]),
    );
    expect(cache.isComplete('st')).toBe(true);
    expect(cache.get('a')).toMatchObject({ key: 'k2', fold });
    expect(cache.get('b')).toMatchObject({ key: 'kb', fold: null });
    expect(cache.get('c')).toBeUndefined();
  });

  it('drops the least recently used entries past its budget, and a study that lost one is no longer complete', () => {
    // Each entry of an empty digest and no fold is estimated at 2 KiB: three fit, not four.
    const cache = new DigestCache(3 * 2048);
    cache.setStored(
      'one',
      new Map([
        ['a', { key: 'ka', digest: digest(1) }],
        ['b', { key: 'kb', digest: digest(1) }],
      ]),
    );
    cache.setStored('two', new Map([['c', { key: 'kc', digest: digest(1) }]]));
    expect([cache.isComplete('one'), cache.isComplete('two')]).toEqual([true, true]);
    cache.get('a');
    cache.set('d', 'two', 'kd', digest(1), null);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect([cache.isComplete('one'), cache.isComplete('two'), cache.size.entries]).toEqual([false, true, 3]);
  });

  it('keeps nothing with a budget of 0', () => {
    const cache = new DigestCache(0);
    cache.setStored('st', new Map([['a', { key: 'k', digest: digest(1) }]]));
    cache.set('b', 'st', 'k', digest(1), null);
    expect([cache.isComplete('st'), cache.size.entries]).toEqual([false, 0]);
  });

  it("runs one study's work at a time, and a failure drops that study's entries only", async () => {
    const cache = new DigestCache(1024 * 1024);
    cache.setStored('st', new Map([['a', { key: 'k', digest: digest(1) }]]));
    cache.setStored('other', new Map([['z', { key: 'k', digest: digest(1) }]]));
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = cache.exclusive('st', async () => {
      order.push('first begins');
      await gate;
      order.push('first fails');
      throw new Error('broken log');
    });
    const second = cache.exclusive('st', async () => {
      order.push('second');
      return cache.isComplete('st');
    });
    const elsewhere = cache.exclusive('other', async () => {
      order.push('other study');
    });
    await elsewhere;
    expect(order).toEqual(['first begins', 'other study']);
    release();
    await expect(first).rejects.toThrow('broken log');
    expect(await second).toBe(false);
    expect(order).toEqual(['first begins', 'other study', 'first fails', 'second']);
    expect([cache.get('a'), cache.isComplete('other')]).toEqual([undefined, true]);
  });

  it('reads its budget from ARC_STUDIO_DIGEST_CACHE_MB and names a bad value', () => {
    expect(digestCacheBytesFromEnv({})).toBe(256 * 1024 * 1024);
    expect(digestCacheBytesFromEnv({ ARC_STUDIO_DIGEST_CACHE_MB: '0' })).toBe(0);
    expect(digestCacheBytesFromEnv({ ARC_STUDIO_DIGEST_CACHE_MB: '12' })).toBe(12 * 1024 * 1024);
    expect(() => digestCacheBytesFromEnv({ ARC_STUDIO_DIGEST_CACHE_MB: 'lots' })).toThrow(
      /ARC_STUDIO_DIGEST_CACHE_MB=lots is not a whole number/,
    );
  });
});
