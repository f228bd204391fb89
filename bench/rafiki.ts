import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../infra/local/start/serverless-config';
import { cpuPerOperation, endWatcher, idleCpu, measure, type Result, settle } from './measure';
import { sampleCpu, type Target } from './procs';

// Rafiki, built from source beside this checkout (../shared/rafiki: setup.sh builds it, start.sh and
// stop.sh run it), measured by the bench with the same two flows as this service, once this
// service's own rows are done and its node stopped, so that the two never share the machine at once:
// - the create flow: an incoming payment (100 at scale 2), a quote for it, an outgoing payment from
//   the quote, three signed Admin GraphQL calls;
// - deposit -> completed: an outgoing payment made by that flow is funded
//   (depositOutgoingPaymentLiquidity), until its row is seen COMPLETED.
const SCRIPTS = resolve(process.env.RAFIKI_SCRIPTS ?? join(ROOT, '../shared/rafiki'));
const SOURCE = process.env.RAF_SRC ?? '/tmp/rafiki'; // where setup.sh builds it (its env.sh)
const RUN = process.env.RAF_RUN ?? '/tmp/raf-run'; // where start.sh runs it: pids, pgdata

// Rafiki's processes, as start.sh records them: each with its descendants (Postgres's, a process
// per connection); the application tier is the backend and auth.
function rafikiProcesses(): Record<string, Target[]> {
  const pid = (file: string) => {
    try {
      return [{ tree: Number(readFileSync(join(RUN, file), 'utf8').split('\n')[0].trim()) }];
    } catch {
      return [];
    }
  };
  return {
    backend: pid('pids/backend'),
    auth: pid('pids/auth'),
    Postgres: pid('pgdata/postmaster.pid'),
    Redis: pid('pids/redis'),
    'ASE, TLS front': [...pid('pids/ase'), ...pid('pids/tls-front')],
    'load client': [{ pid: process.pid, tid: process.pid }],
  };
}
const APP = ['backend', 'auth'];

// Postgres with its data "in memory" on its own terms, as DynamoDB Local's -inMemory: nothing waits
// for the disk (no fsync, commits not waited for, no full pages in the WAL); the tables are still
// files, in the page cache. start.sh runs it durable (fsync on, every commit synced): BENCH_DATA=disk
// keeps that, as this service's data then is on disk too.
const IN_MEMORY = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

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

// Rafiki's rows: the create flow, then deposit -> completed, at each number of clients, with the CPU
// per operation of each of its processes; and its settings, in words.
export async function measureRafiki(
  n: number,
  clients: number[],
  onDisk: boolean,
): Promise<{ rows: Result[]; settings: string; idle: Record<string, number> }> {
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
    if (!onDisk) {
      for (const [name, value] of Object.entries(IN_MEMORY)) await client.query(`ALTER SYSTEM SET ${name} = ${value}`, []);
      await client.query('SELECT pg_reload_conf()', []);
    }
    const shown = await client.query(`SELECT name, setting FROM pg_settings WHERE name = ANY($1)`, [Object.keys(IN_MEMORY)]);
    const settings = `Postgres ${shown.rows.map((r: { name: string; setting: string }) => `${r.name}=${r.setting}`).join(' ')}, data files in ${RUN}/pgdata; Redis in memory, no persistence (start.sh); the backend and auth on Node 24 (setup.sh)`;
    const paymentEnd = endWatcher<string>(async (ids) => {
      const { rows } = await client.query(`SELECT id, state FROM "outgoingPayments" WHERE id = ANY($1) AND state IN ('COMPLETED', 'FAILED')`, [ids]);
      return rows.map((r: { id: string; state: string }) => [r.id, r.state]);
    });
    const completed = async (id: string) => {
      if ((await paymentEnd(id)) !== 'COMPLETED') throw new Error(`Rafiki's outgoing payment ${id} failed`);
    };

    for (let i = 0; i < 200; i++) await flow(); // warms Rafiki's JIT as the bench warms this service's
    const rows: Result[] = [];
    // A row with the CPU per operation of each process, from an idle Rafiki until it is idle again.
    const processes = rafikiProcesses();
    const appMs = () => APP.reduce((sum, k) => sum + sampleCpu({ [k]: processes[k] })[k], 0);
    await settle(appMs, 300, 3000);
    const idle = await idleCpu(() => sampleCpu(processes));
    const row = async (name: string, count: number, c: number, op: (i: number) => Promise<void>): Promise<Result> => {
      await settle(appMs, 300, 3000);
      const before = sampleCpu(processes);
      const began = performance.now();
      const result = await measure(name, count, c, op);
      await settle(appMs, 300, 3000);
      return { ...result, ...cpuPerOperation(before, sampleCpu(processes), count, APP, idle, performance.now() - began) };
    };
    for (const c of clients) rows.push(await row('Rafiki: create flow', n, c, async () => void (await flow())));
    for (const c of clients) {
      const count = Math.min(n, 400);
      const payments: string[] = [];
      for (let i = 0; i < count; i++) payments.push(await flow());
      rows.push(
        await row('Rafiki: deposit -> completed', count, c, async (i) => {
          await gql(Q.depositOutgoingPaymentLiquidity, { input: { outgoingPaymentId: payments[i], idempotencyKey: uuid() } });
          await completed(payments[i]);
        }),
      );
    }
    return { rows, settings, idle };
  } finally {
    if (!onDisk) for (const name of Object.keys(IN_MEMORY)) await db?.query(`ALTER SYSTEM RESET ${name}`, []).catch(() => undefined);
    await db?.query('SELECT pg_reload_conf()', []).catch(() => undefined);
    await db?.end();
    script('stop.sh');
  }
}
