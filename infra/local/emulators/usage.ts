import type { CallObserver } from '../../../lib/platform/aws';

// The storage work of the functions' DynamoDB calls, for the bench: the items they write, the
// conditions they check, and the read and write units DynamoDB reports (each call asks for them
// with ReturnConsumedCapacity: TOTAL, which DynamoDB Local answers as DynamoDB does: a transaction
// costs twice, an index write once more). Only the local runtime asks, and only when told to.
export interface StorageUsage {
  items: number; // items put, updated or deleted (a transaction's condition checks are not)
  conditions: number; // writes with a condition, and a transaction's condition checks
  rcu: number;
  wcu: number;
}
export const noUsage = (): StorageUsage => ({ items: 0, conditions: 0, rcu: 0, wcu: 0 });

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Write {
  ConditionExpression?: string;
}
interface WriteInput extends Write {
  TransactItems?: Array<{ Put?: Write; Update?: Write; Delete?: Write; ConditionCheck?: Write }>;
  RequestItems?: Record<string, unknown[]>;
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
      if (t.ConditionCheck) usage.conditions++;
      const write = t.Put ?? t.Update ?? t.Delete;
      if (!write) continue;
      usage.items++;
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
// invocation wrote and consumed.
export const storageObserver =
  (usage: StorageUsage): CallObserver =>
  (service, operation, input) => {
    if (service !== 'DynamoDB' || !(READS.has(operation) || WRITES.has(operation))) return { input, seen: () => undefined };
    return {
      input: { ...input, ReturnConsumedCapacity: 'TOTAL' },
      seen: (output) => addUsage(usage, usageOf(operation, input, output as Parameters<typeof usageOf>[2])),
    };
  };
