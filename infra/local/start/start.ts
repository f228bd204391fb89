import './quiet';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join, relative } from 'node:path';
import { startFsp } from '../fsp/fsp';
import { announceNode, startLocalProxy } from '../tools/proxy';
import { startConsole } from './console';
import {
  dataDirOf,
  envPort,
  LOCAL_ADMIN_API_SECRET,
  LOCAL_IDP_SECRET,
  LOCAL_WEBHOOK_SECRET,
  NODES,
  nodeFlag,
  nodeFromArgs,
  nodePorts,
  PORT_SETTINGS,
  STACK_ENV_FILE,
  wipeData,
} from './defaults';
import { publicHosts, StartError } from './listen';
import { ROOT } from './serverless-config';
import { startStack } from './stack';

// `npm start`: the whole service on this machine, no Docker, no AWS account. With `--node b`
// (`npm run start:node-b`), a second node beside it, to peer with over Interledger; `--node c`
// (`npm run start:node-c`), a third, for a network with a node in the middle.
const started = performance.now();
// A signal while the node starts (Ctrl-C, or a kill of npm, which passes it on) ends the start
// through process.exit, whose hooks stop what already runs (DynamoDB Local's JVM): a signal's
// default action would end this process and leave the JVM running on the port and the data.
const signalledEarly = (signal: NodeJS.Signals) => {
  console.log(`\n${signal}: stopping the start`);
  process.exit(128 + constants.signals[signal]);
};
process.on('SIGINT', signalledEarly);
process.on('SIGTERM', signalledEarly);
const nodeName = nodeFromArgs(process.argv);
const startCommand = nodeName === 'a' ? 'npm start' : `npm run start:node-${nodeName}`;
const flag = nodeFlag(nodeName);
const node = NODES[nodeName];
const fresh = process.argv.includes('--fresh');
const DEFAULT_PORTS = node.ports;
process.env.ILP_ADDRESS ||= node.ilpAddress;
// A laptop's /graphql answers introspection (GraphQL tools read the schema so); AWS's does not unless set.
process.env.GRAPHQL_INTROSPECTION ||= 'true';

if (!process.env.ADMIN_API_SECRET) {
  console.warn(`warning: ADMIN_API_SECRET is not set; using the local-only default "${LOCAL_ADMIN_API_SECRET}"`);
}

