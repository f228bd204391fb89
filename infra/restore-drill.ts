import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DynamoDBClient,
  RestoreTableToPointInTimeCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { checkLedger } from '../lib/ledger-check';
import type { LedgerCheck } from '../lib/ledger-check/schemas';
import { nodeOf, readConfig } from '../lib/platform/config-schema';
import { newTable } from './local/emulators/provision';
import { dataDirOf, nodeFromArgs, STACK_ENV_FILE } from './local/start/defaults';
import { loadService, ROOT, type ServiceDef } from './local/start/serverless-config';

// `npm run restore-drill -- <stage>`: a restore, run as it would be on the day: every table of the
// stage restored from its latest recovery point into scratch tables beside it, each counted, and
// the ledger check (lib/ledger-check: every asset's accounts sum to zero) run on the restored main
// table; the scratch tables are then deleted (--keep leaves them). Exit 0 only when every table
// came back and the ledger balances; the time the restore took is the measured RTO's core.
// - On AWS (a deployed stage): DynamoDB's point-in-time recovery (every table has it), restored to
//   its latest restorable time (about 5 minutes behind: the RPO), on the stage's key. (The daily
//   AWS Backup recovery points, in their vault, restore with `aws backup start-restore-job`:
//   docs/deploy.md, "Backups".)
// - Locally (`local`, the running npm start; --node b|c): the emulators have no AWS Backup, so the
//   recovery point is a snapshot that `--backup` writes first (every item of every table, by a
//   consistent scan, into <data folder>/backups/<time>.jsonl, its counts in its first line): a
//   table-by-table scan, so consistent across tables when the node is quiet. The drill restores the
//   latest into fresh tables in the same DynamoDB Local, made as the template declares them.
const HELP = `usage: npm run restore-drill -- <stage> [--region REGION] [--keep]
       npm run restore-drill -- local [--node b|c] [--backup] [--keep]

Restores every table of the stage from its latest recovery point into scratch tables, counts
them, runs the ledger check on them, and deletes them (--keep leaves them).

  <stage>          a deployed stage: point-in-time recovery, with AWS credentials as the AWS CLI finds
                   them, of a BREAK_GLASS_ROLE_ARNS role (the tables' policies refuse others a restore)
  local            the running local stack (npm start; --node b|c): its latest local snapshot
  --backup         local only: take a snapshot (the local recovery point) first
  --region REGION  its region (else AWS_REGION, else us-east-1)
  -h, --help       this text

Exit status: 0 when every table is restored whole and the ledger balances, 1 otherwise, 2 for bad usage.`;

type Tables = Record<string, string>; // a table's logical id in the template -> its name

export interface Restored {
  recoveryPoint: string; // what was restored: a snapshot's file, or a point in time
  tables: Tables; // the scratch tables
  expected?: Record<string, number>; // the items each should hold, where the recovery point says
}

// Where the drill runs: its DynamoDB, the functions' settings, and how it restores.
export interface Place {
  dynamo: DynamoDBClient;
  env: Record<string, string>;
  // Each scratch table is named in `made` as soon as it is asked for, so that a restore that fails
  // part way leaves none behind.
  restore(made: string[]): Promise<Restored>;
}

export interface DrillResult {
  recoveryPoint: string;
  restoreSecs: number;
  tables: Record<string, { name: string; items: number; expected?: number }>;
  lost: string[]; // the tables that came back with fewer items than the recovery point holds
  ledger: LedgerCheck;
  ok: boolean;
}

const tableIds = (service: ServiceDef) => Object.keys(service.resources).filter((id) => service.resources[id].Type === 'AWS::DynamoDB::Table');

