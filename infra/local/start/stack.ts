import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { startAuditStore } from '../emulators/audit-store';
import { apiObserver, type LocalCloudWatch, localCloudWatch, localDimensions, queueSampler } from '../emulators/cloudwatch';
import { type Emulator, freePort, type Jit, LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDbLocal, startSqs } from '../emulators/emulators';
import { startEventBridge } from '../emulators/eventbridge';
import { type RateRule, startGateway } from '../emulators/gateway';
import { openJournal } from '../emulators/journal';
import { type LambdaRuntime, lambdaRuntime, localFunctionArn } from '../emulators/lambda';
import { startLambdaApi } from '../emulators/lambda-api';
import { startCollector } from '../emulators/metrics';
import { provision, type Refs, resolveIntrinsics } from '../emulators/provision';
import { restApis } from '../emulators/rest-apis';
import { scheduledEvent, startSchedules } from '../emulators/schedules';
import { startSecretsManager } from '../emulators/secrets-manager';
import { inProcessSqs, type SqsSender } from '../emulators/sqs';
import { startSqsPollers } from '../emulators/sqs-poller';
import { type Checkpoints, startStreamPollers, streamMappings, streamsReader, unreadWrites } from '../emulators/stream-poller';
import { startTraceStore, type TraceStore } from '../emulators/traces';
import { LOCAL_ADMIN_API_SECRET, LOCAL_IDP_SECRET, LOCAL_WEBHOOK_SECRET } from './defaults';
import { publicHosts } from './listen';
import { type LocalOperators, localOperators } from './operators';
import { eventRoutes, loadService } from './serverless-config';

// The whole service on this machine: emulators, resources from infra/resources.yml, and the
// functions of serverless.yml behind local API Gateways. `npm start` and the integration tests
// both use it; tests pass port 0 and a table prefix so that they never collide with anything.
type Port =
  | 'admin'
  | 'openPayments'
  | 'authServer'
  | 'authInteraction'
  | 'connector'
  | 'dynamodb'
  | 'sqs'
  | 'eventbridge'
  | 'secretsmanager'
  | 'auditstore'
  | 'lambda';
// The local port of each REST API that infra/resources.yml declares.
const API_PORTS: Record<string, Port> = { ResourceServerApi: 'openPayments', AuthServerApi: 'authServer', ConnectorApi: 'connector' };
// What the template's WAF limits per client address, as its rate-based rule (GRANT_RATE_LIMIT_PER_5MIN):
// grant requests, the authorization server's POST at its root, which anyone may send.
const GRANT_RATE_LIMIT_DEFAULT = 300;
// Secrets Manager's rotation function (lib/platform/rotation.ts), as serverless.yml names its handler.
export const ROTATION_HANDLER = 'functions/secrets/rotate.handler';
const rateRules = (env: NodeJS.ProcessEnv): Record<string, RateRule> => ({
  AuthServerApi: { method: 'POST', path: '/', limit: Number(env.GRANT_RATE_LIMIT_PER_5MIN || GRANT_RATE_LIMIT_DEFAULT) },
});

export interface StackOptions {
  ports?: Partial<Record<Port, number>>;
  // Reuse running emulators (the test suite starts one set for all files).
  emulators?: { dynamodb: string; sqs: string };
  prefix?: string;
  // Settings for the functions, on top of the process environment.
  settings?: Record<string, string>;
  // Fire `schedule` events on their timers (npm start); tests invoke functions themselves.
  schedules?: boolean;
  // Keep the data here across runs (npm start): DynamoDB Local's tables, the SQS emulator's queues
  // and messages (delayed ones too), and how far the stream mappings have read. After a restart,
  // or a kill -9, the relay goes on from its checkpoint, so an outbox item committed but not yet
  // sent is sent then, and what the queues had is still there. Without it, everything is in memory.
  dataDir?: string;
  // Write `env` here (mode 0600: it holds the secrets) while the stack runs, for `serverless
  // offline` (infra/serverless/offline.cjs, which reads <data folder>/stack-env.json).
  envFile?: string;
  // Collect the metrics CloudWatch would have, and the functions' own (./metrics.ts), kept in the
  // data folder; default: LOCAL_METRICS, on unless it is `false`. Off, the functions' metrics are
  // off too (unless POWERTOOLS_METRICS_DISABLED says otherwise, when they are printed).
  metrics?: boolean;
  // Record traces (X-Ray segment documents: each request, invocation and AWS call) and keep the
  // last ones in memory (./traces.ts); default: LOCAL_TRACES, on unless it is `false`. Off, nothing
  // is recorded, and tracing costs the request path nothing.
  traces?: boolean;
  // Load every function's module once the stack is up, off the request path (npm start), so that
  // no first request waits for one (lambda.ts, preload).
  preload?: boolean;
  // For the bench: the functions on a thread of their own, apart from the local stand-ins (then
  // not traced), and the storage work of their DynamoDB calls added up in `stats` (lambda.ts).
  functionsThread?: boolean;
  usage?: boolean;
  // DynamoDB Local's JIT (../emulators/emulators.ts): `full` for long runs (npm start, the bench).
  jit?: Jit;
  // The console's operators' signing key (a PKCS#8 PEM) where none is kept (default: one made for
  // it): the test run makes one for all its stacks (test/harness/global-setup.ts).
  operatorsKey?: string;
  // Between reads of a stream that had nothing new (default: Lambda's 250 ms). A function's write
  // wakes its reads at once whatever this is; the tests read less often, as each read of an idle
  // stream costs the test process and DynamoDB Local CPU (test/harness/stack.ts).
  streamIdleMs?: number;
}

