import { randomBytes } from 'node:crypto';

// An audit event's id is a UUID version 7 (RFC 9562) whose time is the event's own (`at`, to the
// millisecond): its store keys it by time, so the id alone finds it in one read (GET /search).
export function auditEventId(at: Date): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at.getTime(), 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8] & 0x3f); // variant 10
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// The time an audit event's id carries (ISO 8601, as its `at`), or undefined for an id that is no
// version 7 UUID (those of events recorded before ids were: found by their time on the Audit list).
export function timeOfAuditEventId(id: string): string | undefined {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  return ms > 253402300799999 ? undefined : new Date(ms).toISOString();
}
