import { useEffect, useState } from 'preact/hooks';
import type { LocalAlarm } from '../../infra/local/emulators/cloudwatch';
import { type Dashboard, dashboard } from '../api';
import { Chart } from '../chart';
import { Alert } from '../list';

// The dashboard that the template deploys to CloudWatch (infra/serverless/dashboard.cjs), drawn
// from the metrics the local run collects, one value a minute, and the template's alarms as they
// evaluate on them. It reloads every few seconds.
const RANGES = [
  { label: '15 min', minutes: 15 },
  { label: '1 h', minutes: 60 },
  { label: '6 h', minutes: 360 },
  { label: '24 h', minutes: 1440 },
];
const RELOAD_MS = 5000;
const COLORS = ['#2f6fdf', '#d9480f', '#2b8a3e', '#9c36b5', '#e8590c', '#0b7285', '#c2255c', '#5f3dc4', '#868e96', '#a61e4d'];

type Widget = Dashboard['widgets'][number];
type Series = Widget['series'][number];

const number = (v: number) => v.toLocaleString('en', { maximumFractionDigits: Number.isInteger(v) ? 0 : 1 });

// What a series' row shows: a Sum's total over the window, a Maximum's maximum, else the latest minute's value.
function summary({ stat, values }: Series): { value: string; what: string } {
  const known = values.filter((v): v is number => v !== null);
  if (stat === 'Sum') return { value: number(known.reduce((a, b) => a + b, 0)), what: 'total' };
  if (stat === 'Maximum') return { value: number(Math.max(...known)), what: 'maximum' };
  return { value: number(known.at(-1)!), what: `latest ${stat}` };
}

export function DashboardPage() {
  const [minutes, setMinutes] = useState(60);
  const [data, setData] = useState<Dashboard>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const d = await dashboard(minutes);
        if (!live) return;
        setData(d);
        setError(undefined);
      } catch (e) {
        if (live) setError((e as Error).message);
      }
    };
    load();
    const timer = setInterval(load, RELOAD_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [minutes]);
  return (
    <div class="dashboard" data-minutes={data?.minutes}>
      <div class="toolbar">
        <span>Per minute, the last</span>
        {RANGES.map((r) => (
          <button type="button" key={r.minutes} aria-pressed={r.minutes === minutes} onClick={() => setMinutes(r.minutes)}>
            {r.label}
          </button>
        ))}
        <Alert text={error} />
      </div>
      {data && (
        <>
          <Alarms alarms={data.alarms} />
          <div class="widgets">
            {data.widgets.map((w) => (
              <WidgetCard key={w.title} widget={w} start={data.start} />
            ))}
          </div>
        </>
      )}
    </div>
  );
}

function WidgetCard({ widget, start }: { widget: Widget; start: number }) {
  const lines = widget.series.map((s, i) => ({ label: s.label, color: COLORS[i % COLORS.length], values: s.values, points: s.stat !== 'Sum' }));
  const times = (widget.series[0]?.values ?? []).map((_, i) => start / 1000 + i * 60);
  return (
    <section class="widget" aria-label={widget.title}>
      <h2>{widget.title}</h2>
      {widget.series.length ? (
        <>
          <Chart times={times} lines={lines} />
          <table class="legend">
            <tbody>
              {widget.series.map((s, i) => {
                const { value, what } = summary(s);
                return (
                  <tr key={s.label} data-series={s.label}>
                    <td>
                      <span class="swatch" style={{ background: lines[i].color }} />
                      {s.label}
                    </td>
                    <td class="value" title={what}>
                      {value}
                    </td>
                    <td class="what">{what}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      ) : (
        <p class="empty">No data in this window</p>
      )}
    </section>
  );
}

function Alarms({ alarms }: { alarms: LocalAlarm[] }) {
  const firing = alarms.filter((a) => a.state === 'ALARM');
  const ok = alarms.filter((a) => a.state === 'OK').length;
  const other = alarms.length - ok - firing.length;
  return (
    <section class="alarms" aria-label="Alarms">
      <h2>
        Alarms <span class="badge ok">{ok} OK</span> <span class={`badge ${firing.length ? 'alarm' : 'quiet'}`}>{firing.length} in ALARM</span>
        {other > 0 && <span class="badge quiet">{other} without data</span>}
      </h2>
      {firing.length > 0 && <AlarmTable alarms={firing} />}
      <details>
        <summary>All {alarms.length} alarms of the template</summary>
        <AlarmTable alarms={alarms} />
      </details>
    </section>
  );
}

function AlarmTable({ alarms }: { alarms: LocalAlarm[] }) {
  return (
    <table class="alarm-table">
      <thead>
        <tr>
          <th>State</th>
          <th>Alarm</th>
          <th>Metric</th>
          <th>Value / threshold</th>
        </tr>
      </thead>
      <tbody>
        {alarms.map((a) => (
          <tr key={a.id} data-alarm={a.id}>
            <td>
              <span class={`badge ${a.state === 'ALARM' ? 'alarm' : a.state === 'OK' ? 'ok' : 'quiet'}`}>{a.state}</span>
            </td>
            <td title={a.id}>{a.description}</td>
            <td>{a.metric}</td>
            <td>
              {a.value === undefined ? '–' : number(a.value)} / {number(a.threshold)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