export interface Stack {
  adminUrl: string;
  openPaymentsUrl: string;
  authServerUrl: string;
  connectorUrl: string; // where peers send ILP packets (ILP over HTTP)
  endpoints: { dynamodb: string; sqs: string; eventbridge: string; secretsmanager: string; auditstore: string; lambda: string };
  // The functions' environment: serverless.yml's, resolved; the secrets; the AWS SDK's settings.
  env: Record<string, string>;
  refs: Refs;
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  // Invoke a function of serverless.yml by name, with the event its trigger would send.
  invoke(name: string, event?: unknown): Promise<unknown>;
  // The DynamoDB stream mappings (the outbox relay's): stopped, they leave records unread on the
  // stream; started again, they go on from where they stopped, as Lambda's would after an outage.
  streams: { stop(): Promise<void>; start(): void };
  // A REST API's local gateway, by its port's name: stopped, its port refuses connections (a peer
  // sees this node's connector down); started again, it serves on the same port.
  apis: Record<string, { stop(): Promise<void>; start(): Promise<void> }>;
  // AWS calls per function so far, and when an event was put on the bus (the bench reads them).
  stats(): ReturnType<LambdaRuntime['stats']>;
  publishedAt(eventId: string): number | undefined; // epoch ms, fractional
  // The template's dashboard and alarms on the collected metrics, and a sample of the queues taken
  // at once (they are sampled every 15 s); undefined when collection is off.
  metrics?: LocalCloudWatch & { sample(): Promise<void> };
  // The traces recorded so far; undefined when tracing is off.
  traces?: TraceStore;
  // The processes and threads that run it, by id, for their CPU in /proc: DynamoDB Local's JVM
  // (when this stack started it), and the functions' thread (with `functionsThread`).
  processes: { dynamodb?: number; functionsThread(): Promise<number | undefined> };
  // Settled once every function's module is loaded (with `preload`), or at once without.
  preloaded: Promise<void>;
  // The console's operators (the local stand-in for the user pool), whose ID tokens the Admin API's
  // console route takes: kept in the data folder, else in memory.
  operators: LocalOperators;
  stop(): Promise<void>;
}

const portOr = async (p: number | undefined) => (p === undefined || p === 0 ? freePort() : p);

