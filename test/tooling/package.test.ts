import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCloudWatch } from '../../infra/local/emulators/cloudwatch';
import { MetricStore } from '../../infra/local/emulators/metrics';
import { restApis } from '../../infra/local/emulators/rest-apis';
import { loadService, ROOT } from '../../infra/local/start/serverless-config';
import { unzip } from '../../infra/local/tools/zip';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { build as buildAlarms } from '../../infra/serverless/alarms.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { hashDeployments } from '../../infra/serverless/api-deployments.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { declaredSettings } from '../../infra/serverless/deploy-checks.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { encrypt } from '../../infra/serverless/encryption.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { nest, STACKS, stillHeld } from '../../infra/serverless/nested-stacks.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { SETTINGS } from '../../infra/serverless/settings.cjs';
import { allRoutes } from '../../lib/api/routes';
import { OUTBOX_RETENTION_SECS } from '../../lib/platform/events';
import { METRICS } from '../../lib/platform/metrics';
import { PAYMENTS_MAX_RECEIVES, WEBHOOK_MAX_RECEIVES } from '../../lib/shared/limits';
import { type Bundle, grantedAccess, neededAccess, scanBundle } from '../readers/bundle-access';
import { provisionedRefs } from '../readers/refs';

// `serverless package` offline, with dummy credentials, and a look at what it would deploy: the
// production template, packaged once (stage prod in eu-west-1, with the settings docs/deploy.md
// gives and every feature on) and shared by every test here; refused settings are refused before
// anything is built, in a few seconds. The timeouts are backstops for a loaded machine: each test
// waits for its packaging process to end.
const require = createRequire(import.meta.url);
const out = mkdtempSync(join(tmpdir(), 'sls-package-'));
type Resource = {
  Type: string;
  Properties: any;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Condition?: string;
  DependsOn?: string[];
  Metadata?: any;
};
type Template = {
  Conditions: Record<string, unknown>;
  Resources: Record<string, Resource>;
  Outputs: Record<string, any>;
  Parameters?: Record<string, unknown>;
};
// The service's stack, and the stacks nested in it by the logical id of each (OpenPayments: the
// Open Payments APIs' routes and stages; Monitoring: the alarms and the dashboard).
let template: Template;
let nested: Record<string, Template>;
// Every resource the deploy makes: the service's stack's, and each nested stack's as the service's
// stack gets them (inlined).
let deployed: Record<string, Resource>;
let packagedDir: string; // its bundles

const STAGE = 'prod';
const REGION = 'eu-west-1';
// What a deployer must set (serverless.yml has no default for them).
const REQUIRED = { ILP_ADDRESS: 'g.example.wallet', WALLET_ADDRESS_URL: 'https://wallet.example.com', AUTH_SERVER_URL: 'https://auth.wallet.example.com' };
const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const COPY_VAULT = 'arn:aws:backup:eu-central-1:123456789012:backup-vault:payment-service-copies';
const PRODUCTION = {
  ...REQUIRED,
  EXCHANGE_RATES_URL: 'https://fsp.example.com/rates',
  WEBHOOK_URL: 'https://fsp.example.com/webhooks',
  ADMIN_ALLOWED_CIDRS: '203.0.113.0/24, 2001:db8::/32',
  CONNECTOR_ALLOWED_CIDRS: '198.51.100.0/24',
  ALARM_EMAIL: 'ops@fsp.example.com',
  API_CERTIFICATE_ARN: CERTIFICATE,
  ADMIN_API_DOMAIN: 'admin.wallet.example.com',
  CONNECTOR_DOMAIN: 'ilp.wallet.example.com',
  BACKUP_COPY_VAULT_ARN: COPY_VAULT,
  GRANT_RATE_LIMIT_PER_5MIN: '120',
  LOG_RETENTION_DAYS: '731',
};
const packageEnv: NodeJS.ProcessEnv = {
  ...process.env,
  ...PRODUCTION,
  AWS_ACCESS_KEY_ID: 'dummy',
  AWS_SECRET_ACCESS_KEY: 'dummy',
  SLS_TELEMETRY_DISABLED: '1',
};
for (const name of ['ALARMS_UNSUBSCRIBED', 'ADMIN_OPEN_TO_INTERNET', 'ALARM_TOPIC_ARN', 'KMS_KEY_ARN', 'STAGE']) delete packageEnv[name];

// A command run to its end: its exit code and everything it printed.
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string; pid?: number }> {
  return new Promise((done) => {
    const child = execFile(command, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, (e, stdout, stderr) =>
      done({ code: e ? Number(e.code ?? 1) : 0, output: `${stdout}${stderr}`, pid: child.pid }),
    );
  });
}
const SLS = join(ROOT, 'node_modules/.bin/serverless');
// `serverless package` of the production stage with `changes` to its settings (undefined: unset);
// `args` instead of the stage and region.
let packages = 0;
async function slsPackage(changes: Record<string, string | undefined>, args = ['--stage', STAGE, '--region', REGION]) {
  const env = { ...packageEnv, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete env[name];
  const dir = join(out, `package-${++packages}`);
  return { ...(await run(SLS, ['package', '--package', dir, ...args], env)), dir };
}
const BACKSTOP_MS = 20 * 60_000; // a full package on a loaded 2-core machine takes minutes

let packagedBy: number | undefined; // the pid of the packaging that beforeAll ran
beforeAll(async () => {
  const { code, output, dir, pid } = await slsPackage({});
  if (code !== 0) throw new Error(`serverless package failed:\n${output}`);
  packagedBy = pid;
  template = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  nested = Object.fromEntries(STACKS.map((s: { name: string; file: string }) => [s.name, JSON.parse(readFileSync(join(dir, s.file), 'utf8'))]));
  deployed = Object.fromEntries(Object.entries(template.Resources).filter(([id]) => !nested[id]));
  for (const name of Object.keys(nested)) Object.assign(deployed, inlined(name));
  packagedDir = dir;
}, BACKSTOP_MS);
afterAll(() => rmSync(out, { recursive: true, force: true }));

// Roles name a secret by ARN pattern (its name and Secrets Manager's six random characters), so that
// a stack using retained ones (SECRETS_EXISTING) grants the same.
const secretArn = (name: string) => ({
  'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:payment-service/${STAGE}/${name}-??????`,
});
const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
const ofType = (type: string) => Object.entries(deployed).filter(([, r]) => r.Type === type);
const functionId = (name: string) => `${name[0].toUpperCase()}${name.slice(1)}LambdaFunction`;
// A nested stack's resources as the plugins made them, before they were nested: each parameter put
// back as what the service's stack passes it.
function inlined(name: string): Record<string, Resource> {
  const passed = template.Resources[name].Properties.Parameters;
  const resolve = (node: any): any => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!node || typeof node !== 'object') return node;
    if (typeof node.Ref === 'string' && passed[node.Ref]) return passed[node.Ref];
    if (typeof node['Fn::Sub'] === 'string')
      return {
        'Fn::Sub': node['Fn::Sub'].replace(/\$\{(\w+)\}/g, (whole: string, name: string) => {
          const value = passed[name];
          return !value ? whole : value.Ref ? `\${${value.Ref}}` : `\${${value['Fn::GetAtt'].join('.')}}`;
        }),
      };
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  return resolve(nested[name].Resources);
}
// The alarms and the dashboard as alarms.cjs made them.
const monitored = () => inlined('Monitoring');
// What a template names (Ref, Fn::GetAtt, Fn::Sub, DependsOn) that it does not have: not one of its
// resources or parameters, nor an output of a stack nested in it.
function unnamed(t: Template): string[] {
  const names: string[] = [];
  const walk = (node: any): void => {
    if (Array.isArray(node)) for (const v of node) walk(v);
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    if (typeof node.Ref === 'string') names.push(node.Ref);
    if (Array.isArray(node['Fn::GetAtt'])) names.push(node['Fn::GetAtt'].join('.'));
    if (typeof node['Fn::Sub'] === 'string') for (const m of node['Fn::Sub'].matchAll(/\$\{([\w.]+)\}/g)) names.push(m[1]);
    for (const v of Object.values(node)) walk(v);
  };
  walk(t.Resources);
  walk(t.Outputs ?? {});
  for (const r of Object.values(t.Resources)) names.push(...[r.DependsOn ?? []].flat());
  const has = (name: string) => {
    const [id, attribute, output] = name.split('.');
    if (attribute === 'Outputs' && nested[id]) return Boolean(nested[id].Outputs?.[output]);
    return Boolean(t.Resources[id] ?? t.Parameters?.[id]);
  };
  return [...new Set(names)].filter((n) => !n.startsWith('AWS::') && !has(n));
}
// The functions' roles (Lambda assumes them), apart from API Gateway's and AWS Backup's.
const functionRoles = () =>
  ofType('AWS::IAM::Role').filter(([, r]) => r.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service === 'lambda.amazonaws.com');
const STAGE_KEY = { 'Fn::GetAtt': ['StageKey', 'Arn'] };
const alarmsOf = () => Object.entries(monitored()).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
// A function's bundle as serverless packaged it: its JavaScript and source map.
function bundleOf(fn: string): Bundle {
  const files = unzip(join(packagedDir, `${fn}.zip`));
  const [name, code] = [...files].find(([file]) => file.endsWith('.js'))!;
  return { code: code.toString('latin1'), map: JSON.parse(files.get(`${name}.map`)!.toString('utf8')) };
}

