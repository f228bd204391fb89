import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadService } from '../../infra/local/start/serverless-config';
import { backUp, drill, localRestore } from '../../infra/restore-drill';
import { startTestStack, type TestStack } from '../harness/stack';
import { createFlow, fundedPayment, ok, setUpWorld } from '../harness/world';

// The restore drill (infra/restore-drill.ts, `npm run restore-drill -- local --backup`) on the
// emulators: a node with a ledger (liquidity, a cross-currency payment) backed up the local way (a
// snapshot of every table, the local recovery point), restored into fresh tables in the same
// DynamoDB Local, counted and ledger-checked; and a recovery point missing one ledger item fails it.
let s: TestStack;
let dir: string;
const service = loadService('local');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'restore-drill-'));
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
  const w = await setUpWorld(s);
  await ok(s.admin('POST', '/rates', { sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 }));
  const { payment } = await createFlow(s, w.alice, w.carlos, { value: '900', assetCode: 'EUR' });
  expect((await fundedPayment(s, payment)).state).toBe('completed');
});
afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const liveTables = () =>
  Object.fromEntries(
    Object.keys(service.resources)
      .filter((id) => service.resources[id].Type === 'AWS::DynamoDB::Table')
      .map((id) => [id, s.env.MAIN_TABLE.replace(/MainTable$/, id)]),
  );
const place = (scratch: string) => ({ dynamo: s.dynamo, env: s.env, restore: localRestore(service, s.dynamo, dir, scratch) });
const exists = (TableName: string) =>
  s.dynamo.send(new DescribeTableCommand({ TableName })).then(
    () => true,
    () => false,
  );

it('restores every table of the latest recovery point whole, and the ledger check passes on it', async () => {
  await backUp(s.dynamo, liveTables(), dir);
  const result = await drill(service, place('drill1-'));
  expect(result.lost).toEqual([]);
  for (const t of Object.values(result.tables)) expect(t.items).toBe(t.expected);
  expect(result.tables.MainTable.items).toBeGreaterThan(20);
  expect(result.ledger).toMatchObject({ balanced: true, unattributed: [] });
  expect(result.ledger.accounts).toBeGreaterThan(3); // liquidity, settlement, fees, the intent's...
  expect(result.ok).toBe(true);
  expect(await exists(result.tables.MainTable.name)).toBe(false); // the scratch tables are gone
});

it('fails when the restore loses a ledger item', async () => {
  const file = await backUp(s.dynamo, liveTables(), dir);
  const lines = readFileSync(file, 'utf8').split('\n');
  const account = lines.findIndex((l) => l.includes('"pk":{"S":"ACCT#') && !l.includes('"balance":{"N":"0"}'));
  expect(account).toBeGreaterThan(0);
  lines.splice(account, 1);
  writeFileSync(file, lines.join('\n'));
  const result = await drill(service, place('drill2-'));
  expect(result.lost).toEqual(['MainTable']);
  expect(result.ledger.balanced).toBe(false);
  expect(result.ok).toBe(false);
});
