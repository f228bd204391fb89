import { useState } from 'preact/hooks';
import type { RouteResponse } from '../../lib/api/routes';
import { admin, may } from '../api';
import { FormDialog, type FormSpec, numberOr, text } from '../forms';
import { Alert, Said, time } from '../list';

// #/rates: look up the rate in effect for a pair; an admin pushes one.

type Rate = RouteResponse<'pushRate'>;

const pushRate: FormSpec<Rate> = {
  title: 'Push a rate',
  fields: [
    { name: 'sourceAssetCode', label: 'From', hint: 'e.g. USD' },
    { name: 'destinationAssetCode', label: 'To', hint: 'e.g. EUR' },
    { name: 'rate', label: 'Rate', hint: 'what one unit of From buys of To' },
    { name: 'peerId', label: 'Peer id', hint: 'optional: the rate given that peer' },
    { name: 'rateTtlSecs', label: 'Lives (seconds)', hint: 'optional, 3600 by default' },
  ],
  initial: {},
  send: (v, key) =>
    admin(
      'POST',
      '/rates',
      {
        sourceAssetCode: text(v, 'sourceAssetCode').toUpperCase(),
        destinationAssetCode: text(v, 'destinationAssetCode').toUpperCase(),
        rate: numberOr(text(v, 'rate')),
        ...(text(v, 'peerId') && { peerId: text(v, 'peerId') }),
        ...(text(v, 'rateTtlSecs') && { rateTtlSecs: numberOr(text(v, 'rateTtlSecs')) }),
      },
      key,
    ),
  done: (r) =>
    `Pushed ${r.sourceAssetCode} → ${r.destinationAssetCode} at ${r.rate}${r.peerId ? ` for peer ${r.peerId}` : ''}, until ${r.expiresAt ? time(r.expiresAt) : 'replaced'}`,
};

// There is no list of rates: the Admin API answers the rate in effect for one pair (and peer).
export function RatesPage() {
  const [pushing, setPushing] = useState(false);
  const [said, setSaid] = useState<string>();
  const [query, setQuery] = useState({ sourceAssetCode: '', destinationAssetCode: '', peerId: '' });
  const [rate, setRate] = useState<{
    sourceAssetCode: string;
    destinationAssetCode: string;
    rate: number;
    origin: string;
    expiresAt: string | null;
    peerId?: string;
  }>();
  const [error, setError] = useState<string>();
  const look = (e: Event) => {
    e.preventDefault();
    const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v.trim()));
    admin<typeof rate>('GET', `/rates?${q}`).then(
      (r) => {
        setRate(r);
        setError(undefined);
      },
      (e: Error) => {
        setRate(undefined);
        setError(e.message); // a Problem's message is its detail
      },
    );
  };
  const field = (name: keyof typeof query, label: string) => (
    <label>
      {label} <input value={query[name]} onInput={(e) => setQuery({ ...query, [name]: e.currentTarget.value.toUpperCase().trim() })} />
    </label>
  );
  return (
    <div class="list">
      <p class="note">
        The Admin API has no list of rates: it answers the rate in effect for one pair, pushed (<code>POST /rates</code>), pulled from the FSP or the identity,
        with its expiry. Look one up here.
      </p>
      <form class="toolbar" onSubmit={look}>
        {field('sourceAssetCode', 'From')}
        {field('destinationAssetCode', 'To')}
        <label>
          Peer id (optional) <input value={query.peerId} onInput={(e) => setQuery({ ...query, peerId: e.currentTarget.value.trim() })} />
        </label>
        <button type="submit">Look up</button>
        {may('admin') && (
          <button type="button" onClick={() => setPushing(true)}>
            {pushRate.title}
          </button>
        )}
        <Alert text={error} />
        <Said text={said} />
      </form>
      {pushing && (
        <FormDialog
          spec={pushRate}
          close={(text) => {
            setPushing(false);
            if (text) setSaid(text);
          }}
        />
      )}
      {rate && (
        <table class="records" aria-label="Rate">
          <thead>
            <tr>
              <th>Pair</th>
              <th class="numeric">Rate</th>
              <th>Origin</th>
              <th>Expires</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                {rate.sourceAssetCode} → {rate.destinationAssetCode}
                {rate.peerId && <span class="muted"> via peer {rate.peerId}</span>}
              </td>
              <td class="numeric">{rate.rate}</td>
              <td>{rate.origin}</td>
              <td>{rate.expiresAt ? time(rate.expiresAt) : 'never'}</td>
            </tr>
          </tbody>
        </table>
      )}
    </div>
  );
}