describe('the CloudFormation template', () => {
  it('has a nodejs22.x Lambda and a bundle for every function in serverless.yml', () => {
    const functions = ofType('AWS::Lambda::Function');
    const names = loadService(STAGE).functions.map((f) => f.name);
    expect(functions).toHaveLength(names.length);
    for (const [, fn] of functions) expect(fn.Properties.Runtime).toBe('nodejs22.x');
    const zips = readdirSync(packagedDir).filter((f) => f.endsWith('.zip'));
    expect(zips.sort()).toEqual(names.map((n) => `${n}.zip`).sort());
  });

  it('leaves nothing in the temporary folder: no folder a function was zipped from', () => {
    expect(packagedBy).toBeGreaterThan(0);
    // serverless-esbuild names each "<function>-<its process's pid>-<time>-<8 hex>" (infra/serverless/esbuild-temp.cjs).
    const left = readdirSync(tmpdir()).filter((name) => new RegExp(`^[A-Za-z0-9]+-${packagedBy}-\\d+-[0-9a-f]{8}$`).test(name));
    expect(left).toEqual([]);
  });

  it('has every table with its TTL attribute', () => {
    const tables = Object.fromEntries(ofType('AWS::DynamoDB::Table'));
    expect(tables.MainTable.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    expect(tables.IdempotencyTable.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiration', Enabled: true });
    expect(tables.RatesTable.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    for (const [name, table] of Object.entries(tables)) expect(table.Properties.TimeToLiveSpecification?.Enabled, name).toBe(true);
  });

  it('keeps every table through a stack removal or replacement: retained, deletion-protected, with point-in-time recovery', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables.length).toBe(5);
    for (const [name, table] of tables) {
      expect([table.DeletionPolicy, table.UpdateReplacePolicy], name).toEqual(['Retain', 'Retain']);
      expect(table.Properties.DeletionProtectionEnabled, name).toBe(true);
      expect(table.Properties.PointInTimeRecoverySpecification, name).toEqual({ PointInTimeRecoveryEnabled: true });
    }
  });

  it('adds one index to the webhook events table, ByLookup, keys, status and type only, and leaves ByStatus as it was', () => {
    // CloudFormation adds one global secondary index per update of a table: a stack deployed with
    // ByStatus alone takes this one in one deploy.
    const props = template.Resources.WebhookEventsTable.Properties;
    expect(props.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'ByStatus',
        KeySchema: [
          { AttributeName: 'statusShard', KeyType: 'HASH' },
          { AttributeName: 'statusSort', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'ByLookup',
        KeySchema: [
          { AttributeName: 'lookupPk', KeyType: 'HASH' },
          { AttributeName: 'statusSort', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status', 'type'] },
      },
    ]);
    expect(props.AttributeDefinitions.map((a: { AttributeName: string }) => a.AttributeName)).toEqual(['id', 'statusShard', 'statusSort', 'lookupPk']);
  });

  it('adds one index to the main table, Lists2, for the transfer history, and leaves the others as they were', () => {
    // One index per update of a table (as above): a stage deployed before the history takes it in one deploy.
    const props = template.Resources.MainTable.Properties;
    expect(props.GlobalSecondaryIndexes.map((i: { IndexName: string }) => i.IndexName)).toEqual(['OpenIntents', 'Lists', 'Lists2']);
    expect(props.GlobalSecondaryIndexes[2]).toEqual({
      IndexName: 'Lists2',
      KeySchema: [
        { AttributeName: 'list2Pk', KeyType: 'HASH' },
        { AttributeName: 'listSk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['transferId', 'kind', 'resource', 'debit', 'credit', 'amount', 'createdAt'] },
    });
  });

  it('reserves concurrency for the payment worker and the outbox relay', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    expect(fns.PaymentsWorkerLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(50);
    expect(fns.OutboxRelayLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(30);
  });

  it('lets a deployer set every setting docs/configuration.md lists, and checks every one the template reads', () => {
    const section = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    // The names in each row's first cell (a row may hold several: `API_THROTTLE_RATE`, `API_THROTTLE_BURST`).
    const listed = [...section.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) => [...row[1].matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]));
    const local = /_PORT$|^FSP_|^LOCAL_|^PROXY_|^LOG_LEVEL$|^CONSOLE_JWKS$|^(ADMIN_API_SECRET|WEBHOOK_SECRET|IDP_SECRET)$/; // the local run's own, and the secrets (Secrets Manager)
    const environment = loadService(STAGE).environment;
    // Every setting the stack reads is checked before packaging (infra/serverless/settings.cjs), and documented.
    const checked = Object.keys(SETTINGS);
    for (const name of declaredSettings(ROOT)) expect(checked, name).toContain(name);
    for (const name of checked) expect(listed, name).toContain(name);
    // What the functions read is in their environment; what shapes the stack is read by the
    // declarations (`${env:NAME, default}`) or the plugins (`setting(NAME)`).
    const plugins = readdirSync(join(ROOT, 'infra/serverless'))
      .filter((f) => f !== 'settings.cjs')
      .map((f) => readFileSync(join(ROOT, 'infra/serverless', f), 'utf8'))
      .join('\n');
    for (const name of listed.filter((n) => !local.test(n))) {
      if (SETTINGS[name]?.functions || !SETTINGS[name]) expect(Object.keys(environment), name).toContain(name);
      else expect(declaredSettings(ROOT).includes(name) || new RegExp(`\\b${name}\\b`).test(plugins), name).toBe(true);
    }
  });

  it("gives each queue a visibility timeout of at least six times its consumer's timeout, and each consumer a maximum concurrency", () => {
    const functions = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    const mappings = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties)
      .filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'Arn');
    expect(mappings).toHaveLength(2);
    for (const m of mappings) {
      const queue = m.EventSourceArn['Fn::GetAtt'][0];
      const fn = functions[m.FunctionName['Fn::GetAtt'][0]];
      expect(queues[queue].Properties.VisibilityTimeout, queue).toBeGreaterThanOrEqual(6 * fn.Properties.Timeout);
      expect(m.ScalingConfig?.MaximumConcurrency, queue).toBeGreaterThanOrEqual(2);
    }
  });

  it('parks webhook events that used up their retries on a queue of their own, apart from the dead-letter queues', () => {
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    const redriveTargets = Object.values(queues).flatMap((q) =>
      q.Properties.RedrivePolicy ? [q.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]] : [],
    );
    expect(queues.WebhookParkingQueue).toBeDefined();
    expect(redriveTargets).not.toContain('WebhookParkingQueue');
    const sender = Object.fromEntries(ofType('AWS::Lambda::Function')).WebhooksDeliverLambdaFunction;
    expect(sender.Properties.Environment.Variables.WEBHOOK_PARKING_QUEUE_URL).toEqual({ Ref: 'WebhookParkingQueue' });
  });

  it("retries the webhook rule's target for a day, then dead-letters it; and archives every event", () => {
    const rules = Object.fromEntries(ofType('AWS::Events::Rule'));
    const [target] = rules.WebhookRule.Properties.Targets;
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 });
    expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'Arn'] } });
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties);
    expect(
      policies.some((p) => p.Queues[0].Ref === 'EventsDeadLetterQueue' && p.PolicyDocument.Statement[0].Principal.Service === 'events.amazonaws.com'),
    ).toBe(true);
    const [[, archive]] = ofType('AWS::Events::Archive');
    expect(archive.Properties).toMatchObject({ SourceArn: { 'Fn::GetAtt': ['EventBus', 'Arn'] }, RetentionDays: 30 });
  });

  it("stops every API function before API Gateway's 29 s, and keeps every failed scheduled run on a queue that alarms", () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const service = loadService(STAGE);
    for (const fn of service.functions.filter((f) => f.events.some((e) => e.http) || /^(openPayments|auth|ilpConnector)/.test(f.name))) {
      const id = functionId(fn.name);
      expect(fns[id].Properties.Timeout, fn.name).toBeLessThanOrEqual(25);
    }
    const scheduled = service.functions.filter((f) => f.events.some((e) => e.schedule)).map((f) => functionId(f.name));
    expect(scheduled.sort()).toEqual([
      'LiquidityWithdrawalsExpireLambdaFunction',
      'PaymentIntentsExpireLambdaFunction',
      'PaymentsExpireLambdaFunction',
      'RatesRefreshLambdaFunction',
    ]);
    const configs = ofType('AWS::Lambda::EventInvokeConfig').map(([, c]) => c.Properties);
    for (const fn of scheduled) {
      const config = configs.find((c) => c.FunctionName.Ref === fn);
      expect(config?.DestinationConfig.OnFailure.Destination, fn).toEqual({ 'Fn::GetAtt': ['ScheduledFailuresQueue', 'Arn'] });
    }
  });

  it('has every work queue with a dead-letter queue', () => {
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    for (const name of ['PaymentsQueue', 'WebhookQueue']) {
      const target = queues[name].Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
      expect(queues[target], `${name} → ${target}`).toBeDefined();
    }
  });

  it('has the event bus and the rule that feeds the webhook queue', () => {
    const [[busId]] = ofType('AWS::Events::EventBus');
    const rules = Object.fromEntries(ofType('AWS::Events::Rule'));
    expect(rules.WebhookRule.Properties.EventBusName).toEqual({ Ref: busId });
    expect(rules.WebhookRule.Properties.Targets[0].Arn).toEqual({ 'Fn::GetAtt': ['WebhookQueue', 'Arn'] });
  });

  it('schedules the rate refresher and the intent, withdrawal and funding expirers every minute', () => {
    const schedules = ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression);
    expect(schedules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(Array(4).fill('rate(1 minute)'));
  });

  it('triggers the payment worker and the webhook sender from their queues, with partial batch responses', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    const queues = mappings.filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'Arn');
    expect(queues.map((m) => m.EventSourceArn['Fn::GetAtt'][0]).sort()).toEqual(['PaymentsQueue', 'WebhookQueue']);
    for (const m of mappings) expect(m.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
  });

  it("feeds the outbox relay from the main table's stream, filtered to new outbox items, and lets it read the stream", () => {
    const tables = Object.fromEntries(ofType('AWS::DynamoDB::Table'));
    expect(tables.MainTable.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    const streams = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties)
      .filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn');
    expect(streams).toHaveLength(1); // a DynamoDB stream serves at most two readers per shard
    const [relay] = streams;
    expect(relay.EventSourceArn).toEqual({ 'Fn::GetAtt': ['MainTable', 'StreamArn'] });
    expect(relay.FunctionName).toEqual({ 'Fn::GetAtt': ['OutboxRelayLambdaFunction', 'Arn'] });
    expect(relay.BisectBatchOnFunctionError).toBe(true);
    expect(relay.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(relay.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { sk: { S: [{ prefix: 'OUT#' }] } } } },
    ]);
    const statements = ofType('AWS::IAM::Role').flatMap(([, r]) => (r.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement));
    const allows = (action: string, resource: unknown) =>
      statements.some((st: any) => st.Action.includes(action) && st.Resource.some((r: unknown) => JSON.stringify(r) === JSON.stringify(resource)));
    expect(allows('dynamodb:GetRecords', { 'Fn::GetAtt': ['MainTable', 'StreamArn'] })).toBe(true);
    expect(allows('events:PutEvents', { 'Fn::GetAtt': ['EventBus', 'Arn'] })).toBe(true);
    expect(allows('sqs:SendMessage', { 'Fn::GetAtt': ['PaymentsQueue', 'Arn'] })).toBe(true);
  });

  // A record the relay reported failed was retried until the stream dropped it after 24 hours, and
  // held up its shard meanwhile; nothing alarmed.
  it(
    "bounds the relay's retries and record age and parks what it could not send on a queue of its own, which alarms and only Lambda feeds",
    async () => {
      const [relay] = ofType('AWS::Lambda::EventSourceMapping')
        .map(([, m]) => m.Properties)
        .filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn');
      expect(relay).toMatchObject({ MaximumRetryAttempts: 100, MaximumRecordAgeInSeconds: 3600, BisectBatchOnFunctionError: true });
      expect(relay.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': ['RelayFailuresQueue', 'Arn'] } } });
      const queue = template.Resources.RelayFailuresQueue.Properties;
      expect(queue).toMatchObject({ MessageRetentionPeriod: 1209600, KmsMasterKeyId: STAGE_KEY });
      // The outbox items a parked record points at outlive it: a record parked on its last day can still be re-driven.
      expect(OUTBOX_RETENTION_SECS).toBeGreaterThan(queue.MessageRetentionPeriod);
      expect(
        alarmsOf()
          .map(([, a]) => a.Properties)
          .find((a) => a.Dimensions?.[0].Value['Fn::GetAtt']?.[0] === 'RelayFailuresQueue'),
      ).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      // Lambda parks the records with the relay's role: the only principal the queue's policy lets send.
      const policy = ofType('AWS::SQS::QueuePolicy')
        .map(([, p]) => p.Properties)
        .find((p) => p.Queues.some((q: any) => q.Ref === 'RelayFailuresQueue'));
      expect(policy.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { ArnNotEquals: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': ['OutboxRelayRole', 'Arn'] }] } } }),
      );
      const refused = await slsPackage({ RELAY_MAX_RETRY_ATTEMPTS: '-1', RELAY_MAX_RECORD_AGE_SECS: '172800' });
      expect(refused.output).toContain('RELAY_MAX_RETRY_ATTEMPTS: must be a whole number from 0 to 10000');
      expect(refused.output).toContain('RELAY_MAX_RECORD_AGE_SECS: must be a whole number from 60 to 86400');
    },
    BACKSTOP_MS,
  );

  // Its reservation (30) was below its parallelization factor (10) times the 4 or more shards of a
  // new on-demand table's stream: throttled, and the stream lagging, under load.
  it(
    "reserves the outbox relay enough concurrency for its parallelization on every shard of a new table's stream, and refuses less",
    async () => {
      const [mapping] = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn');
      const relay = template.Resources.OutboxRelayLambdaFunction.Properties;
      expect(mapping[1].Properties.ParallelizationFactor).toBe(2);
      expect(relay.ReservedConcurrentExecutions).toBeGreaterThanOrEqual(mapping[1].Properties.ParallelizationFactor * 4);
      expect((await slsPackage({ RELAY_RESERVED_CONCURRENCY: '7' })).output).toContain(
        "RELAY_RESERVED_CONCURRENCY: 7 is below 8, the parallelization factor 2 times a new table stream's 4 shards",
      );
    },
    BACKSTOP_MS,
  );

  it('routes every Admin path through a REST API, and the resource and authorization servers and the connector through REST APIs of their own', () => {
    const resources = template.Resources;
    // A route's path from its API Gateway resources, as the template nests them.
    const pathOf = (id: any): string =>
      id?.['Fn::GetAtt']?.[1] === 'RootResourceId' ? '' : `${pathOf(resources[id.Ref].Properties.ParentId)}/${resources[id.Ref].Properties.PathPart}`;
    const routes = ofType('AWS::ApiGateway::Method')
      .filter(([, m]) => m.Properties.RestApiId.Ref === 'ApiGatewayRestApi')
      .map(([, m]) => `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`);
    const declared = loadService(STAGE).functions.flatMap((f) => f.events.filter((e) => e.http).map((e) => `${e.http.method} ${e.http.path}`));
    expect(routes.sort()).toEqual(declared.sort());
    expect(ofType('AWS::ApiGatewayV2::Api')).toEqual([]); // no HTTP API: LocalStack's free image has none
    expect(
      ofType('AWS::ApiGateway::RestApi')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['ApiGatewayRestApi', 'AuthServerApi', 'ConnectorApi', 'ResourceServerApi']);
    // The local run serves what the template declares: every method of both APIs reaches a function.
    const apis = restApis(loadService(STAGE));
    expect(
      apis
        .get('AuthServerApi')!
        .routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)
        .sort(),
    ).toEqual([
      'ANY / -> authServer',
      'ANY /grant/{proxy+} -> authInteraction',
      'ANY /interact/{proxy+} -> authInteraction',
      // A tenant's authorization server: the same routes under /t/<tenant id>.
      'ANY /t/{tenant} -> authServer',
      'ANY /t/{tenant}/grant/{proxy+} -> authInteraction',
      'ANY /t/{tenant}/interact/{proxy+} -> authInteraction',
      'ANY /t/{tenant}/{proxy+} -> authServer',
      'ANY /{proxy+} -> authServer',
      'POST /introspect -> authIntrospect',
      'POST /t/{tenant}/introspect -> authIntrospect',
    ]);
    expect(
      apis
        .get('ResourceServerApi')!
        .routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)
        .sort(),
    ).toEqual([
      'ANY /incoming-payments -> openPaymentsIncomingPayments',
      'ANY /incoming-payments/{proxy+} -> openPaymentsIncomingPayments',
      'ANY /outgoing-payment-grant -> openPaymentsOutgoingPayments',
      'ANY /outgoing-payments -> openPaymentsOutgoingPayments',
      'ANY /outgoing-payments/{proxy+} -> openPaymentsOutgoingPayments',
      'ANY /quotes -> openPaymentsQuotes',
      'ANY /quotes/{proxy+} -> openPaymentsQuotes',
      // A tenant's resource server: the same routes under /t/<tenant id> (its wallet addresses are under its prefix).
      'ANY /t/{tenant}/incoming-payments -> openPaymentsIncomingPayments',
      'ANY /t/{tenant}/incoming-payments/{proxy+} -> openPaymentsIncomingPayments',
      'ANY /t/{tenant}/outgoing-payment-grant -> openPaymentsOutgoingPayments',
      'ANY /t/{tenant}/outgoing-payments -> openPaymentsOutgoingPayments',
      'ANY /t/{tenant}/outgoing-payments/{proxy+} -> openPaymentsOutgoingPayments',
      'ANY /t/{tenant}/quotes -> openPaymentsQuotes',
      'ANY /t/{tenant}/quotes/{proxy+} -> openPaymentsQuotes',
      'ANY /{proxy+} -> openPaymentsWalletAddress',
    ]);
    expect(apis.get('ConnectorApi')!.routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)).toEqual(['POST /ilp -> ilpConnector']);
    expect(apis.get('ConnectorApi')!.binary).toBe(true); // ILP packets pass as bytes, whatever the peer's Accept header
  });

  // Roles were per group: the Admin API's write role served 22 functions (only quotesCreate reads
  // the Open Payments client's secret, only webhookEventsRedeliver the webhook events table), and
  // its read role let read-only functions write RatesTable.
  it('gives each function a role with exactly what its bundle calls, shared only by functions that need the same', () => {
    const service = loadService(STAGE);
    const found = new Map(service.functions.map((f) => [f.name, scanBundle(bundleOf(f.name))]));
    // Where outbox messages can go: every queue a function names.
    const outboxQueues = new Set(
      [...found.values()]
        .flat()
        .filter((f) => /^setting:\w+_QUEUE_URL$/.test(f.what))
        .map((f) => f.what.slice(8)),
    );
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const roles = Object.fromEntries(ofType('AWS::IAM::Role'));
    const needs: Record<string, string[]> = {};
    const adminFunctions = service.functions.filter((f) => f.events.some((e) => e.http)).map((f) => functionId(f.name));
    for (const fn of service.functions) {
      const id = functionId(fn.name);
      const method = fn.events.find((e) => e.http)?.http.method;
      const needed = [...neededAccess({ id, method, resources: deployed, outboxQueues, adminFunctions }, found.get(fn.name)!)].sort();
      const role = fns[id].Properties.Role['Fn::GetAtt'][0];
      const granted = [...grantedAccess(roles[role])].sort();
      const missing = needed.filter((n) => !granted.includes(n));
      const extra = granted.filter((g) => !needed.includes(g));
      expect({ fn: fn.name, role, missing, extra }).toEqual({ fn: fn.name, role, missing: [], extra: [] });
      needs[fn.name] = needed;
    }
    // What the derivation must see, so that a change in the bundles' shape cannot make it see nothing.
    expect(needs.outboxRelay).toEqual(
      expect.arrayContaining(['events:PutEvents EventBus', 'sqs:SendMessage PaymentsQueue', 'sqs:SendMessage RelayFailuresQueue']),
    );
    expect(needs.paymentsWorker).toEqual(expect.arrayContaining(['sqs:ChangeMessageVisibility PaymentsQueue', 'dynamodb:UpdateItem MainTable']));
    expect(needs.quotesCreate).toEqual(
      expect.arrayContaining(['secretsmanager:GetSecretValue secret:OPEN_PAYMENTS_CLIENT_SECRET', 'dynamodb:PutItem IdempotencyTable']),
    );
    expect(needs.openPaymentsIncomingPayments).toContain('execute-api:Invoke AuthServerApi POST /introspect');
    expect(needs.openApi).toEqual([]);
    // The Admin API's GET routes only read (the rate lookup caches what it pulled), and only the
    // back-office ledger check scans.
    // The console's function only invokes the Admin API's others (below).
    expect(needs.console).toEqual(
      adminFunctions
        .filter((f) => f !== functionId('console'))
        .map((f) => `lambda:InvokeFunction ${f}`)
        .sort(),
    );
    for (const fn of service.functions.filter((f) => f.name !== 'console' && f.events.some((e) => e.http?.method === 'GET')))
      for (const n of needs[fn.name])
        expect(
          /^(dynamodb:(GetItem|BatchGetItem|Query)|secretsmanager:GetSecretValue) /.test(n) ||
            (fn.name === 'ratesResolve' && n === 'dynamodb:BatchWriteItem RatesTable') ||
            (fn.name === 'ledgerCheck' && n === 'dynamodb:Scan MainTable'),
          `${fn.name}: ${n}`,
        ).toBe(true);
    const holders = (need: string) =>
      Object.keys(needs)
        .filter((fn) => needs[fn].includes(need))
        .sort();
    expect(holders('secretsmanager:GetSecretValue secret:OPEN_PAYMENTS_CLIENT_SECRET')).toEqual([
      'openPaymentsOutgoingPayments',
      'openPaymentsQuotes',
      'paymentsWorker',
      'quotesCreate',
    ]);
    expect(holders('secretsmanager:GetSecretValue secret:WEBHOOK_SECRET')).toEqual(['webhooksDeliver']);
    expect(holders('secretsmanager:GetSecretValue secret:IDP_SECRET')).toEqual(['authInteraction']);
    // Only the tenants' functions make and delete secrets, and only the tenants'.
    expect(holders('secretsmanager:CreateSecret secret:tenants/*')).toEqual(['tenantsCreate']);
    expect(holders('secretsmanager:DeleteSecret secret:tenants/*')).toEqual(['tenantsCreate', 'tenantsDelete']);
    expect(holders('dynamodb:UpdateItem WebhookEventsTable')).toEqual(['webhookEventsRedeliver', 'webhooksDeliver']);
    expect(holders('dynamodb:PutItem RatesTable')).toEqual(['ratesPush']);

    expect(roles.IamRoleLambdaExecution).toBeUndefined(); // no role shared by all
    for (const [id, role] of functionRoles()) {
      expect(
        role.Properties.ManagedPolicyArns.map((a: any) => a['Fn::Sub'].split('/').at(-1)),
        id,
      ).toEqual(['AWSLambdaBasicExecutionRole', 'AWSXRayDaemonWriteAccess']);
      for (const st of (role.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement)) {
        expect(
          st.Action.some((a: string) => a.includes('*')),
          id,
        ).toBe(false); // no wildcard
        for (const r of st.Resource) expect(r, id).not.toBe('*');
        // Secrets by ARN pattern, so that a stack on retained secrets (SECRETS_EXISTING) grants the same.
        if (st.Action.includes('secretsmanager:GetSecretValue'))
          for (const r of st.Resource) expect(JSON.stringify(r)).toMatch(/secret:payment-service\/prod\/(tenants\/\*\/)?[A-Z_]+-\?{6}"/);
      }
    }
    // And no secret in any function's environment.
    for (const [id, fn] of Object.entries(fns)) {
      for (const name of ['ADMIN_API_SECRET', 'WEBHOOK_SECRET', 'STREAM_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET', 'IDP_SECRET'])
        expect(fn.Properties.Environment?.Variables?.[name], `${id} ${name}`).toBeUndefined();
    }
  });

  // Any principal with events:PutEvents or sqs:SendMessage could inject events that the webhook
  // sender signs and delivers, or payment messages.
  it('lets only the service feed its bus and work queues: every other principal is denied', () => {
    const relay = { 'Fn::GetAtt': ['OutboxRelayRole', 'Arn'] };
    const [[, bus], ...moreBus] = ofType('AWS::Events::EventBusPolicy');
    expect(moreBus).toEqual([]);
    expect(bus.Properties.Statement).toMatchObject({
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Condition: { ArnNotEquals: { 'aws:PrincipalArn': [relay] } },
    });
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties);
    const denials = (queue: string) =>
      policies
        .filter((p) => p.Queues.some((q: any) => q.Ref === queue))
        .flatMap((p) => p.PolicyDocument.Statement)
        .filter((st: any) => st.Effect === 'Deny' && st.Action === 'sqs:SendMessage');
    expect(denials('PaymentsQueue')).toEqual([expect.objectContaining({ Principal: '*', Condition: { ArnNotEquals: { 'aws:PrincipalArn': [relay] } } })]);
    expect(denials('WebhookParkingQueue')).toHaveLength(1);
    const [webhook] = denials('WebhookQueue');
    expect(webhook.Condition.ArnNotEquals).toEqual({
      'aws:PrincipalArn': [relay, { 'Fn::GetAtt': ['WebhookSenderRole', 'Arn'] }],
      'aws:SourceArn': { 'Fn::GetAtt': ['WebhookRule', 'Arn'] }, // the bus's rule sends with no principal ARN
    });
  });

  // What waits on a failure queue, `npm run redrive` sends on (infra/redrive.ts): whoever could put a
  // message there could have it sent, or a function run. So each takes messages from its feeders only.
  it('lets each failure queue take messages only from what feeds it: a function, with its role; the bus, for its rule; SQS itself', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    const queueOf = (arn: any) => arn['Fn::GetAtt'][0] as string;
    const roleOf = (fn: string) => fns[fn].Properties.Role;
    type Feeders = { roles: unknown[]; rules: unknown[]; sqs: boolean };
    const feeders = new Map<string, Feeders>();
    const of = (queue: string) => feeders.get(queue) ?? feeders.set(queue, { roles: [], rules: [], sqs: false }).get(queue)!;
    // Lambda's on-failure destinations, which Lambda sends to with the function's role: of its
    // asynchronous invocations (the schedules') and of its stream mapping (the relay's).
    for (const [, c] of ofType('AWS::Lambda::EventInvokeConfig'))
      of(queueOf(c.Properties.DestinationConfig.OnFailure.Destination)).roles.push(roleOf(c.Properties.FunctionName.Ref));
    for (const [, m] of ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.DestinationConfig)) {
      of(queueOf(m.Properties.DestinationConfig.OnFailure.Destination)).roles.push(roleOf(m.Properties.FunctionName['Fn::GetAtt'][0]));
    }
    // Parked webhook events: an outbox message of the sender's, which the relay sends.
    for (const queue of loadService(STAGE).custom.alarms.parkingQueues) of(queue).roles.push({ 'Fn::GetAtt': ['OutboxRelayRole', 'Arn'] });
    // Dead-letter queues: SQS moves a message there itself (no one sends); a rule's, EventBridge for that rule.
    for (const [, q] of ofType('AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy))
      of(queueOf(q.Properties.RedrivePolicy.deadLetterTargetArn)).sqs = true;
    for (const [rule, r] of ofType('AWS::Events::Rule')) {
      for (const t of (r.Properties.Targets ?? []).filter((t: any) => t.DeadLetterConfig))
        of(queueOf(t.DeadLetterConfig.Arn)).rules.push({ 'Fn::GetAtt': [rule, 'Arn'] });
    }
    expect([...feeders.keys()].sort()).toEqual([
      'EventsDeadLetterQueue',
      'PaymentsDeadLetterQueue',
      'RelayFailuresQueue',
      'ScheduledFailuresQueue',
      'WebhookDeadLetterQueue',
      'WebhookParkingQueue',
    ]);
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties);
    const byArn = (ids: unknown[]) => [...new Set(ids.map((id) => JSON.stringify(id)))].sort();
    for (const [queue, fed] of feeders) {
      // One policy (a queue has one: a second would replace it), whose statements about sending to it are these.
      const held = policies.filter((p) => p.Queues.some((q: any) => q.Ref === queue));
      expect(held, queue).toHaveLength(1);
      const arn = { 'Fn::GetAtt': [queue, 'Arn'] };
      const statements = held[0].PolicyDocument.Statement.filter((st: any) =>
        [st.Resource].flat().some((r: unknown) => JSON.stringify(r) === JSON.stringify(arn)),
      );
      const denials = statements.filter((st: any) => st.Effect === 'Deny');
      expect(
        denials.map((st: any) => [st.Principal, st.Action]),
        queue,
      ).toEqual([['*', 'sqs:SendMessage']]);
      const [{ Condition }] = denials;
      if (fed.sqs) expect(Condition, queue).toBeUndefined();
      else if (fed.rules.length) expect(Condition, queue).toEqual({ ArnNotEquals: { 'aws:SourceArn': fed.rules[0] } });
      else expect(byArn(Condition.ArnNotEquals['aws:PrincipalArn']), queue).toEqual(byArn(fed.roles));
      // An Allow only for the bus's rule (EventBridge needs the queue's leave), none for anyone else.
      const allows = statements.filter((st: any) => st.Effect === 'Allow');
      expect(allows, queue).toEqual(
        fed.rules.map((rule) =>
          expect.objectContaining({ Principal: { Service: 'events.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': rule } } }),
        ),
      );
    }
  });

  it('gives the ILP connector a role of its own: the main table, rates, and the STREAM secret', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    expect(fns.IlpConnectorLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['IlpConnectorRole', 'Arn'] });
    const role = Object.fromEntries(ofType('AWS::IAM::Role')).IlpConnectorRole;
    const resources = role.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement).flatMap((st: any) => st.Resource);
    expect(resources).toEqual([{ 'Fn::GetAtt': ['MainTable', 'Arn'] }, { 'Fn::GetAtt': ['RatesTable', 'Arn'] }, secretArn('STREAM_SECRET')]);
    const permission = Object.fromEntries(ofType('AWS::Lambda::Permission')).ConnectorPermission;
    expect(JSON.stringify(permission.Properties.SourceArn)).toContain('/*/POST/ilp');
  });

  it('gives the authorization server, its interaction and the introspection route their own roles, and keeps introspection off the public', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    expect(fns.AuthServerLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['AuthServerRole', 'Arn'] });
    expect(fns.AuthIntrospectLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['AuthIntrospectRole', 'Arn'] });
    const roles = Object.fromEntries(ofType('AWS::IAM::Role'));
    const statements = (role: string) => (roles[role].Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
    // Its own table, and of the main table only a tenant's record (GetItem), nothing else.
    const mainTableRead = { Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: [{ 'Fn::GetAtt': ['MainTable', 'Arn'] }] };
    for (const role of ['AuthServerRole', 'AuthIntrospectRole']) {
      expect(
        statements(role).map((st: any) => st.Resource),
        role,
      ).toEqual([[{ 'Fn::GetAtt': ['AuthTable', 'Arn'] }], [{ 'Fn::GetAtt': ['MainTable', 'Arn'] }]]);
      expect(statements(role)[1], role).toEqual(mainTableRead);
    }
    expect(statements('AuthIntrospectRole').flatMap((st: any) => st.Action)).toEqual(['dynamodb:GetItem', 'dynamodb:GetItem']);
    // The interaction's function: its table and the IdP secret, which no other function reads.
    expect(fns.AuthInteractionLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['AuthInteractionRole', 'Arn'] });
    expect(statements('AuthInteractionRole')[1]).toEqual(mainTableRead);
    expect(statements('AuthInteractionRole').flatMap((st: any) => st.Resource)).toEqual([
      { 'Fn::GetAtt': ['AuthTable', 'Arn'] },
      { 'Fn::GetAtt': ['MainTable', 'Arn'] },
      secretArn('IDP_SECRET'),
      secretArn('tenants/*/IDP_SECRET'),
    ]);
    const methods = Object.fromEntries(ofType('AWS::ApiGateway::Method'));
    const introspection = ['AuthServerIntrospectPost', 'AuthServerTenantIntrospectPost']; // the operator's and a tenant's
    for (const id of introspection) expect(methods[id].Properties.AuthorizationType, id).toBe('AWS_IAM');
    // (and the console's API route takes an operator's token: below)
    for (const [id, m] of Object.entries(methods))
      if (!introspection.includes(id) && m.Properties.AuthorizationType !== 'COGNITO_USER_POOLS') expect(m.Properties.AuthorizationType, id).toBe('NONE');
    // Secrets are generated by Secrets Manager, never written into the template.
    const secrets = Object.fromEntries(ofType('AWS::SecretsManager::Secret'));
    expect(Object.keys(secrets).sort()).toEqual(['AdminApiSecret', 'IdpSecret', 'OpenPaymentsClientSecret', 'StreamSecret', 'WebhookSecret']);
    for (const [id, secret] of Object.entries(secrets)) {
      expect(secret.Properties.GenerateSecretString, id).toBeDefined();
      expect(secret.Properties.SecretString, id).toBeUndefined();
    }
  });

  it('keeps every secret through a stack removal or replacement, and lets a new stack use the kept ones (SECRETS_EXISTING=1)', () => {
    const secrets = ofType('AWS::SecretsManager::Secret');
    for (const [id, secret] of secrets) {
      expect([secret.DeletionPolicy, secret.UpdateReplacePolicy], id).toEqual(['Retain', 'Retain']);
      expect((secret as { Condition?: string }).Condition, id).toBe('CreatesSecrets');
    }
    const conditions = (template as unknown as { Conditions: Record<string, unknown> }).Conditions;
    expect(conditions.CreatesSecrets).toEqual({ 'Fn::Equals': ['', ''] }); // created unless SECRETS_EXISTING is set
  });
});