export async function startEmulators(ports: { dynamodb?: number; sqs?: number } = {}, dataDir?: string, jit?: Jit) {
  const [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(await portOr(ports.dynamodb), dataDir, jit), startSqs(await portOr(ports.sqs), dataDir)]);
  return { dynamodb, sqs };
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const owned: Emulator[] = [];
  const stops: Array<() => Promise<void>> = [];
  try {
    let endpoints = opts.emulators;
    if (!endpoints) {
      const started = await startEmulators(opts.ports, opts.dataDir, opts.jit);
      owned.push(started.dynamodb, started.sqs);
      endpoints = { dynamodb: started.dynamodb.endpoint, sqs: started.sqs.endpoint };
    }
    const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    const dynamo = new DynamoDBClient({ ...aws, endpoint: endpoints.dynamodb });
    const sqs = new SQSClient({ ...aws, endpoint: endpoints.sqs, useQueueUrlAsEndpoint: false });
    // The stand-ins (Lambda's pollers, the bus, the queue sampler) reach an SQS of this process
    // directly; the functions, as on AWS, over the wire.
    const standInSqs: SqsSender = inProcessSqs(endpoints.sqs) ?? { send: (command, options) => sqs.send(command as never, options) };
    const events = await startEventBridge({ port: opts.ports?.eventbridge ?? 0, sqs: standInSqs, region: LOCAL_REGION, account: '000000000000' });
    stops.push(events.stop);
    // A rotation (RotateSecret) invokes its function on the Lambda runtime, made below.
    let rotateWith: ((lambdaArn: string, event: unknown) => Promise<unknown>) | undefined;
    const rotate = (lambdaArn: string, event: unknown) => rotateWith!(lambdaArn, event);
    const secrets = await startSecretsManager({ port: opts.ports?.secretsmanager ?? 0, account: '000000000000', dataDir: opts.dataDir, rotate });
    stops.push(secrets.stop);
    const auditStore = await startAuditStore({ port: opts.ports?.auditstore ?? 0, dataDir: opts.dataDir });
    stops.push(auditStore.stop);

    // The local run never talks to AWS: the SDK's own variables point every client at the emulators.
    const awsEnv = {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
      AWS_ENDPOINT_URL_EVENTBRIDGE: events.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ENDPOINT_URL_S3: auditStore.endpoint,
    };
    Object.assign(process.env, awsEnv);
    delete process.env.AWS_PROFILE;
    delete process.env.AWS_SESSION_TOKEN;

    const collect = opts.metrics ?? process.env.LOCAL_METRICS !== 'false';
    const collector = collect ? startCollector({ dataDir: opts.dataDir }) : undefined;
    if (collector) stops.push(collector.stop);
    const tracing = (opts.traces ?? process.env.LOCAL_TRACES !== 'false') ? startTraceStore() : undefined;
    if (tracing) stops.push(tracing.stop);
    const runtime = lambdaRuntime({ metrics: collector?.store, traces: tracing?.store.sink, thread: opts.functionsThread, usage: opts.usage });
    stops.push(runtime.stop);
    const ports: Partial<Record<Port, number>> = {};
    for (const name of ['admin', 'openPayments', 'authServer', 'connector'] as const) ports[name] = await portOr(opts.ports?.[name]);
    const openPaymentsUrl = `http://localhost:${ports.openPayments}`;
    const authServerUrl = `http://localhost:${ports.authServer}`;
    // Locally, secrets come from the environment (SECRETS_PREFIX empty), made up if not given.
    const made = () => randomBytes(32).toString('base64url');
    const settings = {
      ADMIN_API_SECRET: process.env.ADMIN_API_SECRET || LOCAL_ADMIN_API_SECRET,
      WALLET_ADDRESS_URL: process.env.WALLET_ADDRESS_URL || openPaymentsUrl,
      AUTH_SERVER_URL: process.env.AUTH_SERVER_URL || authServerUrl,
      WEBHOOK_SECRET: process.env.WEBHOOK_SECRET || LOCAL_WEBHOOK_SECRET,
      ILP_ADDRESS: process.env.ILP_ADDRESS || 'test.node-a',
      SECRETS_PREFIX: '',
      // Nodes on this machine talk to each other (and clients publish their keys) on localhost.
      ALLOW_PRIVATE_FETCH: process.env.ALLOW_PRIVATE_FETCH || 'true',
      // The operator's peers are other nodes on this machine; a tenant's never may be (unless named).
      ALLOW_PRIVATE_PEERS: process.env.ALLOW_PRIVATE_PEERS || 'operator',
      // What a peering exchange tells other nodes (AUTO_PEERING_ENABLED, off unless set): this connector.
      ILP_CONNECTOR_URL: process.env.ILP_CONNECTOR_URL || `http://localhost:${ports.connector}/ilp`,
      // The functions' metrics (EMF lines) go to the collector as on Lambda to CloudWatch; without
      // it, they would only crowd the log.
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED || String(!collect),
      STREAM_SECRET: process.env.STREAM_SECRET || made(),
      OPEN_PAYMENTS_CLIENT_SECRET: process.env.OPEN_PAYMENTS_CLIENT_SECRET || made(),
      IDP_SECRET: process.env.IDP_SECRET || LOCAL_IDP_SECRET,
      ...opts.settings,
    };
    Object.assign(process.env, settings);

    const service = loadService('local');
    const refs = await provision(service, { dynamo, sqs, events }, opts.prefix ?? '');
    // The console's operators: the local sign-in stands in for the user pool and its app client,
    // and its public keys reach the functions (CONSOLE_JWKS), which verify its tokens as Cognito's.
    const operators = localOperators(opts.dataDir, opts.operatorsKey);
    refs.ConsoleUserPool = { ref: operators.pool.userPoolId, arn: `arn:aws:cognito-idp:${LOCAL_REGION}:000000000000:userpool/${operators.pool.userPoolId}` };
    refs.ConsoleUserPoolClient = { ref: operators.pool.clientId, arn: '' };
    // Lambda's Invoke, for the console's function (it hands each request to its route's function).
    const lambdaApi = await startLambdaApi({ port: opts.ports?.lambda, functions: service.functions, runtime });
    stops.push(lambdaApi.stop);
    const env: Record<string, string> = {
      ...awsEnv,
      AWS_ENDPOINT_URL_LAMBDA: lambdaApi.endpoint,
      ...Object.fromEntries(Object.entries(resolveIntrinsics(service.environment, refs) as Record<string, unknown>).map(([k, v]) => [k, String(v ?? '')])),
    };
    // The secrets too: Secrets Manager's part on AWS, the environment's here (SECRETS_PREFIX empty).
    for (const name of ['ADMIN_API_SECRET', 'WEBHOOK_SECRET', 'STREAM_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET', 'IDP_SECRET'] as const)
      env[name] = settings[name];
    env.CONSOLE_JWKS = operators.pool.jwks;
    // A tenant's secrets made as on AWS (infra/serverless/tenant-secrets.cjs): a key's ARN and a
    // resource policy the emulator keeps (and enforces nothing by), rotated by the local rotation function.
    const rotator = service.functions.find((f) => f.handler === ROTATION_HANDLER);
    if (!rotator) throw new Error(`No function in serverless.yml has the handler ${ROTATION_HANDLER}`);
    Object.assign(env, {
      TENANT_SECRETS_KMS_KEY_ARN: `arn:aws:kms:${LOCAL_REGION}:000000000000:key/00000000-0000-4000-8000-00000000da7a`,
      TENANT_SECRETS_ROTATION_ARN: localFunctionArn(rotator),
      TENANT_SECRETS_READERS: `arn:aws:iam::000000000000:role/${service.service}/${service.stage}/*`,
    });
    Object.assign(process.env, env);

    // The names the gateways answer to besides loopback: the hosts of the node's public URLs.
    const hosts = publicHosts(process.env);
    const names = localDimensions(service, refs);
    const observe = (apiName: string) => collector && apiObserver(collector.store, names.api(apiName));
    const trace = (apiName: string) => tracing && { name: apiName, sink: tracing.store.sink };
    const admin = await startGateway({
      port: ports.admin!,
      routes: eventRoutes(service.functions),
      runtime,
      observe: observe(service.apiName),
      trace: trace(service.apiName),
      hosts,
      authorize: (token) => operators.verify(token),
    });
    stops.push(admin.stop);
    const apis: Stack['apis'] = {};
    const limits = rateRules(process.env);
    for (const [api, { routes, binary }] of restApis(service)) {
      const port = API_PORTS[api];
      if (!port) throw new Error(`The local run has no port for the REST API ${api}; add it to API_PORTS`);
      let stop: (() => Promise<void>) | undefined;
      apis[port] = {
        start: async () => {
          const apiName = service.resources[api].Properties!.Name;
          const rateRule = limits[api];
          stop ??= (await startGateway({ port: ports[port]!, routes, runtime, binary, observe: observe(apiName), trace: trace(apiName), hosts, rateRule }))
            .stop;
        },
        stop: async () => {
          await stop?.();
          stop = undefined;
        },
      };
      await apis[port].start();
      stops.push(apis[port].stop);
    }
    // AUTH_INTERACTION_PORT: the interaction's routes (/interact, and the consent page's /grant) on a
    // port of their own too, as Rafiki's INTERACTION_PORT serves them (its consent page posts there).
    // On AWS they are paths of the authorization server's API only.
    if (opts.ports?.authInteraction !== undefined) {
      const routes = restApis(service)
        .get('AuthServerApi')!
        .routes.filter((r) => r.fn.name === 'authInteraction');
      stops.push(
        (await startGateway({ port: opts.ports.authInteraction, routes, runtime, observe: observe('interaction'), trace: trace('interaction'), hosts })).stop,
      );
    }
    stops.push(startSqsPollers(service.functions, refs, standInSqs, runtime));
    const streamsClient = streamsReader(endpoints.dynamodb);
    const checkpoints = keptCheckpoints(opts.dataDir);
    // What the relay has yet to read, for its iterator age: only where metrics are collected.
    const unread = collector && unreadWrites(runtime);
    if (unread) for (const m of streamMappings(service.functions, refs)) unread.watch(m);
    let stopStreams: (() => Promise<void>) | undefined;
    const streams = {
      start: () => {
        stopStreams ??= startStreamPollers(
          service.functions,
          refs,
          { streams: streamsClient, sqs: standInSqs },
          runtime,
          checkpoints,
          unread,
          opts.streamIdleMs,
        );
      },
      stop: async () => {
        await stopStreams?.();
        stopStreams = undefined;
      },
    };
    streams.start();
    stops.push(async () => {
      await streams.stop();
      checkpoints.close();
    });
    if (opts.schedules) {
      const stopSchedules = startSchedules(service.functions, runtime);
      stops.push(async () => stopSchedules());
    }
    const sample = collector?.sample(queueSampler(service, refs, standInSqs, collector.store));
    const byName = new Map(service.functions.map((f) => [f.name, f]));
    const { envFile } = opts;
    if (envFile) {
      writeFileSync(envFile, `${JSON.stringify(env, null, 2)}\n`, { mode: 0o600 });
      stops.push(async () => rmSync(envFile, { force: true }));
    }
    rotateWith = async (lambdaArn, event) => {
      const fn = service.functions.find((f) => localFunctionArn(f) === lambdaArn);
      if (!fn) throw new Error(`No function ${lambdaArn} in serverless.yml`);
      return runtime.invoke(fn, event);
    };
    const invoke = (name: string, event?: unknown) => {
      const fn = byName.get(name);
      if (!fn) throw new Error(`No function ${name} in serverless.yml`);
      return runtime.invoke(fn, event ?? scheduledEvent(fn));
    };

    return {
      adminUrl: admin.url,
      openPaymentsUrl,
      authServerUrl: env.AUTH_SERVER_URL,
      connectorUrl: `http://localhost:${ports.connector}/ilp`,
      endpoints: { ...endpoints, eventbridge: events.endpoint, secretsmanager: secrets.endpoint, auditstore: auditStore.endpoint, lambda: lambdaApi.endpoint },
      env,
      refs,
      dynamo,
      sqs,
      invoke,
      streams,
      apis,
      stats: runtime.stats,
      publishedAt: events.putAt,
      metrics: collector && { ...localCloudWatch(service, refs, collector.store), sample: sample! },
      traces: tracing?.store,
      processes: { dynamodb: owned[0]?.pid, functionsThread: async () => runtime.threadId() },
      preloaded: opts.preload ? runtime.preload(service.functions) : Promise.resolve(),
      operators,
      stop: async () => {
        for (const stop of stops.reverse()) await stop();
        for (const e of owned) await e.stop();
        dynamo.destroy();
        sqs.destroy();
      },
    };
  } catch (e) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    for (const em of owned) await em.stop().catch(() => undefined);
    throw e;
  }
}

