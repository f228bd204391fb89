import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { auditEventsOf } from '../../lib/audit/store';
import { type Author, authored, authorOfStamp, type TransactItem } from '../../lib/platform/tx';

// What the audit recorder makes of the main table's stream records: a changed resource record with
// its author and the fields that changed; nothing for what is not a resource's record, nor for
// DynamoDB's expiry; secrets' values never.
const stamp = (by: object) => ({ S: JSON.stringify({ ...by, at: '2026-11-29T12:00:00.000Z' }) });
const key = { kind: 'key', name: 'operator' };
const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  images: { NewImage?: any; OldImage?: any },
  extra: Partial<DynamoDBRecord> = {},
): DynamoDBRecord => ({
  eventID: `e-${Math.random()}`,
  eventName,
  dynamodb: { SequenceNumber: '1', ...images },
  ...extra,
});
const asset = (fields: object): Record<string, any> => ({ pk: { S: 'T#t1#ASSET#a1' }, sk: { S: 'ASSET' }, id: { S: 'a1' }, ...fields });

describe('the audit trail, from the stream', () => {
  it("records a resource's change with its author, and only the fields that changed", () => {
    const by = { actor: key, action: 'PATCH /assets/{id}', operationId: 'updateAsset', status: 200, requestId: 'r-1', reason: 'why' };
    const [event] = auditEventsOf([
      record('MODIFY', {
        OldImage: asset({ code: { S: 'USD' }, version: { N: '1' }, changedBy: stamp({ actor: key, action: 'POST /assets' }) }),
        NewImage: asset({ code: { S: 'USD' }, version: { N: '2' }, sendingFee: { M: { fixed: { S: '25' }, basisPoints: { N: '30' } } }, changedBy: stamp(by) }),
      }),
    ]);
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      at: '2026-11-29T12:00:00.000Z',
      actor: key,
      action: 'PATCH /assets/{id}',
      operationId: 'updateAsset',
      resource: { type: 'asset', id: 'a1' },
      tenant: 't1',
      outcome: 'succeeded',
      status: 200,
      requestId: 'r-1',
      reason: 'why',
      changes: { version: { before: '1', after: '2' }, sendingFee: { after: { fixed: '25', basisPoints: '30' } } },
    });
  });

  it("skips what is no resource's record, and expiry; attributes a write that stamped nothing to nobody", () => {
    const lookup = { pk: { S: 'ASSETCODE#USD' }, sk: { S: 'ASSET' }, id: { S: 'a1' }, changedBy: stamp({ actor: key, action: 'x' }) };
    const shard = { pk: { S: 'ACCT#x#3' }, sk: { S: 'ACCT' }, changedBy: stamp({ actor: key, action: 'x' }) };
    const old = asset({ state: { S: 'a' }, changedBy: stamp({ actor: key, action: 'x' }) });
    const events = auditEventsOf([
      record('INSERT', { NewImage: lookup }),
      record('MODIFY', { NewImage: shard, OldImage: shard }),
      record('REMOVE', { OldImage: old }, { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } }),
      record('MODIFY', { OldImage: old, NewImage: asset({ state: { S: 'b' }, changedBy: old.changedBy }) }),
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: { kind: 'service', name: 'unattributed' }, changes: { state: { before: 'a', after: 'b' } } });
  });

  it("never holds a secret's value, only that it changed", () => {
    const peer = (token: string) => ({ pk: { S: 'PEER#p1' }, sk: { S: 'PEER' }, id: { S: 'p1' }, outgoingToken: { S: token } });
    const [event] = auditEventsOf([
      record('MODIFY', { OldImage: peer('old-secret'), NewImage: { ...peer('new-secret'), changedBy: stamp({ actor: key, action: 'PATCH /peers/{id}' }) } }),
    ]);
    expect(event.changes).toEqual({ outgoingToken: { before: '[redacted]', after: '[redacted]' } });
    expect(JSON.stringify(event)).not.toMatch(/old-secret|new-secret/);
  });

  it("an operator's action that changed nothing: its event, as written", () => {
    const event = { id: 'x', at: 'y', outcome: 'refused' };
    expect(auditEventsOf([record('INSERT', { NewImage: { pk: { S: 'AUDIT' }, sk: { S: 'y#x' }, audit: { S: JSON.stringify(event) } } })])).toEqual([event]);
  });

  it("stamps an audited record's update in its own SET clause, or adds one; any other item is left as it is", () => {
    const Key = { pk: 'T#t1#PAYMENT#p1', sk: 'PAYMENT' };
    const set = authored({ Update: { TableName: 't', Key, UpdateExpression: 'SET a = :a REMOVE b' } }, 'work').Update!;
    expect(set.UpdateExpression).toBe('SET #changedBy = :changedBy, a = :a REMOVE b');
    const add = authored({ Update: { TableName: 't', Key, UpdateExpression: 'ADD n :one' } } as TransactItem, 'work').Update!;
    expect(add.UpdateExpression).toBe('SET #changedBy = :changedBy ADD n :one');
    expect(authorOfStamp(add.ExpressionAttributeValues![':changedBy'])).toMatchObject({ actor: { kind: 'service' }, action: 'work' });
    // A listing item and an account are not audited records: they carry no stamp (nor pay for it).
    const listed = { Put: { TableName: 't', Item: { pk: 'PAYMENT#p1', sk: 'LISTED', state: 'SENDING' } } };
    expect(authored(listed, 'work')).toEqual(listed);
    const account = { Update: { TableName: 't', Key: { pk: 'ACCT#payment:p1', sk: 'ACCT' }, UpdateExpression: 'ADD b :x' } };
    expect(authored(account, 'work')).toEqual(account);
  });

  // Issue 46: a stamp as its fields in order (about 90 bytes less a record) is read to the same audit
  // event as the object written today, so that a later release can write it (lib/platform/tx).
  it('reads a stamp as an object or as its fields in order, to the same audit event', () => {
    const at = new Date('2026-11-30T05:30:46.227Z');
    // The array form, as lib/platform/tx authorOfStamp reads it.
    const asArray = (a: Author) => {
      const fields = [
        a.actor.kind,
        a.actor.name,
        a.action,
        a.operationId ?? 0,
        a.status ?? 0,
        a.requestId ?? 0,
        at.getTime(),
        a.actor.role ?? 0,
        a.reason ?? 0,
      ];
      while (fields.at(-1) === 0) fields.pop();
      return JSON.stringify(fields);
    };
    const authors: Author[] = [
      { actor: key as Author['actor'], action: 'POST /payments', operationId: 'createPayment', status: 201, requestId: '4887fa3b-2aa9-4205-8c51-6c61dbf66e40' },
      {
        actor: { kind: 'operator', name: 'ann@fsp.example', role: 'admin' },
        action: 'PATCH /assets/{id}',
        operationId: 'updateAsset',
        status: 200,
        requestId: 'r-1',
        reason: 'why, | "quoted" \u001f',
      },
      { actor: { kind: 'operator', name: 'bo', role: 'operator' }, action: 'POST /payments/{id}/cancel', status: 200, reason: '' },
      { actor: { kind: 'service', name: 'payment-service' }, action: 'payment-deliver' },
    ];
    for (const a of authors) {
      const today = JSON.stringify({ ...a, at: at.toISOString() });
      const compact = asArray(a);
      expect(authorOfStamp(compact)).toEqual({ ...a, at: at.toISOString() });
      expect(authorOfStamp(today)).toEqual(authorOfStamp(compact));
      const eventOf = (stamp: string) =>
        auditEventsOf([record('INSERT', { NewImage: asset({ code: { S: 'USD' }, changedBy: { S: stamp } }) }, { eventID: 'e-1' })]);
      expect(eventOf(compact)).toEqual(eventOf(today));
      expect(eventOf(today)).toHaveLength(1);
    }
    expect(Buffer.byteLength(JSON.stringify({ ...authors[0], at }))).toBeGreaterThan(Buffer.byteLength(asArray(authors[0])) + 80);
  });
});
