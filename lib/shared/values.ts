import * as z from 'zod';

// The values every domain's schemas share: asset codes, amounts, text people read, the FSP's
// metadata, the page a list operation is asked for, and the time window it may be narrowed to.
// A tenant's id (in a path, a header, a setting): a uuid, or `operator`, the operator's.
export const tenantId = z.union([z.uuid(), z.literal('operator')]);

export const assetCode = z.string().regex(/^[A-Z0-9]{3,12}$/, 'must be 3 to 12 upper-case letters or digits');

// An amount's value: a non-negative integer in the asset's smallest unit, as a string.
export const amountValue = z.string().regex(/^(0|[1-9]\d{0,37})$/, 'must be a non-negative integer string');

// Text that people read (names, key ids): no control characters, no bidirectional overrides or
// isolates (which can make a name read as another), and at least one visible character.
export const printable = (schema: z.ZodString) =>
  schema
    .regex(/^[^\p{Cc}\u202A-\u202E\u2066-\u2069]*$/u, 'must be printable text: no control or bidirectional override characters')
    .regex(/[^\s\p{Cf}]/u, 'must contain a visible character');

// Free-form data the FSP attaches to payment intents and payments: a JSON object of at most
// 4096 bytes (UTF-8) and 64 levels, checked without recursion, so that no nesting can exhaust
// the stack. "__proto__" is refused as a key: JavaScript objects would drop it silently.
export const METADATA_MAX_BYTES = 4096;
export const METADATA_MAX_DEPTH = 64;

function metadataProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined; // the record's own error
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > METADATA_MAX_DEPTH) return `must nest at most ${METADATA_MAX_DEPTH} levels deep`;
    for (const [key, child] of Object.entries(node)) {
      if (key === '__proto__') return 'must not use "__proto__" as a key';
      pending.push([child, depth + 1]);
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(value));
  return bytes > METADATA_MAX_BYTES ? `must be at most ${METADATA_MAX_BYTES} bytes of JSON (UTF-8), not ${bytes}` : undefined;
}

export const metadata = z
  .preprocess(
    (value, ctx) => {
      const problem = metadataProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
      return value;
    },
    z.record(z.string(), z.unknown()),
  )
  .optional();

// A page size: plain decimal digits only (not "0x10", "1e1" or " 5"), 1 to 100.
export const pageLimit = z
  .string()
  .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 100, in decimal digits')
  .transform(Number)
  .pipe(z.number().min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100'))
  .default(20);

export const pageQuery = z.strictObject({
  limit: pageLimit,
  cursor: z.string().optional(), // checked where it is decoded (lib/platform/store.ts): 400 invalid_cursor
});

// A time a client names (a list's bound): ISO 8601 with any offset, kept as the instant in UTC
// (`2026-01-01T01:00:00+01:00` is `2026-01-01T00:00:00.000Z`), in the years 0001 to 9999 there: the
// stores sort times as text, which a year past 9999 (`+010000-…`) or before 0001 would break.
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');
const instant = z.iso
  .datetime({ offset: true })
  // (NaN, not a date-time, passes here: the format's own error says it)
  .refine((t) => !(Date.parse(t) < EARLIEST || Date.parse(t) > LATEST), 'must be in the years 0001 to 9999 in UTC')
  .transform((t) => new Date(t).toISOString())
  .describe('An ISO 8601 date-time with an offset (Z or ±hh:mm), in the years 0001 to 9999 in UTC');

// A list's page, narrowed by `filters` and to a window [from, to) of instants: `to` after `from`
// as instants (in UTC, as `instant` keeps them), not as the text sent.
type Window = { from?: string; to?: string };
export const windowedPageQuery = <F extends z.core.$ZodLooseShape>(filters: F) =>
  pageQuery.extend({ ...filters, from: instant.optional(), to: instant.optional() }).refine(
    (q) => {
      const { from, to } = q as Window;
      return !from || !to || from < to;
    },
    // Only bounds that parsed: a refused one is still the text sent.
    { message: 'must be after from', path: ['to'], when: (payload) => payload.issues.length === 0 },
  );
