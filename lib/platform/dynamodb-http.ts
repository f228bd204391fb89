import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
import { isServerError, isThrottlingError, isTransientError, StandardRetryStrategy } from '@smithy/core/retry';
import type { SdkError } from '@smithy/types';
import { type CallOutput, countAndTrace } from './aws';
import { postSigner } from './sigv4';

// DynamoDB's JSON protocol, signed with SigV4 and sent over kept-alive connections: what the
// document client does for each command the stores send, without its per-call middleware stack
// (issue 46: the SDK was half of a function's CPU, 0.5-0.9 ms a call). The rest is the SDK's own
// pieces: its marshalling (with the document client's options), its retry strategy and
// error classification, its exception classes (so `instanceof ConditionalCheckFailedException`
// holds), and the endpoint, region and credentials that an SDK client of this container resolves;
// requests are signed as its signer signs them (./sigv4.ts postSigner).

type Input = Record<string, unknown>;
type Output = Record<string, unknown>;
type Doc = Record<string, unknown>;
type Sign = ReturnType<typeof postSigner>;
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
const EXCEPTIONS = new Map<string, new (o: never) => DynamoDBServiceException>([
  ['ConditionalCheckFailedException', ConditionalCheckFailedException],
  ['TransactionCanceledException', TransactionCanceledException],
  ['TransactionConflictException', TransactionConflictException],
]);

function exception(status: number, body: Output, requestId: string | undefined): DynamoDBServiceException {
  const name =
    String(body.__type ?? '')
      .split('#')
      .pop() || (status >= 500 ? 'InternalServerError' : 'UnknownError');
  const { __type, message, Message, ...fields } = body;
  const $metadata = { httpStatusCode: status, requestId };
  const text = String(message ?? Message ?? name);
  const Known = EXCEPTIONS.get(name);
  if (Known) return new Known({ ...fields, message: text, $metadata } as never);
  return new DynamoDBServiceException({ name, $fault: status >= 500 ? 'server' : 'client', message: text, $metadata });
}

const errorType = (e: SdkError) =>
  isThrottlingError(e) ? 'THROTTLING' : isTransientError(e) ? 'TRANSIENT' : isServerError(e) ? 'SERVER_ERROR' : 'CLIENT_ERROR';

export interface DocumentSender {
  send(command: object): Promise<never>;
}

// A sender of the document client's commands over DynamoDB's wire; `sdk` is the client whose
// resolved settings (endpoint, region, credentials) it takes.
export function dynamoOverHttp(sdk: DynamoDBClient, translation: Options): DocumentSender {
  const ops = operations(translation);
  const retries = new StandardRetryStrategy(3);
  const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 50 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }) };
  let target: Promise<{ url: URL; sign: Sign }> | undefined;
  // (A failed resolution is not kept: the next call tries again.)
  const resolved = () =>
    (target ??= resolve().catch((e) => {
      target = undefined;
      throw e;
    }));
  const resolve = async () => {
    const region = await sdk.config.region();
    // As the SDK chooses: an endpoint given to the client, then AWS_ENDPOINT_URL_DYNAMODB (or
    // AWS_ENDPOINT_URL), then the region's.
    const given = await sdk.config.endpoint?.();
    const configured = await sdk.config.serviceConfiguredEndpoint?.();
    const url = given
      ? new URL(`${given.protocol}//${given.hostname}${given.port ? `:${given.port}` : ''}${given.path}`)
      : new URL(configured ?? sdk.config.endpointProvider({ Region: region }).url.href);
    return { url, sign: postSigner({ service: 'dynamodb', region, url, credentials: sdk.config.credentials }) };
  };

  async function once(url: URL, sign: Sign, operation: string, body: string): Promise<{ status: number; body: Output; requestId?: string }> {
    const headers = await sign({ 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${operation}` }, body);
    const https = url.protocol === 'https:';
    return new Promise((done, fail) => {
      const req = (https ? httpsRequest : httpRequest)(url, { method: 'POST', headers, agent: agents[https ? 'https' : 'http'] }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Output;
          try {
            parsed = text ? JSON.parse(text) : {};
          } catch {
            parsed = { __type: res.statusCode && res.statusCode >= 500 ? 'InternalServerError' : 'SerializationException', message: text.slice(0, 200) };
          }
          done({ status: res.statusCode ?? 0, body: parsed, requestId: res.headers['x-amzn-requestid'] as string | undefined });
        });
      });
      req.on('error', fail);
      req.end(body);
    });
  }

  async function call(op: Operation, input: Input): Promise<CallOutput & Output> {
    const { url, sign } = await resolved();
    const body = JSON.stringify(op.wire(input));
    let token = await retries.acquireInitialRetryToken('dynamodb');
    for (let attempts = 1; ; attempts++) {
      let error: SdkError;
      try {
        const res = await once(url, sign, op.name, body);
        if (res.status === 200) {
          retries.recordSuccess(token);
          return { ...op.doc(res.body), $metadata: { httpStatusCode: 200, requestId: res.requestId, attempts } };
        }
        error = exception(res.status, res.body, res.requestId) as SdkError;
      } catch (e) {
        error = e as SdkError;
      }
      try {
        token = await retries.refreshRetryTokenForRetry(token, { errorType: errorType(error) });
      } catch {
        if (error.$metadata) error.$metadata.attempts = attempts;
        throw error;
      }
    }
  }

  return {
    send(command: object) {
      const op = ops.get(command.constructor);
      if (!op) return Promise.reject(new Error(`No DynamoDB operation for ${command.constructor.name}`));
      const { input } = command as { input: Input };
      return countAndTrace('DynamoDB', op.name, input, (given) => call(op, given as Input)) as Promise<never>;
    },
  };
}
