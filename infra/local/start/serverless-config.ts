import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Route } from '../emulators/rest-apis';

// Reads serverless.yml the way the local run needs it: `${file(...)}` includes (YAML, or a CommonJS
// module whose export, called, gives the value; `${file(x.cjs):name}` one of its fields), `${env:X, 'd'}`,
// `${opt:…, 'd'}`, `${sls:stage}`, `${sls:instanceId}`, `${self:service}` and `${param:X}` (the
// stage's `params`), where a default may be another of them (`${env:X, param:X}`). Anything else
// is an error, so the file stays within what both the Serverless Framework and this reader understand.
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface FunctionDef {
  name: string;
  handler: string; // "functions/admin/assets/create.handler"
  role: string; // its role (infra/roles.yml, or an Admin route's declaration in lib/api/routes)
  timeout: number; // seconds (its own, or the provider's)
  events: Array<Record<string, any>>;
  destinations?: { onFailure?: { arn?: unknown } };
}

export interface ServiceDef {
  service: string;
  stage: string;
  apiName: string; // the name of the serverless-managed REST API (the Admin API)
  custom: Record<string, any>;
  environment: Record<string, unknown>;
  functions: FunctionDef[];
  resources: Record<string, { Type: string; Properties?: Record<string, any> }>;
}

const VARIABLE = /\$\{([^{}]+)\}/g;

interface Context {
  stage: string;
  service: string;
  params: Record<string, Record<string, unknown>>;
}

function resolveVariable(expr: string, ctx: Context): unknown {
  // CloudFormation's own substitutions in Fn::Sub (${AWS::Region}, ${SomeResource.Arn}) stay.
  if (/^(AWS::\w+|[A-Za-z0-9]+(\.\w+)?)$/.test(expr.trim())) return `\${${expr}}`;
  const bool = /^strToBool\((.*)\)$/s.exec(expr.trim());
  if (bool) return bool[1].trim() === 'true';
  const [source, ...rest] = expr.split(',');
  const other = rest.join(',').trim();
  // A default is a literal ('d', 400) or another source (param:X).
  const fallback = !rest.length ? undefined : /^\w+:/.test(other) ? resolveVariable(other, ctx) : other.replace(/^'(.*)'$/, '$1');
  const [kind, name] = source.trim().split(/:(.*)/s);
  if (kind === 'env') return process.env[name] ?? fallback;
  if (kind === 'opt' && name === 'stage') return ctx.stage;
  if (kind === 'opt') return fallback;
  if (kind === 'sls' && name === 'stage') return ctx.stage;
  if (kind === 'sls' && name === 'instanceId') return 'local';
  if (kind === 'self' && name === 'service') return ctx.service;
  if (kind === 'param') return ctx.params[ctx.stage]?.[name] ?? ctx.params.default?.[name] ?? fallback;
  throw new Error(`serverless.yml: the local run does not understand \${${expr}}`);
}

function resolve(value: unknown, ctx: Context): unknown {
  if (typeof value === 'string') {
    const include = /^\$\{file\(([^)]+)\)(?::(\w+))?\}$/.exec(value);
    if (include) {
      const [, file, field] = include;
      const whole = read(file) as any;
      return resolve(field === undefined ? whole : whole[field], ctx);
    }
    // Innermost variables first, so that one may sit in another's default.
    let text = value;
    for (;;) {
      const whole = /^\$\{([^{}]+)\}$/.exec(text);
      if (whole) return resolveVariable(whole[1], ctx);
      const next = text.replace(VARIABLE, (_, expr) => String(resolveVariable(expr, ctx) ?? ''));
      if (next === text) return text;
      text = next;
    }
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, ctx));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, ctx)]));
  }
  return value;
}

// What a CommonJS module of ours gives serverless.yml (infra/serverless/admin-routes.cjs: the Admin API's
// functions and roles, from the routes' declarations).
function fromModule(file: string): any {
  const exported = createRequire(import.meta.url)(join(ROOT, file));
  return typeof exported === 'function' ? exported() : exported;
}

// What serverless.yml and the files it includes hold, each read once for the process: resolving
// them costs about a second (YAML, the routes' TypeScript through tsx), which every stack a process
// starts paid again. `resolve` copies what it is given, so no read value is handed out to change.
const files = new Map<string, unknown>();
const read = (file: string): unknown => {
  if (!files.has(file)) files.set(file, file.endsWith('.cjs') ? fromModule(file) : parse(readFileSync(join(ROOT, file), 'utf8')));
  return files.get(file);
};
// The files' values as read, for another process: LOCAL_SERVERLESS_FILES, a JSON file of them,
// is taken instead of reading them (the test run reads them once in its global setup and writes
// it, and every process of the run saves the second: test/harness/global-setup.ts).
export function serverlessFiles(): Record<string, unknown> {
  serverlessYml();
  return Object.fromEntries(files);
}
// A file that cannot be read, or is not such a JSON object, stops the process with one line naming
// the setting (it is read as this module loads, before any start-up's own error handling).
const given = process.env.LOCAL_SERVERLESS_FILES;
if (given) {
  let read: unknown;
  try {
    read = JSON.parse(readFileSync(given, 'utf8'));
  } catch (e) {
    throw new Error(`LOCAL_SERVERLESS_FILES names ${given}, which is not a readable JSON file: ${(e as Error).message}`);
  }
  if (!read || typeof read !== 'object' || Array.isArray(read))
    throw new Error(`LOCAL_SERVERLESS_FILES names ${given}, which holds no object of serverless.yml's files`);
  for (const [file, value] of Object.entries(read)) files.set(file, value);
}

// A map, or a list of maps merged (serverless.yml's functions, custom.roles).
const merged = (value: any): Record<string, any> => (Array.isArray(value) ? Object.assign({}, ...value) : (value ?? {}));

// serverless.yml resolved for `stage`, its functions in one map: as the Framework hands it to plugins.
export function serverlessYml(stage = 'local'): any {
  const raw = read('serverless.yml') as any;
  const doc = resolve(raw, { stage, service: raw.service, params: raw.params ?? {} }) as any;
  return { ...doc, functions: merged(doc.functions) };
}

export function loadService(stage = 'local'): ServiceDef {
  const doc = serverlessYml(stage);
  return {
    service: doc.service,
    stage,
    apiName: doc.provider.apiName,
    custom: { ...doc.custom, roles: merged(doc.custom?.roles) },
    environment: doc.provider.environment ?? {},
    functions: Object.entries(doc.functions as Record<string, any>).map(([name, f]) => ({
      name,
      handler: f.handler,
      role: f.role,
      timeout: Number(f.timeout ?? doc.provider.timeout),
      events: f.events ?? [],
      destinations: f.destinations,
    })),
    resources: doc.resources.Resources,
  };
}

// The routes of the serverless-managed REST API (the Admin API): the functions' `http` events.
export function eventRoutes(functions: FunctionDef[]): Route[] {
  return functions.flatMap((fn) =>
    fn.events.flatMap((e) => {
      const spec = e.http;
      if (!spec) return [];
      const cognito = spec.authorizer?.type === 'COGNITO_USER_POOLS';
      return [{ method: String(spec.method).toUpperCase(), path: spec.path, fn, iam: spec.authorizer === 'aws_iam', ...(cognito && { cognito }) }];
    }),
  );
}
