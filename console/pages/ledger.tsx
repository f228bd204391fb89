import { useEffect, useState } from 'preact/hooks';
import type { RouteResponse } from '../../lib/api/routes';
import { LEDGER_SCALE } from '../../lib/shared/ledger-scale';
import { ledgerUnits } from '../amounts';
import { admin } from '../api';
import { Alert, assetAccounts, time } from '../list';

// #/ledger: the ledger check.

type LedgerCheck = RouteResponse<'checkLedger'>;

// GET /ledger/check: the Admin API sums each asset's accounts server-side (the console cannot: no
// route gives settlement balances), green when every sum is zero.
export function LedgerPage() {
  const [check, setCheck] = useState<LedgerCheck>();
  const [error, setError] = useState<string>();
  const run = () =>
    admin<LedgerCheck>('GET', '/ledger/check').then(
      (c) => {
        setCheck(c);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    run();
  }, []);
  return (
    <div class="list">
      <p class="note">
        Double entry: each asset's accounts (its liquidity, settlement and fees, the intents', payments', peers', holds' and withdrawals') sum to zero. The
        Admin API sums them on the server by reading every account, so check on a quiet ledger: a payment moving meanwhile can show as a difference.
      </p>
      <div class="toolbar">
        <button type="button" onClick={run}>
          Check again
        </button>
        {check && (
          <span class={`ledger ${check.balanced ? 'ok' : 'alarm'}`} role="status">
            {check.balanced ? 'Balanced' : 'Not balanced'} · {check.accounts} accounts · {time(check.checkedAt)}
          </span>
        )}
        <Alert text={error} />
      </div>
      {check && (
        <table class="records" aria-label="Ledger check">
          <thead>
            <tr>
              <th>Asset</th>
              <th class="numeric">Accounts</th>
              <th class="numeric">Sum</th>
              <th>Check</th>
              <th>Transfers</th>
            </tr>
          </thead>
          <tbody>
            {check.assets.map((a) => (
              <tr key={a.assetId} data-asset={a.assetCode} data-asset-id={a.assetId}>
                <td>
                  <strong>{a.assetCode}</strong>
                </td>
                <td class="numeric">{a.accounts}</td>
                <td class="numeric">{ledgerUnits(a.sum, LEDGER_SCALE, a.assetScale)}</td>
                <td>
                  <span class={`badge ${a.balanced ? 'ok' : 'alarm'}`}>{a.balanced ? 'zero' : 'not zero'}</span>
                </td>
                <td>{assetAccounts(a.assetId)}</td>
              </tr>
            ))}
            {check.unattributed.map((u) => (
              <tr key={u.account}>
                <td>
                  <code>{u.account}</code> <span class="muted">no record</span>
                </td>
                <td class="numeric">1</td>
                <td class="numeric">{ledgerUnits(u.balance, LEDGER_SCALE, 0)}</td>
                <td>
                  <span class="badge alarm">unattributed</span>
                </td>
                <td />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
