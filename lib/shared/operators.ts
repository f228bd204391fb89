// Who acts on the Admin API: one of the FSP's machines (a request signed with an Admin API secret),
// or a named operator signed in to the console (Amazon Cognito on AWS, the local user store under
// `npm start`), whose groups are roles. A signed request may do anything its tenant may; an
// operator, what the role allows: a viewer reads, an operator also takes the row actions (approve,
// cancel, withdraw, post, void, revoke), an admin also creates and changes.
export const roles = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof roles)[number];

export type Actor =
  | { kind: 'machine'; name: string; role: 'admin' }
  // `tenant`: the one tenant an operator works for; none: the deployment's operator's staff, who may
  // switch to any tenant.
  | { kind: 'operator'; name: string; role: Role; tenant?: string };

export type Operator = Extract<Actor, { kind: 'operator' }>;

export const MACHINE: Actor = { kind: 'machine', name: 'admin-api', role: 'admin' };

// The claims an API Gateway Cognito authorizer passes a function (requestContext.authorizer.claims):
// strings, a list of groups as "[a b]" or "a,b". Answers undefined for a request no authorizer
// verified (the signed Admin API: no claims) or whose operator is in no role's group.
export function operatorOf(claims: Record<string, unknown> | undefined | null): Operator | undefined {
  if (!claims) return undefined;
  const name = String(claims.email ?? claims['cognito:username'] ?? '');
  const raw = claims['cognito:groups'];
  const groups = Array.isArray(raw)
    ? raw.map(String)
    : String(raw ?? '')
        .replace(/^\[|\]$/g, '')
        .split(/[\s,]+/);
  const role = [...roles].reverse().find((r) => groups.includes(r));
  if (!name || !role) return undefined;
  const tenant = typeof claims['custom:tenant'] === 'string' && claims['custom:tenant'] ? claims['custom:tenant'] : undefined;
  return { kind: 'operator', name, role, ...(tenant && { tenant }) };
}

// Whether `actor` may do what needs `needed`.
export const allows = (actor: Actor, needed: Role): boolean => roles.indexOf(actor.role) >= roles.indexOf(needed);
