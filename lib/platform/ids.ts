import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';

// The ids of new records. Inside a scope seeded with a signed Admin request's MAC (seedIds), each
// id is derived from it, in the order drawn: the record a create makes then sits under a key that
// only that request, or a replay of it, names, and the record's own conditional Put is the
// signature's replay guard, at no item of its own (lib/api/http/admin.ts). Elsewhere random.
const seeds = new AsyncLocalStorage<{ seed?: string; drawn: number }>();

export const idScope = <T>(fn: () => Promise<T>) => seeds.run({ drawn: 0 }, fn);

// Seeds the scope's ids; answers the first id it will draw.
export function seedIds(seed: string): string {
  const s = seeds.getStore();
  if (!s) throw new Error('seedIds() outside idScope()');
  s.seed = seed;
  s.drawn = 0;
  return derivedId(seed, 0);
}

// A new record's id (a UUID, v4's form either way, which every id schema takes).
export function newId(): string {
  const s = seeds.getStore();
  return s?.seed ? derivedId(s.seed, s.drawn++) : randomUUID();
}

// The id a create draws for a record that is named instead (a payment, by its quote: lib/payments), in
// a signed request's scope: the record keeps it (GUARD_ID), so that its put still holds the request's
// replay guard (lib/platform/tx). None elsewhere: there is no request to guard.
export function drawnForNamed(): string | undefined {
  const s = seeds.getStore();
  return s?.seed ? derivedId(s.seed, s.drawn++) : undefined;
}

const derivedId = (seed: string, n: number) => uuidFrom(`${seed}#${n}`);

// A UUID in v4's layout (version 4, variant 10) from the hash of `text`: the same text, the same id.
export function uuidFrom(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((Number.parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