// Every one of these packaged (exit 0) and went into the template as it was.
describe('settings that fail closed, before anything is built', () => {
  it(
    'refuses to package or deploy without a stage, or without a required setting, naming it',
    async () => {
      expect((await slsPackage({}, [])).output).toContain('"provider.stage"');
      for (const name of Object.keys(REQUIRED)) expect((await slsPackage({ [name]: undefined })).output, name).toContain(`provider.environment.${name}`);
    },
    BACKSTOP_MS,
  );

  // A bad value packaged with status 0 and then broke every function at its cold start.
  it(
    'refuses settings the functions would refuse, naming every bad one',
    async () => {
      const bad = { QUOTE_LIFETIME_SECS: 'abc', WEBHOOK_TIMEOUT_SECS: '60', SLIPPAGE: '5', WALLET_ADDRESS_URL: 'notaurl', ILP_ADDRESS: 'not an address' };
      const refused = await slsPackage(bad);
      expect(refused.code).not.toBe(0);
      for (const name of Object.keys(bad)) expect(refused.output, name).toContain(`${name}:`);
      expect(existsSync(refused.dir)).toBe(false); // refused before anything was built
    },
    BACKSTOP_MS,
  );

  it(
    "refuses each of the review's bad values, naming its setting",
    async () => {
      const bad = {
        API_THROTTLE_RATE: 'abc',
        CONNECTOR_THROTTLE_BURST: '-1',
        ITERATOR_AGE_ALARM_SECS: 'abc',
        OLDEST_MESSAGE_ALARM_SECS: 'abc',
        API_LATENCY_ALARM_MS: '-5',
        ALARM_EMAIL: 'not-an-email',
        ALARM_TOPIC_ARN: 'garbage',
        ADMIN_ALLOWED_CIDRS: '999.1.1.1/99',
        LOG_RETENTION_DAYS: '10',
        KMS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555', // another region
        GRANT_RATE_LIMIT_PER_5MIN: '5',
        WORKER_RESERVED_CONCURRENCY: '0',
      };
      const refused = await slsPackage(bad);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toContain('Settings that this deploy cannot run with');
      for (const name of Object.keys(bad)) expect(refused.output, name).toMatch(new RegExp(`^ *${name}: `, 'm'));
      expect(refused.output).toContain('ADMIN_ALLOWED_CIDRS: 999.1.1.1/99 is not a CIDR');
      expect(refused.output).toContain("KMS_KEY_ARN: must be in the stack's region, eu-west-1 (not us-east-1)");
      // A CIDR parsed, not matched: host bits below the prefix are refused with what was meant.
      expect((await slsPackage({ ADMIN_ALLOWED_CIDRS: '203.0.113.7/24' })).output).toContain('did you mean 203.0.113.0/24?');
    },
    BACKSTOP_MS,
  );

  // 0.0.0.0/0 silently opened the money-moving Admin API to the internet.
  it(
    'refuses an Admin API open to every address, or with no list, unless ADMIN_OPEN_TO_INTERNET=1 says so',
    async () => {
      for (const everywhere of ['0.0.0.0/0', '10.0.0.0/8, ::/0'])
        expect((await slsPackage({ ADMIN_ALLOWED_CIDRS: everywhere })).output, everywhere).toMatch(/ADMIN_ALLOWED_CIDRS: (0\.0\.0\.0|::)\/0 is every address/);
      expect((await slsPackage({ ADMIN_ALLOWED_CIDRS: undefined })).output).toContain('ADMIN_ALLOWED_CIDRS: the networks');
      // Said on purpose, the Admin API's list is no problem (another bad value stops the package early).
      const open = await slsPackage({ ADMIN_ALLOWED_CIDRS: '0.0.0.0/0', ADMIN_OPEN_TO_INTERNET: '1', API_THROTTLE_RATE: 'abc' });
      expect(open.output).toContain('API_THROTTLE_RATE:');
      expect(open.output).not.toContain('ADMIN_ALLOWED_CIDRS');
    },
    BACKSTOP_MS,
  );

  it(
    'refuses a stage whose alarms reach nobody, unless that is said on purpose; ALARM_TOPIC_ARN takes every alarm',
    async () => {
      expect((await slsPackage({ ALARM_EMAIL: undefined })).output).toContain('ALARM_EMAIL or ALARM_TOPIC_ARN');
      expect(template.Conditions.HasAlarmEmail).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [PRODUCTION.ALARM_EMAIL, ''] }] });
      const resources = Object.fromEntries(Object.entries(structuredClone(deployed)).filter(([, r]) => !/^AWS::CloudWatch::/.test(r.Type)));
      const topic = 'arn:aws:sns:eu-west-1:123456789012:ops';
      buildAlarms(resources, {
        stage: STAGE,
        namespace: 'PaymentService',
        serviceName: 'payment-service',
        parkingQueues: ['WebhookParkingQueue'],
        oldestMessageSecs: 600,
        iteratorAgeSecs: 60,
        apiP99Ms: 2000,
        api4xx: 500,
        paymentsFailed: 1,
        webhookFailures: 10,
        topic,
      });
      const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
      expect(alarms.length).toBe(alarmsOf().length);
      for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([topic]);
    },
    BACKSTOP_MS,
  );

  it(
    'says `npm run package` is for CI, and refuses to package any other stage with it',
    async () => {
      const refused = await run('npm', ['run', '-s', 'package'], { ...packageEnv, STAGE: 'prod' });
      expect(refused.code).toBe(2);
      expect(refused.output).toContain('npm run package is for CI');
      expect(refused.output).toContain('npx serverless package --stage prod');
      const script = readFileSync(join(ROOT, 'infra/ci-package.sh'), 'utf8');
      expect(script).not.toMatch(/ALARMS_UNSUBSCRIBED|ADMIN_OPEN_TO_INTERNET/); // it opens nothing and silences nothing
    },
    BACKSTOP_MS,
  );
});