// The local secrets (STREAM credentials, the service's own Open Payments key) are made on the
// first start and kept in .local/ (git-ignored), so that the service keeps its identity.
const dataDir = dataDirOf(ROOT, nodeName);
const allPorts = nodePorts(DEFAULT_PORTS);
const secretsFile = join(dataDir, 'secrets.json');
const kept: Record<string, string> = existsSync(secretsFile) ? JSON.parse(readFileSync(secretsFile, 'utf8')) : {};
for (const name of ['STREAM_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET']) kept[name] ??= randomBytes(32).toString('base64url');
mkdirSync(dataDir, { recursive: true });
writeFileSync(secretsFile, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
// OPEN_PAYMENTS_CLIENT_KEY_FILE: the node's Open Payments client key, an Ed25519 private key in PEM
// (as Rafiki's PRIVATE_KEY_FILE), which the FSP registers elsewhere; it becomes the secret that
// holds the key (on AWS the FSP puts the PEM in the secret itself: docs/configuration.md).
const keyFile = process.env.OPEN_PAYMENTS_CLIENT_KEY_FILE;
if (keyFile) {
  let why: string | undefined;
  try {
    const pem = readFileSync(keyFile, 'utf8');
    if (createPrivateKey(pem).asymmetricKeyType !== 'ed25519') why = 'it is not an Ed25519 private key';
    process.env.OPEN_PAYMENTS_CLIENT_SECRET = pem;
  } catch (e) {
    why = `it cannot be read as a private key in PEM: ${(e as Error).message}`;
  }
  if (why) {
    console.error(`error: OPEN_PAYMENTS_CLIENT_KEY_FILE=${keyFile}: ${why}`);
    process.exit(1);
  }
}
for (const [name, value] of Object.entries(kept)) process.env[name] ||= value;
const { fsp: fspPort, console: consolePort, ...ports } = allPorts;
// AUTH_INTERACTION_PORT: unset, the interaction's routes are on the authorization server's port only.
const interactionPort = process.env.AUTH_INTERACTION_PORT ? envPort('AUTH_INTERACTION_PORT', 0) : undefined;
const adminPort = ports.admin;

// A port that cannot be had ends the start with one line that names its setting, not a stack
// trace: what a user needs is the variable to change.
function startFailed(e: unknown): never {
  const err = e as NodeJS.ErrnoException & { port?: number };
  if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES' && !(e instanceof StartError)) throw e;
  if (e instanceof StartError) console.error(`error: ${err.message}`);
  else {
    const key = Object.entries(allPorts).find(([, port]) => port === err.port)?.[0] as keyof typeof allPorts | undefined;
    const setting = key ? PORT_SETTINGS[key] : 'its port setting';
    const why = err.code === 'EADDRINUSE' ? 'is in use (another npm start, or another program?)' : 'needs privileges this user lacks';
    console.error(`error: port ${err.port} (${setting}) ${why}. Stop what uses it, or choose another: ${setting}=<free port> ${startCommand}`);
  }
  process.exit(1);
}
// LOCAL_STREAM_IDLE_MS: between reads of a stream that had nothing new (default: Lambda's 250 ms).
// A function's write wakes the reads at once whatever it is; the tests' nodes read an idle stream
// each second, as their in-process stacks do (test/harness/stack.ts).
const streamIdle = process.env.LOCAL_STREAM_IDLE_MS;
if (streamIdle !== undefined && !/^[1-9]\d{0,4}$/.test(streamIdle)) {
  startFailed(new StartError(`LOCAL_STREAM_IDLE_MS is a number of milliseconds from 1 to 99999, not "${streamIdle}"`));
}

// --fresh wipes nothing while the node runs (as `npm run reset`): one of its ports taken, or its
// npm start still running on the data.
if (fresh) await wipeData(dataDir, allPorts).catch(startFailed);
const adminSecret = process.env.ADMIN_API_SECRET || LOCAL_ADMIN_API_SECRET;
const webhookSecret = process.env.WEBHOOK_SECRET || LOCAL_WEBHOOK_SECRET;

const idpSecret = process.env.IDP_SECRET || LOCAL_IDP_SECRET;

// The local FSP simulator serves rates, receives webhooks and asks for consent to interactive
// Open Payments grants, unless all three point elsewhere.
const ratesFile = process.env.FSP_RATES_FILE ?? join(ROOT, 'infra/local/fsp/fsp-rates.json');
const needFsp = !process.env.EXCHANGE_RATES_URL || !process.env.WEBHOOK_URL || !process.env.IDP_CONSENT_URL;
const fsp = needFsp
  ? await startFsp({
      port: fspPort,
      ratesFile,
      webhookSecret,
      adminUrl: `http://localhost:${adminPort}`,
      adminSecret,
      autoFund: process.env.FSP_AUTO_FUND !== 'false',
      log: console.log,
      authServerUrl: (process.env.AUTH_SERVER_URL || `http://localhost:${ports.authServer}`).replace(/\/+$/, ''),
      idpSecret,
      hosts: publicHosts(process.env),
    }).catch(startFailed)
  : undefined;
if (fsp) {
  process.env.EXCHANGE_RATES_URL ||= `${fsp.url}/rates`;
  process.env.WEBHOOK_URL ||= `${fsp.url}/webhooks`;
  process.env.IDP_CONSENT_URL ||= `${fsp.url}/consent`;
}

process.env.CONSOLE_NAME ||= nodeName.toUpperCase(); // what the console's page calls the node
const stack = await startStack({
  schedules: true,
  preload: true,
  // A node runs for long: DynamoDB Local's second JIT tier pays back its compiling within minutes
  // (LOCAL_JIT=quick: the first tier only, for short runs such as a test's).
  jit: process.env.LOCAL_JIT === 'quick' ? 'quick' : 'full',
  streamIdleMs: streamIdle === undefined ? undefined : Number(streamIdle),
  dataDir,
  envFile: join(dataDir, STACK_ENV_FILE), // for `serverless offline` (docs/local-run.md, "serverless-offline")
  settings: { ADMIN_API_SECRET: adminSecret, WEBHOOK_SECRET: webhookSecret, IDP_SECRET: idpSecret },
  ports: { ...ports, ...(interactionPort !== undefined && { authInteraction: interactionPort }) },
}).catch(startFailed);

// Node A runs the signing proxy of the API collection; Nodes B and C tell it where their Admin APIs are.
// The console, whose port the user may have to change: what started before it stops first.
// The console's operators: on a first start, one of each role (their passwords in the data folder).
const seeded = stack.operators.seed();
const backOffice = await startConsole({
  port: consolePort,
  adminUrl: stack.adminUrl,
  operators: stack.operators,
  metrics: stack.metrics,
  traces: stack.traces,
}).catch(async (e) => {
  await stack.stop();
  await fsp?.stop();
  return startFailed(e);
});
const proxy =
  nodeName === 'a'
    ? await startLocalProxy({ adminUrl: stack.adminUrl, secret: adminSecret, log: console.log })
    : announceNode(nodeName, dataDir, stack.adminUrl);

// A folder as the user would type it: relative when under the current one.
const shown = (dir: string) => (relative(process.cwd(), dir).startsWith('..') ? dir : relative(process.cwd(), dir) || '.');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping`);
  // Each part in turn, whatever an earlier one threw: a failed stop of the console must not leave
  // the stack (its JVM, its env file for serverless offline) behind.
  for (const [part, stop] of [
    ['the console', () => backOffice.stop()],
    ['the signing proxy', () => proxy.stop()],
    ['the stack', () => stack.stop()],
    ['the FSP simulator', async () => fsp?.stop()],
  ] as const) {
    try {
      await stop();
    } catch (e) {
      console.error(`Stopping ${part} failed: ${(e as Error).message}`);
    }
  }
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.off('SIGINT', signalledEarly);
process.off('SIGTERM', signalledEarly);

// What the console shows, and what it does not, and why.
const consoleHas = (s: typeof stack) =>
  [s.metrics ? 'dashboard and alarms' : 'metrics off: LOCAL_METRICS=false', s.traces ? 'traces' : 'traces off: LOCAL_TRACES=false'].join('; ');

// Port 6000 (Node C's console) is X11's, which browsers refuse to open (the fetch standard's "bad ports").
const blockedPort = (port: number) =>
  port === 6000 ? `\n                                browsers refuse port 6000: to open it, CONSOLE_PORT=6010 ${startCommand}` : '';

// Where the banner sends a user next: the walkthroughs that use this node.
const seeAlso = {
  a: ' (and "Pay across two nodes": npm run start:node-b in another terminal)',
  b: ' and "Pay across two nodes"',
  c: ' and docs/three-nodes.md (Alice on A pays Carol on C through B)',
};

const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`
Payment service (Node ${nodeName.toUpperCase()}) ready in ${seconds} s
  Console                       ${backOffice.url}   (${consoleHas(stack)}; sign in as viewer, operator or admin: ${shown(dataDir)}/operators-seeded.json${seeded ? ', made now' : ''}; npm run operator adds one)${blockedPort(consolePort)}
  Admin API                     ${stack.adminUrl}   (OpenAPI: ${stack.adminUrl}/openapi.json)
  Open Payments resource server ${stack.openPaymentsUrl}   (WALLET_ADDRESS_URL=${stack.env.WALLET_ADDRESS_URL})
  Open Payments auth server     ${stack.authServerUrl}   (GNAP grants${nodeName === 'a' ? '; try npm run op-demo' : ''})${interactionPort ? `\n  Interaction (consent)         http://localhost:${interactionPort}   (/interact, /grant: AUTH_INTERACTION_PORT)` : ''}
  ILP connector                 ${stack.connectorUrl}   (ILP address ${stack.env.ILP_ADDRESS}; peers send packets here)
  Signing proxy                 ${proxy.line}
  DynamoDB Local ${stack.endpoints.dynamodb}   SQS ${stack.endpoints.sqs}   EventBridge ${stack.endpoints.eventbridge}   Secrets Manager ${stack.endpoints.secretsmanager}
  Data          ${shown(dataDir)}/ (kept across restarts${fresh ? '; wiped at this start' : ''}; npm run reset${flag ? ` --${flag}` : ''} wipes it)
  Rates (pull)  ${stack.env.EXCHANGE_RATES_URL}
  Webhooks to   ${stack.env.WEBHOOK_URL}${fsp ? `   (local FSP simulator: rates from ${ratesFile}; funds payments: ${process.env.FSP_AUTO_FUND !== 'false'})` : ''}
  Consent page  ${stack.env.IDP_CONSENT_URL || '(none: interactive grants are not offered)'}   (interactive Open Payments grants)

Sign and send Admin requests with:
  npm run admin --${flag} POST /assets '{"code":"USD","scale":2}'
  npm run admin --${flag} GET '/rates?sourceAssetCode=USD&destinationAssetCode=EUR'
See README "Walk through a payment"${seeAlso[nodeName]}. Ctrl-C stops everything.
`);
