import * as z from 'zod';
import { ilpErrors } from '../ilp/errors';
import { completeRemoteIncomingPayment, createRemoteIncomingPayment, readIncomingPayment, receiverFailure } from '../open-payments/client';
import { completeIntent, createIntent, getIntentRecord, intentView } from '../payment-intents';
import type { IntentRecord } from '../payment-intents/schemas';
import { amount } from '../shared/amounts';
import type { Node } from '../shared/node';
import { localIntentId } from '../shared/resources';
import { isUnderBase } from '../shared/wallet-address-url';
import { tenantForWalletAddress } from '../tenants';
import type { CreateReceiver, Receiver } from './schemas';

// Receivers (Rafiki's createReceiver, receiver and completeReceiver): an incoming payment made,
// read or completed wherever its wallet address lives. Under this node's wallet addresses it is a
// payment intent, with every rule intents have; elsewhere, the other node's incoming payment, over
// Open Payments as this node's own client (lib/open-payments/client.ts).

const local = (node: Node, r: IntentRecord): Receiver => {
  const view = intentView(node, r);
  return {
    id: view.url,
    walletAddressUrl: r.walletAddress,
    completed: r.state === 'completed',
    incomingAmount: view.incomingAmount,
    receivedAmount: view.receivedAmount,
    expiresAt: r.expiresAt,
    metadata: r.metadata,
    createdAt: r.createdAt,
  };
};

// Another node's answer is checked here (the client does not validate it): not an incoming payment is a 502.
const remoteIncomingPayment = z.object({
  id: z.url(),
  walletAddress: z.url(),
  completed: z.boolean(),
  incomingAmount: amount.optional(),
  receivedAmount: amount,
  expiresAt: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
});
function remote(url: string, answer: unknown): Receiver {
  const parsed = remoteIncomingPayment.safeParse(answer);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw ilpErrors.receiverInvalid(`The answer for ${url} is not an Open Payments incoming payment: ${issue?.path.join('.')} ${issue?.message}`);
  }
  const p = parsed.data;
  return {
    id: p.id,
    walletAddressUrl: p.walletAddress,
    completed: p.completed,
    incomingAmount: p.incomingAmount ?? null,
    receivedAmount: p.receivedAmount,
    expiresAt: p.expiresAt ?? null,
    metadata: p.metadata ?? null,
    createdAt: p.createdAt,
  };
}

// A URL this deployment serves for another of its tenants (or for the operator, to a tenant) names
// nothing here: tenants reach each other only as other nodes' clients do, from their own systems to
// each other's Open Payments, never through this node's Admin API on their behalf (which would make
// grants and incoming payments in the other's key space).
async function anotherTenants(node: Node, url: string): Promise<boolean> {
  if (URL.canParse(url) && new URL(url).origin === node.deploymentOrigin) return true;
  return (await tenantForWalletAddress(node, url)) !== undefined;
}

export async function createReceiver(node: Node, input: CreateReceiver): Promise<Receiver> {
  const { walletAddressUrl, ...rest } = input;
  if (isUnderBase(walletAddressUrl, node.urls.walletAddresses)) return local(node, await createIntent(node, { walletAddress: walletAddressUrl, ...rest }));
  if (await anotherTenants(node, walletAddressUrl)) throw ilpErrors.receiverNotFound(`No wallet address at ${walletAddressUrl}`);
  try {
    return remote(walletAddressUrl, await createRemoteIncomingPayment(node, walletAddressUrl, rest));
  } catch (e) {
    throw receiverFailure(e, walletAddressUrl, 'make an incoming payment', `No wallet address at ${walletAddressUrl}`);
  }
}

export async function getReceiver(node: Node, { url }: { url: string }): Promise<Receiver> {
  const id = localIntentId(node, url);
  if (id) return local(node, await getIntentRecord(node, id));
  if (await anotherTenants(node, url)) throw ilpErrors.receiverNotFound(`No incoming payment at ${url}`);
  try {
    return remote(url, await readIncomingPayment(node, url));
  } catch (e) {
    throw receiverFailure(e, url, 'read the incoming payment');
  }
}

export async function completeReceiver(node: Node, { url }: { url: string }): Promise<Receiver> {
  const id = localIntentId(node, url);
  if (id) return local(node, await completeIntent(node, id));
  if (await anotherTenants(node, url)) throw ilpErrors.receiverNotFound(`No incoming payment at ${url}`);
  try {
    return remote(url, await completeRemoteIncomingPayment(node, url));
  } catch (e) {
    throw receiverFailure(e, url, 'complete the incoming payment');
  }
}
