import { useEffect, useState } from 'preact/hooks';
import type { RouteResponse } from '../lib/api/routes';
import type { Operator } from '../lib/shared/operators';
import { admin, currentTenant, type Page as ListPage, OPERATOR_TENANT, operatorsAdmin, pageConfig, SIGNED_OUT, signedIn, switchTenant } from './api';
import { PAGES, type Page } from './pages';
import { SignInPage, signOutEverywhere } from './sign-in';

// The console: the sign-in until an operator has signed in (and again once their token expires),
// then the frame of every page: the node it shows, who is signed in and their role, whether its
// Admin API answers, the navigation, and the page that the address's #/<path> names (the first
// page when it names none).
const route = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);

export function App({ node }: { node: string }) {
  const [operator, setOperator] = useState(signedIn);
  useEffect(() => {
    const out = () => setOperator(undefined);
    addEventListener(SIGNED_OUT, out);
    return () => removeEventListener(SIGNED_OUT, out);
  }, []);
  if (!operator) {
    return (
      <div class="shell signed-out">
        <header>
          <Brand node={node} />
        </header>
        <main>
          <SignInPage onSignedIn={() => setOperator(signedIn())} />
        </main>
      </div>
    );
  }
  return <Console node={node} operator={operator} />;
}

const Brand = ({ node }: { node: string }) => (
  <span class="brand">
    Payment service <span class="node">Node {node}</span>
  </span>
);

function Console({ node, operator }: { node: string; operator: Operator }) {
  const [segments, setSegments] = useState(route);
  useEffect(() => {
    const changed = () => setSegments(route());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  const pages = usePages();
  const page = pages.find((p) => p.path === segments[0]) ?? pages[0];
  useEffect(() => {
    if (page) document.title = `${page.title} · Node ${node} · Payment service`;
  }, [page, node]);
  const groups = [...new Set(pages.map((p) => p.group))];
  const current = page?.unlisted ? undefined : page;
  const tenants = useTenants(operator);
  // A chosen tenant is shown once the operator's list says it is still there (else useTenants goes
  // back to the operator's data), so that no page asks for a deleted tenant's.
  const shown = currentTenant() === OPERATOR_TENANT || tenants?.some((t) => t.id === currentTenant());
  return (
    <div class="shell">
      <header>
        <Brand node={node} />
        <SearchBox />
        <span class="header-end">
          <TenantSwitch tenants={tenants} />
          <AdminApiStatus />
          <span class="who">
            {operator.name} <span class="role">{operator.role}</span>
            {operator.tenant && <span class="tenant"> of tenant {operator.tenant}</span>}
          </span>
          <button type="button" onClick={signOutEverywhere}>
            Sign out
          </button>
        </span>
      </header>
      <nav aria-label="Pages">
        {groups.map((group) => (
          <div key={group}>
            <h2>{group}</h2>
            <ul>
              {pages
                .filter((p) => p.group === group && !p.unlisted)
                .map((p) => (
                  <li key={p.path}>
                    <a href={`#/${p.path}`} aria-current={p === current ? 'page' : undefined}>
                      {p.title}
                    </a>
                  </li>
                ))}
            </ul>
          </div>
        ))}
      </nav>
      {page && (
        <main>
          <h1>{page.title}</h1>
          {shown && <page.component args={segments.slice(1)} />}
        </main>
      )}
    </div>
  );
}

// The pages this console has (none until its settings say): the dashboard and the traces (the
// Monitor group) are the local run's, from /local/*; on AWS, CloudWatch and X-Ray show them.
function usePages(): Page[] {
  const [pages, setPages] = useState<Page[]>([]);
  useEffect(() => {
    pageConfig().then(({ signIn }) => setPages(PAGES.filter((p) => signIn.kind === 'local' || p.group !== 'Monitor')));
  }, []);
  return pages;
}

// One box, on every page, that finds anything by its id or URL: #/find/<what was typed>.
function SearchBox() {
  const [typed, setTyped] = useState('');
  const find = (e: Event) => {
    e.preventDefault();
    if (typed.trim()) location.hash = `#/find/${encodeURIComponent(typed.trim())}`;
  };
  return (
    <form class="search" onSubmit={find}>
      <input type="search" aria-label="Find by id or URL" placeholder="Find by id or URL" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
    </form>
  );
}

// The Admin API's own description, read through the console's door: its version when it answers,
// what went wrong when it does not.
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

// The active tenants the operator made (GET /tenants; undefined until it answers), for the
// deployment operator's staff (an operator of one tenant sees that tenant's data only). A chosen
// tenant that is gone (deleted meanwhile) sends the page back to the operator's data.
type TenantItem = RouteResponse<'getTenant'>;
function useTenants(operator: Operator): TenantItem[] | undefined {
  const [tenants, setTenants] = useState<TenantItem[]>();
  useEffect(() => {
    if (operator.tenant) return;
    // The list is the operator's, asked without the chosen tenant's id.
    operatorsAdmin<ListPage<TenantItem>>('GET', '/tenants?limit=100')
      .then((page) => {
        const active = page.items.filter((t) => t.state !== 'deleted');
        if (currentTenant() !== OPERATOR_TENANT && !active.some((t) => t.id === currentTenant())) {
          switchTenant(OPERATOR_TENANT);
          location.reload();
          return;
        }
        setTenants(active);
      })
      .catch(() => undefined);
  }, []);
  return tenants;
}

// Which tenant's data the console shows: the operator sees every tenant's; with no tenant, no switch
// is shown. Switching reloads the page on it.
function TenantSwitch({ tenants }: { tenants?: TenantItem[] }) {
  if (!tenants?.length) return null;
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
        <option value={OPERATOR_TENANT}>operator</option>
        {tenants.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </label>
  );
}
