import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Role } from '../lib/shared/operators';
import { money, toUnits, units } from './amounts';
import { type Amount, admin, may, type Page, post, type Transfer } from './api';
import { FormDialog, type FormSpec } from './forms';

// What the back-office pages share: one Admin API list read page by page (newest first, as the
// routes answer), its filters, and actions that ask for confirmation before they run.

// What the last form or action did, where the page says it.
export const Said = ({ text }: { text?: string }) =>
  text ? (
    <span class="said" role="status">
      {text}
    </span>
  ) : null;

// What went wrong, where the page says it.
export const Alert = ({ text }: { text?: string }) =>
  text ? (
    <span class="error" role="alert">
      {text}
    </span>
  ) : null;

export const time = (iso: string) => new Date(iso).toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'medium' });

// Columns, completions, links and actions that several pages share.
export const created = { label: 'Created', cell: (r: { createdAt: string }) => time(r.createdAt) };
export const state = { label: 'State', cell: (r: { state: string }) => <span class={`state ${r.state}`}>{r.state}</span> };
// Each record of a page read again by id, for what the list leaves out (liquidity).
export const withDetails =
  <T extends { id: string }>(route: string) =>
  (items: T[]) =>
    Promise.all(items.map((i) => admin<T>('GET', `${route}/${i.id}`)));

// A link to an account's transfers (the Transfers page), the account named as the ledger check names it.
export const transfersOf = (account: string, label = 'Transfers') => <a href={`#/transfers/${account}`}>{label}</a>;
// An asset's own accounts, each a link to its transfers.
export const assetAccounts = (assetId: string) => (
  <>
    {transfersOf(`liquidity:${assetId}`, 'Liquidity')} {transfersOf(`settlement:${assetId}`, 'Settlement')} {transfersOf(`fee:${assetId}`, 'Fees')}
  </>
);

// Deposit, withdraw and hold (a two-phase withdrawal), for an asset's or a peer's liquidity.
export const liquidityActions = (route: string, id: string, name: string, code: string, scale: number): Action[] => [
  {
    label: 'Deposit',
    needs: 'admin',
    what: `Deposit liquidity to ${name}: the amount leaves the asset's settlement account.`,
    movesMoney: true,
    amountOf: { code, scale },
    run: (key, amount) => post(`${route}/${id}/liquidity`, key, { amount }),
  },
  {
    label: 'Withdraw',
    needs: 'admin',
    what: `Withdraw liquidity from ${name} to the asset's settlement account.`,
    movesMoney: true,
    amountOf: { code, scale },
    run: (key, amount) => post(`${route}/${id}/liquidity-withdrawals`, key, { amount }),
  },
  {
    label: 'Hold',
    needs: 'admin',
    what: `Hold liquidity of ${name} while your bank transfer runs: post it on the Withdrawals page once it went through, or void it. Unposted, it is voided after LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS.`,
    movesMoney: true,
    amountOf: { code, scale },
    run: (key, amount) => post(`${route}/${id}/liquidity-withdrawals`, key, { amount, twoPhase: true }),
  },
];

// Every transfer of an account (GET /ledger/transfers, page by page), and what they leave it holding,
// in its asset's minor units.
export async function accountTransfers(account: string): Promise<Transfer[]> {
  const all: Transfer[] = [];
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const q = new URLSearchParams({ account, limit: '100', ...(cursor && { cursor }) });
    const page: Page<Transfer> = await admin('GET', `/ledger/transfers?${q}`);
    all.push(...page.items);
    cursor = page.nextCursor;
  }
  return all;
}
export const heldBy = (transfers: Transfer[]) =>
  transfers.reduce((sum, t) => sum + (t.direction === 'debit' ? -BigInt(t.amount.value) : BigInt(t.amount.value)), 0n);
const held = async (account: string) => heldBy(await accountTransfers(account));
// A page's records with what each holds, for those that may hold something (the others: 0).
export const withHeld =
  <T extends { id: string; state: string }>(kind: 'intent' | 'payment', mayHold: readonly string[]) =>
  (items: T[]) =>
    Promise.all(items.map(async (r) => ({ ...r, held: mayHold.includes(r.state) ? await held(`${kind}:${r.id}`) : 0n })));