// The stream mappings' checkpoints, kept in the data folder as a journal (../emulators/journal.ts)
// that each move appends to, which is after the relay has handed a batch to the queues and the bus
// (whose emulators keep what they accepted in the data folder too): so a checkpoint is never ahead
// of what was delivered, and a crash makes the relay send again at most the batch it was on. (A
// whole file rewritten and renamed at each move cost the local run 5% of its thread's CPU.)
const COMPACT_CHECKPOINTS_AFTER = 10_000;
type Moved = [key: string, sequenceNumber: string];
function keptCheckpoints(dataDir?: string): Checkpoints & { close(): void } {
  const opened = dataDir ? openJournal<Moved>(join(dataDir, 'stream-checkpoints.jsonl')) : undefined;
  const map = new Map<string, string>(opened?.records);
  // Checkpoints a run before this release kept, as one JSON file: taken up once, then removed.
  const legacy = dataDir && join(dataDir, 'stream-checkpoints.json');
  if (legacy && existsSync(legacy)) {
    for (const [key, sequenceNumber] of Object.entries(JSON.parse(readFileSync(legacy, 'utf8')) as Record<string, string>)) map.set(key, sequenceNumber);
    opened?.journal.compact([...map]);
    rmSync(legacy, { force: true });
  }
  const journal = opened?.journal;
  const set = map.set.bind(map);
  return Object.assign(map, {
    set(key: string, sequenceNumber: string) {
      set(key, sequenceNumber);
      if (!journal) return map;
      journal.append([key, sequenceNumber]);
      if (journal.appended >= COMPACT_CHECKPOINTS_AFTER) journal.compact([...map]);
      return map;
    },
    close: () => journal?.close(),
  });
}
