import type { RouteResponse } from '../../lib/api/routes';
import { money } from '../amounts';
import { post } from '../api';
import { created, ListPage, state, time } from '../list';
import type { PageProps } from '../pages';
import { aboutLinks, RecordPage } from '../record';

// #/liquidity-withdrawals: the two-phase withdrawals still held.

type Withdrawal = RouteResponse<'getLiquidityWithdrawal'>;

// The two-phase withdrawals still held, to post or void.
const WithdrawalsList = () => (
  <ListPage<Withdrawal>
    route="/liquidity-withdrawals"
    label="Withdrawals"
    columns={[
      state,
      { label: 'Amount', cell: (w) => money(w.amount), numeric: true },
      { label: 'From', cell: (w) => (w.peerId ? <code>peer {w.peerId}</code> : `${w.amount.assetCode} liquidity`) },
      { label: 'Voided after', cell: (w) => time(w.expiresAt) },
      created,
      { label: 'Id', cell: (w) => <code>{w.id}</code> },
    ]}
    actions={(w) => [
      {
        label: 'Post',
        what: `Post this withdrawal: ${money(w.amount)} leave the ledger, to the asset's settlement account.`,
        movesMoney: true,
        run: (key) => post(`/liquidity-withdrawals/${w.id}/post`, key),
      },
      {
        label: 'Void',
        what: `Void this withdrawal: ${money(w.amount)} go back where they came from.`,
        movesMoney: true,
        run: (key) => post(`/liquidity-withdrawals/${w.id}/void`, key),
      },
    ]}
  />
);

// #/liquidity-withdrawals (those held), or one withdrawal's page, whatever its state: #/liquidity-withdrawals/<id>.
export const WithdrawalsPage = ({ args }: PageProps) =>
  args[0] ? (
    <RecordPage
      route={`/liquidity-withdrawals/${args[0]}`}
      label="Withdrawal"
      back={{ href: '#/liquidity-withdrawals', text: 'Held withdrawals' }}
      more={(w) => <p>{aboutLinks(String(w.id))}</p>}
    />
  ) : (
    <WithdrawalsList />
  );
