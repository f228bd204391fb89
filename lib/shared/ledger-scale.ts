// The scale the ledger keeps every balance at (lib/shared/amounts.ts converts to and from it). A module
// with no imports, so that the browser console takes the value without zod or the rest of lib/.
export const LEDGER_SCALE = 20;
