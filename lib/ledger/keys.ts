// Where an account lives in the main table; the account's id is its key without the prefix.
const ACCOUNT_PREFIX = 'ACCT#';
export const accountKey = (id: string) => ({ pk: `${ACCOUNT_PREFIX}${id}`, sk: 'ACCT' });
export const accountIdOf = (pk: string) => pk.slice(ACCOUNT_PREFIX.length);
