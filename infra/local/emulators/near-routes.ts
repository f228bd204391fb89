// The routes near a path that no route serves, to name in the refusal (the CLI's, and the local
// gateway's): those under its first segment, or under one that begins as it does ("/asset" finds
// "/assets"), as the route table orders them.
const firstSegment = (path: string) => path.split('?')[0].split('/')[1] ?? '';

export function nearRoutes<R extends { path: string }>(routes: R[], path: string): R[] {
  const first = firstSegment(path);
  return routes.filter((r) => {
    const theirs = firstSegment(r.path);
    return theirs === first || (first.length > 2 && theirs.startsWith(first.slice(0, 3)));
  });
}
