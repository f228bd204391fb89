import type { CallObserver } from '../../../lib/platform/aws';

// The storage work of the functions' DynamoDB calls, for the bench: the items they write, the
// conditions they check, and the read and write units DynamoDB reports (each call asks for them
// with ReturnConsumedCapacity: TOTAL, which DynamoDB Local answers as DynamoDB does: a transaction
// costs twice, an index write once more). Only the local runtime asks, and only when told to.
export interface StorageUsage {
  items: number; // items a write names: put, updated, deleted, or checked in a transaction (each costs write units)
  checks: number; // of which a transaction's condition checks (nothing written)
  conditions: number; // writes with a condition, and a transaction's condition checks
  rcu: number;
  wcu: number;
  messages: number; // SQS messages sent (a batch's entries)
  events: number; // EventBridge entries put
}
export const noUsage = (): StorageUsage => ({ items: 0, checks: 0, conditions: 0, rcu: 0, wcu: 0, messages: 0, events: 0 });

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Write {
  TableName?: string;
  ConditionExpression?: string;
}
interface WriteInput extends Write {
  TransactItems?: Array<{ Put?: Write; Update?: Write; Delete?: Write; ConditionCheck?: Write }>;
  RequestItems?: Record<string, unknown[]>;
  Entries?: unknown[]; // SendMessageBatch's, PutEvents'
}
interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

// What one DynamoDB call wrote and consumed, from its input and its output (undefined: it failed).
export function usageOf(operation: string, input: WriteInput, output?: { ConsumedCapacity?: Capacity | Capacity[] }): StorageUsage {
  const usage = noUsage();
  if (operation === 'TransactWriteItems') {
    for (const t of input.TransactItems ?? []) {
      const write = t.Put ?? t.Update ?? t.Delete ?? t.ConditionCheck;
      if (!write) continue;
      usage.items++;
      if (t.ConditionCheck) usage.checks++;
      if (write.ConditionExpression) usage.conditions++;
    }
  } else if (operation === 'BatchWriteItem') {
    for (const requests of Object.values(input.RequestItems ?? {})) usage.items += requests.length;
  } else if (WRITES.has(operation)) {
    usage.items = 1;
    if (input.ConditionExpression) usage.conditions = 1;
  }
  const consumed = output?.ConsumedCapacity;
  for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      usage.rcu += c.ReadCapacityUnits ?? 0;
      usage.wcu += c.WriteCapacityUnits ?? 0;
    } else if (WRITES.has(operation)) usage.wcu += c.CapacityUnits ?? 0;
    else usage.rcu += c.CapacityUnits ?? 0;
  }
  return usage;
}

export function addUsage(into: StorageUsage, more: StorageUsage): StorageUsage {
  for (const key of Object.keys(into) as Array<keyof StorageUsage>) into[key] += more[key];
  return into;
}

// An observer (lib/platform/aws.ts) that adds up into `usage` what each DynamoDB call of an
// invocation wrote and consumed, and the messages and events it sent.
export const storageObserver =
  (usage: StorageUsage): CallObserver =>
  (service, operation, input) => {
    const sent = input as WriteInput;
    if (service === 'SQS' && operation.startsWith('SendMessage')) usage.messages += sent.Entries?.length ?? 1;
    if (service === 'EventBridge' && operation === 'PutEvents') usage.events += sent.Entries?.length ?? 0;
    if (service !== 'DynamoDB' || !(READS.has(operation) || WRITES.has(operation))) return { input, seen: () => undefined };
    return {
      input: { ...input, ReturnConsumedCapacity: 'TOTAL' },
      seen: (output) => addUsage(usage, usageOf(operation, input, output as Parameters<typeof usageOf>[2])),
    };
  };
