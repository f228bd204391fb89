// What a function's bundle can do on AWS, read from the bundle `serverless package` built (minified
// JavaScript and its source map), as "service:Action Resource" lines to compare with its role.
//
// The method, and why it is sound enough:
// - Calls: the AWS SDK's command classes in the bundle (`class extends <client>(…, "GetItem", …)`),
//   and lib-dynamodb's, which wrap one each (`clientCommand = new <command>(…)`); a call is a
//   `new` of one of them. (A class alone proves nothing: esbuild keeps every class a bundled
//   module declares, e.g. Query and Scan for lib-dynamodb's paginators.)
// - Modules: the source map says which source file each call, setting read or literal is in, so
//   each is attributed to its module.
// - Tables: a call acts on the tables its own module reads (`node.tables.main`, which lib/shared/node.ts
//   fills from MAIN_TABLE; or the setting itself); a shared helper
//   that reads none (lib/table.ts's queries) acts on every table the function's other modules read;
//   Powertools idempotency acts on IDEMPOTENCY_TABLE. An index named in a module is queried.
//   Transactions (lib/platform/tx commit) need the actions of the items the bundle builds (`Put: {…}`,
//   `Update`, `Delete`, `ConditionCheck`), each on its module's table, not their own name; so
//   does a write made from such an item (`new PutCommand(item.Put)`).
// - Queues: the one named at the call (`QueueUrl: node.queues.webhooks`); else the queue the function
//   consumes (its SQS event source), or, for the outbox relay, every queue a function names (where
//   outbox messages go). Buses: those the calling module reads.
// - Secrets: the names our modules pass to lib/platform/secrets (`secret(node, 'ADMIN_API_SECRET')`), read by
//   staging label; a tenant's own (TENANT_SECRETS) under `tenants/*/` too. Any other call (create,
//   delete) is on the tenants' secrets, which are the only ones the service makes; but the rotation
//   function's (lib/platform/rotation.ts), on every secret it rotates, the deployment's and the tenants'. S3: the action
//   lib/platform/s3.ts names at each call, on the audit bucket (AUDIT_BUCKET). execute-api: a SigV4 signer for it may invoke the template's IAM-authorized routes.
// - Functions: a Lambda Invoke (the console's hand-off, lib/api/http/console.ts) may call the function of
//   any route of the Admin API (the `http` events), but its own; a RotateSecret (a tenant's secrets
//   made) needs to invoke the rotation function the template's rotation schedules name. Each through
//   its alias where the function has one (infra/serverless/safe-deploy.cjs): `<id>:<alias>`.
// - What Lambda does with the function's role: read its event sources (queue, stream) and send to
//   the on-failure destinations of those and of its async invocations (from the template).
// - Bundled but never run: the Admin stack's Idempotency-Key layer outside POST routes, and its
//   signature replay guard and its operators' audit writes in GET routes (lib/api/http/admin.ts runs
//   them by method: reads are not audited); the outbox item
//   (lib/platform/tx) where the bundle makes no event or message (commit writes none then), and its
//   author stamp's copy of an update (the caller's own update is counted where it is built).
// It errs on the side of more: code a function bundles but could only reach by another path still
// counts, as the role must allow all that its code can call.

import { TENANT_SECRETS } from '../../lib/platform/secrets';

export interface Bundle {
  code: string;
  map: { sources: string[]; mappings: string };
}

type Resources = Record<string, { Type: string; Properties: any }>;

