import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../infra/local/start/serverless-config';
import { endWatcher, measure, type Result } from './measure';

// Rafiki, built from source beside this checkout (../shared/rafiki: setup.sh builds it, start.sh and
// stop.sh run it), measured by the bench with the same two flows as this service, once this
// service's own rows are done and its node stopped, so that the two never share the machine at once:
// - the create flow: an incoming payment (100 at scale 2), a quote for it, an outgoing payment from
//   the quote, three signed Admin GraphQL calls;
// - deposit -> completed: an outgoing payment made by that flow is funded
//   (depositOutgoingPaymentLiquidity), until its row is seen COMPLETED.
const SCRIPTS = resolve(process.env.RAFIKI_SCRIPTS ?? join(ROOT, '../shared/rafiki'));
const SOURCE = process.env.RAF_SRC ?? '/tmp/rafiki'; // where setup.sh builds it (its env.sh)

// Why Rafiki cannot be measured here, or undefined when it can.
export function rafikiMissing(): string | undefined {
  if (!existsSync(join(SCRIPTS, 'start.sh'))) return `no Rafiki scripts at ${SCRIPTS} (RAFIKI_SCRIPTS names another folder)`;
  if (!existsSync(join(SOURCE, 'packages/backend/dist/index.js')))
    return `Rafiki is not built in ${SOURCE}: build it with ${join(SCRIPTS, 'setup.sh')} (its README says how; about 5 minutes), then run the bench again`;
  return undefined;
}

const script = (name: string, env: Record<string, string> = {}) => {
  const run = spawnSync(join(SCRIPTS, name), { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${name} failed: ${(run.stdout + run.stderr).trim().split('\n').slice(-3).join(' / ')}`);
};

interface Gql {
  gql(query: string, variables?: Record<string, unknown>): Promise<{ data: any }>;
  Q: Record<string, string>;
  uuid(): string;
}

// Rafiki's rows: the create flow, then deposit -> completed, at each number of clients.
export async function measureRafiki(n: number, clients: number[]): Promise<Result[]> {
  script('start.sh', { RAF_FRESH: '1', ASE_AUTO_FUND: 'false', ASE_VERBOSE: 'false' });
  let db: { connect(): Promise<void>; query(sql: string, values: unknown[]): Promise<{ rows: any[] }>; end(): Promise<void> } | undefined;
  try {
    const { gql, Q, uuid } = (await import(pathToFileURL(join(SCRIPTS, 'gql.mjs')).href)) as Gql;
    const code = `BR${Date.now().toString(36).toUpperCase().slice(-5)}`;
    const asset = (await gql(Q.createAsset, { input: { code, scale: 2 } })).data.createAsset.asset;
    const suffix = Date.now().toString(36);
    const wallet = async (name: string) =>
      (await gql(Q.createWalletAddress, { input: { assetId: asset.id, address: `${name}-${suffix}`, publicName: name } })).data.createWalletAddress
        .walletAddress;
    const [alice, bob] = [await wallet('alice'), await wallet('bob')];
    let unique = 0;
    const flow = async (): Promise<string> => {
      const incoming = { walletAddressId: bob.id, incomingAmount: { value: '100', assetCode: code, assetScale: 2 }, metadata: { n: unique++ } };
      const ip = (await gql(Q.createIncomingPayment, { input: incoming })).data.createIncomingPayment.payment;
      const quote = (await gql(Q.createQuote, { input: { walletAddressId: alice.id, receiver: ip.url } })).data.createQuote.quote;
      return (await gql(Q.createOutgoingPayment, { input: { walletAddressId: alice.id, quoteId: quote.id } })).data.createOutgoingPayment.payment.id;
    };
    // An outgoing payment's end is seen as this service's is (./measure.ts endWatcher): one query of
    // Rafiki's own table for every payment still awaited.
    const pg = createRequire(join(SOURCE, 'packages/backend/package.json'))('pg');
    const client = new pg.Client({ connectionString: `postgresql://postgres:password@127.0.0.1:${process.env.PG_PORT ?? 5432}/rafiki_backend` });
    db = client;
    await client.connect();
    const paymentEnd = endWatcher<string>(async (ids) => {
      const { rows } = await client.query(`SELECT id, state FROM "outgoingPayments" WHERE id = ANY($1) AND state IN ('COMPLETED', 'FAILED')`, [ids]);
      return rows.map((r: { id: string; state: string }) => [r.id, r.state]);
    });
    const completed = async (id: string) => {
      if ((await paymentEnd(id)) !== 'COMPLETED') throw new Error(`Rafiki's outgoing payment ${id} failed`);
    };

    for (let i = 0; i < 20; i++) await flow(); // warms Rafiki as the bench warms this service
    const rows: Result[] = [];
    for (const c of clients) rows.push(await measure('Rafiki: create flow', n, c, async () => void (await flow())));
    for (const c of clients) {
      const count = Math.min(n, 400);
      const payments: string[] = [];
      for (let i = 0; i < count; i++) payments.push(await flow());
      rows.push(
        await measure('Rafiki: deposit -> completed', count, c, async (i) => {
          await gql(Q.depositOutgoingPaymentLiquidity, { input: { outgoingPaymentId: payments[i], idempotencyKey: uuid() } });
          await completed(payments[i]);
        }),
      );
    }
    return rows;
  } finally {
    await db?.end();
    script('stop.sh');
  }
}
