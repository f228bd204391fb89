import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../../lib/platform/db';

// The SDK's own DynamoDB client for the libraries that take one (Powertools idempotency,
// lib/platform/db.ts dynamoForLibraries), whose item commands go to the database the process uses
// now (the in-memory one of a test) as the document client's: nothing goes on the wire.
type Raw = Record<string, any>;
// Attribute values and back, of the types the libraries write (strings, numbers, maps, lists, booleans).
const plain = (a: Raw): unknown =>
  'S' in a ? a.S : 'N' in a ? Number(a.N) : 'BOOL' in a ? a.BOOL : 'NULL' in a ? null : 'L' in a ? a.L.map(plain) : unmarshall(a.M);
const attribute = (v: unknown): Raw =>
  typeof v === 'string'
    ? { S: v }
    : typeof v === 'number' || typeof v === 'bigint'
      ? { N: String(v) }
      : typeof v === 'boolean'
        ? { BOOL: v }
        : v === null
          ? { NULL: true }
          : Array.isArray(v)
            ? { L: v.map(attribute) }
            : { M: marshall(v as Raw) };
const unmarshall = (item: Raw) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, plain(v)]));
const marshall = (item: Raw) =>
  Object.fromEntries(
    Object.entries(item)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, attribute(v)]),
  );
const values = (v: Raw | undefined) => v && unmarshall(v);
const common = (input: Raw) => ({
  TableName: input.TableName,
  ConditionExpression: input.ConditionExpression,
  ExpressionAttributeNames: input.ExpressionAttributeNames,
  ExpressionAttributeValues: values(input.ExpressionAttributeValues),
});
const COMMANDS: Record<string, (input: Raw) => unknown> = {
  GetItemCommand: (input) => new GetCommand({ TableName: input.TableName, Key: unmarshall(input.Key), ConsistentRead: input.ConsistentRead }),
  PutItemCommand: (input) => new PutCommand({ ...common(input), Item: unmarshall(input.Item) }),
  UpdateItemCommand: (input) => new UpdateCommand({ ...common(input), Key: unmarshall(input.Key), UpdateExpression: input.UpdateExpression }),
  DeleteItemCommand: (input) => new DeleteCommand({ ...common(input), Key: unmarshall(input.Key) }),
};

let client: DynamoDBClient | undefined;
export function sdkClientOverDatabase(): DynamoDBClient {
  if (client) return client;
  client = new DynamoDBClient({ region: 'memory', credentials: { accessKeyId: 'memory', secretAccessKey: 'memory' } });
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const made = COMMANDS[context.commandName as string];
      if (!made) throw new Error(`${context.commandName} is not served over the in-memory database`);
      const out = (await db().send(made((args as { input: Raw }).input) as never)) as Raw;
      return { response: {}, output: { $metadata: {}, ...(out?.Item && { Item: marshall(out.Item) }) } } as never;
    },
    { step: 'initialize', name: 'inMemoryDatabase' },
  );
  return client;
}
