import { config, node as deployment } from '../platform/config';
import { logger } from '../platform/log';
import { TENANT_ANNOTATION } from '../platform/trace-annotations';
import { annotate } from '../platform/tracing';
import { type Node, nodeFor, OPERATOR_TENANT_ID } from '../shared/node';
import { tenantId } from '../shared/values';
import { activeTenants, tenantById, tenantForWalletAddress } from '../tenants';

// The per-request context: each entry adapter (an API's stack, a queue's consumer, a schedule, the
// connector) finds which tenant it works for, and passes that tenant's node down. The operator's
// node is the deployment's settings; another tenant's is those with its own (lib/shared/node.ts nodeFor).
export { deployment };

// The node an entry adapter works for, its tenant annotated on the current trace (the local console
// shows a tenant's staff the traces of their tenant only: infra/local/emulators/traces.ts).
function working(node: Node): Node {
  annotate(TENANT_ANNOTATION, node.tenant.id);
  return node;
}

// The node of an active tenant, by id (the operator's: the deployment's, read from nothing);
// undefined when the deployment has no such tenant, or deleted it. `evenDeleted`: see tenantById.
export async function tenantNode(id: string, evenDeleted = false): Promise<Node | undefined> {
  if (id === OPERATOR_TENANT_ID || id === config.OPERATOR_TENANT_ID) return working(deployment);
  const settings = tenantId.safeParse(id).success ? await tenantById(deployment, id, evenDeleted) : undefined;
  return settings && working(nodeFor(deployment, settings));
}

// The node of the tenant whose wallet address `url` would be: the one with the longest prefix of it,
// else the operator's.
export async function walletAddressNode(url: string): Promise<Node> {
  const settings = await tenantForWalletAddress(deployment, url);
  return working(settings ? nodeFor(deployment, settings) : deployment);
}

// The tenant a queue message or a bus event is for: the outbox relay names it (lib/platform/events/relay.ts)
// on everything a tenant's change sends; nothing named: the operator.
function tenantOfMessage(body: unknown): string {
  const b = body as { tenant?: unknown; detail?: { tenant?: unknown } } | null;
  const named = b?.detail?.tenant ?? b?.tenant;
  return typeof named === 'string' ? named : OPERATOR_TENANT_ID;
}

// A message's work, on its tenant's node: a deleted tenant's too, so that what its changes left in
// flight ends as it would have. A tenant the deployment does not know fails the message, which is
// retried, and in the end kept on its dead-letter queue: nothing is dropped.
export async function onTenantOf<T>(body: unknown, work: (node: Node) => Promise<T>): Promise<T> {
  const id = tenantOfMessage(body);
  const node = await tenantNode(id, true);
  if (!node) throw new Error(`A message for tenant ${id}, which this deployment does not know`);
  return work(node);
}

// Every active tenant's node, the operator's first.
async function everyTenantNode(): Promise<Node[]> {
  return [deployment, ...(await activeTenants(deployment)).map((t) => nodeFor(deployment, t))];
}

// A schedule's work for every tenant, in turn: one tenant's failure does not keep the others'
// work from being done; the run fails after, naming those that failed. Answers each one's result.
// Its trace is the deployment's (it works for every tenant).
export async function forEachTenant<T>(work: (node: Node) => Promise<T>): Promise<T[]> {
  working(deployment);
  const results: T[] = [];
  const failed: string[] = [];
  for (const node of await everyTenantNode()) {
    try {
      results.push(await work(node));
    } catch (e) {
      logger.error('Scheduled work failed for a tenant', { tenant: node.tenant.id, error: (e as Error).message });
      failed.push(node.tenant.id);
    }
  }
  if (failed.length) throw new Error(`Scheduled work failed for tenants: ${failed.join(', ')}`);
  return results;
}