export interface FunctionContext {
  id: string; // the template's logical id, e.g. AssetsGetLambdaFunction
  method?: string; // its Admin API route's method
  resources: Resources;
  // Queue settings (PAYMENTS_QUEUE_URL, …) any function reads: where outbox messages can go.
  outboxQueues: Set<string>;
  // The logical ids of the Admin API's functions (its `http` events'): what an Invoke may call.
  adminFunctions?: string[];
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// For each generated line, its segments' [column, source index], in order (source map v3 VLQ).
function decodeMappings(mappings: string): Array<Array<[number, number]>> {
  const lines: Array<Array<[number, number]>> = [];
  let source = 0;
  for (const line of mappings.split(';')) {
    const segments: Array<[number, number]> = [];
    let column = 0;
    for (const segment of line.split(',')) {
      if (!segment) continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0];
      if (fields.length > 1) {
        source += fields[1];
        segments.push([column, source]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

function moduleLocator({ code, map }: Bundle): (at: number) => string {
  const lines = decodeMappings(map.mappings);
  const starts = [0];
  for (let i = code.indexOf('\n'); i !== -1; i = code.indexOf('\n', i + 1)) starts.push(i + 1);
  return (at) => {
    let line = starts.length - 1;
    while (starts[line] > at) line--;
    const column = at - starts[line];
    const segments = lines[line] ?? [];
    let found = -1;
    for (let lo = 0, hi = segments.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      if (segments[mid][0] <= column) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // (node_modules as the repository's, also where it is a link to another checkout's: a worktree)
    return found < 0 ? '' : map.sources[segments[found][1]].replace(/^(\.\.\/)+/, '').replace(/^(?:[^/]+\/)*?node_modules\//, 'node_modules/');
  };
}

export interface Found {
  module: string;
  what: string; // "DynamoDB.GetItem", "item:Put", "setting:MAIN_TABLE", "index:Lists", "secret:…", "execute-api"
  queueAtCall?: string; // a queue setting named at an SQS call
}

// Everything the derivation looks at in one bundle, by module.
export function scanBundle(bundle: Bundle): Found[] {
  const { code } = bundle;
  const moduleAt = moduleLocator(bundle);
  const clients = new Map<string, string>(); // command factory -> client ("DynamoDB")
  for (const m of code.matchAll(/([\w$]+)=[\w$]+\([\w$]+,"[\w.]+","(\w+)Client",[\w$]+\)/g)) clients.set(m[1], m[2]);
  const commands = new Map<string, string>(); // class -> "DynamoDB.GetItem"
  for (const m of code.matchAll(/([\w$]+)=class extends ([\w$]+)\([\w$]+,[\w$]+,"(\w+)",[\w$]+\)\{\}/g)) {
    const client = clients.get(m[2]);
    if (client) commands.set(m[1], `${client}.${m[3]}`);
  }
  for (const m of code.matchAll(/([\w$]+)=class extends [\w$]+\{input;[\s\S]{0,800}?this\.clientCommand=new ([\w$]+)\(/g)) {
    const wrapped = commands.get(m[2]);
    if (wrapped) commands.set(m[1], wrapped);
  }
  // The node's fields (lib/shared/node.ts nodeOf: `tables: { main: c.MAIN_TABLE, … }`, `eventBus: …`):
  // "tables.main" -> MAIN_TABLE. Code reads the node's fields; only nodeOf reads the settings.
  const SETTING = /(\w+):[\w$]+\.([A-Z][A-Z0-9_]*_(?:TABLE|QUEUE_URL|BUS_NAME))\b/g;
  const fields = new Map<string, string>();
  const definitions = new Set<number>(); // where nodeOf reads a setting: not a use
  for (const group of code.matchAll(/(\w+):\{((?:\w+:[\w$]+\.[A-Z][A-Z0-9_]*,?)+)\}/g))
    for (const m of group[2].matchAll(SETTING)) {
      fields.set(`${group[1]}.${m[1]}`, m[2]);
      definitions.add(group.index! + group[1].length + 2 + m.index! + m[0].indexOf('.'));
    }
  const nested = new Set([...fields.keys()].map((f) => f.split('.')[1]));
  for (const m of code.matchAll(SETTING))
    if (!nested.has(m[1])) {
      fields.set(m[1], m[2]);
      definitions.add(m.index! + m[0].indexOf('.'));
    }
  const settingOf = (path: string) => fields.get(path) ?? (/^[A-Z][A-Z0-9_]*_(TABLE|QUEUE_URL|BUS_NAME)$/.test(path) ? path : undefined);

  const found: Found[] = [];
  for (const m of code.matchAll(/(clientCommand=)?new ([\w$]+)\((\{QueueUrl:[\w$]+\.([\w.]+)|[\w$]+\.(?:Put|Update|Delete)\))?/g)) {
    const command = commands.get(m[2]);
    // A lib-dynamodb wrapper's own command, or a write made from a transaction's item (its kind counts).
    if (!command || m[1] || (m[3] && !m[4])) continue;
    const queue = m[4] && settingOf(m[4]);
    found.push({ module: moduleAt(m.index), what: command, ...(queue && { queueAtCall: queue }) });
  }
  const add = (re: RegExp, what: (m: RegExpMatchArray) => string) => {
    for (const m of code.matchAll(re)) found.push({ module: moduleAt(m.index!), what: what(m) });
  };
  const paths = [...fields.keys()].map((f) => f.replace('.', '\\.'));
  for (const m of code.matchAll(new RegExp(`\\.(${[...paths, '[A-Z][A-Z0-9_]*_(?:TABLE|QUEUE_URL|BUS_NAME)'].join('|')})\\b`, 'g')))
    if (!definitions.has(m.index!)) found.push({ module: moduleAt(m.index!), what: `setting:${settingOf(m[1])}` });
  add(/[{,](Put|Update|Delete|ConditionCheck):\{/g, (m) => `item:${m[1]}`);
  add(/"([A-Z][A-Z0-9_]*_SECRET)"/g, (m) => `secret:${m[1]}`);
  add(/"(\w+)"/g, (m) => `literal:${m[1]}`);
  add(/service:"execute-api"/g, () => 'execute-api');
  add(/"(s3:\w+)"/g, (m) => m[1]); // lib/platform/s3.ts names each call's IAM action
  add(/kind:"(?:event|message)"/g, () => 'outgoing');
  return found.filter((f) => f.module && (f.what.startsWith('literal:') ? ours(f.module) : true));
}

const ours = (module: string) => /^(lib|functions)\//.test(module);
const SECRETS_READER = 'lib/platform/secrets.ts'; // names the tenants' secrets for all; its callers name what they read
const TENANTS_SECRETS = 'tenants/*';
const ROTATION = 'lib/platform/rotation.ts'; // the rotation function's steps, on the secrets it rotates
const IDEMPOTENCY_LAYER = /(^|\/)node_modules\/@aws-lambda-powertools\/idempotency\//; // (a worktree may link node_modules from elsewhere)
const REPLAY_GUARD = 'lib/api/http/store.ts'; // the Admin API's used signatures
const AUDIT_TRAIL = 'lib/audit/store.ts'; // operators' actions: its writes (reads are GET /audit-events')
const OUTBOX = 'lib/platform/tx.ts'; // where commit writes the outbox item
const ITEM_ACTIONS: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };
// IAM actions of SDK operations that authorize as another (a batch as its single form; a
// transaction as its items, counted apart).
const AS_ACTION: Record<string, string | null> = {
  'DynamoDB.TransactWriteItems': null,
  'SQS.SendMessageBatch': 'sqs:SendMessage',
  'SQS.ChangeMessageVisibilityBatch': 'sqs:ChangeMessageVisibility',
  'SQS.DeleteMessageBatch': 'sqs:DeleteMessage',
  'Lambda.Invoke': 'lambda:InvokeFunction',
};
const SERVICE: Record<string, string> = { DynamoDB: 'dynamodb', SQS: 'sqs', EventBridge: 'events', SecretsManager: 'secretsmanager', Lambda: 'lambda' };

// "service:Action Resource" lines the function needs.
export function neededAccess(fn: FunctionContext, found: Found[]): Set<string> {
  const { resources } = fn;
  const props = resources[fn.id].Properties;
  const variables: Record<string, any> = props.Environment?.Variables ?? {};
  const refOf = (setting: string) => {
    const ref = variables[setting]?.Ref;
    if (!ref) throw new Error(`${fn.id} reads ${setting}, which its environment does not name a resource by`);
    return ref as string;
  };
  const unreachable = (f: Found) =>
    (fn.method && fn.method !== 'POST' && IDEMPOTENCY_LAYER.test(f.module)) ||
    (fn.method === 'GET' && f.module === REPLAY_GUARD) ||
    (fn.method === 'GET' && f.module === AUDIT_TRAIL && /^(item:Put|DynamoDB\.PutItem)$/.test(f.what)) ||
    (f.module === OUTBOX && f.what.startsWith('item:') && !found.some((o) => o.what === 'outgoing')) ||
    // commit's author stamp rebuilds an update its caller made: no kind of write of its own
    (f.module === OUTBOX && f.what === 'item:Update');
  const inScope = found.filter((f) => !unreachable(f));
  const settingsOf = (module: string, suffix: string) =>
    [...new Set(inScope.filter((f) => f.module === module && f.what.startsWith('setting:') && f.what.endsWith(suffix)).map((f) => f.what.slice(8)))].filter(
      (s) => s !== 'IDEMPOTENCY_TABLE', // configures Powertools idempotency, whose calls go to it
    );
  const tablesOfOurs = [...new Set(inScope.filter((f) => ours(f.module)).flatMap((f) => settingsOf(f.module, '_TABLE')))];
  const tablesFor = (module: string) => {
    if (IDEMPOTENCY_LAYER.test(module)) return ['IDEMPOTENCY_TABLE'];
    if (!ours(module)) throw new Error(`${fn.id}: ${module} calls DynamoDB on a table this derivation cannot tell`);
    const own = settingsOf(module, '_TABLE');
    return own.length ? own : tablesOfOurs;
  };
  // What a mapping calls: the function, or its alias (infra/serverless/safe-deploy.cjs), which the
  // service's stack names by the Deployments stack's output of the alias's name.
  const called = (ref: any): string | undefined => {
    const [id, attribute] = ref?.['Fn::GetAtt'] ?? [ref?.Ref];
    const alias = attribute?.startsWith('Outputs.') ? resources[attribute.slice(8)] : resources[id];
    if (alias?.Type !== 'AWS::Lambda::Alias') return id;
    return Object.keys(resources).find(
      (f) => resources[f].Type === 'AWS::Lambda::Function' && resources[f].Properties.FunctionName === alias.Properties.FunctionName,
    );
  };
  // A function as an invocation names it: through its alias, if it has one.
  const invoked = (id: string) => {
    const alias = Object.values(resources).find((r) => r.Type === 'AWS::Lambda::Alias' && r.Properties.FunctionName === resources[id].Properties.FunctionName);
    return alias ? `${id}:${alias.Properties.Name}` : id;
  };
  const consumed = Object.values(resources)
    .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && called(r.Properties.FunctionName) === fn.id)
    .map((r) => r.Properties);
  const needs = new Set<string>();
  const need = (action: string, resource: string) => needs.add(`${action} ${resource}`);

  for (const f of inScope) {
    if (f.what.startsWith('item:') && ours(f.module)) {
      for (const t of tablesFor(f.module)) need(`dynamodb:${ITEM_ACTIONS[f.what.slice(5)]}`, refOf(t));
      continue;
    }
    if (f.what.startsWith('literal:')) {
      // An index named in our code is queried.
      const name = f.what.slice(8);
      for (const [id, r] of Object.entries(resources))
        if (r.Type === 'AWS::DynamoDB::Table' && (r.Properties.GlobalSecondaryIndexes ?? []).some((i: any) => i.IndexName === name))
          need('dynamodb:Query', `${id}/index`);
      continue;
    }
    if (f.what.startsWith('s3:')) {
      // The one bucket the functions call (AUDIT_BUCKET): ListBucket on it, the rest on its objects.
      need(f.what, f.what === 's3:ListBucket' ? refOf('AUDIT_BUCKET') : `${refOf('AUDIT_BUCKET')}/objects`);
      continue;
    }
    if (f.what === 'execute-api') {
      for (const r of Object.values(resources))
        if (r.Type === 'AWS::ApiGateway::Method' && r.Properties.AuthorizationType === 'AWS_IAM')
          // A path variable is any one segment, as IAM's ARN says it (`*`).
          need(
            'execute-api:Invoke',
            `${r.Properties.RestApiId.Ref} ${r.Properties.HttpMethod} ${pathOf(resources, r.Properties.ResourceId).replace(/\{[^}]+\}/g, '*')}`,
          );
      continue;
    }
    const [client, operation] = f.what.split('.');
    if (!operation) continue;
    const action = AS_ACTION[f.what] === undefined ? `${SERVICE[client]}:${operation}` : AS_ACTION[f.what];
    if (!action) continue;
    if (client === 'DynamoDB') for (const t of tablesFor(f.module)) need(action, refOf(t));
    else if (client === 'SQS') {
      const queues = f.queueAtCall
        ? [f.queueAtCall]
        : consumed.some((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'Arn')
          ? consumed.filter((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'Arn').map((m) => `=${m.EventSourceArn['Fn::GetAtt'][0]}`)
          : consumed.some((m) => m.EventSourceArn['Fn::GetAtt'][1] === 'StreamArn')
            ? [...fn.outboxQueues]
            : [];
      if (!queues.length) throw new Error(`${fn.id}: ${f.module} calls SQS on a queue this derivation cannot tell`);
      for (const q of queues) need(action, q.startsWith('=') ? q.slice(1) : refOf(q));
    } else if (client === 'EventBridge') {
      const buses = settingsOf(f.module, '_BUS_NAME');
      if (!buses.length) throw new Error(`${fn.id}: ${f.module} calls EventBridge on a bus this derivation cannot tell`);
      for (const b of buses) need(action, refOf(b));
    } else if (client === 'SecretsManager' && found.some((o) => o.module === ROTATION)) {
      // The rotation function: each call on the secret Secrets Manager names, a rotated one, the deployment's or a tenant's.
      for (const name of TENANT_SECRETS) need(action, `secret:${name}`);
      need(action, `secret:${TENANTS_SECRETS}`);
    } else if (client === 'SecretsManager') {
      if (action !== 'secretsmanager:GetSecretValue') {
        need(action, `secret:${TENANTS_SECRETS}`);
        if (action === 'secretsmanager:RotateSecret')
          for (const r of Object.values(resources))
            if (r.Type === 'AWS::SecretsManager::RotationSchedule') need('lambda:InvokeFunction', invoked(called(r.Properties.RotationLambdaARN)!));
        continue;
      }
      const names = [
        ...new Set(inScope.filter((s) => s.what.startsWith('secret:') && ours(s.module) && s.module !== SECRETS_READER).map((s) => s.what.slice(7))),
      ];
      for (const name of names) {
        need(action, `secret:${name}`);
        if ((TENANT_SECRETS as readonly string[]).includes(name)) need(action, `secret:${TENANTS_SECRETS}/${name}`);
      }
    } else if (client === 'Lambda' && action === 'lambda:InvokeFunction') {
      for (const id of fn.adminFunctions ?? []) if (id !== fn.id) need(action, invoked(id));
    } else throw new Error(`${fn.id}: no resource rule for ${f.what}`);
  }
  // What Lambda itself does with the function's role.
  for (const m of consumed) {
    const [source, attr] = m.EventSourceArn['Fn::GetAtt'];
    const actions =
      attr === 'StreamArn'
        ? ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams']
        : ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
    for (const a of actions) need(a, attr === 'StreamArn' ? `${source}/stream` : source);
    const destination = m.DestinationConfig?.OnFailure?.Destination?.['Fn::GetAtt']?.[0];
    if (destination) need('sqs:SendMessage', destination);
  }
  for (const r of Object.values(resources))
    if (r.Type === 'AWS::Lambda::EventInvokeConfig' && r.Properties.FunctionName.Ref === fn.id) {
      const destination = r.Properties.DestinationConfig?.OnFailure?.Destination?.['Fn::GetAtt']?.[0];
      if (destination) need('sqs:SendMessage', destination);
    }
  return needs;
}

// A REST API resource's path, from its parents.
const pathOf = (resources: Resources, id: any): string =>
  id?.Ref ? `${pathOf(resources, resources[id.Ref].Properties.ParentId)}/${resources[id.Ref].Properties.PathPart}` : '';

// The same lines for what a role's policies allow.
export function grantedAccess(role: { Properties: any }): Set<string> {
  const grants = new Set<string>();
  for (const policy of role.Properties.Policies ?? [])
    for (const st of policy.PolicyDocument.Statement) {
      if (st.Effect !== 'Allow') continue;
      for (const action of [st.Action].flat()) for (const resource of [st.Resource].flat()) grants.add(`${action} ${resourceKey(resource)}`);
    }
  return grants;
}

function resourceKey(r: any): string {
  const getAtt = r?.['Fn::GetAtt'];
  if (getAtt) return getAtt[1] === 'StreamArn' ? `${getAtt[0]}/stream` : getAtt[0];
  const joined = r?.['Fn::Join']?.[1];
  if (joined?.[0]?.['Fn::GetAtt'] && joined[1] === 'index') return `${joined[0]['Fn::GetAtt'][0]}/index`;
  if (joined?.[0]?.['Fn::GetAtt'] && joined[1] === '*') return `${joined[0]['Fn::GetAtt'][0]}/objects`;
  const sub: string | undefined = r?.['Fn::Sub'];
  const qualified = sub && /^\$\{(\w+)\.Arn\}:(\w+)$/.exec(sub); // a function's alias
  if (qualified) return `${qualified[1]}:${qualified[2]}`;
  const secret = sub && /:secret:[^/]+\/[^/]+\/((?:tenants\/\*\/)?[A-Z_]+-\?{6}|tenants\/\*)$/.exec(sub);
  if (secret) return `secret:${secret[1].replace(/-\?{6}$/, '')}`;
  const route = sub && /:\$\{(\w+)\}\/\*\/([A-Z]+)(\/.*)$/.exec(sub);
  if (route) return `${route[1]} ${route[2]} ${route[3]}`;
  return JSON.stringify(r);
}
