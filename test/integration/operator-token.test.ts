import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { localOperators } from '../../infra/local/start/operators';
import { operatorAdmin } from '../harness/operator';
import { startTestStack, type TestStack } from '../harness/stack';
import { createFlow, ok, setUpWorld, waitFor } from '../harness/world';

// Issue 42, item 1: an Admin function takes an operator only from an ID token it verifies itself
// (the pool's keys, issuer, app client, expiry, token_use), never from claims in its event. Each
// request here is a direct invoke of the route's function through the local Lambda endpoint (SigV4
// checked, as Lambda's Invoke is), as anyone in the account with lambda:InvokeFunction could make
// it: forged claims, a token of another key, an expired one, one for another client or of another
// use are 401 and change nothing, no audit event included; the operator's real token works.
let s: TestStack;
let lambda: LambdaClient;

const ann = { name: 'ann@fsp.example', groups: 'admin' };
const claims = { email: ann.name, 'cognito:username': ann.name, 'cognito:groups': 'admin' };

// operatorAdmin's event, sent through Lambda's Invoke API rather than the runtime's own call.
const direct = (authorizer?: Record<string, unknown>) =>
  operatorAdmin(
    {
      operators: s.operators,
      invoke: async (name, event) => {
        const out = await lambda.send(new InvokeCommand({ FunctionName: name, Payload: JSON.stringify(event) }));
        return JSON.parse(new TextDecoder().decode(out.Payload));
      },
    },
    ann,
    authorizer,
  );

// The audit trail, from its write-once store (written from the table's stream, a moment after each action).
const audited = async (): Promise<Array<{ actor?: { name: string } }>> => (await ok(s.admin('GET', '/audit-events?limit=100'), 200)).items;
const codes = async () => (await ok(s.admin('GET', '/assets?limit=100'), 200)).items.map((a: { code: string }) => a.code).sort();

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
  lambda = new LambdaClient({ endpoint: s.endpoints.lambda, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  lambda?.destroy();
  await s?.stop();
});

describe('a direct invoke of an Admin function', () => {
  it('with forged claims, or a token the pool did not sign for this client and use, is 401 and changes nothing', async () => {
    const before = { codes: await codes(), audited: (await audited()).length };
    const another = localOperators(); // the same names and claims, its own key
    const forgeries = {
      'claims, no token': { claims },
      'claims beside a garbage token': { claims, idToken: 'not-a-token' },
      'a token of another key': { claims, idToken: another.issue({ name: ann.name, groups: ['admin'] }) },
      'an expired token': { idToken: s.operators.issue({ name: ann.name, groups: ['admin'] }, -1) },
      "another client's token": { idToken: s.operators.issue({ name: ann.name, groups: ['admin'] }, 900, { aud: 'another-app-client' }) },
      "another pool's token": {
        idToken: s.operators.issue({ name: ann.name, groups: ['admin'] }, 900, { iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other' }),
      },
      'an access token': { idToken: s.operators.issue({ name: ann.name, groups: ['admin'] }, 900, { token_use: 'access' }) },
      'an unsigned token': {
        idToken: `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`,
      },
    };
    for (const [why, authorizer] of Object.entries(forgeries)) {
      const res = await direct(authorizer)('POST', '/assets', { code: 'FRG', scale: 2 });
      expect([why, res.status, res.body?.code]).toEqual([why, 401, 'unauthorized']);
    }
    expect(await codes()).toEqual(before.codes);
    expect((await audited()).length).toBe(before.audited);

    // The operator's own token, by the same door: the action, and its audit event in its name.
    expect((await direct()('POST', '/assets', { code: 'FRG', scale: 2 })).status).toBe(201);
    expect(await codes()).toEqual([...before.codes, 'FRG'].sort());
    await waitFor("its audit event in the operator's name", async () => ((await audited()).some((e) => e.actor?.name === ann.name) ? true : undefined));
  });

  it("cannot fund a payment as a forged admin: the payment stays in funding, the sender's money where it was", async () => {
    const w = await setUpWorld(s);
    const { payment } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    const res = await direct({ claims })('POST', `/payments/${payment.id}/fund`);
    expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
    expect((await ok(s.admin('GET', `/payments/${payment.id}`), 200)).state).toBe('funding');
    expect((await ok(s.admin('GET', '/ledger/check'), 200)).balanced).toBe(true);
  });
});
