import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { idScope, newId, seedIds } from '../../lib/platform/ids';

// New records' ids (lib/platform/ids.ts): random, but derived from a signed Admin request's MAC in
// its scope, so that the create's record is its replay guard (lib/api/http/admin.ts).
describe('new ids', () => {
  const uuid = z.uuid();
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('are random outside a seeded scope', async () => {
    expect(newId()).not.toBe(newId());
    await idScope(async () => expect(newId()).not.toBe(newId()));
  });

  it('come from the seed in a seeded scope: the first is the one seedIds names, each next one differs, and the same seed draws the same', async () => {
    const draw = (seed: string) =>
      idScope(async () => {
        const first = seedIds(seed);
        return [first, newId(), newId(), newId()];
      });
    const [first, ...ids] = await draw('a'.repeat(64));
    expect(ids[0]).toBe(first);
    expect(new Set(ids).size).toBe(3);
    expect(await draw('a'.repeat(64))).toEqual([first, ...ids]);
    const other = await draw('b'.repeat(64));
    expect(other.filter((id) => ids.includes(id))).toEqual([]);
    for (const id of [...ids, ...other]) {
      expect(id).toMatch(V4);
      expect(uuid.safeParse(id).success).toBe(true);
    }
  });

  it('stay in their own scope', async () => {
    const seen: string[] = [];
    await Promise.all([
      idScope(async () => {
        seedIds('c'.repeat(64));
        await new Promise((r) => setTimeout(r, 5));
        seen.push(newId());
      }),
      idScope(async () => {
        await new Promise((r) => setTimeout(r, 1));
        seen.push(newId());
      }),
    ]);
    const seeded = await idScope(async () => seedIds('c'.repeat(64)));
    expect(seen).toHaveLength(2);
    expect(seen.filter((id) => id === seeded)).toHaveLength(1);
  });
});
