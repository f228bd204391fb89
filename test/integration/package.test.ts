import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCloudWatch } from '../../infra/local/cloudwatch';
import { MetricStore } from '../../infra/local/metrics';
import { restApis } from '../../infra/local/rest-apis';
import { loadService, ROOT } from '../../infra/local/serverless-config';
import { unzip } from '../../infra/local/zip';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { build as buildAlarms } from '../../infra/serverless/alarms.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { hashDeployments } from '../../infra/serverless/api-deployments.cjs';
import { PAYMENTS_MAX_RECEIVES, WEBHOOK_MAX_RECEIVES } from '../../lib/limits';
import { METRICS } from '../../lib/metrics';
import { type Bundle, grantedAccess, neededAccess, scanBundle } from '../bundle-access';
import { provisionedRefs } from '../refs';

// `serverless package` offline, with dummy credentials, and a look at what it would deploy.
const out = mkdtempSync(join(tmpdir(), 'sls-package-'));
let template: {
  Conditions: Record<string, unknown>;
  Resources: Record<string, { Type: string; Properties: any; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
};

// What a deployer must set (serverless.yml has no default for them), as placeholders.
const REQUIRED = { ILP_ADDRESS: 'test.ci', WALLET_ADDRESS_URL: 'https://wallet.example', AUTH_SERVER_URL: 'https://auth.wallet.example' };
const packageEnv: NodeJS.ProcessEnv = {
  ...process.env,
  ...REQUIRED,
  ALARMS_UNSUBSCRIBED: '1',
  ADMIN_ALLOWED_CIDRS: '203.0.113.0/24, 2001:db8::/32',
  AWS_ACCESS_KEY_ID: 'dummy',
  AWS_SECRET_ACCESS_KEY: 'dummy',
  SLS_TELEMETRY_DISABLED: '1',
};

beforeAll(async () => {
  await promisify(execFile)(join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', out, '--stage', 'ci'], { cwd: ROOT, env: packageEnv });
  template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

// Roles name a secret by ARN pattern (its name and Secrets Manager's six random characters), so that
// a stack using retained ones (SECRETS_EXISTING) grants the same.
const secretArn = (name: string) => ({
  'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:payment-service/ci/${name}-??????`,
});
const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
const ofType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
const functionId = (name: string) => `${name[0].toUpperCase()}${name.slice(1)}LambdaFunction`;
// A function's bundle as serverless packaged it: its JavaScript and source map.
function bundleOf(fn: string): Bundle {
  const files = unzip(join(out, `${fn}.zip`));
  const [name, code] = [...files].find(([file]) => file.endsWith('.js'))!;
  return { code: code.toString('latin1'), map: JSON.parse(files.get(`${name}.map`)!.toString('utf8')) };
}

describe('the CloudFormation template', () => {
  it('has a nodejs22.x Lambda and a bundle for every function in serverless.yml', () => {
    const functions = ofType('AWS::Lambda::Function');
    const names = loadService('ci').functions.map((f) => f.name);
    expect(functions).toHaveLength(names.length);
    for (const [, fn] of functions) expect(fn.Properties.Runtime).toBe('nodejs22.x');
    const zips = readdirSync(out).filter((f) => f.endsWith('.zip'));
    expect(zips.sort()).toEqual(names.map((n) => `${n}.zip`).sort());
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

  it('refuses to package or deploy without a stage, or without a required setting, naming it', async () => {
    const sls = (args: string[], env: NodeJS.ProcessEnv) =>
      promisify(execFile)(join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', join(out, 'refused'), ...args], { cwd: ROOT, env });
    await expect(sls([], packageEnv)).rejects.toMatchObject({ stdout: expect.stringContaining('"provider.stage"') });
    for (const name of Object.keys(REQUIRED)) {
      const env: NodeJS.ProcessEnv = { ...packageEnv };
      delete env[name];
      await expect(sls(['--stage', 'ci'], env), name).rejects.toMatchObject({ stdout: expect.stringContaining(`provider.environment.${name}`) });
    }
  }, 120_000);

  // A bad value packaged with status 0 and then broke every function at its cold start.
  it('refuses to package settings the functions would refuse, naming every bad one, before building anything', async () => {
    const bad = { QUOTE_LIFETIME_SECS: 'abc', WEBHOOK_TIMEOUT_SECS: '60', SLIPPAGE: '5', WALLET_ADDRESS_URL: 'notaurl', ILP_ADDRESS: 'not an address' };
    const started = Date.now();
    const refused = await promisify(execFile)(join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', join(out, 'bad'), '--stage', 'ci'], {
      cwd: ROOT,
      env: { ...packageEnv, ...bad },
    }).catch((e) => e);
    expect(refused.code).not.toBe(0);
    for (const name of Object.keys(bad)) expect(refused.stdout + refused.stderr, name).toContain(`${name}:`);
    expect(Date.now() - started).toBeLessThan(30_000); // refused at once, not after bundling 46 functions
  }, 60_000);

  it('refuses a stage whose alarms reach nobody, unless that is said on purpose', async () => {
    const { ALARMS_UNSUBSCRIBED: _, ...silent } = packageEnv;
    const refused = await promisify(execFile)(join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', join(out, 'silent'), '--stage', 'ci'], {
      cwd: ROOT,
      env: silent,
    }).catch((e) => e);
    expect(refused.stdout + refused.stderr).toContain('ALARM_EMAIL or ALARM_TOPIC_ARN');
    // The template here was packaged with ALARMS_UNSUBSCRIBED=1 and no ALARM_EMAIL: nobody subscribed.
    expect(template.Conditions.HasAlarmEmail).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] });
    // ALARM_TOPIC_ARN: every alarm notifies that topic instead.
    const resources = Object.fromEntries(Object.entries(structuredClone(template.Resources)).filter(([, r]) => r.Type !== 'AWS::CloudWatch::Alarm'));
    const topic = 'arn:aws:sns:us-east-1:000000000000:ops';
    buildAlarms(resources, { stage: 'ci', namespace: 'PaymentService', parkingQueues: [], oldestMessageSecs: 600, iteratorAgeSecs: 60, apiP99Ms: 2000, topic });
    const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(75);
    for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([topic]);
  }, 60_000);

  it('lets the Admin API be reached only from ADMIN_ALLOWED_CIDRS, and refuses a stage with no list unless it is open on purpose', async () => {
    expect(template.Resources.ApiGatewayRestApi.Properties.Policy.Statement).toEqual([
      { Effect: 'Allow', Principal: '*', Action: 'execute-api:Invoke', Resource: 'execute-api:/*' },
      {
        Effect: 'Deny',
        Principal: '*',
        Action: 'execute-api:Invoke',
        Resource: 'execute-api:/*',
        Condition: { NotIpAddress: { 'aws:SourceIp': ['203.0.113.0/24', '2001:db8::/32'] } },
      },
    ]);
    // The other APIs are public by design (wallets, other nodes, peers with their tokens).
    for (const api of ['ResourceServerApi', 'AuthServerApi', 'ConnectorApi']) expect(template.Resources[api].Properties.Policy, api).toBeUndefined();
    const sls = (env: NodeJS.ProcessEnv) =>
      promisify(execFile)(join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', join(out, 'open'), '--stage', 'ci'], { cwd: ROOT, env }).catch(
        (e) => `${e.stdout}${e.stderr}`,
      );
    const { ADMIN_ALLOWED_CIDRS, ...open } = packageEnv;
    expect(await sls(open)).toContain('ADMIN_ALLOWED_CIDRS: the networks');
    expect(await sls({ ...packageEnv, ADMIN_ALLOWED_CIDRS: '10.0.0.0/8,everywhere' })).toContain('not CIDRs: everywhere');
    expect(await sls({ ...packageEnv, WORKER_RESERVED_CONCURRENCY: '0' })).toContain('WORKER_RESERVED_CONCURRENCY: must be');
  }, 90_000);

  it('reserves concurrency for the payment worker and the outbox relay', () => {
    const fns = Object.fromEntries(ofType('AWS::Lambda::Function'));
    expect(fns.PaymentsWorkerLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(50);
    expect(fns.OutboxRelayLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(30);
  });

  it('lets a deployer set every setting docs/configuration.md lists', () => {
    const section = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    const listed = [...section.matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]);
    const local = /_PORT$|^FSP_|^LOCAL_|^LOG_LEVEL$|^(ADMIN_API_SECRET|WEBHOOK_SECRET|IDP_SECRET)$/; // the local run's own, and the secrets (Secrets Manager)
    // What shapes the stack rather than the functions: read by serverless.yml or its resources.
    const deployOnly =
      /_THROTTLE_|^ALARM|^API_GATEWAY_ACCOUNT_ROLE$|_ALARM_(SECS|MS)$|^SECRETS_EXISTING$|^ADMIN_(ALLOWED_CIDRS|OPEN_TO_INTERNET)$|_RESERVED_CONCURRENCY$|^RELAY_MAX_/;
    const environment = loadService('ci').environment;
    for (const name of listed.filter((n) => !local.test(n) && !deployOnly.test(n))) expect(Object.keys(environment), name).toContain(name);
    const declarations = ['serverless.yml', 'infra/resources.yml'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    const deploySettings = listed.filter((n) => deployOnly.test(n));
    expect(deploySettings.length).toBe(15);
    // (read by the package-time checks, infra/serverless/deploy-checks.cjs, rather than declared)
    for (const name of deploySettings.filter((n) => !/^(ALARMS_UNSUBSCRIBED|ADMIN_ALLOWED_CIDRS|ADMIN_OPEN_TO_INTERNET)$/.test(n)))
      expect(declarations, name).toContain(`\${env:${name},`);
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
    const service = loadService('ci');
    for (const fn of service.functions.filter((f) => f.events.some((e) => e.http) || /^(openPayments|auth|ilpConnector)/.test(f.name))) {
      const id = functionId(fn.name);
      expect(fns[id].Properties.Timeout, fn.name).toBeLessThanOrEqual(25);
    }
    const scheduled = service.functions.filter((f) => f.events.some((e) => e.schedule)).map((f) => functionId(f.name));
    expect(scheduled.sort()).toEqual(['PaymentIntentsExpireLambdaFunction', 'RatesRefreshLambdaFunction']);
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

  it('schedules the rate refresher and the intent expirer every minute', () => {
    const schedules = ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression);
    expect(schedules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(1 minute)', 'rate(1 minute)']);
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
  it("bounds the relay's retries and record age and parks what it could not send on a queue of its own, which alarms and only Lambda feeds", async () => {
    const [relay] = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties)
      .filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn');
    expect(relay).toMatchObject({ MaximumRetryAttempts: 100, MaximumRecordAgeInSeconds: 3600, BisectBatchOnFunctionError: true });
    expect(relay.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': ['RelayFailuresQueue', 'Arn'] } } });
    const queue = template.Resources.RelayFailuresQueue.Properties;
    expect(queue).toMatchObject({ MessageRetentionPeriod: 1209600, SqsManagedSseEnabled: true });
    const alarms = Object.values(Object.fromEntries(ofType('AWS::CloudWatch::Alarm')));
    expect(alarms.map((a) => a.Properties).find((a) => a.Dimensions?.[0].Value['Fn::GetAtt']?.[0] === 'RelayFailuresQueue')).toMatchObject({
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
    const refused = await promisify(execFile)(join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', join(out, 'relay'), '--stage', 'ci'], {
      cwd: ROOT,
      env: { ...packageEnv, RELAY_MAX_RETRY_ATTEMPTS: '-1', RELAY_MAX_RECORD_AGE_SECS: '172800' },
    }).catch((e) => `${e.stdout}${e.stderr}`);
    expect(refused).toContain('RELAY_MAX_RETRY_ATTEMPTS: must be a whole number from 0 to 10000');
    expect(refused).toContain('RELAY_MAX_RECORD_AGE_SECS: must be a whole number from 60 to 86400');
  }, 60_000);

  it('routes every Admin path through a REST API, and the resource and authorization servers and the connector through REST APIs of their own', () => {
    const resources = template.Resources;
    // A route's path from its API Gateway resources, as the template nests them.
    const pathOf = (id: any): string =>
      id?.['Fn::GetAtt']?.[1] === 'RootResourceId' ? '' : `${pathOf(resources[id.Ref].Properties.ParentId)}/${resources[id.Ref].Properties.PathPart}`;
    const routes = ofType('AWS::ApiGateway::Method')
      .filter(([, m]) => m.Properties.RestApiId.Ref === 'ApiGatewayRestApi')
      .map(([, m]) => `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`);
    const declared = loadService('ci').functions.flatMap((f) => f.events.filter((e) => e.http).map((e) => `${e.http.method} ${e.http.path}`));
    expect(routes.sort()).toEqual(declared.sort());
    expect(ofType('AWS::ApiGatewayV2::Api')).toEqual([]); // no HTTP API: LocalStack's free image has none
    expect(
      ofType('AWS::ApiGateway::RestApi')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['ApiGatewayRestApi', 'AuthServerApi', 'ConnectorApi', 'ResourceServerApi']);
    // The local run serves what the template declares: every method of both APIs reaches a function.
    const apis = restApis(loadService('ci'));
    expect(
      apis
        .get('AuthServerApi')!
        .routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)
        .sort(),
    ).toEqual([
      'ANY / -> authServer',
      'ANY /grant/{proxy+} -> authInteraction',
      'ANY /interact/{proxy+} -> authInteraction',
      'ANY /{proxy+} -> authServer',
      'POST /introspect -> authIntrospect',
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
      'ANY /{proxy+} -> openPaymentsWalletAddress',
    ]);
    expect(apis.get('ConnectorApi')!.routes.map((r) => `${r.method} ${r.path} -> ${r.fn.name}`)).toEqual(['POST /ilp -> ilpConnector']);
    expect(apis.get('ConnectorApi')!.binary).toBe(true); // ILP packets pass as bytes, whatever the peer's Accept header
  });

  // Roles were per group: the Admin API's write role served 22 functions (only quotesCreate reads
  // the Open Payments client's secret, only webhookEventsRedeliver the webhook events table), and
  // its read role let read-only functions write RatesTable.
  it('gives each function a role with exactly what its bundle calls, shared only by functions that need the same', () => {
    const service = loadService('ci');
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
    for (const fn of service.functions) {
      const id = functionId(fn.name);
      const method = fn.events.find((e) => e.http)?.http.method;
      const needed = [...neededAccess({ id, method, resources: template.Resources, outboxQueues }, found.get(fn.name)!)].sort();
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
    for (const fn of service.functions.filter((f) => f.events.some((e) => e.http?.method === 'GET')))
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
    expect(holders('dynamodb:UpdateItem WebhookEventsTable')).toEqual(['webhookEventsRedeliver', 'webhooksDeliver']);
    expect(holders('dynamodb:PutItem RatesTable')).toEqual(['ratesPush']);

    expect(roles.IamRoleLambdaExecution).toBeUndefined(); // no role shared by all
    for (const [id, role] of Object.entries(roles).filter(([id]) => id !== 'ApiGatewayAccountRole')) {
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
          for (const r of st.Resource) expect(JSON.stringify(r)).toMatch(/secret:payment-service\/ci\/[A-Z_]+-\?{6}"/);
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
    for (const role of ['AuthServerRole', 'AuthIntrospectRole']) {
      for (const st of statements(role)) expect(st.Resource, role).toEqual([{ 'Fn::GetAtt': ['AuthTable', 'Arn'] }]); // its own table, nothing else
    }
    expect(statements('AuthIntrospectRole').flatMap((st: any) => st.Action)).toEqual(['dynamodb:GetItem']);
    // The interaction's function: its table and the IdP secret, which no other function reads.
    expect(fns.AuthInteractionLambdaFunction.Properties.Role).toEqual({ 'Fn::GetAtt': ['AuthInteractionRole', 'Arn'] });
    expect(statements('AuthInteractionRole').flatMap((st: any) => st.Resource)).toEqual([{ 'Fn::GetAtt': ['AuthTable', 'Arn'] }, secretArn('IDP_SECRET')]);
    const methods = Object.fromEntries(ofType('AWS::ApiGateway::Method'));
    expect(methods.AuthServerIntrospectPost.Properties.AuthorizationType).toBe('AWS_IAM');
    for (const [id, m] of Object.entries(methods)) if (id !== 'AuthServerIntrospectPost') expect(m.Properties.AuthorizationType, id).toBe('NONE');
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

describe('operations', () => {
  const stages = () => Object.fromEntries(ofType('AWS::ApiGateway::Stage'));

  it("gives every API's stage JSON access logs, X-Ray tracing and throttling; the Admin API's stage is the one serverless deploys to", () => {
    expect(Object.keys(stages()).sort()).toEqual(['AdminApiStage', 'AuthServerStage', 'ConnectorStage', 'ResourceServerStage']);
    for (const [id, stage] of Object.entries(stages())) {
      const p = stage.Properties;
      expect(p.StageName, id).toBe('ci');
      expect(p.TracingEnabled, id).toBe(true);
      expect(p.AccessLogSetting.DestinationArn, id).toEqual({ 'Fn::GetAtt': ['ApiAccessLogs', 'Arn'] });
      expect(Object.keys(JSON.parse(p.AccessLogSetting.Format)), id).toEqual(
        expect.arrayContaining(['requestId', 'ip', 'method', 'path', 'status', 'latencyMs', 'error']),
      );
      expect(p.MethodSettings, id).toEqual([
        expect.objectContaining({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: expect.anything(), ThrottlingBurstLimit: expect.anything() }),
      ]);
      expect(template.Resources[p.DeploymentId.Ref].Type, id).toBe('AWS::ApiGateway::Deployment');
      expect(template.Resources[p.DeploymentId.Ref].Properties.RestApiId, id).toEqual(p.RestApiId);
    }
    // Each API's deployment id carries a hash of the API, so that a change to it is a new deployment.
    for (const id of ['ResourceServerDeployment', 'AuthServerDeployment', 'ConnectorDeployment'])
      expect(
        Object.keys(template.Resources).filter((k) => new RegExp(`^${id}[0-9a-f]{12}$`).test(k)),
        id,
      ).toHaveLength(1);
    // No deployment makes a stage of its own (it would take the stage's name first, with no logs).
    for (const [id, d] of ofType('AWS::ApiGateway::Deployment')) expect(d.Properties.StageName, id).toBeUndefined();
    expect(template.Resources.ApiAccessLogs.Properties.RetentionInDays).toBe(30);
  });

  it('makes a new deployment of an API when a route or integration of it changes, and only then', () => {
    // The packaged template with its hashes taken off, as the plugin saw it.
    const unhashed = () => {
      const copy = JSON.parse(JSON.stringify(template));
      for (const id of Object.keys(copy.Resources).filter((k) => /Deployment[0-9a-f]{12}$/.test(k))) {
        const base = id.slice(0, -12);
        copy.Resources[base] = copy.Resources[id];
        delete copy.Resources[id];
        copy.Resources[`${base.replace('Deployment', '')}Stage`].Properties.DeploymentId = { Ref: base };
      }
      return copy;
    };
    const deploymentOf = (t: typeof template, api: string) => Object.keys(t.Resources).find((k) => k.startsWith(`${api}Deployment`));
    const same = unhashed();
    hashDeployments(same);
    for (const api of ['ResourceServer', 'AuthServer', 'Connector']) expect(deploymentOf(same, api)).toBe(deploymentOf(template, api));

    const changed = unhashed();
    changed.Resources.ConnectorIlpPost.Properties.AuthorizationType = 'AWS_IAM'; // a method's auth changes
    changed.Resources.ResourceServerIncomingPayment.Properties.PathPart = '{payment}'; // a route changes
    hashDeployments(changed);
    expect(deploymentOf(changed, 'Connector')).not.toBe(deploymentOf(template, 'Connector'));
    expect(deploymentOf(changed, 'ResourceServer')).not.toBe(deploymentOf(template, 'ResourceServer'));
    expect(deploymentOf(changed, 'AuthServer')).toBe(deploymentOf(template, 'AuthServer')); // untouched
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

  it('alarms on every function error and throttle, every dead-letter and parking queue, every stuck work queue, every API 5xx and slow p99, a lagging stream relay and any table throttle, all to one topic', () => {
    const alarms = Object.fromEntries(ofType('AWS::CloudWatch::Alarm'));
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
    const service = loadService('ci');
    const local = localCloudWatch(service, provisionedRefs(service), new MetricStore());
    const alarms = local.alarms();
    const deployed = ofType('AWS::CloudWatch::Alarm').map(([id, a]) => [id, a.Properties.AlarmDescription, a.Properties.Threshold]);
    expect(alarms.map((a) => [a.id, a.description, a.threshold]).sort(byJson)).toEqual(deployed.sort(byJson));
    expect(alarms.filter((a) => a.state !== 'OK')).toEqual([]); // each one's metric named locally
    const [[, dashboard]] = ofType('AWS::CloudWatch::Dashboard');
    const { widgets } = JSON.parse(dashboard.Properties.DashboardBody['Fn::Sub']);
    expect(local.widgets.map((w) => [w.title, w.metrics.length])).toEqual(widgets.map((w: any) => [w.properties.title, w.properties.metrics.length]));
  });

  it("has one dashboard with the APIs, queues, functions and the service's own metrics", () => {
    const [[, dashboard], ...others] = ofType('AWS::CloudWatch::Dashboard');
    expect(others).toEqual([]);
    const body = dashboard.Properties.DashboardBody['Fn::Sub'] as string;
    const { widgets } = JSON.parse(body);
    expect(widgets.length).toBeGreaterThanOrEqual(10);
    for (const [id] of ofType('AWS::Lambda::Function')) expect(body, id).toContain(`\${${id}}`);
    for (const [id] of ofType('AWS::SQS::Queue')) expect(body, id).toContain(`\${${id}.QueueName}`);
    // Every metric lib/metrics.ts writes, in the namespace the functions write to.
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
    for (const [id, role] of ofType('AWS::IAM::Role').filter(([id]) => id !== 'ApiGatewayAccountRole')) {
      expect(JSON.stringify(role.Properties.ManagedPolicyArns), id).toContain('AWSXRayDaemonWriteAccess');
    }
    const files = unzip(join(out, 'assetsCreate.zip'));
    expect([...files.keys()].sort()).toEqual(['functions/admin/assets/create.js', 'functions/admin/assets/create.js.map']);
  });

  // About 430, of which 30 roles (one for each set of needs); CloudFormation takes 500. A function
  // costs about five (itself, its log group, its API permission, its errors alarm, often a role).
  it("stays within CloudFormation's 500 resources per stack, with room to grow", () => {
    expect(Object.keys(template.Resources).length).toBeLessThan(480);
  });
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
    for (const fn of loadService('ci').functions.map((f) => f.name)) expect(carries(fn), fn).toEqual(needs[fn] ?? { sqs: false, eventBridge: false });
  });

  it('stay under 460 KB each (660 KB for the Open Payments servers and the connector, 960 KB for the STREAM senders, quoters and app payments), with the SDK bundled from its ES modules, credentials from the environment, and traces without the X-Ray SDK', () => {
    // Every function carries its own tracing (lib/tracing.ts, a few KB: no X-Ray SDK, whose
    // cls-hooked tracked every async resource) and Metrics (13 KB). The Admin routes carry the
    // Secrets Manager client (the Admin API secret is read from it, not from the environment). The
    // Open Payments servers also carry HTTP message signatures (jose alone is 90 KB) and STREAM; the
    // functions that quote and send to other nodes carry the Open Payments client and pay too.
    const budgetKb: Record<string, number> = {
      authServer: 660,
      authIntrospect: 660,
      authInteraction: 660,
      openPaymentsIncomingPayments: 660,
      ilpConnector: 660,
      quotesCreate: 960,
      openPaymentsQuotes: 960,
      openPaymentsOutgoingPayments: 960,
      paymentsWorker: 960,
    };
    for (const fn of loadService('ci').functions.map((f) => f.name)) {
      const { code, map } = bundleOf(fn);
      expect(code.length, fn).toBeLessThan((budgetKb[fn] ?? 460) * 1024);
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
