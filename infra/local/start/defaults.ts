import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { claimData, portIsFree } from '../emulators/emulators';
import { StartError } from './listen';

// Local-only defaults. Never used on AWS, where serverless.yml takes settings from the environment.
export const LOCAL_ADMIN_API_SECRET = 'local-only-admin-secret-do-not-deploy';
// What the local consent page (the FSP simulator) sends the authorization server as x-idp-secret.
export const LOCAL_IDP_SECRET = 'local-only-idp-secret-do-not-deploy';
// The signing proxy of the API collection (bruno/): port 80, as the specification says, so that its
// URLs are plain http://localhost/<path>.
export const DEFAULT_PROXY_PORT = 80;
export const DEFAULT_PORTS = {
  console: 3000,
  admin: 3001,
  openPayments: 3002,
  fsp: 3003,
  connector: 3004,
  authServer: 3006,
  dynamodb: 8000,
  sqs: 9324,
  eventbridge: 4010,
  secretsmanager: 4012,
};

// The nodes a laptop runs side by side (`npm start`, `npm run start:node-b`, `npm run start:node-c`):
// each with its own ports, emulators, data folder (under .local/) and ILP address.
export const NODES = {
  a: { ports: DEFAULT_PORTS, ilpAddress: 'test.node-a', dataDir: '.local' },
  b: {
    ports: {
      console: 4000,
      admin: 4001,
      openPayments: 4002,
      fsp: 4003,
      connector: 4004,
      authServer: 4006,
      dynamodb: 8001,
      sqs: 9325,
      eventbridge: 4011,
      secretsmanager: 4013,
    },
    ilpAddress: 'test.node-b',
    dataDir: '.local/node-b',
  },
  // Its console's 6000 is X11's port, which browsers (and Node's fetch) refuse: CONSOLE_PORT moves it.
  c: {
    ports: {
      console: 6000,
      admin: 6001,
      openPayments: 6002,
      fsp: 6003,
      connector: 6004,
      authServer: 6006,
      dynamodb: 8002,
      sqs: 9326,
      eventbridge: 4014,
      secretsmanager: 4015,
    },
    ilpAddress: 'test.node-c',
    dataDir: '.local/node-c',
  },
};
export type NodeName = keyof typeof NODES;

// A local port from its setting (ADMIN_PORT, …), else the node's default.
export const envPort = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

// The setting that moves each local port.
export const PORT_SETTINGS: Record<keyof typeof DEFAULT_PORTS, string> = {
  console: 'CONSOLE_PORT',
  admin: 'ADMIN_PORT',
  openPayments: 'OPEN_PAYMENTS_PORT',
  fsp: 'FSP_PORT',
  connector: 'CONNECTOR_PORT',
  authServer: 'AUTH_SERVER_PORT',
  dynamodb: 'DYNAMODB_PORT',
  sqs: 'SQS_PORT',
  eventbridge: 'EVENTBRIDGE_PORT',
  secretsmanager: 'SECRETS_MANAGER_PORT',
};

// Every port of a node: each from its setting, else the node's default.
export const nodePorts = (defaults: typeof DEFAULT_PORTS) =>
  Object.fromEntries(
    Object.entries(defaults).map(([key, port]) => [key, envPort(PORT_SETTINGS[key as keyof typeof DEFAULT_PORTS], port)]),
  ) as typeof DEFAULT_PORTS;

// The ports of a stack's REST APIs but the Admin API's, and of its emulators.
export const stackPorts = (defaults: typeof DEFAULT_PORTS) => {
  const { admin: _, fsp: __, console: ___, ...ports } = nodePorts(defaults);
  return ports;
};

// `--node b` (or `c`) among a command's arguments picks that node, taken out of them; none is Node A.
export function nodeFromArgs(args: string[]): NodeName {
  const at = args.indexOf('--node');
  if (at === -1) return 'a';
  const name = args[at + 1]?.toLowerCase();
  if (!name || !Object.hasOwn(NODES, name)) {
    console.error(`--node takes a, b or c, not ${JSON.stringify(args[at + 1] ?? '')}`);
    process.exit(2);
  }
  args.splice(at, 2);
  return name as NodeName;
}

// How a command names a node: nothing for Node A, ` --node b` for B, … (for printed hints).
export const nodeFlag = (node: NodeName) => (node === 'a' ? '' : ` --node ${node}`);
export const LOCAL_WEBHOOK_SECRET = `whsec_${Buffer.from('local-only-webhook-secret-32-byte').toString('base64')}`;

// Where a node keeps its data (tables, queues, stream checkpoints, metrics) and its secrets: LOCAL_DATA_DIR, or the
// node's folder under .local/ (git-ignored).
export const dataDirOf = (root: string, node: NodeName) => resolve(root, process.env.LOCAL_DATA_DIR || NODES[node].dataDir);

// Where a running node writes its functions' environment for `serverless offline`, in its data
// folder (infra/serverless/offline.cjs reads it under this name).
export const STACK_ENV_FILE = 'stack-env.json';

// What `npm run reset` (or `npm start -- --fresh`) removes: the data, not the node's secrets (its
// STREAM and Open Payments identity), so that peers and clients still know it. Refused (StartError)
// while the node runs: while one of its ports is taken, or its data folder says its npm start
// still runs (./emulators.ts, claimData); a DynamoDB Local a crashed run left on it is stopped first.
export async function wipeData(dataDir: string, ports: typeof DEFAULT_PORTS): Promise<void> {
  for (const [key, port] of Object.entries(ports)) {
    const setting = PORT_SETTINGS[key as keyof typeof DEFAULT_PORTS];
    if (!(await portIsFree(port)))
      throw new StartError(`port ${port} (${setting}) is in use: is the node running? Stop it first (Ctrl-C); its data in ${dataDir} is left as it is`);
  }
  await claimData(dataDir);
  rmSync(join(dataDir, 'dynamodb'), { recursive: true, force: true });
  rmSync(join(dataDir, 'sqs'), { recursive: true, force: true });
  rmSync(join(dataDir, 'stream-checkpoints.jsonl'), { force: true });
  rmSync(join(dataDir, 'stream-checkpoints.json'), { force: true }); // as runs before 2026-11-30 kept them
  rmSync(join(dataDir, 'metrics.json'), { force: true });
}
