import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ROOT, serverlessYml } from '../../../infra/local/start/serverless-config';
import { unzip } from '../../../infra/local/tools/zip';
// @ts-expect-error a serverless plugin, in CommonJS without types
import DeployChecks from '../../../infra/serverless/deploy-checks.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { STACKS } from '../../../infra/serverless/nested-stacks.cjs';
import { waitFor } from '../../harness/wait';
import type { Bundle } from '../../readers/bundle-access';

// `serverless package` offline, with dummy credentials, and a look at what it would deploy: the
// production template (stage prod in eu-west-1, with the settings docs/deploy.md gives and every
// feature on), packaged once for the whole test run and read by every file of test/tooling/package/
// (`beforeAll(loadPackaged, BACKSTOP_MS)`); refused settings are refused before anything is built,
// in a few seconds. The timeouts are backstops for a loaded machine: each test waits for its
// packaging process to end.
//
// Packaged once: the run's global setup (test/harness/global-setup.ts) gives it a folder of its own,
// so two runs at once never share one. The first file to ask claims the packaging there (a file
// made only if it is not there yet) and writes what it made; every other file of the run waits for
// that, and fails with it if it failed, or if the process that claimed it ended first. A file that
// makes another whole package (localstack.test.ts, from this one's bundles) makes it after this one:
// two at once in one checkout would share serverless-esbuild's work folder (.esbuild/), which each removes at its end
// (so two test runs at once want a checkout each, as before). A refused package stops before it
// builds anything, so those run meanwhile.
export type Resource = {
  Type: string;
  Properties: any;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Condition?: string;
  DependsOn?: string[];
  Metadata?: any;
};
export type Template = {
  Conditions: Record<string, unknown>;
  Resources: Record<string, Resource>;
  Outputs: Record<string, any>;
  Parameters?: Record<string, unknown>;
};
// The service's stack, and the stacks nested in it by the logical id of each (OpenPayments: the
// Open Payments APIs' routes and stages; Monitoring: the alarms and the dashboard).
export let template: Template;
export let nested: Record<string, Template>;
// Every resource the deploy makes: the service's stack's, and each nested stack's as the service's
// stack gets them (inlined).
export let deployed: Record<string, Resource>;
export let packagedDir: string; // its bundles
export let packagedBy: number | undefined; // the pid of the packaging process

export const STAGE = 'prod';
export const REGION = 'eu-west-1';
// What a deployer must set (serverless.yml has no default for them).
export const REQUIRED = {
  ILP_ADDRESS: 'g.example.wallet',
  WALLET_ADDRESS_URL: 'https://wallet.example.com',
  AUTH_SERVER_URL: 'https://auth.wallet.example.com',
};
export const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
export const COPY_VAULT = 'arn:aws:backup:eu-central-1:123456789012:backup-vault:payment-service-copies';
export const PRODUCTION = {
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
  KEY_ADMIN_ROLE_ARN: 'arn:aws:iam::123456789012:role/security/payment-service-key-admin',
  DEPLOY_ROLE_ARN: 'arn:aws:iam::123456789012:role/payment-service-deploy',
  BREAK_GLASS_ROLE_ARNS: 'arn:aws:iam::123456789012:role/break-glass/ledger-reader',
};
export const packageEnv: NodeJS.ProcessEnv = {
  ...process.env,
  ...PRODUCTION,
  AWS_ACCESS_KEY_ID: 'dummy',
  AWS_SECRET_ACCESS_KEY: 'dummy',
  SLS_TELEMETRY_DISABLED: '1',
};
// The test run's own log level (vitest.config.ts: SILENT) is not the deploy's.
for (const name of ['ALARMS_UNSUBSCRIBED', 'ADMIN_OPEN_TO_INTERNET', 'ALARM_TOPIC_ARN', 'KMS_KEY_ARN', 'STAGE', 'POWERTOOLS_LOG_LEVEL', 'TRAFFIC_SHIFT'])
  delete packageEnv[name];

type Run = { code: number; output: string; pid?: number };
// A command run to its end: its exit code and everything it printed.
export function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(command, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, (e, stdout, stderr) =>
      done({ code: e ? Number(e.code ?? 1) : 0, output: `${stdout}${stderr}`, pid: child.pid }),
    );
  });
}
const SLS = join(ROOT, 'node_modules/.bin/serverless');