async function* scan(dynamo: DynamoDBClient, TableName: string): AsyncGenerator<Record<string, AttributeValue>> {
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await dynamo.send(new ScanCommand({ TableName, ConsistentRead: true, ExclusiveStartKey }));
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

async function countOf(dynamo: DynamoDBClient, TableName: string): Promise<number> {
  let n = 0;
  for await (const _ of scan(dynamo, TableName)) n++;
  return n;
}

export async function drill(service: ServiceDef, place: Place, keep = false): Promise<DrillResult> {
  const made: string[] = [];
  try {
    const started = performance.now();
    const restored = await place.restore(made);
    const restoreSecs = (performance.now() - started) / 1000;
    const tables: DrillResult['tables'] = {};
    for (const [id, name] of Object.entries(restored.tables)) {
      tables[id] = { name, items: await countOf(place.dynamo, name), expected: restored.expected?.[id] };
    }
    const lost = Object.keys(tables).filter((id) => tables[id].expected !== undefined && tables[id].items < tables[id].expected!);
    // The service's settings with the scratch tables in its tables' places.
    const env = { ...place.env };
    for (const [key, value] of Object.entries(service.environment)) {
      const ref = (value as { Ref?: string } | undefined)?.Ref;
      if (ref && restored.tables[ref]) env[key] = restored.tables[ref];
    }
    const ledger = await checkLedger(nodeOf(readConfig(env)));
    return { recoveryPoint: restored.recoveryPoint, restoreSecs, tables, lost, ledger, ok: !lost.length && ledger.balanced };
  } finally {
    // (A table asked for whose making failed is not there to delete.)
    const gone = (e: Error) => {
      if (e.name !== 'ResourceNotFoundException') throw e;
    };
    if (!keep) for (const TableName of made) await place.dynamo.send(new DeleteTableCommand({ TableName })).catch(gone);
  }
}

// The local recovery point: every item of every table, one JSON line each, after a first line with
// when it was taken and each table's count. Binary values are kept as base64.
const toJson = (_: string, v: unknown) => (v instanceof Uint8Array ? { $b64: Buffer.from(v).toString('base64') } : v);
const fromJson = (_: string, v: any) => (v && typeof v === 'object' && typeof v.$b64 === 'string' ? new Uint8Array(Buffer.from(v.$b64, 'base64')) : v);

export async function backUp(dynamo: DynamoDBClient, tables: Tables, dir: string): Promise<string> {
  const lines: string[] = [];
  const counts: Record<string, number> = {};
  for (const [id, name] of Object.entries(tables)) {
    counts[id] = 0;
    for await (const item of scan(dynamo, name)) {
      counts[id]++;
      lines.push(JSON.stringify({ table: id, item }, toJson));
    }
  }
  const takenAt = new Date().toISOString();
  mkdirSync(join(dir, 'backups'), { recursive: true });
  const file = join(dir, 'backups', `${takenAt.replace(/[:.]/g, '-')}.jsonl`);
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ takenAt, counts })}\n${lines.join('\n')}\n`);
  renameSync(`${file}.tmp`, file); // whole, or not there
  return file;
}

function latestRecoveryPoint(dir: string): string | undefined {
  const folder = join(dir, 'backups');
  if (!existsSync(folder)) return undefined;
  const files = readdirSync(folder)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  return files.length ? join(folder, files[files.length - 1]) : undefined;
}

// The latest snapshot in `dir`, restored into tables named `<scratch><logical id>` in the same DynamoDB.
export function localRestore(service: ServiceDef, dynamo: DynamoDBClient, dir: string, scratch: string): Place['restore'] {
  return async (made) => {
    const file = latestRecoveryPoint(dir);
    if (!file) throw new Error(`no local recovery point in ${join(dir, 'backups')}: take one with --backup`);
    const [head, ...lines] = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const { counts } = JSON.parse(head) as { counts: Record<string, number> };
    const tables: Tables = {};
    for (const id of Object.keys(counts)) {
      tables[id] = `${scratch}${id}`;
      made.push(tables[id]);
      await newTable(dynamo, tables[id], service.resources[id].Properties ?? {});
    }
    const byTable = new Map<string, Record<string, AttributeValue>[]>();
    for (const line of lines) {
      const { table, item } = JSON.parse(line, fromJson);
      byTable.set(table, byTable.get(table) ?? []);
      byTable.get(table)!.push(item);
    }
    for (const [id, items] of byTable) await writeAll(dynamo, tables[id], items);
    return { recoveryPoint: file, tables, expected: counts };
  };
}

async function writeAll(dynamo: DynamoDBClient, table: string, items: Record<string, AttributeValue>[]) {
  for (let i = 0; i < items.length; i += 25) {
    let requests: Record<string, { PutRequest?: { Item: Record<string, AttributeValue> } }[]> | undefined = {
      [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
    };
    for (let tries = 0; requests && Object.keys(requests).length; tries++) {
      if (tries > 10) throw new Error(`${table}: items left unwritten after ${tries} tries`);
      requests = (await dynamo.send(new BatchWriteItemCommand({ RequestItems: requests as never }))).UnprocessedItems as typeof requests;
    }
  }
}

// The running local stack: its functions' settings and tables, as npm start wrote them.
function onLocalStack(service: ServiceDef, dataDir: string, backup: boolean): Place {
  const envFile = join(dataDir, STACK_ENV_FILE);
  if (!existsSync(envFile)) throw new Error(`no running local stack: ${envFile} is missing (npm start writes it)`);
  const env = JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>;
  Object.assign(process.env, env); // the service's DynamoDB client (lib/platform/db.ts) reads its endpoint there
  const prefix = env.MAIN_TABLE.slice(0, -'MainTable'.length);
  const dynamo = new DynamoDBClient({});
  const live = Object.fromEntries(tableIds(service).map((id) => [id, `${prefix}${id}`]));
  const restore = localRestore(service, dynamo, dataDir, `drill${Date.now()}-`);
  const first = async (made: string[]) => {
    if (backup) console.log(`recovery point taken: ${await backUp(dynamo, live, dataDir)}`);
    return restore(made);
  };
  return { dynamo, env, restore: first };
}

// A deployed stage: its tables (the stack's), restored to their latest restorable time, on the key
// each is encrypted with; the functions' settings from one of them.
async function onAws(service: ServiceDef, stage: string, region: string): Promise<Place> {
  const dynamo = new DynamoDBClient({ region });
  const stack = `${service.service}-${stage}`;
  const { StackResources = [] } = await new CloudFormationClient({ region }).send(new DescribeStackResourcesCommand({ StackName: stack }));
  const live: Tables = Object.fromEntries(
    StackResources.filter((r) => r.ResourceType === 'AWS::DynamoDB::Table').map((r) => [r.LogicalResourceId!, r.PhysicalResourceId!]),
  );
  const anyFunction = `${stack}-${service.functions[0].name}`;
  const { Environment } = await new LambdaClient({ region }).send(new GetFunctionConfigurationCommand({ FunctionName: anyFunction }));
  const restore = async (made: string[]): Promise<Restored> => {
    const suffix = `-drill-${Date.now()}`;
    const tables: Tables = {};
    const points: string[] = [];
    for (const [id, source] of Object.entries(live)) {
      const backups = await dynamo.send(new DescribeContinuousBackupsCommand({ TableName: source }));
      points.push(`${id} ${backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.LatestRestorableDateTime?.toISOString()}`);
      const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: source }));
      const key = Table?.SSEDescription?.KMSMasterKeyArn;
      tables[id] = `${source}${suffix}`.slice(0, 255);
      made.push(tables[id]);
      await dynamo.send(
        new RestoreTableToPointInTimeCommand({
          SourceTableName: source,
          TargetTableName: tables[id],
          UseLatestRestorableTime: true,
          ...(key && { SSESpecificationOverride: { Enabled: true, SSEType: 'KMS', KMSMasterKeyId: key } }),
        }),
      );
    }
    for (const name of Object.values(tables)) {
      for (;;) {
        const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: name }));
        if (Table?.TableStatus === 'ACTIVE') break;
        await new Promise((r) => setTimeout(r, 15_000));
      }
    }
    return { recoveryPoint: points.join(', '), tables };
  };
  return { dynamo, env: (Environment?.Variables ?? {}) as Record<string, string>, restore };
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) return console.log(HELP);
  const at = args.indexOf('--region');
  const region = (at >= 0 ? args.splice(at, 2)[1] : undefined) ?? process.env.AWS_REGION ?? 'us-east-1';
  const node = nodeFromArgs(args);
  const nodeAt = args.indexOf('--node');
  if (nodeAt >= 0) args.splice(nodeAt, 2);
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const [stage, ...rest] = args.filter((a) => !a.startsWith('--'));
  const unknown = [...flags].filter((f) => f !== '--keep' && f !== '--backup');
  if (!stage || rest.length || unknown.length) throw new Usage(stage ? `unknown argument: ${[...rest, ...unknown].join(' ')}` : 'name a stage, or local');
  if (flags.has('--backup') && stage !== 'local') throw new Usage('--backup is for local: on AWS, backups are taken by AWS Backup and point-in-time recovery');
  const service = loadService(stage);
  const place = stage === 'local' ? onLocalStack(service, dataDirOf(ROOT, node), flags.has('--backup')) : await onAws(service, stage, region);
  const result = await drill(service, place, flags.has('--keep'));
  console.log(`recovery point: ${result.recoveryPoint}`);
  console.log(`restored in ${result.restoreSecs.toFixed(1)} s:`);
  for (const [id, t] of Object.entries(result.tables))
    console.log(`  ${id} (${t.name}): ${t.items} item(s)${t.expected === undefined ? '' : ` of ${t.expected}`}`);
  const { ledger } = result;
  console.log(`ledger check: ${ledger.balanced ? 'balanced' : 'NOT balanced'}, ${ledger.accounts} account(s), ${ledger.assets.length} asset(s)`);
  for (const a of ledger.assets.filter((a) => !a.balanced)) console.log(`  ${a.assetCode}: sums to ${a.sum}`);
  for (const u of ledger.unattributed) console.log(`  unattributed: ${u.account} ${u.balance}`);
  if (result.lost.length) console.log(`items lost in: ${result.lost.join(', ')}`);
  process.exit(result.ok ? 0 : 1);
}

class Usage extends Error {}

if (process.argv[1]?.endsWith('restore-drill.ts')) {
  main().catch((e) => {
    console.error(e instanceof Usage ? `${e.message}\n\n${HELP}` : `error: ${(e as Error).message}`);
    process.exit(e instanceof Usage ? 2 : 1);
  });
}
