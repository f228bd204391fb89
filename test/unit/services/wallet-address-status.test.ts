import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../../../lib/ledger-check';
import { createIntent } from '../../../lib/payment-intents';
import { createPayment, fundPayment, getPayment } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { db } from '../../../lib/platform/db';
import { createWalletAddress, getWalletAddress, updateWalletAddress } from '../../../lib/wallet-addresses';
import { inMemory, memoryWorld, refusal, runPaymentWorker } from '../../harness/in-memory';

// A wallet address's status, its local rules in memory: an inactive one (frozen by the FSP) refuses
// new intents, quotes, payments and fundings, and what is in flight stays whole; the status another
// container set, or none (written before statuses), is read as DynamoDB holds it. A peer's packets,
// Open Payments and the Admin API's answers are test/integration/wallet-address-status.test.ts's.
const mem = inMemory({}, { fresh: 'file' });
let alice: string; // always active
beforeAll(async () => {
  ({ alice } = await memoryWorld(mem));
});

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
let n = 0;
const newWallet = (name: string) =>
  createWalletAddress(mem.node, { address: `${mem.node.urls.walletAddresses}/${name}-${++n}`, assetCode: 'USD' } as never) as Promise<{
    id: string;
    address: string;
  }>;
const setStatus = (id: string, status: string) => updateWalletAddress(mem.node, id, { status } as never);
const intent = (walletAddress: string) => createIntent(mem.node, { walletAddress } as never);
const quote = (walletAddress: string, receiver: string, value: string) =>
  createQuote(mem.node, { walletAddress, receiver, receiveAmount: usd(value) } as never);
const quoted = async (from: string, receiver: string, value: string) =>
  createPayment(mem.node, { walletAddress: from, quoteId: (await quote(from, receiver, value)).id } as never);
async function funded(payment: { id: string }) {
  await fundPayment(mem.node, payment.id);
  await runPaymentWorker(mem);
  return getPayment(mem.node, payment.id);
}
// What another container (or a version before statuses) wrote on both of a wallet address's records.
async function onRecords(wallet: { id: string; address: string }, change: { UpdateExpression: string; ExpressionAttributeValues?: Record<string, string> }) {
  for (const pk of [`WAURL#${wallet.address}`, `WA#${wallet.id}`])
    await db().send(new UpdateCommand({ TableName: mem.node.tables.main, Key: { pk, sk: 'WA' }, ExpressionAttributeNames: { '#s': 'status' }, ...change }));
}

describe('an inactive wallet address', () => {
  it('refuses new intents, quotes, payments and fundings (422 wallet_address_inactive), and takes them again once active', async () => {
    const shop = await newWallet('shop');
    const sender = await newWallet('sender');
    const i = await intent(alice);
    const q = await quote(sender.address, i.id, '100');
    const unfunded = await quoted(sender.address, i.id, '100');

    await setStatus(shop.id, 'inactive');
    await setStatus(sender.id, 'inactive');
    const refusals = [
      await refusal(intent(shop.address)),
      await refusal(quote(sender.address, i.id, '100')),
      await refusal(createPayment(mem.node, { walletAddress: sender.address, quoteId: q.id } as never)),
      await refusal(fundPayment(mem.node, unfunded.id)),
    ];
    expect(refusals).toEqual(Array(4).fill('422 wallet_address_inactive'));
    // Nothing changed: the quote is still free, the payment still unfunded.
    expect((await getPayment(mem.node, unfunded.id)).state).toBe('funding');

    await setStatus(sender.id, 'active');
    expect((await createPayment(mem.node, { walletAddress: sender.address, quoteId: q.id } as never)).state).toBe('funding');
    expect((await funded(unfunded)).state).toBe('completed');
    expect((await checkLedger(mem.node)).balanced).toBe(true);
  });

  it('set by another container meanwhile, refuses the next intent and quote though this one had cached it active', async () => {
    const wallet = await newWallet('elsewhere');
    expect((await intent(wallet.address)).state).toBe('pending'); // read, and kept
    // What an update served by another container writes, which this one's copy does not see.
    await onRecords(wallet, { UpdateExpression: 'SET #s = :s', ExpressionAttributeValues: { ':s': 'inactive' } });
    expect(await refusal(intent(wallet.address))).toBe('422 wallet_address_inactive');
    const i = await intent(alice);
    expect(await refusal(quote(wallet.address, i.id, '1'))).toBe('422 wallet_address_inactive');
  });

  it('is active when stored before statuses were (no status on its records): it pays and is paid', async () => {
    const old = await newWallet('legacy');
    await onRecords(old, { UpdateExpression: 'REMOVE #s' });
    expect((await getWalletAddress(mem.node, old.id)).status).toBe('active');
    const i = await intent(old.address);
    expect((await funded(await quoted(alice, i.id, '100'))).state).toBe('completed');
    const back = await intent(alice);
    expect((await funded(await quoted(old.address, back.id, '50'))).state).toBe('completed');
  });

  it('lets a payment funded before the freeze complete', async () => {
    const sender = await newWallet('in-flight');
    const i = await intent(alice);
    const payment = await quoted(sender.address, i.id, '100');
    await fundPayment(mem.node, payment.id);
    await setStatus(sender.id, 'inactive');
    await runPaymentWorker(mem);
    expect((await getPayment(mem.node, payment.id)).state).toBe('completed');
    expect((await checkLedger(mem.node)).balanced).toBe(true);
  });
});