// The run's folder for packages (test/harness/global-setup.ts), which the run removes at its end.
function runFolder(): string {
  const folder = inject('packageFolder');
  if (!folder) throw new Error('no package folder: the package tests run in the integration project (vitest.config.ts), whose global setup makes it');
  return folder;
}

// `serverless package` of the production stage with `changes` to its settings (undefined: unset);
// `args` instead of the stage and region. Each into a folder of its own, not there before.
// `bundlesOf`: a package of the same code whose function zips it packages instead of bundling again
// (serverless.yml, reuseBundles: the bundles depend on no setting).
export async function slsPackage(changes: Record<string, string | undefined>, args = ['--stage', STAGE, '--region', REGION], bundlesOf?: string) {
  const env = { ...packageEnv, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete env[name];
  const dir = join(mkdtempSync(join(runFolder(), 'package-')), 'out');
  if (bundlesOf) {
    mkdirSync(dir);
    for (const zip of readdirSync(bundlesOf).filter((f) => f.endsWith('.zip'))) copyFileSync(join(bundlesOf, zip), join(dir, zip));
    args = [...args, '--param', 'reuseBundles=true'];
  }
  return { ...(await run(SLS, ['package', '--package', dir, ...args], env)), dir };
}
export const BACKSTOP_MS = 20 * 60_000; // a full package on a loaded 2-core machine takes minutes

// What the deploy checks (infra/serverless/deploy-checks.cjs) refuse, with `changes` to the production
// settings (undefined: unset), as `serverless package` runs them before it builds anything: here in
// this process, on serverless.yml as the local run resolves it, since a `serverless package` for each
// costs seconds of CPU. One package refused for real (settings.test.ts) shows the plugin's place in packaging.
// `stage`: another stage than prod, with the same settings.
export function refusal(changes: Record<string, string | undefined>, stage = STAGE): string {
  const saved = { ...process.env };
  const env: NodeJS.ProcessEnv = { ...packageEnv, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete env[name];
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  try {
    const { provider, functions } = serverlessYml(stage);
    const serverless = { serviceDir: ROOT, service: { provider, functions }, classes: { Error } };
    new DeployChecks(serverless, { stage, region: REGION }).hooks['before:package:initialize']();
    return '';
  } catch (e) {
    return `Error:\n${(e as Error).message}`;
  } finally {
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

// Whether the process `pid` still runs.
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// The production package of this run: made here if no other file claimed it first, else waited for.
async function packagedOnce(): Promise<Run & { dir: string }> {
  const claim = join(runFolder(), 'production.claim');
  const made = join(runFolder(), 'production.json');
  try {
    writeFileSync(claim, String(process.pid), { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const read = () => (existsSync(made) ? JSON.parse(readFileSync(made, 'utf8')) : undefined);
    return waitFor(
      'the production package, which another test file of this run makes',
      async () => {
        const packaging = read();
        if (packaging) return packaging;
        const owner = Number(readFileSync(claim, 'utf8')); // 0 for an instant: claimed, its pid not yet written
        if (!owner || alive(owner)) return undefined;
        const late = read(); // written just before it ended
        if (late) return late;
        throw new Error(`process ${owner} claimed the production package and ended without it`);
      },
      BACKSTOP_MS,
      100,
    );
  }
  const packaging = await slsPackage({});
  writeFileSync(`${made}.part`, JSON.stringify(packaging));
  renameSync(`${made}.part`, made); // whole, or not there
  return packaging;
}

let loading: Promise<void> | undefined;
// Reads the run's production package into `template`, `nested`, `deployed`, `packagedDir` and
// `packagedBy`, once per file.
export const loadPackaged = () => (loading ??= load());
async function load() {
  const { code, output, dir, pid } = await packagedOnce();
  if (code !== 0) throw new Error(`serverless package failed:\n${output}`);
  packagedBy = pid;
  template = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  nested = Object.fromEntries(STACKS.map((s: { name: string; file: string }) => [s.name, JSON.parse(readFileSync(join(dir, s.file), 'utf8'))]));
  deployed = Object.fromEntries(Object.entries(template.Resources).filter(([id]) => !nested[id]));
  for (const name of Object.keys(nested)) Object.assign(deployed, inlined(name));
  deployed = withoutOutputs(deployed);
  packagedDir = dir;
}

// Roles name a secret by ARN pattern (its name and Secrets Manager's six random characters), so that
// a stack using retained ones (SECRETS_EXISTING) grants the same.
export const secretArn = (name: string) => ({
  'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:payment-service/${STAGE}/${name}-??????`,
});
export const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
export const ofType = (type: string) => Object.entries(deployed).filter(([, r]) => r.Type === type);
export const functionId = (name: string) => `${name[0].toUpperCase()}${name.slice(1)}LambdaFunction`;
// A nested stack's resources as the plugins made them, before they were nested: each parameter put
// back as what the service's stack passes it.
export function inlined(name: string): Record<string, Resource> {
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
// The function that `node` (a reference to what an API route, a permission, a schedule or a queue
// calls) names: the function's ARN, or its alias's (infra/serverless/safe-deploy.cjs), which the
// service's stack gets as an output of the Deployments stack.
export function calledFunction(node: any): string | undefined {
  const [stack, output] = node?.['Fn::GetAtt'] ?? [];
  if (nested[stack] && output?.startsWith('Outputs.')) return calledFunction(nested[stack].Outputs[output.slice(8)].Value);
  const id = node?.['Fn::GetAtt']?.[1] === 'Arn' ? node['Fn::GetAtt'][0] : node?.Ref;
  const r = deployed[id];
  if (r?.Type === 'AWS::Lambda::Function') return id;
  if (r?.Type !== 'AWS::Lambda::Alias') return undefined;
  return Object.keys(deployed).find((f) => deployed[f].Type === 'AWS::Lambda::Function' && deployed[f].Properties.FunctionName === r.Properties.FunctionName);
}
// `resources` with each reference to a nested stack's output (Fn::GetAtt [Stack, Outputs.X], or
// ${Stack.Outputs.X} in Fn::Sub) put back as what the output is: as the plugins made them.
function withoutOutputs(resources: Record<string, Resource>): Record<string, Resource> {
  const outputOf = (stack: string, output: string) => nested[stack]?.Outputs?.[output]?.Value;
  const resolve = (node: any): any => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!node || typeof node !== 'object') return node;
    const [stack, attribute] = node['Fn::GetAtt'] ?? [];
    if (attribute?.startsWith('Outputs.') && outputOf(stack, attribute.slice(8))) return outputOf(stack, attribute.slice(8));
    if (typeof node['Fn::Sub'] === 'string')
      return {
        'Fn::Sub': node['Fn::Sub'].replace(/\$\{(\w+)\.Outputs\.(\w+)\}/g, (whole: string, stack: string, output: string) => {
          const value = outputOf(stack, output);
          return !value ? whole : value.Ref ? `\${${value.Ref}}` : `\${${value['Fn::GetAtt'].join('.')}}`;
        }),
      };
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  return resolve(resources);
}
// The alarms and the dashboard as alarms.cjs made them.
export const monitored = () => inlined('Monitoring');
// What a template names (Ref, Fn::GetAtt, Fn::Sub, DependsOn) that it does not have: not one of its
// resources or parameters, nor an output of a stack nested in it.
export function unnamed(t: Template): string[] {
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
export const functionRoles = () =>
  ofType('AWS::IAM::Role').filter(([, r]) => r.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service === 'lambda.amazonaws.com');
export const STAGE_KEY = { 'Fn::GetAtt': ['StageKey', 'Arn'] };
export const alarmsOf = () => Object.entries(monitored()).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
// A function's bundle as serverless packaged it: its JavaScript and source map.
export function bundleOf(fn: string): Bundle {
  const files = unzip(join(packagedDir, `${fn}.zip`));
  const [name, code] = [...files].find(([file]) => file.endsWith('.js'))!;
  return { code: code.toString('latin1'), map: JSON.parse(files.get(`${name}.map`)!.toString('utf8')) };
}
