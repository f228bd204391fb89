// Event pattern matching, as EventBridge rules and Lambda event filters (an SQS or DynamoDB stream
// mapping's filter criteria) apply it, for the forms the service uses: exact values, prefix,
// anything-but and exists, nested objects.
export function matches(pattern: Record<string, unknown>, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const actual = event?.[key];
    if (Array.isArray(expected)) {
      const values = Array.isArray(actual) ? actual : [actual];
      return expected.some((rule) => values.some((v) => matchesValue(rule, v)));
    }
    if (expected && typeof expected === 'object') return matches(expected as Record<string, unknown>, actual as Record<string, unknown>);
    return false;
  });
}

function matchesValue(rule: unknown, value: unknown): boolean {
  if (rule === null || typeof rule !== 'object') return rule === value;
  const r = rule as Record<string, unknown>;
  if ('prefix' in r) return typeof value === 'string' && value.startsWith(String(r.prefix));
  if ('anything-but' in r) {
    const excluded = Array.isArray(r['anything-but']) ? r['anything-but'] : [r['anything-but']];
    return value !== undefined && !excluded.includes(value);
  }
  if ('exists' in r) return (value !== undefined) === r.exists;
  return false;
}
