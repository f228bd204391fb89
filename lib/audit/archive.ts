import { createHash } from 'node:crypto';
import { type Bucket, getObject, listObjects, putNewObject } from '../platform/s3';
import type { Page } from '../platform/store';
import { commonErrors } from '../shared/errors';
import type { AuditEvent, AuditEventsQuery } from './schemas';

// The write-once store of the audit trail: an S3 bucket with Object Lock in compliance mode, whose
// policy denies every delete and any put that could replace an object (infra/resources.yml
// AuditBucket); locally its emulator (infra/local/emulators/audit-store.ts). Nothing here deletes.
// - events/<tenant>/<newest first>-<sha256>.jsonl: the events of one stream batch for one tenant,
//   newest first, one JSON a line. The name's first part orders a tenant's objects newest first
//   (a time counted down), its last is the hash of the content: a retried batch writes the same
//   object, so it is there once, and anyone can check an object against its name.
// - digests/<yyyy-mm-dd>.json: the day's objects, each tenant's, and the hash of the day before's
//   digest (a chain): proof of what was written that day, and that no digest is missing.
const EVENTS = 'events/';
const DIGESTS = 'digests/';
const LAST_MS = 9_999_999_999_999; // 2286: the countdown's start
const countdown = (ms: number) => String(LAST_MS - ms).padStart(13, '0');
const timeOf = (key: string) => LAST_MS - Number(key.slice(key.lastIndexOf('/') + 1, key.lastIndexOf('/') + 14));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const tenantPrefix = (tenant: string) => `${EVENTS}${tenant}/`;

// Stores a batch's events, one object per tenant (a retry writes what is there: no second copy).
export async function archiveEvents(bucket: Bucket, events: AuditEvent[]): Promise<void> {
  const byTenant = new Map<string, AuditEvent[]>();
  for (const e of events) byTenant.set(e.tenant, [...(byTenant.get(e.tenant) ?? []), e]);
  await Promise.all(
    [...byTenant].map(([tenant, list]) => {
      const newestFirst = list.sort((a, b) => (a.at === b.at ? 0 : a.at < b.at ? 1 : -1));
      const body = `${newestFirst.map((e) => JSON.stringify(e)).join('\n')}\n`;
      const key = `${tenantPrefix(tenant)}${countdown(Date.parse(newestFirst[0].at))}-${sha256(body)}.jsonl`;
      return putNewObject(bucket, key, body);
    }),
  );
}

