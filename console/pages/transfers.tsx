import { useEffect, useState } from 'preact/hooks';
import { money } from '../amounts';
import type { Transfer } from '../api';
import { ListPage, time, transfersOf } from '../list';
import type { PageProps } from '../pages';

// #/transfers: one account's transfers.

// GET /ledger/transfers: one account's transfers, newest first, paged; the account is the page's
// argument (#/transfers/<account>), reached from the ledger check and the records' pages, or typed.
export function TransfersPage({ args }: PageProps) {
  const account = args[0] ?? '';
  const [typed, setTyped] = useState(account);
  useEffect(() => setTyped(account), [account]); // a link to another account
  const show = (e: Event) => {
    e.preventDefault();
    location.hash = `#/transfers/${typed.trim()}`;
  };
  const accountCell = (id: string) => (id === account ? <code>{id}</code> : transfersOf(id, id));
  return (
    <div class="list">
      <p class="note">
        Each transfer that moved money in or out of one account, newest first: its kind, what it belongs to, and the amount that left (−) or came in. They sum
        to the account's balance. Name the account as the ledger check does: <code>liquidity:</code>, <code>settlement:</code>, <code>fee:</code> and an asset's
        id; <code>peer:</code>, <code>intent:</code>, <code>payment:</code> and the record's id; <code>hold:</code> (a payment's) and <code>withdrawal:</code>{' '}
        (a two-phase withdrawal's), the record's id and the asset's.
      </p>
      <form class="toolbar" onSubmit={show}>
        <label>
          Account <input size={56} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <button type="submit">Show</button>
      </form>
      {account && (
        <ListPage<Transfer>
          key={account}
          route="/ledger/transfers"
          query={{ account }}
          label="Transfers"
          columns={[
            { label: 'Time', cell: (t) => time(t.createdAt) },
            { label: 'Kind', cell: (t) => t.kind },
            { label: 'Of', cell: (t) => <code title={t.resource.id}>{`${t.resource.type} ${t.resource.id.slice(0, 8)}`}</code> },
            { label: 'Amount', cell: (t) => money({ ...t.amount, value: t.direction === 'debit' ? `-${t.amount.value}` : t.amount.value }), numeric: true },
            { label: 'Debit', cell: (t) => accountCell(t.debitAccount) },
            { label: 'Credit', cell: (t) => accountCell(t.creditAccount) },
          ]}
        />
      )}
    </div>
  );
}
