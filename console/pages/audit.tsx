import type { RouteResponse } from '../../lib/api/routes';
import { recordPage } from '../kinds';
import { ListPage, time } from '../list';
import type { PageProps } from '../pages';

// The audit trail (GET /audit-events, docs/audit.md): every change and each operator's refused
// action, newest first; a resource links to its record's page, where it has one. #/audit/for/<id>:
// what was done to one record.
type AuditEvent = RouteResponse<'listAuditEvents'>['items'][number];

const resource = ({ resource: r }: AuditEvent) => {
  const href = recordPage(r.type, r.id);
  const shown = r.id ? (
    <>
      {r.type} <code>{r.id}</code>
    </>
  ) : (
    r.type
  );
  return href ? <a href={href}>{shown}</a> : shown;
};

export function AuditPage({ args }: PageProps) {
  if (args[0] === 'for') return <AuditList query={{ resourceId: args[1] ?? '' }} />;
  return <AuditList />;
}

const AuditList = ({ query }: { query?: Record<string, string> }) => (
  <ListPage<AuditEvent>
    key={JSON.stringify(query)}
    route="/audit-events"
    query={query}
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