// A page's place: the object and the index in it of the page's first event.
interface Place {
  k: string;
  n: number;
}
const encode = (p: Place) => Buffer.from(JSON.stringify(p)).toString('base64url');
function decode(cursor: string, prefix: string): Place {
  let p: Partial<Place> | undefined;
  try {
    p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {}
  if (!p || typeof p.k !== 'string' || !p.k.startsWith(prefix) || !Number.isSafeInteger(p.n) || (p.n as number) < 0 || cursor.length > 512)
    throw commonErrors.invalidCursor('is not a cursor this list returned');
  return p as Place;
}

const LIST_PAGE = 100;
const MAX_READS = 40; // objects read for one page of GET /audit-events, within the route's 25 s

// GET /audit-events: a tenant's events, newest first (by batch: events of one time from two
// batches may come in either order), `from` and `to` bounding the time, [from, to).
export async function listArchived(bucket: Bucket, tenant: string, q: AuditEventsQuery): Promise<Page<AuditEvent>> {
  const prefix = tenantPrefix(tenant);
  const from = q.from ? Date.parse(q.from) : undefined;
  const to = q.to ? Date.parse(q.to) : undefined;
  const keeps = (e: AuditEvent) =>
    (q.actor === undefined || e.actor.name === q.actor) &&
    (q.resourceId === undefined || e.resource.id === q.resourceId) &&
    (q.action === undefined || e.action === q.action) &&
    (q.outcome === undefined || e.outcome === q.outcome) &&
    (from === undefined || Date.parse(e.at) >= from) &&
    (to === undefined || Date.parse(e.at) < to);
  const found: Array<AuditEvent & { place: Place }> = [];
  const seen = new Set<string>();
  const read = async (key: string, skip: number) => {
    const lines = ((await getObject(bucket, key)) ?? '').split('\n').filter(Boolean);
    for (let n = skip; n < lines.length && found.length <= q.limit; n++) {
      const e = JSON.parse(lines[n]) as AuditEvent;
      if (!keeps(e) || seen.has(e.id)) continue;
      found.push({ ...e, place: { k: key, n } });
      seen.add(e.id);
    }
  };
  const at = q.cursor ? decode(q.cursor, prefix) : undefined;
  if (at) await read(at.k, at.n);
  // (An object is named by its newest event: one newer than `to` may still hold older events, which
  // `keeps` finds; `from` ends the walk, since every event of an older object is older.)
  let startAfter = at?.k;
  let reads = 0;
  while (found.length <= q.limit) {
    const { keys, next } = await listObjects(bucket, { prefix, startAfter, maxKeys: LIST_PAGE });
    for (const key of keys) {
      if (found.length > q.limit) break;
      if (from !== undefined && timeOf(key) < from) return page(found, q.limit); // its newest is older
      // A filter that seldom matches would read the whole history: a short page, and its cursor.
      if (reads++ === MAX_READS) return { items: page(found, q.limit).items, nextCursor: encode({ k: key, n: 0 }) };
      await read(key, 0);
    }
    if (!next || !keys.length) break;
    startAfter = keys.at(-1);
  }
  return page(found, q.limit);
}

function page(found: Array<AuditEvent & { place: Place }>, limit: number): Page<AuditEvent> {
  const items = found.slice(0, limit).map(({ place, ...e }) => e);
  return { items, nextCursor: found.length > limit ? encode(found[limit].place) : null };
}

// Every key under a prefix, in key order, after `startAfter`, while `keep` holds.
async function keysUnder(bucket: Bucket, prefix: string, startAfter?: string, keep: (key: string) => boolean = () => true): Promise<string[]> {
  const out: string[] = [];
  let continuation: string | undefined;
  do {
    const listing = await listObjects(bucket, { prefix, ...(continuation ? { continuation } : { startAfter }) });
    for (const key of listing.keys) {
      if (!keep(key)) return out;
      out.push(key);
    }
    continuation = listing.next;
  } while (continuation);
  return out;
}

async function tenantsOf(bucket: Bucket): Promise<string[]> {
  const out: string[] = [];
  let continuation: string | undefined;
  do {
    const listing = await listObjects(bucket, { prefix: EVENTS, delimiter: '/', ...(continuation && { continuation }) });
    out.push(...listing.prefixes);
    continuation = listing.next;
  } while (continuation);
  return out;
}

export interface Digest {
  day: string;
  previous: { key: string; sha256: string } | null;
  objects: string[]; // every object of the day's events, each named by its content's hash
  sha256: string; // of the objects' names, a line each
}

// The digest of a day (yyyy-mm-dd, UTC): its events' objects, chained to the latest digest before
// it. Written once: run again, it finds its own (and returns it as written).
export async function digestDay(bucket: Bucket, day: string): Promise<{ key: string; digest: Digest; written: boolean }> {
  const start = Date.parse(`${day}T00:00:00.000Z`);
  const end = start + 86_400_000;
  const objects: string[] = [];
  for (const prefix of await tenantsOf(bucket))
    objects.push(...(await keysUnder(bucket, prefix, `${prefix}${countdown(end)}.`, (key) => timeOf(key) >= start)));
  const key = `${DIGESTS}${day}.json`;
  const earlier = await keysUnder(bucket, DIGESTS, undefined, (k) => k < key);
  const last = earlier.at(-1);
  const lastBody = last && (await getObject(bucket, last));
  const digest: Digest = {
    day,
    previous: last && lastBody !== undefined ? { key: last, sha256: sha256(lastBody) } : null,
    objects,
    sha256: sha256(objects.join('\n')),
  };
  const written = (await putNewObject(bucket, key, `${JSON.stringify(digest, null, 1)}\n`)) === 'written';
  return { key, digest: written ? digest : (JSON.parse((await getObject(bucket, key))!) as Digest), written };
}
