import { LOCAL_ADMIN_API_SECRET } from '../start/defaults';
import { type Document, routeProblem } from './admin-routes';

// What one call of the CLI (./admin.ts) sends, from its arguments (--node taken out) and environment:
// the request, signed with ADMIN_API_SECRET or the local default, which is the operator's, and so
// serves `--tenant` too (the operator may act for any active tenant, docs/tenants.md). `usage`: the
// arguments make no request; `refused`: why this one is not sent.
export type AdminCall =
  | { method: string; path: string; body: string; headers: Record<string, string>; jsonOnly: boolean; field?: string; base: string; secret: string }
  | { usage: true }
  | { refused: string };

export function adminCall(args: string[], env: Record<string, string | undefined>, doc: Document, adminPort: number): AdminCall {
  const headers: Record<string, string> = {};
  const positional: string[] = [];
  let jsonOnly = false;
  let field: string | undefined;
  let tenant = env.TENANT_ID || undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-H') {
      const [name, ...value] = (args[++i] ?? '').split(':');
      headers[name.trim().toLowerCase()] = value.join(':').trim();
    } else if (args[i] === '--json') jsonOnly = true;
    else if (args[i] === '--field') field = args[++i] ?? '';
    else if (args[i] === '--tenant') tenant = args[++i] ?? '';
    else positional.push(args[i]);
  }
  const [method, path, body = ''] = positional;
  if (!method || !path || field === '' || tenant === '') return { usage: true };
  const refused = routeProblem(doc, method, path);
  if (refused) return { refused };
  if (tenant) headers['tenant-id'] = tenant;
  const base = env.ADMIN_API_URL ?? `http://localhost:${env.ADMIN_PORT ?? adminPort}`;
  return { method: method.toUpperCase(), path, body, headers, jsonOnly, field, base, secret: env.ADMIN_API_SECRET || LOCAL_ADMIN_API_SECRET };
}

// The field --field names in an answer: a dotted path (`id`, `items.0.id`), where `[name=value]`
// picks the first item of a list whose `name` is `value` (`items[code=EUR].id`): a walkthrough pasted
// again finds what it made the first time.
export function fieldOf(answer: unknown, field: string): unknown {
  let value: any = answer;
  for (const [, key, name, wanted] of field.matchAll(/\.?([^.[\]]+)|\[([^=\]]+)=([^\]]*)\]/g)) {
    if (key !== undefined) value = value?.[key];
    else value = Array.isArray(value) ? value.find((item) => String(item?.[name]) === wanted) : undefined;
  }
  return value;
}
