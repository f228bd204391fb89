import './quiet';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_PORTS, envPort, LOCAL_ADMIN_API_SECRET, STACK_ENV_FILE, stackPorts } from './defaults';
import { ROOT } from './serverless-config';
import { startStack } from './stack';

// `npm run offline`: the Admin API under serverless-offline, as a Serverless user checks
// serverless.yml's `http` events, with everything else as `npm start` runs it. This process runs
// the emulators (data in memory), provisions infra/resources.yml on them, serves the REST APIs that
// resources.yml declares (which serverless-offline does not read) through the local gateways, and
// feeds the queue and stream functions with the local pollers; `serverless offline start` serves
// the Admin API from serverless-esbuild's bundles and fires the `schedule` events, in the
// environment this stack writes to a temporary data folder of its own (infra/serverless/offline.cjs
// reads it there, and puts the bundles there too).
const started = performance.now();

if (!process.env.ADMIN_API_SECRET) {
  console.warn(`warning: ADMIN_API_SECRET is not set; using the local-only default "${LOCAL_ADMIN_API_SECRET}"`);
}

const config = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8'));
const adminPort = envPort('ADMIN_PORT', DEFAULT_PORTS.admin);
const lambdaPort = envPort('LAMBDA_PORT', config.custom['serverless-offline'].lambdaPort);
const dataDir = mkdtempSync(join(tmpdir(), 'payment-service-offline-'));
const stack = await startStack({
  envFile: join(dataDir, STACK_ENV_FILE),
  // No console here, and serverless-offline's functions would print their metrics: none collected.
  metrics: false,
  ports: {
    // The stack's own Admin gateway, which serverless-offline replaces here: any free port, unused.
    admin: 0,
    ...stackPorts(DEFAULT_PORTS),
  },
}).catch((e) => {
  rmSync(dataDir, { recursive: true, force: true });
  throw e;
});

const sls = spawn(
  join(ROOT, 'node_modules/.bin/serverless'),
  ['offline', 'start', '--stage', 'local', '--httpPort', String(adminPort), '--lambdaPort', String(lambdaPort)],
  { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: dataDir }, stdio: ['ignore', 'inherit', 'pipe'] },
);
const exited = new Promise<void>((done) => sls.once('exit', () => done()));
const service = String(config.service);

let stopping = false;
async function shutdown(reason: string, code: number) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${reason}: stopping`);
  if (sls.exitCode === null && sls.signalCode === null) sls.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (sls.exitCode === null && sls.signalCode === null) sls.kill('SIGKILL');
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}
process.on('SIGINT', () => void shutdown('SIGINT', 0));
process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
sls.once('exit', (code, signal) => void shutdown(`serverless offline exited (${signal ?? code})`, 1));

// Ready when serverless-offline says so (on stderr, where serverless logs), after serverless-esbuild
// has bundled every function.
let output: string | undefined = '';
sls.stderr.on('data', (d) => {
  process.stderr.write(d);
  if (output === undefined) return;
  output += d;
  if (/Server ready: /.test(output)) {
    output = undefined;
    announce();
  }
});

function announce() {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`
Payment service under serverless-offline ready in ${seconds} s
  Admin API                     http://localhost:${adminPort}   (serverless-offline: serverless.yml's http events)
  Lambda invoke endpoint        http://localhost:${lambdaPort}   (serverless-offline: ${service}-local-<function>)
  Open Payments resource server ${stack.openPaymentsUrl}   (local gateway, as under npm start)
  Open Payments auth server     ${stack.authServerUrl}   (local gateway)
  ILP connector                 ${stack.connectorUrl}   (local gateway; ILP address ${stack.env.ILP_ADDRESS})
  Queues and stream             local pollers: the payment worker, the webhook sender, the outbox relay
  Schedules                     serverless-offline: ratesRefresh, paymentIntentsExpire, liquidityWithdrawalsExpire
  DynamoDB Local ${stack.endpoints.dynamodb}   SQS ${stack.endpoints.sqs}   EventBridge ${stack.endpoints.eventbridge}   Secrets Manager ${stack.endpoints.secretsmanager}
  Data          in memory: gone at Ctrl-C (npm start keeps its data in .local/)
  Rates (pull)  ${stack.env.EXCHANGE_RATES_URL || 'none (EXCHANGE_RATES_URL unset: push rates with POST /rates)'}
  Webhooks to   ${stack.env.WEBHOOK_URL || 'none (WEBHOOK_URL unset: deliveries fail and are retried)'}
  Bundles       ${dataDir}/esbuild/   (serverless-esbuild's, for serverless-offline)

No local FSP simulator and no signing proxy here (npm start runs both). Ctrl-C stops everything.
`);
}
