import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { translation } from '../../lib/platform/db';
import { dynamoOverHttp } from '../../lib/platform/dynamodb-http';

// The DynamoDB sender's faults, against a local HTTP server that answers as DynamoDB does when it
// fails (the store cases run it against DynamoDB Local: test/integration/store-cases.test.ts).
type Seen = { target: string; authorization: string; body: Record<string, unknown>; at: number };
type Answer = ((res: ServerResponse) => void) | { status: number; body: unknown };

describe('the DynamoDB sender', () => {
  let server: Server;
  let seen: Seen[] = [];
  let answers: Answer[] = [];
  let sender: ReturnType<typeof dynamoOverHttp>;
  const error = (status: number, type: string, extra: object = {}) => ({
    status,
    body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type, ...extra },
  });

  beforeAll(async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      seen.push({
        target: String(req.headers['x-amz-target']),
        authorization: String(req.headers.authorization),
        body: JSON.parse(Buffer.concat(chunks).toString()),
        at: performance.now(),
      });
      const answer = answers.shift() ?? { status: 200, body: {} };
      if (typeof answer === 'function') return answer(res);
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `r${seen.length}` }).end(JSON.stringify(answer.body));
    }).listen(0);
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    sender = dynamoOverHttp(new DynamoDBClient({ endpoint: `http://localhost:${port}`, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }), translation);
  });
  afterAll(() => server.close());
  beforeEach(() => {
    seen = [];
    answers = [];
  });

  it('signs each call for DynamoDB, and retries a 500 and a dropped connection with the same transaction token', async () => {
    answers = [error(500, 'InternalServerError'), (res) => res.socket?.destroy(), { status: 200, body: {} }];
    const put = { Put: { TableName: 'Main', Item: { pk: 'a', sk: 'b', big: 12345678901234567890n } } };
    const out = await sender.send(new TransactWriteCommand({ TransactItems: [put] }));
    expect((out as { $metadata: { attempts: number } }).$metadata.attempts).toBe(3);
    expect(seen.map((s) => s.target)).toEqual(Array(3).fill('DynamoDB_20120810.TransactWriteItems'));
    // Signed by the local run's key (this file's own: LOCAL_ACCESS_KEY_ID, test/harness/file-key.ts).
    expect(seen[0].authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/\\d{8}/us-east-1/dynamodb/aws4_request, `));
    expect(seen[0].body).toMatchObject({
      TransactItems: [{ Put: { TableName: 'Main', Item: { pk: { S: 'a' }, sk: { S: 'b' }, big: { N: '12345678901234567890' } } } }],
    });
    const tokens = seen.map((s) => s.body.ClientRequestToken);
    expect(tokens[0]).toEqual(expect.any(String));
    expect(new Set(tokens).size).toBe(1);
  });

  it('reads items back as the document client does, whole numbers past 2^53 as bigints', async () => {
    answers = [{ status: 200, body: { Item: { pk: { S: 'a' }, n: { N: '5' }, big: { N: '12345678901234567890' }, l: { L: [{ S: 'x' }] } } } }];
    const out = await sender.send(new GetCommand({ TableName: 'Main', Key: { pk: 'a', sk: 'b' }, ConsistentRead: true }));
    expect((out as { Item: unknown }).Item).toEqual({ pk: 'a', n: 5, big: 12345678901234567890n, l: ['x'] });
    expect(seen[0].body).toEqual({ TableName: 'Main', Key: { pk: { S: 'a' }, sk: { S: 'b' } }, ConsistentRead: true });
  });

  it('throws a failed condition as the SDK class, at once; a cancelled transaction with its reasons', async () => {
    answers = [error(400, 'ConditionalCheckFailedException')];
    const put = new PutCommand({ TableName: 'Main', Item: { pk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' });
    await expect(sender.send(put)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    expect(seen).toHaveLength(1);

    const reasons = [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }];
    answers = [error(400, 'TransactionCanceledException', { CancellationReasons: reasons })];
    const cancelled = await sender.send(new TransactWriteCommand({ TransactItems: [] })).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(TransactionCanceledException);
    expect((cancelled as TransactionCanceledException).CancellationReasons).toEqual(reasons);
  });

  it('gives up on throttling after three attempts, with the error DynamoDB gave', async () => {
    answers = Array(3).fill(error(400, 'ProvisionedThroughputExceededException'));
    const failed = await sender.send(new GetCommand({ TableName: 'Main', Key: { pk: 'a' } })).catch((e: Error & { $metadata?: object }) => e);
    expect(failed).toMatchObject({ name: 'ProvisionedThroughputExceededException', $metadata: { httpStatusCode: 400, attempts: 3 } });
    expect(seen).toHaveLength(3);
  });

  // (The strategy waits its backoff when asked for the next attempt's token, in @smithy/core today;
  // the SDK's middleware waits what a token says besides: should that move back, this sees it.)
  it("waits the retry strategy's backoff between attempts, as the SDK does (throttling: half of 1 s, then of 2 s, at this jitter)", async () => {
    const jitter = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      answers = [error(400, 'ThrottlingException'), error(400, 'ThrottlingException'), { status: 200, body: {} }];
      await sender.send(new GetCommand({ TableName: 'Main', Key: { pk: 'a' } }));
    } finally {
      jitter.mockRestore();
    }
    const gaps = seen.slice(1).map((s, i) => s.at - seen[i].at);
    expect(gaps).toEqual([expect.toSatisfy((ms: number) => ms >= 490), expect.toSatisfy((ms: number) => ms >= 990)]);
  });
});
