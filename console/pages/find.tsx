import type { RouteResponse } from '../../lib/api/routes';
import { admin } from '../api';
import { recordPage } from '../kinds';
import { Alert, useLoaded } from '../list';
import type { PageProps } from '../pages';

// #/find/<id or URL>: what the header's search box found (GET /search), opened at once when it is
// one thing; said plainly when it is nothing.
type Found = RouteResponse<'search'>;

// (Every kind a search finds has a page.)
const pageOf = (m: Found['items'][number]) => recordPage(m.type, m.id) ?? '#/';

export function FindPage({ args }: PageProps) {
  const q = decodeURIComponent(args.join('/'));
  const { value, error } = useLoaded(async () => {
    const found = await admin<Found>('GET', `/search?${new URLSearchParams({ q })}`);
    if (found.items.length === 1) location.replace(pageOf(found.items[0]));
    return found;
  }, q);
  if (error) return <Alert text={error} />;
  if (!value)
    return (
      <p class="note">
        Looking for <code>{q}</code>…
      </p>
    );
  if (!value.items.length)
    return (
      <p class="note" role="status">
        Nothing here has the id or URL <code>{q}</code>.
      </p>
    );
  return (
    <ul class="found" aria-label="Found">
      {value.items.map((m) => (
        <li key={m.type}>
          <a href={pageOf(m)}>
            {m.type} <code>{m.id}</code>
          </a>
        </li>
      ))}
    </ul>
  );
}