// A withdrawal's answer, said: what left, or that nothing did.
export const withdrew = (r: { withdrawnAmount: Amount }) =>
  r.withdrawnAmount.value === '0' ? 'Nothing withdrawn: it held nothing' : `Withdrew ${money(r.withdrawnAmount)} to the FSP`;

// An action a row offers. `amountOf` asks for an amount at that asset's scale, `asksReason` for a
// reason (a line of text); `movesMoney` sends an
// Idempotency-Key, one per dialog: confirming again after an answer that never came (a dropped
// connection, a 502) replays that answer rather than moving the money twice.
export interface Action {
  label: string;
  needs?: Role; // the role it needs (lib/api/routes neededRole): operator (a row action) unless it says

  what: string;
  movesMoney?: boolean;
  amountOf?: { code: string; scale: number };
  asksReason?: boolean;
  run: (key: string | undefined, amount: string | undefined, reason: string) => Promise<unknown>;
  said?: (answer: never) => string; // what the answer means, said on the page after (a withdrawal's amount)
}

export interface Filter {
  name: string;
  label: string;
  options?: readonly string[]; // a choice; without, free text
}

export interface Column<T> {
  label: string;
  cell: (item: T) => ComponentChildren;
  numeric?: boolean;
}

export interface ListProps<T> {
  route: string;
  query?: Record<string, string>; // what the route always takes (GET /ledger/transfers's account)
  label: string; // what the table holds, for its name: "Payments"
  columns: Column<T>[];
  filters?: Filter[];
  // What each page's items need beyond the list route (an asset's liquidity, say), read per page.
  complete?: (items: T[]) => Promise<T[]>;
  actions?: (item: T) => Action[];
  more?: (item: T) => ComponentChildren; // a cell of details opened on demand
  create?: FormSpec<T>; // a form that makes a record, offered above the list
  change?: (item: T) => FormSpec<T>; // a form that changes one, offered on its row
}

// Loads `load` when the page opens, when `key` (what it loads) changes, and on reload(); the last
// value stays shown meanwhile, and what went wrong is said.
export function useLoaded<T>(load: () => Promise<T>, key: string) {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (v) => {
        if (!live) return;
        setValue(v);
        setError(undefined);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [key, version]);
  return { value, error, reload: () => setVersion((v) => v + 1) };
}

