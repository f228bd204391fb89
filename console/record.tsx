import type { ComponentChildren } from 'preact';
import { money } from './amounts';
import { type Amount, admin } from './api';
import { type Action, ActionButtons, Alert, Said, time, useLoaded } from './list';

// One record's page: its fields, a label and a value a line, and the links that lead from it to
// the records it names (each page of console/pages/ that shows one record by its id).
export type Row = [string, ComponentChildren];

export const RecordFields = ({ label, rows }: { label: string; rows: Row[] }) => (
  <dl class="record" aria-label={label}>
    {rows.map(([name, value]) => (
      <div key={name}>
        <dt>{name}</dt>
        <dd>{value}</dd>
      </div>
    ))}
  </dl>
);

// Above a record that has actions: back to its list, reload, its actions, and what happened.
export const RecordToolbar = (props: {
  back: { href: string; text: string };
  reload: () => void;
  actions?: Action[];
  ask: (a: Action) => void;
  error?: string;
  said?: string;
}) => (
  <div class="toolbar">
    <a href={props.back.href}>{props.back.text}</a>
    <button type="button" onClick={props.reload}>
      Reload
    </button>
    {props.actions && <ActionButtons actions={props.actions} ask={props.ask} />}
    <Alert text={props.error} />
    <Said text={props.said} />
  </div>
);

// A field as a person reads it: an amount in its units, a time as the lists show it, ids and URLs
// as code, anything else as its JSON.
const isAmount = (v: unknown): v is Amount => typeof v === 'object' && v !== null && 'assetCode' in v && 'value' in v;
function shown(name: string, value: unknown): ComponentChildren {
  if (value === null || value === undefined) return '–';
  if (isAmount(value)) return money(value);
  if (typeof value === 'string' && /At$/.test(name) && !Number.isNaN(Date.parse(value))) return time(value);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return <code>{String(value)}</code>;
  return <code class="json">{JSON.stringify(value)}</code>;
}
const fieldsOf = (r: Record<string, unknown>): Row[] => Object.entries(r).map(([name, value]) => [name, shown(name, value)]);

// A record read by its route (`/peers/<id>`), every field shown, with `more` below (links,
// lists of what it names); a missing one says so.
export function RecordPage<T extends Record<string, unknown>>(props: {
  route: string;
  label: string;
  back: { href: string; text: string };
  rows?: (r: T) => Row[];
  more?: (r: T) => ComponentChildren;
}) {
  const { value: r, error } = useLoaded(() => admin<T>('GET', props.route), props.route);
  return (
    <div class="list">
      <div class="toolbar">
        <a href={props.back.href}>{props.back.text}</a>
        <Alert text={error} />
      </div>
      {r && (
        <>
          <RecordFields label={props.label} rows={props.rows ? props.rows(r) : fieldsOf(r)} />
          {props.more?.(r)}
        </>
      )}
    </div>
  );
}

// Links from a record to what is about it elsewhere: its webhook events and its audit events.
export const aboutLinks = (id: string) => (
  <>
    <a href={`#/webhook-events/for/${id}`}>Webhook events</a> · <a href={`#/audit/for/${id}`}>Audit events</a>
  </>
);
