import type { RouteResponse } from '../../lib/api/routes';
import { ListPage, time } from '../list';

// The audit trail (GET /audit-events, docs/audit.md): what each operator signed in to the console
// did, newest first; a resource links to the console's page of its kind, where it has one.
type AuditEvent = RouteResponse<'listAuditEvents'>['items'][number];

const PAGE_OF: Record<string, string> = {
  asset: 'assets',
  'wallet-address': 'wallet-addresses',
  'payment-intent': 'payment-intents',
  payment: 'payments',
  peer: 'peers',
  'liquidity-withdrawal': 'liquidity-withdrawals',
  'webhook-event': 'webhook-events',
  rate: 'rates',
};

const resource = ({ resource: r }: AuditEvent) => {
  const page = PAGE_OF[r.type];
  const kind = page ? <a href={`#/${page}`}>{r.type}</a> : r.type;
  return (
    <>
      {kind} {r.id && <code>{r.id}</code>}
    </>
  );
};

export const AuditPage = () => (
  <ListPage<AuditEvent>
    route="/audit-events"
    label="Audit events"
    filters={[
      { name: 'actor', label: 'Who' },
      { name: 'outcome', label: 'Outcome', options: ['succeeded', 'refused'] },
      { name: 'action', label: 'Action' },
      { name: 'resourceId', label: 'Resource id' },
      { name: 'from', label: 'From' },
      { name: 'to', label: 'To' },
    ]}
    columns={[
      { label: 'When', cell: (e) => time(e.at) },
      { label: 'Who', cell: (e) => e.actor.name },
      { label: 'Role', cell: (e) => e.actor.role ?? e.actor.kind },
      { label: 'Action', cell: (e) => <code>{e.action}</code> },
      { label: 'Resource', cell: resource },
      { label: 'Outcome', cell: (e) => <span class={`state ${e.outcome}`}>{e.outcome}</span> },
      { label: 'Answer', cell: (e) => `${e.status ?? ''}${e.code ? ` ${e.code}` : ''}`, numeric: true },
    ]}
  />
);