describe('edge protection', () => {
  const acl = () => template.Resources.WebAcl.Properties;
  const rule = (name: string) => acl().Rules.find((r: any) => r.Name === name);
  const hostIs = (host: string) => ({
    ByteMatchStatement: {
      FieldToMatch: { SingleHeader: { Name: 'host' } },
      PositionalConstraint: 'EXACTLY',
      SearchString: host,
      TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
    },
  });

  it("puts one WAF web ACL on every API's stage: AWS's managed rules, and a rate per client address on each public API, tighter on grant requests", () => {
    expect(acl()).toMatchObject({ Name: `payment-service-${STAGE}`, Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const managed = acl()
      .Rules.filter((r: any) => r.Statement.ManagedRuleGroupStatement)
      .map((r: any) => r.Statement.ManagedRuleGroupStatement.Name);
    expect(managed.sort()).toEqual(['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet']);
    const associations = ofType('AWS::WAFv2::WebACLAssociation').map(([, a]) => a);
    expect(associations.map((a) => a.DependsOn![0]).sort()).toEqual(Object.keys(Object.fromEntries(ofType('AWS::ApiGateway::Stage'))).sort());
    for (const a of associations) {
      expect(a.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': ['WebAcl', 'Arn'] });
      expect(a.Properties.ResourceArn['Fn::Sub']).toMatch(
        new RegExp(`^arn:\\$\\{AWS::Partition\\}:apigateway:\\$\\{AWS::Region\\}::/restapis/\\$\\{\\w+\\}/stages/${STAGE}$`),
      );
    }
    // Grant requests (the authorization server's POST at its root, on its custom domain): GRANT_RATE_LIMIT_PER_5MIN.
    expect(rule('GrantRequestsPerAddress')).toMatchObject({ Action: { Block: {} } });
    const grants = rule('GrantRequestsPerAddress').Statement.RateBasedStatement;
    expect(grants).toMatchObject({ Limit: 120, AggregateKeyType: 'IP', EvaluationWindowSec: 300 });
    expect(grants.ScopeDownStatement.AndStatement.Statements).toEqual([
      hostIs('auth.wallet.example.com'),
      {
        ByteMatchStatement: {
          FieldToMatch: { Method: {} },
          PositionalConstraint: 'EXACTLY',
          SearchString: 'POST',
          TextTransformations: [{ Priority: 0, Type: 'NONE' }],
        },
      },
      {
        ByteMatchStatement: {
          FieldToMatch: { UriPath: {} },
          PositionalConstraint: 'EXACTLY',
          SearchString: '/',
          TextTransformations: [{ Priority: 0, Type: 'NONE' }],
        },
      },
    ]);
    expect(rule('GrantRequestsPerAddress').Priority).toBeLessThan(rule('OpenPaymentsPerAddress').Priority);
    expect(rule('OpenPaymentsPerAddress').Statement.RateBasedStatement).toMatchObject({
      Limit: 3000,
      AggregateKeyType: 'IP',
      ScopeDownStatement: { OrStatement: { Statements: [hostIs('wallet.example.com'), hostIs('auth.wallet.example.com')] } },
    });
    expect(rule('ConnectorPerAddress').Statement.RateBasedStatement).toMatchObject({ Limit: 300000, ScopeDownStatement: hostIs('ilp.wallet.example.com') });
    // The common rules read bodies as text: not the connector's binary packets; bodies over WAF's 8 KB
    // are the functions' to refuse (64 KB).
    expect(rule('CommonRules').Statement.ManagedRuleGroupStatement).toMatchObject({
      ScopeDownStatement: { NotStatement: { Statement: hostIs('ilp.wallet.example.com') } },
      RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
    });
    for (const r of acl().Rules)
      expect(r.VisibilityConfig, r.Name).toEqual({ SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: r.Name });
  });

  it('lets the Admin API be reached only from ADMIN_ALLOWED_CIDRS, and the connector only from CONNECTOR_ALLOWED_CIDRS', () => {
    const only = (cidrs: string[]) => [
      { Effect: 'Allow', Principal: '*', Action: 'execute-api:Invoke', Resource: 'execute-api:/*' },
      { Effect: 'Deny', Principal: '*', Action: 'execute-api:Invoke', Resource: 'execute-api:/*', Condition: { NotIpAddress: { 'aws:SourceIp': cidrs } } },
    ];
    expect(template.Resources.ApiGatewayRestApi.Properties.Policy.Statement).toEqual(only(['203.0.113.0/24', '2001:db8::/32']));
    expect(template.Resources.ConnectorApi.Properties.Policy.Statement).toEqual(only(['198.51.100.0/24']));
    // The Open Payments servers are public by design (wallets, other nodes).
    for (const api of ['ResourceServerApi', 'AuthServerApi']) expect(template.Resources[api].Properties.Policy, api).toBeUndefined();
  });

  it('serves each API on its custom domain, and turns its default execute-api endpoint off', () => {
    const domains = Object.fromEntries(ofType('AWS::ApiGateway::DomainName').map(([id, d]) => [id, d.Properties]));
    const expected = {
      ApiGatewayRestApi: 'admin.wallet.example.com',
      ResourceServerApi: 'wallet.example.com',
      AuthServerApi: 'auth.wallet.example.com',
      ConnectorApi: 'ilp.wallet.example.com',
    };
    for (const [api, host] of Object.entries(expected)) {
      expect(domains[`${api}Domain`], api).toEqual({
        DomainName: host,
        RegionalCertificateArn: CERTIFICATE,
        EndpointConfiguration: { Types: ['REGIONAL'] },
        SecurityPolicy: 'TLS_1_2',
      });
      expect(deployed[`${api}DomainMapping`].Properties).toEqual({ DomainName: { Ref: `${api}Domain` }, RestApiId: { Ref: api }, Stage: STAGE });
      expect(template.Resources[api].Properties.DisableExecuteApiEndpoint, api).toBe(true);
      expect(template.Outputs[`${api}DomainTarget`].Value).toEqual({ 'Fn::GetAtt': [`${api}Domain`, 'RegionalDomainName'] });
    }
    expect(template.Outputs.ConnectorUrl.Value).toBe('https://ilp.wallet.example.com/ilp');
    expect(template.Outputs.AdminApiUrl.Value).toBe('https://admin.wallet.example.com');
  });

  it(
    'refuses custom domains that are not all four, or shared',
    async () => {
      expect((await slsPackage({ CONNECTOR_DOMAIN: undefined })).output).toContain('CONNECTOR_DOMAIN: with API_CERTIFICATE_ARN, the domain of its API');
      expect((await slsPackage({ ADMIN_API_DOMAIN: 'wallet.example.com' })).output).toContain(
        "WALLET_ADDRESS_URL: its domain wallet.example.com is ADMIN_API_DOMAIN's too",
      );
      expect((await slsPackage({ API_CERTIFICATE_ARN: undefined })).output).toContain('ADMIN_API_DOMAIN: needs API_CERTIFICATE_ARN');
    },
    BACKSTOP_MS,
  );
});

describe('keys, logs and backups', () => {
  const ENCRYPTED: Record<string, string[]> = {
    'AWS::DynamoDB::Table': ['SSESpecification', 'KMSMasterKeyId'],
    'AWS::SQS::Queue': ['KmsMasterKeyId'],
    'AWS::SecretsManager::Secret': ['KmsKeyId'],
    'AWS::SNS::Topic': ['KmsMasterKeyId'],
    'AWS::Events::EventBus': ['KmsKeyIdentifier'],
    'AWS::Events::Archive': ['KmsKeyIdentifier'],
    'AWS::Logs::LogGroup': ['KmsKeyId'],
    'AWS::Backup::BackupVault': ['EncryptionKeyArn'],
  };
  const keyOf = (r: Resource, path: string[]) => path.reduce((v, p) => v?.[p], r.Properties);

  it("encrypts every table, queue, secret, topic, bus, archive, log group and backup vault with the stage's own key, rotated yearly and kept with the data", () => {
    const key = template.Resources.StageKey;
    expect(key).toMatchObject({ Type: 'AWS::KMS::Key', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true, RotationPeriodInDays: 365 });
    expect(template.Resources.StageKeyAlias.Properties).toEqual({ AliasName: `alias/payment-service-${STAGE}`, TargetKeyId: { Ref: 'StageKey' } });
    const counts: Record<string, number> = {};
    for (const [type, path] of Object.entries(ENCRYPTED))
      for (const [id, r] of ofType(type)) {
        expect(keyOf(r, path), id).toEqual(STAGE_KEY);
        counts[type] = (counts[type] ?? 0) + 1;
      }
    expect(counts).toEqual({
      'AWS::DynamoDB::Table': 5,
      'AWS::SQS::Queue': 8,
      'AWS::SecretsManager::Secret': 5,
      'AWS::SNS::Topic': 1,
      'AWS::Events::EventBus': 1,
      'AWS::Events::Archive': 1,
      'AWS::Logs::LogGroup': 2,
      'AWS::Backup::BackupVault': 1,
    });
    for (const [id, table] of ofType('AWS::DynamoDB::Table')) expect(table.Properties.SSESpecification, id).toMatchObject({ SSEEnabled: true, SSEType: 'KMS' });
  });

  it('names in the key policy who may use the key, and how: administrators only manage it', () => {
    const statements = Object.fromEntries(template.Resources.StageKey.Properties.KeyPolicy.Statement.map((s: any) => [s.Sid, s]));
    const root = { AWS: { 'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:root` } };
    expect(statements.AdministratorsManageItOnly.Principal).toEqual(root);
    expect(statements.AdministratorsManageItOnly.Action).not.toEqual(expect.arrayContaining(['kms:Decrypt']));
    for (const action of statements.AdministratorsManageItOnly.Action) expect(action).not.toMatch(/Decrypt|Encrypt|GenerateDataKey|\*/);
    // Through the stack's services only: deploys, an operator reading a secret, AWS Backup.
    expect(statements.AccountPrincipalsThroughTheStacksServices).toMatchObject({
      Principal: root,
      Condition: { StringEquals: { 'kms:ViaService': expect.any(Array) } },
    });
    expect(statements.AccountPrincipalsThroughTheStacksServices.Condition.StringEquals['kms:ViaService'].map((v: any) => v['Fn::Sub'].split('.')[0])).toEqual([
      'dynamodb',
      'sqs',
      'secretsmanager',
      'backup',
    ]);
    // The stage's function roles, by the IAM path every one of them has.
    expect(statements.TheStagesFunctionRoles.Condition.ArnLike['aws:PrincipalArn']).toEqual({
      'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/payment-service/${STAGE}/*`,
    });
    for (const [id, role] of functionRoles()) expect(role.Properties.Path, id).toBe(`/payment-service/${STAGE}/`);
    expect(statements.CloudWatchLogsForTheAccountsLogGroups.Principal).toEqual({ Service: { 'Fn::Sub': `logs.\${AWS::Region}.\${AWS::URLSuffix}` } });
    expect(statements.EventBridgeForTheBusAndItsQueues.Principal).toEqual({ Service: 'events.amazonaws.com' });
    expect(statements.CloudWatchAlarmsToTheAlarmTopic.Condition.StringEquals).toEqual({ 'aws:SourceAccount': { 'Fn::Sub': `\${AWS::AccountId}` } });
  });

  it('uses the key KMS_KEY_ARN names instead of making one', () => {
    const own = 'arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555';
    const resources = structuredClone(template.Resources);
    delete resources.StageKey;
    delete resources.StageKeyAlias;
    encrypt(resources, own);
    for (const [type, path] of Object.entries(ENCRYPTED))
      for (const [id, r] of Object.entries(resources).filter(([, r]) => r.Type === type)) expect(keyOf(r, path), id).toBe(own);
  });

  it('keeps the logs LOG_RETENTION_DAYS and past the stack, every function in one log group', () => {
    const groups = Object.fromEntries(ofType('AWS::Logs::LogGroup'));
    expect(Object.keys(groups).sort()).toEqual(['ApiAccessLogs', 'FunctionLogs']);
    for (const [id, group] of Object.entries(groups)) {
      expect([group.DeletionPolicy, group.UpdateReplacePolicy], id).toEqual(['Retain', 'Retain']);
      expect(Number(group.Properties.RetentionInDays), id).toBe(731);
      expect(group.Properties.LogGroupName, id).toBeUndefined(); // CloudFormation's: a later stack makes new ones beside the kept
    }
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.LoggingConfig, id).toEqual({ LogGroup: { Ref: 'FunctionLogs' } });
      expect(fn.DependsOn ?? [], id).toEqual([]);
    }
  });

  it('backs up every table daily, keeps each backup 35 days in a vault of its own, and copies it to BACKUP_COPY_VAULT_ARN', () => {
    const plan = template.Resources.BackupPlan.Properties.BackupPlan;
    expect(plan.BackupPlanRule).toEqual([
      expect.objectContaining({
        TargetBackupVault: { Ref: 'BackupVault' },
        ScheduleExpression: 'cron(0 3 * * ? *)',
        Lifecycle: { DeleteAfterDays: 35 },
        CopyActions: [{ DestinationBackupVaultArn: COPY_VAULT, Lifecycle: { DeleteAfterDays: 35 } }],
      }),
    ]);
    const selection = template.Resources.BackupSelection.Properties;
    expect(selection.BackupPlanId).toEqual({ Ref: 'BackupPlan' });
    expect(selection.BackupSelection.Resources.sort(byJson)).toEqual(
      ofType('AWS::DynamoDB::Table')
        .map(([id]) => ({ 'Fn::GetAtt': [id, 'Arn'] }))
        .sort(byJson),
    );
    expect(selection.BackupSelection.IamRoleArn).toEqual({ 'Fn::GetAtt': ['BackupRole', 'Arn'] });
    expect(template.Resources.BackupRole.Properties.Path).toBe(`/payment-service/${STAGE}/`);
    expect(template.Resources.BackupVault).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  // ApiGatewayAccount was retained but its role deleted: removing the stack broke API Gateway's
  // logging for the whole account.
  it("keeps API Gateway's account role with the account setting that names it", () => {
    for (const id of ['ApiGatewayAccount', 'ApiGatewayAccountRole'])
      expect([template.Resources[id].DeletionPolicy, template.Resources[id].UpdateReplacePolicy], id).toEqual(['Retain', 'Retain']);
  });
});

describe('LocalStack', () => {
  // The plugin of `file`, run over `resources` as packaging runs it, with `settings` in the environment.
  function runPlugin(file: string, resources: Record<string, Resource>, settings: Record<string, string>) {
    const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
    Object.assign(process.env, settings);
    try {
      const Plugin = require(join(ROOT, 'infra/serverless', file));
      const service = {
        service: 'payment-service',
        provider: { stage: 'local', environment: loadService('local').environment, compiledCloudFormationTemplate: { Resources: resources, Outputs: {} } },
      };
      const plugin = new Plugin({ service, getProvider: () => ({}), classes: { Error } }, { stage: 'local' });
      plugin.hooks['after:aws:package:finalize:mergeCustomProviderResources']();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    return resources;
  }

  it("deploys with only the services LocalStack's free image serves: deploy.sh's settings leave WAF and AWS Backup out", () => {
    const compose = readFileSync(join(ROOT, 'localstack/docker-compose.yml'), 'utf8');
    const served = /SERVICES=([\w,]+)/.exec(compose)![1].split(',');
    const SERVICE: Record<string, string> = {
      ApiGateway: 'apigateway',
      Lambda: 'lambda',
      DynamoDB: 'dynamodb',
      SQS: 'sqs',
      Events: 'events',
      IAM: 'iam',
      Logs: 'logs',
      SecretsManager: 'secretsmanager',
      CloudWatch: 'cloudwatch',
      SNS: 'sns',
      KMS: 'kms',
      S3: 's3',
      CloudFormation: 'cloudformation',
      Cognito: 'cognito-idp',
      WAFv2: 'wafv2',
      Backup: 'backup',
    };
    const types = [...Object.values(template.Resources), ...Object.values(nested).flatMap((t) => Object.values(t.Resources))].map((r) => r.Type.split('::')[1]);
    expect([...new Set(types)].filter((t) => !SERVICE[t])).toEqual([]);
    expect([...new Set(types.map((t) => SERVICE[t]))].filter((x) => !served.includes(x)).sort()).toEqual(['backup', 'cognito-idp', 'wafv2']);
    const script = readFileSync(join(ROOT, 'localstack/deploy.sh'), 'utf8');
    const settings = Object.fromEntries([...script.matchAll(/\b(WAF_ENABLED|BACKUPS_ENABLED|CONSOLE_ENABLED)=(\w+)/g)].map((m) => [m[1], m[2]]));
    expect(settings).toEqual({ WAF_ENABLED: 'false', BACKUPS_ENABLED: 'false', CONSOLE_ENABLED: 'false' });
    // Without the sign-in: no user pool, no authorizer, and the console's API closed to all but IAM.
    const withoutConsole = runPlugin('console.cjs', structuredClone(template.Resources), settings);
    expect(Object.values(withoutConsole).filter((r) => /Cognito|Authorizer/.test(r.Type))).toEqual([]);
    expect(
      Object.values(withoutConsole)
        .filter((r) => r.Type === 'AWS::ApiGateway::Method')
        .map((r) => r.Properties.AuthorizationType),
    ).not.toContain('COGNITO_USER_POOLS');
    expect(withoutConsole.ConsoleLambdaFunction.Properties.Environment.Variables.CONSOLE_SIGN_IN_URL).toBeUndefined();
    const withStages = () => Object.fromEntries(Object.entries(structuredClone(deployed)).filter(([, r]) => !/WAFv2|Backup/.test(r.Type)));
    const types2 = (r: Record<string, Resource>) => Object.values(r).map((x) => x.Type);
    expect(types2(runPlugin('edge.cjs', withStages(), settings)).filter((t) => t.startsWith('AWS::WAFv2'))).toEqual([]);
    expect(types2(runPlugin('backup.cjs', withStages(), settings)).filter((t) => t.startsWith('AWS::Backup'))).toEqual([]);
    // As deployed to AWS, the same plugins add them.
    expect(types2(runPlugin('edge.cjs', withStages(), { WAF_ENABLED: 'true' }))).toContain('AWS::WAFv2::WebACL');
    expect(types2(runPlugin('backup.cjs', withStages(), { BACKUPS_ENABLED: 'true' }))).toContain('AWS::Backup::BackupPlan');
  });
});

// LocalStack's free image creates a nested stack but cannot update one (localstack/README.md).
describe('LocalStack and the nested stacks', () => {
  it(
    "leaves both nested templates as they were when only the servers' URLs change (the deploy again that LocalStack asks for)",
    async () => {
      const moved = await slsPackage({ WALLET_ADDRESS_URL: 'https://pay.example.org', AUTH_SERVER_URL: 'https://auth.pay.example.org' });
      expect(moved.code, moved.output).toBe(0);
      const again: Template = JSON.parse(readFileSync(join(moved.dir, 'cloudformation-template-update-stack.json'), 'utf8'));
      expect(again.Resources.ResourceServerApiDomain.Properties.DomainName).toBe('pay.example.org'); // the service's stack did change
      for (const { name } of STACKS as { name: string }[]) expect(again.Resources[name].Metadata.Key, name).toBe(template.Resources[name].Metadata.Key);
    },
    BACKSTOP_MS,
  );
});

describe('failure queues', () => {
  it('keeps every message 14 days, in every queue', () => {
    for (const [id, q] of ofType('AWS::SQS::Queue')) expect(q.Properties.MessageRetentionPeriod, id).toBe(1209600);
  });
});

describe('operations', () => {
  const stages = () => Object.fromEntries(ofType('AWS::ApiGateway::Stage'));

  it("gives every API's stage JSON access logs, X-Ray tracing and throttling; the Admin API's stage is the one serverless deploys to", () => {
    expect(Object.keys(stages()).sort()).toEqual(['AdminApiStage', 'AuthServerStage', 'ConnectorStage', 'ResourceServerStage']);
    for (const [id, stage] of Object.entries(stages())) {
      const p = stage.Properties;
      expect(p.StageName, id).toBe(STAGE);
      expect(p.TracingEnabled, id).toBe(true);
      expect(p.AccessLogSetting.DestinationArn, id).toEqual({ 'Fn::GetAtt': ['ApiAccessLogs', 'Arn'] });
      expect(Object.keys(JSON.parse(p.AccessLogSetting.Format)), id).toEqual(
        expect.arrayContaining(['requestId', 'ip', 'method', 'path', 'status', 'latencyMs', 'error']),
      );
      expect(p.MethodSettings, id).toEqual([
        expect.objectContaining({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: expect.anything(), ThrottlingBurstLimit: expect.anything() }),
      ]);
      expect(deployed[p.DeploymentId.Ref].Type, id).toBe('AWS::ApiGateway::Deployment');
      expect(deployed[p.DeploymentId.Ref].Properties.RestApiId, id).toEqual(p.RestApiId);
    }
    // Each API's deployment id carries a hash of the API, so that a change to it is a new deployment
    // (the Admin API's was the time of packaging: a new deployment every time).
    for (const id of ['ApiGatewayDeployment', 'ResourceServerDeployment', 'AuthServerDeployment', 'ConnectorDeployment'])
      expect(
        Object.keys(deployed).filter((k) => new RegExp(`^${id}[0-9a-f]{12}$`).test(k)),
        id,
      ).toHaveLength(1);
    // No deployment makes a stage of its own (it would take the stage's name first, with no logs).
    for (const [id, d] of ofType('AWS::ApiGateway::Deployment')) expect(d.Properties.StageName, id).toBeUndefined();
  });

  it('makes a new deployment of an API when a route or integration of it changes, and only then', () => {
    // What the deploy makes with its hashes taken off, as the plugin saw it (before the nesting).
    const whole = { ...template, Resources: deployed };
    const unhashed = () => {
      const copy = JSON.parse(JSON.stringify(whole));
      for (const id of Object.keys(copy.Resources).filter((k) => /Deployment[0-9a-f]{12}$/.test(k))) {
        const base = id.slice(0, -12);
        copy.Resources[base] = copy.Resources[id];
        delete copy.Resources[id];
        const stage = base === 'ApiGatewayDeployment' ? 'AdminApiStage' : `${base.replace('Deployment', '')}Stage`;
        copy.Resources[stage].Properties.DeploymentId = { Ref: base };
      }
      return copy;
    };
    const deploymentOf = (t: typeof template, api: string) => Object.keys(t.Resources).find((k) => k.startsWith(`${api}Deployment`));
    const same = unhashed();
    hashDeployments(same);
    for (const api of ['ApiGateway', 'ResourceServer', 'AuthServer', 'Connector']) expect(deploymentOf(same, api)).toBe(deploymentOf(whole, api));

    const changed = unhashed();
    changed.Resources.ConnectorIlpPost.Properties.AuthorizationType = 'AWS_IAM'; // a method's auth changes
    changed.Resources.ResourceServerIncomingPayment.Properties.PathPart = '{payment}'; // a route changes
    changed.Resources.ApiGatewayRestApi.Properties.Policy.Statement[1].Condition.NotIpAddress['aws:SourceIp'].push('192.0.2.0/24'); // who may call
    hashDeployments(changed);
    expect(deploymentOf(changed, 'Connector')).not.toBe(deploymentOf(whole, 'Connector'));
    expect(deploymentOf(changed, 'ResourceServer')).not.toBe(deploymentOf(whole, 'ResourceServer'));
    expect(deploymentOf(changed, 'ApiGateway')).not.toBe(deploymentOf(whole, 'ApiGateway'));
    expect(deploymentOf(changed, 'AuthServer')).toBe(deploymentOf(whole, 'AuthServer')); // untouched
    expect(changed.Resources.ConnectorStage.Properties.DeploymentId).toEqual({ Ref: deploymentOf(changed, 'Connector') });
  });

  it("answers every API's gateway errors as problem+json from one definition, with no value a client sent in a body", () => {
    const definitions = JSON.parse(readFileSync(join(ROOT, 'infra/gateway-responses.json'), 'utf8'));
    const types = Object.keys(definitions).filter((t) => t !== '_');
    const apis = ofType('AWS::ApiGateway::RestApi').map(([id]) => id);
    expect(apis.sort()).toEqual(['ApiGatewayRestApi', 'AuthServerApi', 'ConnectorApi', 'ResourceServerApi']);
    const responses = ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    for (const api of apis) {
      const own = responses.filter((r) => r.RestApiId.Ref === api);
      expect(own.map((r) => r.ResponseType).sort(), api).toEqual(types.sort());
      for (const r of own) {
        expect(r.StatusCode, `${api} ${r.ResponseType}`).toBe(definitions[r.ResponseType].status?.toString());
        expect(r.ResponseParameters['gatewayresponse.header.Content-Type']).toBe("'application/problem+json'");
        const template = r.ResponseTemplates['application/json'];
        expect(template.match(/\$[a-z.]+/gi), r.ResponseType).toEqual(['$context.requestId']); // a UUID, never client input
        const body = JSON.parse(template);
        expect(body).toMatchObject({ code: definitions[r.ResponseType].code, title: expect.any(String), detail: expect.any(String) });
        if (r.StatusCode) expect(body.status).toBe(Number(r.StatusCode));
      }
    }
    expect(responses.find((r) => r.ResponseType === 'MISSING_AUTHENTICATION_TOKEN')).toMatchObject({ StatusCode: '404' });
  });

  it('alarms on every function error, throttle and run near its timeout, every dead-letter and parking queue, every stuck work queue, every API 5xx, 4xx spike and slow p99, a lagging stream relay, any table throttle, failed payments and failed webhook attempts, all to one topic', () => {
    const alarms = Object.fromEntries(alarmsOf());
    // What each alarm watches: its metric, or each metric its metric math sums.
    const metricsOf = (a: any) =>
      a.Properties.Metrics
        ? a.Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric)
        : [{ Namespace: a.Properties.Namespace, MetricName: a.Properties.MetricName, Dimensions: a.Properties.Dimensions }];
    const watched = (namespace: string, metric: string) =>
      Object.values(alarms)
        .flatMap(metricsOf)
        .filter((m) => m.Namespace === namespace && m.MetricName === metric)
        .map((m) => m.Dimensions[0].Value);
    const functions = ofType('AWS::Lambda::Function').map(([id]) => ({ Ref: id }));
    expect(watched('AWS/Lambda', 'Errors').sort(byJson)).toEqual(functions.sort(byJson));
    expect(watched('AWS/Lambda', 'Throttles').sort(byJson)).toEqual(functions.sort(byJson));
    // Throttles are summed ten functions to an alarm (the most metric math takes): each alarm
    // costs the stack a resource, and it has at most 500.
    const sums = Object.values(alarms).filter((a) => a.Properties.Metrics);
    expect(sums).toHaveLength(Math.ceil(functions.length / 10));
    for (const a of sums) {
      const stats = a.Properties.Metrics.filter((m: any) => m.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(10);
      expect(a.Properties.Metrics.filter((m: any) => m.ReturnData)).toEqual([
        { Id: 'throttles', Expression: `SUM([${stats.map((m: any) => m.Id).join(',')}])`, ReturnData: true },
      ]);
      expect(a.Properties).not.toHaveProperty('Period');
      expect(a.Properties.Threshold).toBe(1);
    }
    const queue = (id: string) => ({ 'Fn::GetAtt': [id, 'QueueName'] });
    expect(watched('AWS/SQS', 'ApproximateNumberOfMessagesVisible').sort(byJson)).toEqual(
      ['EventsDeadLetterQueue', 'PaymentsDeadLetterQueue', 'RelayFailuresQueue', 'ScheduledFailuresQueue', 'WebhookDeadLetterQueue', 'WebhookParkingQueue']
        .map(queue)
        .sort(byJson),
    );
    expect(watched('AWS/SQS', 'ApproximateAgeOfOldestMessage').sort(byJson)).toEqual(['PaymentsQueue', 'WebhookQueue'].map(queue).sort(byJson));
    const apiNames = ofType('AWS::ApiGateway::RestApi').map(([, api]) => api.Properties.Name);
    expect(watched('AWS/ApiGateway', '5XXError').sort()).toEqual(apiNames.sort());
    expect(watched('AWS/ApiGateway', 'Latency').sort()).toEqual(apiNames.sort());
    for (const [id, a] of Object.entries(alarms).filter(([, a]) => a.Properties.MetricName === 'Latency')) {
      expect(a.Properties, id).toMatchObject({ ExtendedStatistic: 'p99', Threshold: 2000 });
    }
    expect(watched('AWS/ApiGateway', '4XXError').sort()).toEqual(apiNames.sort());
    for (const [id, a] of Object.entries(alarms).filter(([, a]) => a.Properties.MetricName === '4XXError'))
      expect(a.Properties, id).toMatchObject({ Statistic: 'Sum', Threshold: 500 });
    // A run that took 80% of its function's timeout: the next may time out.
    expect(watched('AWS/Lambda', 'Duration').sort(byJson)).toEqual(functions.sort(byJson));
    for (const [id, fn] of ofType('AWS::Lambda::Function'))
      expect(alarms[`${id}NearTimeoutAlarm`].Properties, id).toMatchObject({ Statistic: 'Maximum', Threshold: 0.8 * fn.Properties.Timeout * 1000 });
    // What the business sees, from the service's own metrics (lib/platform/metrics.ts).
    expect(alarms.PaymentsFailedAlarm.Properties).toMatchObject({
      Namespace: 'PaymentService',
      MetricName: METRICS.payments,
      Dimensions: [
        { Name: 'service', Value: 'payment-service' },
        { Name: 'outcome', Value: 'failed' },
      ],
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(alarms.WebhookAttemptsFailedAlarm.Properties).toMatchObject({
      Namespace: 'PaymentService',
      MetricName: METRICS.webhookAttemptsFailed,
      Dimensions: [{ Name: 'service', Value: 'payment-service' }],
      Threshold: 10,
    });
    // The outbox relay, which every event and payment message rides: alarmed when it falls behind.
    expect(watched('AWS/Lambda', 'IteratorAge')).toEqual([{ Ref: 'OutboxRelayLambdaFunction' }]);
    const tables = ofType('AWS::DynamoDB::Table').map(([id]) => ({ Ref: id }));
    expect(watched('AWS/DynamoDB', 'ReadThrottleEvents').sort(byJson)).toEqual(tables.sort(byJson));
    expect(watched('AWS/DynamoDB', 'WriteThrottleEvents').sort(byJson)).toEqual(tables.sort(byJson));
    for (const [id, a] of Object.entries(alarms)) {
      expect(a.Properties.AlarmActions, id).toEqual([{ Ref: 'AlarmTopic' }]);
      expect(a.Properties.TreatMissingData, id).toBe('notBreaching');
    }
    expect(template.Resources.AlarmEmail.Properties).toMatchObject({ TopicArn: { Ref: 'AlarmTopic' }, Protocol: 'email' });
  });

  it('has the very alarms and dashboard that the local run evaluates and draws from serverless.yml', () => {
    const service = loadService(STAGE);
    const local = localCloudWatch(service, provisionedRefs(service), new MetricStore());
    const alarms = local.alarms();
    const deployed = alarmsOf().map(([id, a]) => [id, a.Properties.AlarmDescription, a.Properties.Threshold]);
    expect(alarms.map((a) => [a.id, a.description, a.threshold]).sort(byJson)).toEqual(deployed.sort(byJson));
    expect(alarms.filter((a) => a.state !== 'OK')).toEqual([]); // each one's metric named locally
    const [, dashboard] = Object.entries(monitored()).find(([, r]) => r.Type === 'AWS::CloudWatch::Dashboard')!;
    const { widgets } = JSON.parse(dashboard.Properties.DashboardBody['Fn::Sub']);
    expect(local.widgets.map((w) => [w.title, w.metrics.length])).toEqual(widgets.map((w: any) => [w.properties.title, w.properties.metrics.length]));
  });

  it("has one dashboard with the APIs, queues, functions and the service's own metrics", () => {
    const [[, dashboard], ...others] = Object.entries(monitored()).filter(([, r]) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(others).toEqual([]);
    const body = dashboard.Properties.DashboardBody['Fn::Sub'] as string;
    const { widgets } = JSON.parse(body);
    expect(widgets.length).toBeGreaterThanOrEqual(10);
    for (const [id] of ofType('AWS::Lambda::Function')) expect(body, id).toContain(`\${${id}}`);
    for (const [id] of ofType('AWS::SQS::Queue')) expect(body, id).toContain(`\${${id}.QueueName}`);
    // Every metric lib/platform/metrics.ts writes, in the namespace the functions write to.
    const expressions = widgets
      .flatMap((w: any) =>
        w.properties.metrics
          .flat()
          .map((m: any) => m.expression)
          .filter(Boolean),
      )
      .join('\n');
    for (const metric of Object.values(METRICS)) expect(expressions, metric).toContain(`Namespace="PaymentService" MetricName="${metric}"`);
    for (const [id, fn] of ofType('AWS::Lambda::Function')) expect(fn.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE, id).toBe('PaymentService');
  });

  it('traces every function with X-Ray, and maps its stack traces to the sources', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS, id).toContain('--enable-source-maps');
    }
    for (const [id, role] of functionRoles()) {
      expect(JSON.stringify(role.Properties.ManagedPolicyArns), id).toContain('AWSXRayDaemonWriteAccess');
    }
    const files = unzip(join(packagedDir, 'assetsCreate.zip'));
    expect([...files.keys()].sort()).toEqual(['functions/admin/assets/create.js', 'functions/admin/assets/create.js.map']);
  });

  it("deploys the console behind its operators' sign-in: a user pool (MFA, users an administrator makes, strong passwords, kept), its hosted sign-in, a PKCE app client, the three roles' groups, the authorizer on the console's API route, and a function that may only invoke the Admin API's", () => {
    const r = template.Resources;
    const pool = r.ConsoleUserPool;
    expect([pool.Type, pool.DeletionPolicy, pool.UpdateReplacePolicy]).toEqual(['AWS::Cognito::UserPool', 'Retain', 'Retain']);
    expect(pool.Properties).toMatchObject({
      DeletionProtection: 'ACTIVE',
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: { PasswordPolicy: { MinimumLength: 14, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true } },
    });
    expect(pool.Properties.Schema).toEqual([expect.objectContaining({ Name: 'tenant', AttributeDataType: 'String', Required: false })]);
    expect(r.ConsoleUserPoolDomain).toMatchObject({ Type: 'AWS::Cognito::UserPoolDomain', Properties: { UserPoolId: { Ref: 'ConsoleUserPool' } } });
    const client = r.ConsoleUserPoolClient.Properties;
    expect(client).toMatchObject({
      UserPoolId: { Ref: 'ConsoleUserPool' },
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      IdTokenValidity: 15,
      AccessTokenValidity: 15,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes' },
    });
    // Back to the console on ADMIN_API_DOMAIN (set here), else on the stage's own URL.
    expect(client.CallbackURLs).toEqual([{ 'Fn::If': ['HasAdminApiDomain', 'https://admin.wallet.example.com/console', expect.anything()] }]);
    expect(client.LogoutURLs).toEqual(client.CallbackURLs);
    expect(ofType('AWS::Cognito::UserPoolGroup').map(([, g]) => [g.Properties.GroupName, g.Properties.Precedence])).toEqual([
      ['viewer', 3],
      ['operator', 2],
      ['admin', 1],
    ]);
    const authorizers = ofType('AWS::ApiGateway::Authorizer');
    expect(authorizers.map(([id, a]) => [id, a.Properties])).toEqual([
      [
        'ConsoleAuthorizer',
        {
          Name: 'console',
          RestApiId: { Ref: 'ApiGatewayRestApi' },
          Type: 'COGNITO_USER_POOLS',
          IdentitySource: 'method.request.header.Authorization',
          ProviderARNs: [{ 'Fn::GetAtt': ['ConsoleUserPool', 'Arn'] }],
        },
      ],
    ]);
    // Only the console's API route takes an operator's token; its page none.
    const pathOf = (id: any): string => (id?.Ref ? `${pathOf(r[id.Ref].Properties.ParentId)}/${r[id.Ref].Properties.PathPart}` : '');
    const consoleMethods = ofType('AWS::ApiGateway::Method')
      .filter(([, m]) => JSON.stringify(m.Properties.Integration?.Uri ?? '').includes('ConsoleLambdaFunction'))
      .map(([, m]) => [m.Properties.HttpMethod, pathOf(m.Properties.ResourceId), m.Properties.AuthorizationType, m.Properties.AuthorizerId]);
    expect(consoleMethods.sort()).toEqual([
      ['ANY', '/console/api/{proxy+}', 'COGNITO_USER_POOLS', { Ref: 'ConsoleAuthorizer' }],
      ['GET', '/console', 'NONE', undefined],
      ['GET', '/console/{file}', 'NONE', undefined],
    ]);
    expect(ofType('AWS::ApiGateway::Method').filter(([, m]) => m.Properties.AuthorizationType === 'COGNITO_USER_POOLS')).toHaveLength(1);
    // The function: the hosted sign-in and the app client in its settings, and a role that may only
    // invoke the Admin API's other functions (and write its logs and traces).
    const fn = r.ConsoleLambdaFunction.Properties;
    expect(fn.Environment.Variables).toMatchObject({ CONSOLE_CLIENT_ID: { Ref: 'ConsoleUserPoolClient' }, CONSOLE_SIGN_IN_URL: expect.anything() });
    expect(fn.Role).toEqual({ 'Fn::GetAtt': ['ConsoleRole', 'Arn'] });
    const [statement, ...more] = r.ConsoleRole.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement);
    expect(more).toEqual([]);
    expect(statement.Action).toEqual(['lambda:InvokeFunction']);
    const invoked = statement.Resource.map((a: any) => a['Fn::GetAtt'][0]).sort();
    expect(invoked).toEqual(allRoutes.map((route) => functionId(route.functionName)).sort());
    // Nothing else the template makes may invoke them: no other role or policy names lambda's
    // actions on them, and each one's only resource policy lets the Admin API call it.
    const adminFunctions = new Set(invoked as string[]);
    const namesAdminFunction = (resource: unknown) => [...adminFunctions].some((id) => JSON.stringify(resource).includes(`"${id}"`)) || resource === '*';
    const grants = [...ofType('AWS::IAM::Role'), ...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')].flatMap(([id, p]) =>
      [...(p.Properties.Policies ?? []).map((x: any) => x.PolicyDocument), p.Properties.PolicyDocument]
        .filter(Boolean)
        .flatMap((doc: any) => doc.Statement)
        .filter((st: any) => [st.Action].flat().some((a: string) => /^lambda:(Invoke|\*)|^\*$/.test(a)) && [st.Resource].flat().some(namesAdminFunction))
        .map(() => id),
    );
    expect(grants).toEqual(['ConsoleRole']);
    // And each Admin function verifies an operator's token itself, against the pool and its app client.
    for (const id of adminFunctions) {
      expect(r[id].Properties.Environment.Variables, id).toMatchObject({
        CONSOLE_USER_POOL_ID: { Ref: 'ConsoleUserPool' },
        CONSOLE_CLIENT_ID: { Ref: 'ConsoleUserPoolClient' },
      });
    }
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => adminFunctions.has(p.Properties.FunctionName?.['Fn::GetAtt']?.[0]));
    expect(permissions.length).toBeGreaterThan(0);
    for (const [id, p] of permissions) {
      expect(p.Properties.Principal, id).toBe('apigateway.amazonaws.com');
      expect(JSON.stringify(p.Properties.SourceArn), id).toContain('ApiGatewayRestApi');
    }
  });

  // 462 of CloudFormation's 500 were used, and every route adds about five. The alarms and the
  // dashboard went to a stack of their own, nested, and the functions to one log group: 432. Then
  // the Open Payments APIs' routes and stages went to a nested stack too: 345.
  it('stays at or under 395 resources, with room for 15 more routes, the Open Payments routes and stages and the alarms and the dashboard in nested stacks', () => {
    const count = Object.keys(template.Resources).length;
    const counts = STACKS.map((s: { name: string }) => `${Object.keys(nested[s.name].Resources).length} in ${s.name}`).join(', ');
    console.log(`CloudFormation resources: ${count} in the service's stack (at most 395 here; CloudFormation takes 500); nested in it: ${counts}`);
    // 345, and the back office (its login, console and routes) adds about 30; GET /grants/{id} 4 (its function, permission, method and role).
    expect(count).toBeLessThanOrEqual(395);
    // A route with a function of its own adds a function, its API permission, a method and a path
    // resource to this stack (its alarms go to the nested one): 15 more fit in CloudFormation's 500.
    expect(count + 15 * 4).toBeLessThanOrEqual(500);
    expect(Object.keys(nested.Monitoring.Resources).length + 15 * 3).toBeLessThanOrEqual(500);
    expect(Object.keys(nested.OpenPayments.Resources).length + 15 * 4).toBeLessThanOrEqual(500);
  });

  it("nests each set in a stack of its own: its template beside the service's, named by its hash, every parameter passed, nothing named that is not there", () => {
    for (const { name, file } of STACKS as { name: string; file: string }[]) {
      const stack = template.Resources[name];
      expect(stack.Type, name).toBe('AWS::CloudFormation::Stack');
      const hash = createHash('sha256')
        .update(readFileSync(join(packagedDir, file)))
        .digest('hex')
        .slice(0, 16);
      expect(stack.Metadata.Key, name).toBe(`serverless/payment-service/${STAGE}/nested/${hash}.json`);
      expect(JSON.stringify(stack.Properties.TemplateURL), name).toContain(`/${stack.Metadata.Key}`);
      expect(Object.keys(stack.Properties.Parameters).sort(), name).toEqual(Object.keys(nested[name].Parameters!).sort());
      expect(unnamed(nested[name]), name).toEqual([]);
    }
    expect(unnamed(template)).toEqual([]);
    // Open Payments: every route, deployment, stage, gateway response, permission, domain mapping
    // and WAF association of the resource server's and the authorization server's APIs, and nothing
    // else. The REST APIs stay in the service's stack (the resource server's roles name the
    // authorization server's), with every function.
    const openPayments = ['ResourceServerApi', 'AuthServerApi'];
    const held = Object.keys(nested.OpenPayments.Resources);
    const parts = Object.entries(deployed).filter(([, r]) =>
      /^AWS::(ApiGateway::(Resource|Method|Deployment|Stage|GatewayResponse|Authorizer|BasePathMapping)|Lambda::Permission|WAFv2::WebACLAssociation)$/.test(
        r.Type,
      ),
    );
    const ofOpenPayments = ([, r]: [string, Resource]) =>
      openPayments.some((api) => r.Properties.RestApiId?.Ref === api || JSON.stringify(r.Properties).includes(`\${${api}}`));
    expect(held.sort()).toEqual(
      parts
        .filter(ofOpenPayments)
        .map(([id]) => id)
        .sort(),
    );
    expect(Object.values(nested.OpenPayments.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Stage')).toHaveLength(2);
    expect(Object.values(nested.OpenPayments.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Method')).toHaveLength(25);
    for (const api of openPayments) expect(template.Resources[api].Type, api).toBe('AWS::ApiGateway::RestApi');
    expect(ofType('AWS::Lambda::Function').every(([id]) => template.Resources[id])).toBe(true);
    // The stages wait for API Gateway's account role (their access logs): the nested stack does.
    expect(template.Resources.OpenPayments.DependsOn).toEqual(['ApiGatewayAccountReady']);
    // Monitoring: every alarm and the dashboard, and nothing else.
    expect(Object.keys(template.Resources).filter((id) => /^AWS::CloudWatch::/.test(template.Resources[id].Type))).toEqual([]);
    expect(Object.values(nested.Monitoring.Resources).every((r) => /^AWS::CloudWatch::(Alarm|Dashboard)$/.test(r.Type))).toBe(true);
  });

  it("gives the rest of the template what it names in a nested stack as that stack's outputs, and what waited for a moved resource waits for the stack", () => {
    const t: Template = {
      Conditions: {},
      Resources: {
        Api: { Type: 'AWS::ApiGateway::RestApi', Properties: {} },
        Ready: { Type: 'AWS::CloudFormation::WaitConditionHandle', Properties: {} },
        Logs: { Type: 'AWS::Logs::LogGroup', Properties: {} },
        Stage: { Type: 'AWS::ApiGateway::Stage', DependsOn: ['Ready'], Properties: { RestApiId: { Ref: 'Api' }, Logs: { 'Fn::GetAtt': ['Logs', 'Arn'] } } },
        Alarm: {
          Type: 'AWS::CloudWatch::Alarm',
          DependsOn: ['Stage'],
          Properties: { Dimensions: [{ Value: { Ref: 'Stage' } }], AlarmDescription: { 'Fn::Sub': `\${Stage.Arn} in \${AWS::Region}` } },
        },
      },
      Outputs: { StageName: { Value: { Ref: 'Stage' } } },
    };
    const stages = nest(t, { name: 'Stages', description: 'stages', holds: (r: Resource) => r.Type === 'AWS::ApiGateway::Stage' });
    expect(stages.Resources).toEqual({ Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { RestApiId: { Ref: 'Api' }, Logs: { Ref: 'LogsArn' } } } });
    expect(stages.Parameters).toEqual({ Api: { Type: 'String' }, LogsArn: { Type: 'String' } });
    expect(stages.Outputs).toEqual({ Stage: { Value: { Ref: 'Stage' } }, StageArn: { Value: { 'Fn::GetAtt': ['Stage', 'Arn'] } } });
    expect(t.Resources.Stages).toEqual({
      Type: 'AWS::CloudFormation::Stack',
      DependsOn: ['Ready'],
      Properties: { TemplateURL: '', Parameters: { Api: { Ref: 'Api' }, LogsArn: { 'Fn::GetAtt': ['Logs', 'Arn'] } } },
    });
    expect(t.Resources.Alarm).toEqual({
      Type: 'AWS::CloudWatch::Alarm',
      DependsOn: ['Stages'],
      Properties: {
        Dimensions: [{ Value: { 'Fn::GetAtt': ['Stages', 'Outputs.Stage'] } }],
        AlarmDescription: { 'Fn::Sub': `\${Stages.Outputs.StageArn} in \${AWS::Region}` },
      },
    });
    expect(t.Outputs.StageName.Value).toEqual({ 'Fn::GetAtt': ['Stages', 'Outputs.Stage'] });
    // A second nested stack gets the first one's outputs through the service's stack.
    const alarms = nest(t, { name: 'Alarms', description: 'alarms', holds: (r: Resource) => r.Type === 'AWS::CloudWatch::Alarm' });
    expect(alarms.Resources.Alarm.Properties).toEqual({
      Dimensions: [{ Value: { Ref: 'StagesOutputsStage' } }],
      AlarmDescription: { 'Fn::Sub': `\${StagesOutputsStageArn} in \${AWS::Region}` },
    });
    expect(t.Resources.Alarms.Properties.Parameters).toEqual({
      StagesOutputsStage: { 'Fn::GetAtt': ['Stages', 'Outputs.Stage'] },
      StagesOutputsStageArn: { 'Fn::GetAtt': ['Stages', 'Outputs.StageArn'] },
    });
    expect(t.Resources.Alarms.DependsOn).toEqual(['Stages']);
    expect(Object.keys(t.Resources).sort()).toEqual(['Alarms', 'Api', 'Logs', 'Ready', 'Stages']);
  });

  // Deployed over a stage whose own stack holds the Open Payments routes, the nested stack would
  // make them again: API Gateway refuses a path or stage twice, and the rollback would take the
  // APIs' gateway responses and WAF associations with it.
  it('refuses to deploy over a stage whose own stack still holds what goes to the Open Payments stack, naming it; the alarms move by themselves', () => {
    const summary = (id: string, type: string) => ({ LogicalResourceId: id, ResourceType: type });
    const madeOnce = Object.fromEntries((STACKS as { name: string; madeOnce?: boolean }[]).filter((s) => s.madeOnce).map((s) => [s.name, nested[s.name]]));
    expect(Object.keys(madeOnce)).toEqual(['OpenPayments']);
    const before = [
      summary('ResourceServerApi', 'AWS::ApiGateway::RestApi'),
      ...Object.entries(nested.OpenPayments.Resources).map(([id, r]) => summary(id, r.Type)),
    ];
    const [problem, ...others] = stillHeld(before, madeOnce);
    expect(others).toEqual([]);
    expect(problem).toContain(
      `The deployed stack holds ${Object.keys(nested.OpenPayments.Resources).length} resources itself that this deploy moves to the nested stack OpenPayments`,
    );
    // A stage deployed with the nested stack, or a new one: nothing held twice.
    const after = Object.entries(template.Resources).map(([id, r]) => summary(id, r.Type));
    expect(stillHeld(after, madeOnce)).toEqual([]);
    expect(stillHeld([summary('ServerlessDeploymentBucket', 'AWS::S3::Bucket')], madeOnce)).toEqual([]);
  });

  it(
    'passes cfn-lint: no error, and no warning but those .cfnlintrc.yaml lists with their reasons',
    async () => {
      const files = ['cloudformation-template-update-stack.json', ...STACKS.map((s: { file: string }) => s.file)];
      const lint = await run(
        'cfn-lint',
        files.map((f) => join(packagedDir, f)),
        process.env,
      );
      expect({ code: lint.code, output: lint.output }).toEqual({ code: 0, output: '' });
    },
    BACKSTOP_MS,
  );
});

describe('the bundles', () => {
  const bundle = (fn: string) => bundleOf(fn).code;

  it('carry the SQS and EventBridge clients only where a function calls them', () => {
    const carries = (fn: string) => ({ sqs: bundle(fn).includes('AmazonSQS'), eventBridge: bundle(fn).includes('AWSEvents') });
    const needs: Record<string, { sqs: boolean; eventBridge: boolean }> = {
      outboxRelay: { sqs: true, eventBridge: true },
      paymentsWorker: { sqs: true, eventBridge: false }, // backs off a failed message's visibility
      webhooksDeliver: { sqs: true, eventBridge: false }, // and chains waits longer than 15 minutes
    };
    for (const fn of loadService(STAGE).functions.map((f) => f.name)) expect(carries(fn), fn).toEqual(needs[fn] ?? { sqs: false, eventBridge: false });
  });

  it('stay under 460 KB each (510 KB for the Admin routes, 560 KB for the console, 660 KB for the Open Payments servers and the connector, 980 KB for the STREAM senders, quoters and app payments), with the SDK bundled from its ES modules, credentials from the environment, and traces without the X-Ray SDK', () => {
    // Every function carries its own tracing (lib/platform/tracing.ts, a few KB: no X-Ray SDK, whose
    // cls-hooked tracked every async resource) and Metrics (13 KB). The Admin routes carry the
    // Secrets Manager client (the Admin API secret is read from it, not from the environment) and the
    // route table (lib/api/routes.ts: every route's schemas and text, about 30 KB), AWS's JWT verifier
    // (17 KB: each verifies a console operator's token itself), and most of them the bounded fetch
    // (lib/platform/net/fetch.ts and its address rule, about 6 KB: a rates pull, a peer's endpoint check). The
    // Open Payments servers also carry HTTP message signatures (jose alone is 90 KB) and STREAM; the
    // functions that quote and send to other nodes carry the Open Payments client and pay too. The
    // console carries its page (Preact, uPlot and its own code: about 120 KB), the route table and
    // the Lambda client.
    const budgetKb: Record<string, number> = {
      console: 560,
      authServer: 660,
      authIntrospect: 660,
      authInteraction: 660,
      openPaymentsIncomingPayments: 660,
      ilpConnector: 660,
      quotesCreate: 980,
      openPaymentsQuotes: 980,
      openPaymentsOutgoingPayments: 980,
      paymentsWorker: 980,
    };
    const adminFunctions = new Set(allRoutes.map((r) => r.functionName));
    for (const fn of loadService(STAGE).functions.map((f) => f.name)) {
      const { code, map } = bundleOf(fn);
      expect(code.length, fn).toBeLessThan((budgetKb[fn] ?? (adminFunctions.has(fn) ? 510 : 460)) * 1024);
      expect(
        map.sources.filter((source) => /aws-xray-sdk|cls-hooked/.test(source)),
        fn,
      ).toEqual([]);
      expect(code, fn).not.toContain('AWS_WEB_IDENTITY_TOKEN_FILE'); // the SDK's default credential chain is left out
      if (fn !== 'openApi') expect(code, fn).toContain('AWS_XRAY_DAEMON_ADDRESS'); // traced (the static document is not)
      expect(code, fn).not.toContain('credential_process');
    }
  });
});

describe('limits the code relies on', () => {
  it('gives up on a message on the last receive its queue allows', () => {
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    expect(queues.PaymentsQueue.Properties.RedrivePolicy.maxReceiveCount).toBe(PAYMENTS_MAX_RECEIVES);
    expect(queues.WebhookQueue.Properties.RedrivePolicy.maxReceiveCount).toBe(WEBHOOK_MAX_RECEIVES);
  });
});
