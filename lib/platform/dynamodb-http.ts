import { randomUUID } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  DynamoDBServiceException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { type CallOutput, countAndTrace } from './aws';
import { awsJson, type JsonService, type Output, type SdkClient } from './aws-json';

// The document client's commands, as the stores send them, on DynamoDB's wire (./aws-json.ts):
// what the document client does for each, without its per-call middleware stack (issue 46: the
// SDK was half of a function's CPU, 0.5-0.9 ms a call). The translation is the SDK's own pieces:
// its marshalling (with the document client's options), and its exception classes (so
// `instanceof ConditionalCheckFailedException` holds).

type Input = Record<string, unknown>;
type Doc = Record<string, unknown>;
type Options = { marshallOptions: Parameters<typeof marshall>[1]; unmarshallOptions: Parameters<typeof unmarshall>[1] };

interface Operation {
  name: string;
  wire(input: Input): Input;
  doc(output: Output): Output;
}

// What each document command translates, as @aws-sdk/lib-dynamodb's commands do: items, keys and
// expression values out; items, keys and attributes back.
function operations(translation: Options) {
  // Copies, with this sender's flags: the document client sets its own on the options it is given
  // (this one marshals and unmarshals whole items, never a top-level container).
  const marshallOptions = { ...translation.marshallOptions, convertTopLevelContainer: false };
  const unmarshallOptions = { ...translation.unmarshallOptions, convertWithoutMapWrapper: false };
  const out = (v: unknown) => (v === undefined ? undefined : marshall(v as Doc, marshallOptions));
  const back = (v: unknown) => (v === undefined ? undefined : unmarshall(v as never, unmarshallOptions));
  const each = <T>(o: unknown, f: (v: T) => unknown) => o && Object.fromEntries(Object.entries(o as Record<string, T>).map(([k, v]) => [k, f(v)]));
  const values = (i: Input) => ({ ...i, ExpressionAttributeValues: out(i.ExpressionAttributeValues) });
  const keyed = (i: Input) => values({ ...i, Key: out(i.Key) });
  const attributes = (o: Output) => ({ ...o, Attributes: back(o.Attributes) });
  const page = (i: Input) => values({ ...i, ExclusiveStartKey: out(i.ExclusiveStartKey) });
  const items = (o: Output) => ({ ...o, Items: (o.Items as unknown[] | undefined)?.map(back), LastEvaluatedKey: back(o.LastEvaluatedKey) });
  const keys = (f: typeof out) => (r: Input) => ({ ...r, Keys: (r.Keys as unknown[]).map(f) });
  const writes = (f: typeof out) => (requests: Input[]) =>
    requests.map(({ PutRequest, DeleteRequest }) =>
      PutRequest ? { PutRequest: { Item: f((PutRequest as Input).Item) } } : { DeleteRequest: { Key: f((DeleteRequest as Input).Key) } },
    );
  const transactItem = ({ Put, Update, Delete, ConditionCheck }: Input) =>
    Put
      ? { Put: values({ ...(Put as Input), Item: out((Put as Input).Item) }) }
      : Update
        ? { Update: keyed(Update as Input) }
        : Delete
          ? { Delete: keyed(Delete as Input) }
          : { ConditionCheck: keyed(ConditionCheck as Input) };
  const ops = new Map<unknown, Operation>([
    [GetCommand, { name: 'GetItem', wire: (i) => ({ ...i, Key: out(i.Key) }), doc: (o) => ({ ...o, Item: back(o.Item) }) }],
    [PutCommand, { name: 'PutItem', wire: (i) => values({ ...i, Item: out(i.Item) }), doc: attributes }],
    [UpdateCommand, { name: 'UpdateItem', wire: keyed, doc: attributes }],
    [DeleteCommand, { name: 'DeleteItem', wire: keyed, doc: attributes }],
    [QueryCommand, { name: 'Query', wire: page, doc: items }],
    [ScanCommand, { name: 'Scan', wire: page, doc: items }],
    [
      BatchGetCommand,
      {
        name: 'BatchGetItem',
        wire: (i) => ({ ...i, RequestItems: each(i.RequestItems, keys(out)) }),
        doc: (o) => ({ ...o, Responses: each(o.Responses, (l: unknown[]) => l.map(back)), UnprocessedKeys: each(o.UnprocessedKeys, keys(back)) }),
      },
    ],
    [
      BatchWriteCommand,
      {
        name: 'BatchWriteItem',
        wire: (i) => ({ ...i, RequestItems: each(i.RequestItems, writes(out)) }),
        doc: (o) => ({ ...o, UnprocessedItems: each(o.UnprocessedItems, writes(back)) }),
      },
    ],
    [
      TransactWriteCommand,
      {
        name: 'TransactWriteItems',
        // The token the SDK would add, so that a retry after an unclear failure is the same transaction.
        wire: (i) => ({ ...i, TransactItems: (i.TransactItems as Input[]).map(transactItem), ClientRequestToken: i.ClientRequestToken ?? randomUUID() }),
        doc: (o) => o,
      },
    ],
  ]);
  return ops;
}

// The exceptions the stores tell apart, as the SDK's classes; any other by its name.
const EXCEPTIONS = new Map<string, new (o: never) => Error>([
  ['ConditionalCheckFailedException', ConditionalCheckFailedException],
  ['TransactionCanceledException', TransactionCanceledException],
  ['TransactionConflictException', TransactionConflictException],
]);

const DYNAMODB: JsonService = {
  label: 'DynamoDB',
  signingName: 'dynamodb',
  target: 'DynamoDB_20120810',
  version: '1.0',
  known: EXCEPTIONS,
  ServiceException: DynamoDBServiceException,
};

export interface DocumentSender {
  send(command: object): Promise<never>;
}

// A sender of the document client's commands over DynamoDB's wire; `sdk` is the client whose
// resolved settings (endpoint, region, credentials) it takes.
export function dynamoOverHttp(sdk: DynamoDBClient, translation: Options): DocumentSender {
  const ops = operations(translation);
  const json = awsJson(sdk as unknown as SdkClient, DYNAMODB);
  const call = async (op: Operation, input: Input): Promise<CallOutput & Output> => op.doc(await json.call(op.name, op.wire(input)));
  return {
    send(command: object) {
      const op = ops.get(command.constructor);
      if (!op) return Promise.reject(new Error(`No DynamoDB operation for ${command.constructor.name}`));
      const { input } = command as { input: Input };
      return countAndTrace('DynamoDB', op.name, input, (given) => call(op, given as Input)) as Promise<never>;
    },
  };
}