export function ListPage<T extends { id: string }>(props: ListProps<T>) {
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [cursors, setCursors] = useState<string[]>([]); // the cursors of the pages before this one, and this one's
  const [form, setForm] = useState<FormSpec<T>>();
  const query = new URLSearchParams({ ...props.query, ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), limit: '20' });
  if (cursors.length) query.set('cursor', cursors.at(-1)!);
  const path = `${props.route}?${query}`;
  const {
    value: page,
    error,
    reload,
  } = useLoaded(async () => {
    const p = await admin<Page<T>>('GET', path);
    return { ...p, items: props.complete ? await props.complete(p.items) : p.items };
  }, path);
  const { ask, said, setSaid, confirming } = useActions(reload);
  const filter = (name: string, value: string) => {
    setFilters({ ...filters, [name]: value });
    setCursors([]);
  };
  return (
    <div class="list">
      <div class="toolbar">
        {props.filters?.map((f) =>
          f.options ? (
            <label key={f.name}>
              {f.label}{' '}
              <select value={filters[f.name] ?? ''} onChange={(e) => filter(f.name, e.currentTarget.value)}>
                <option value="">any</option>
                {f.options.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            </label>
          ) : (
            <label key={f.name}>
              {f.label} <input type="search" value={filters[f.name] ?? ''} onChange={(e) => filter(f.name, e.currentTarget.value.trim())} />
            </label>
          ),
        )}
        <button type="button" onClick={reload}>
          Reload
        </button>
        {props.create && may('admin') && (
          <button type="button" onClick={() => setForm(props.create)}>
            {props.create.title}
          </button>
        )}
        <Alert text={error} />
        <Said text={said} />
      </div>
      {page && (
        <table class="records" aria-label={props.label}>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th key={c.label} class={c.numeric ? 'numeric' : undefined}>
                  {c.label}
                </th>
              ))}
              {props.more && <th />}
              {(props.actions || props.change) && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {page.items.map((item) => (
              <tr key={item.id} data-id={item.id}>
                {props.columns.map((c) => (
                  <td key={c.label} class={c.numeric ? 'numeric' : undefined}>
                    {c.cell(item)}
                  </td>
                ))}
                {props.more && <td>{props.more(item)}</td>}
                {(props.actions || props.change) && (
                  <td class="actions">
                    {props.change && may('admin') && (
                      <button type="button" onClick={() => setForm(props.change!(item))}>
                        Change
                      </button>
                    )}
                    {props.actions && <ActionButtons actions={props.actions(item)} ask={ask} />}
                  </td>
                )}
              </tr>
            ))}
            {!page.items.length && (
              <tr>
                <td class="empty" colSpan={props.columns.length + 2}>
                  Nothing here
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      <div class="pager">
        {cursors.length > 0 && (
          <button type="button" onClick={() => setCursors([])}>
            First page
          </button>
        )}
        <span>Page {cursors.length + 1}</span>
        {page?.nextCursor && (
          <button type="button" onClick={() => setCursors([...cursors, page.nextCursor!])}>
            Next page
          </button>
        )}
      </div>
      {form && (
        <FormDialog
          spec={form}
          close={(text) => {
            setForm(undefined);
            if (text === undefined) return;
            setSaid(text);
            reload();
          }}
        />
      )}
      {confirming}
    </div>
  );
}

// The actions of a page: the one asked for, confirmed in its dialog; then what it did, said, and
// the page loaded again (`reload`). `setSaid` says what a form did.
export function useActions(reload: () => void) {
  const [asking, setAsking] = useState<Action>();
  const [said, setSaid] = useState<string>();
  const confirming = asking && (
    <Confirm
      action={asking}
      done={(changed, text) => {
        setAsking(undefined);
        if (!changed) return;
        setSaid(text);
        reload();
      }}
    />
  );
  return { ask: setAsking, said, setSaid, confirming };
}

// The confirmation an action asks for, in the page: it runs only on "Confirm", and a refusal
// shows the problem's detail here, leaving the dialog open. "Close" leaves it undone (never
// "Cancel", which a payment's own action is called).
function Confirm({ action, done }: { action: Action; done: (changed: boolean, said?: string) => void }) {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [refused, setRefused] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [key] = useState(() => crypto.randomUUID());
  const value = action.amountOf ? toUnits(amount, action.amountOf.scale) : undefined;
  const confirm = async () => {
    setBusy(true);
    try {
      const answer = await action.run(action.movesMoney ? key : undefined, value, reason);
      done(true, action.said?.(answer as never));
    } catch (e) {
      setRefused((e as Error).message); // a Problem's message is its detail
      setBusy(false);
    }
  };
  return (
    <div class="backdrop">
      <div role="dialog" aria-modal="true" aria-label={action.label} class="dialog">
        <h2>{action.label}</h2>
        <p>{action.what}</p>
        {action.amountOf && (
          <label>
            Amount{' '}
            <input inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} placeholder={units('0', action.amountOf.scale)} />{' '}
            {action.amountOf.code}
          </label>
        )}
        {action.asksReason && (
          <label>
            Reason <input value={reason} onInput={(e) => setReason(e.currentTarget.value)} maxLength={500} />
          </label>
        )}
        {refused && (
          <p class="error" role="alert">
            {refused}
          </p>
        )}
        <div class="buttons">
          <button type="button" disabled={busy} onClick={() => done(false)}>
            Close
          </button>
          <button
            type="button"
            class="primary"
            disabled={busy || (action.amountOf !== undefined && value === undefined) || (action.asksReason === true && !reason.trim())}
            onClick={confirm}
          >
            Confirm
          </button>
        </div>
      </div>
    </div>
  );
}

// The actions the signed-in operator's role allows, as buttons that ask before they run.
export function ActionButtons(props: { actions: Action[]; ask: (a: Action) => void }) {
  return (
    <>
      {props.actions
        .filter((a) => may(a.needs ?? 'operator'))
        .map((a) => (
          <button type="button" key={a.label} onClick={() => props.ask(a)}>
            {a.label}
          </button>
        ))}
    </>
  );
}
