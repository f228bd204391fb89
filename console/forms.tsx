import { useState } from 'preact/hooks';
import { toUnits } from './amounts';
import type { Problem } from './api';

// The forms that create and change records (assets, wallet addresses, peers, rates), each in a
// dialog. The page turns what was typed into the Admin API's body; the API validates it, and each
// of its field errors (problem+json `errors`) is shown at the field it names. A success closes the
// dialog and says what it did (`FormSpec.done`).

export type Values = Record<string, string | boolean>;

export interface Field {
  name: string; // the body's field, as the API's errors name it (without "body."): "sendingFee.fixed"
  label: string;
  options?: readonly string[]; // a choice
  checkbox?: boolean;
  hint?: string; // e.g. "at scale 2", "one a line"
}

export interface FormSpec<R = unknown> {
  title: string; // the dialog's name and what its button does: "New asset"
  fields: Field[];
  initial?: Values;
  // Sends the form; a POST that creates sends `key` as its Idempotency-Key, so that a second click
  // (or a retry after a lost answer) makes one record.
  send: (values: Values, key: string) => Promise<R>;
  done: (answer: R) => string; // what changed, said on the page after
}

// A field's typed amount at `scale` as the integer string the API takes ("92.5" at 2 is "9250");
// undefined when empty, and what was typed when it is no amount (the API says why, at the field).
export function minorUnits(text: string, scale: number): string | undefined {
  const typed = text.trim();
  if (!typed) return undefined;
  return toUnits(typed, scale) ?? (/^0*\.?0*$/.test(typed) ? '0' : typed);
}

// A number typed in a field, or the text as typed for the API to refuse at that field.
export const numberOr = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

// What a form typed, as text ('' for an empty field or an unticked box).
export const text = (v: Values, name: string) => String(v[name] ?? '').trim();
// A form's field that changes a record: undefined when it is as it was, null when emptied (cleared).
export const edited = (v: Values, was: Values, name: string, value: (typed: string) => unknown) =>
  text(v, name) === text(was, name) ? undefined : text(v, name) === '' ? null : value(text(v, name));
// The fields of a PATCH body that the form changed.
export const changedOnly = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));

// Each field error of a refusal, at the form's field it names (the longest that is its prefix:
// "http.incoming.authTokens.0" is at "http.incoming.authTokens"); the rest, said above the buttons.
function placeErrors(problem: Problem, fields: Field[]): { at: Record<string, string>; rest: string[] } {
  const errors = (problem.body as { errors?: { field: string; message: string }[] }).errors ?? [];
  const at: Record<string, string> = {};
  const rest: string[] = [];
  for (const e of errors) {
    const path = e.field.replace(/^body\.?/, '');
    const field = fields.filter((f) => path === f.name || path.startsWith(`${f.name}.`)).sort((a, b) => b.name.length - a.name.length)[0];
    if (field) at[field.name] = at[field.name] ? `${at[field.name]}; ${e.message}` : e.message;
    else rest.push(`${path || 'the request'} ${e.message}`);
  }
  if (!errors.length) rest.push(problem.message);
  return { at, rest };
}

export function FormDialog<R>({ spec, close }: { spec: FormSpec<R>; close: (said?: string) => void }) {
  const [values, setValues] = useState<Values>(() => ({ ...spec.initial }));
  const [errors, setErrors] = useState<{ at: Record<string, string>; rest: string[] }>({ at: {}, rest: [] });
  const [busy, setBusy] = useState(false);
  const [key] = useState(() => crypto.randomUUID());
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      close(spec.done(await spec.send(values, key)));
    } catch (thrown) {
      setErrors(placeErrors(thrown as Problem, spec.fields));
      setBusy(false);
    }
  };
  // From the values as they are by then: two inputs before a render must both count.
  const set = (name: string, value: string | boolean) => setValues((was) => ({ ...was, [name]: value }));
  return (
    <div class="backdrop">
      <div role="dialog" aria-modal="true" aria-label={spec.title} class="dialog">
        <form class="form" onSubmit={submit} noValidate>
          <h2>{spec.title}</h2>
          {spec.fields.map((f) => {
            const id = `field-${f.name.replace(/\W/g, '-')}`;
            const error = errors.at[f.name];
            const value = values[f.name];
            const common = { id, name: f.name, 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': error ? `${id}-error` : undefined };
            return (
              <div class="field" key={f.name}>
                <label for={id}>{f.label}</label>
                {f.checkbox ? (
                  <input {...common} type="checkbox" checked={value === true} onChange={(e) => set(f.name, e.currentTarget.checked)} />
                ) : f.options ? (
                  <select {...common} value={String(value ?? '')} onChange={(e) => set(f.name, e.currentTarget.value)}>
                    {f.options.map((o) => (
                      <option key={o}>{o}</option>
                    ))}
                  </select>
                ) : (
                  <input {...common} value={String(value ?? '')} onInput={(e) => set(f.name, e.currentTarget.value)} />
                )}
                {f.hint && <span class="muted">{f.hint}</span>}
                {error && (
                  <span class="error field-error" id={`${id}-error`} role="alert">
                    {error}
                  </span>
                )}
              </div>
            );
          })}
          {errors.rest.map((text) => (
            <p class="error" role="alert" key={text}>
              {text}
            </p>
          ))}
          <div class="buttons">
            <button type="button" disabled={busy} onClick={() => close()}>
              Cancel
            </button>
            <button type="submit" class="primary" disabled={busy}>
              Save
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

// "Sending fee: – → 0.10 + 50 bps; Name: Alice → Alice B.": each shown value that a change changed.
export function changes<T>(before: T, after: T, shown: Array<[label: string, show: (r: T) => string]>): string {
  const changed = shown.filter(([, show]) => show(before) !== show(after)).map(([label, show]) => `${label}: ${show(before)} → ${show(after)}`);
  return changed.length ? changed.join('; ') : 'nothing changed';
}
