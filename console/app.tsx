import { useEffect, useState } from 'preact/hooks';
import { admin, currentTenant, OPERATOR_TENANT, type Page, switchTenant } from './api';
import { PAGES } from './pages';

// The frame of every page: the node it shows and whether its Admin API answers, the navigation,
// and the page that the address's #/<path> names (the first page when it names none).
const route = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);

export function App({ node }: { node: string }) {
  const [segments, setSegments] = useState(route);
  useEffect(() => {
    const changed = () => setSegments(route());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  const page = PAGES.find((p) => p.path === segments[0]) ?? PAGES[0];
  useEffect(() => {
    document.title = `${page.title} · Node ${node} · Payment service`;
  }, [page, node]);
  const groups = [...new Set(PAGES.map((p) => p.group))];
  return (
    <div class="shell">
      <header>
        <span class="brand">
          Payment service <span class="node">Node {node}</span>
        </span>
        <span class="header-end">
          <TenantSwitch />
          <AdminApiStatus />
        </span>
      </header>
      <nav aria-label="Pages">
        {groups.map((group) => (
          <div key={group}>
            <h2>{group}</h2>
            <ul>
              {PAGES.filter((p) => p.group === group).map((p) => (
                <li key={p.path}>
                  <a href={`#/${p.path}`} aria-current={p === page ? 'page' : undefined}>
                    {p.title}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main>
        <h1>{page.title}</h1>
        <page.component args={segments.slice(1)} />
      </main>
    </div>
  );
}

// The Admin API's own description, read through the console's signed door: its version when it
// answers, what went wrong when it does not.
function AdminApiStatus() {
  const [status, setStatus] = useState<{ ok: boolean; text: string }>();
  useEffect(() => {
    admin<{ info: { version: string } }>('GET', '/openapi.json').then(
      (doc) => setStatus({ ok: true, text: `Admin API ${doc.info.version}` }),
      (e: Error) => setStatus({ ok: false, text: `Admin API: ${e.message}` }),
    );
  }, []);
  if (!status) return null;
  return (
    <span class={`api-status ${status.ok ? 'ok' : 'down'}`} role="status">
      {status.text}
    </span>
  );
}

// Which tenant's data the console shows: the operator sees every tenant's (the list is the
// operator's; a deployment without tenants shows no switch). Switching reloads the page on it.
interface TenantItem {
  id: string;
  name: string;
  state: string;
}
function TenantSwitch() {
  const [tenants, setTenants] = useState<TenantItem[]>();
  useEffect(() => {
    fetch('/admin/tenants?limit=100')
      .then((res) => (res.ok ? (res.json() as Promise<Page<TenantItem>>) : undefined))
      .then((page) => setTenants(page?.items.filter((t) => t.state !== 'deleted')))
      .catch(() => undefined);
  }, []);
  if (!tenants || tenants.length < 2) return null;
  return (
    <label class="tenant-switch">
      Tenant{' '}
      <select
        value={currentTenant()}
        onChange={(e) => {
          switchTenant((e.target as HTMLSelectElement).value);
          location.reload();
        }}
      >
        {tenants.map((t) => (
          <option key={t.id} value={t.id}>
            {t.id === OPERATOR_TENANT ? `${t.name} (operator)` : t.name}
          </option>
        ))}
      </select>
    </label>
  );
}
