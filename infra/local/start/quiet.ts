// What the local run prints (docs/configuration.md: LOG_LEVEL). Imported first by `npm start` and
// `npm run offline`, for its effect: the service's modules make their logger when they are imported,
// so the level has to be in the environment before any of them is.

// Warnings and errors only; LOG_LEVEL=INFO (or DEBUG) brings back a JSON line per request.
process.env.POWERTOOLS_LOG_LEVEL ||= process.env.LOG_LEVEL || 'WARN';

// The AWS SDK warns about Node < 22 in a paragraph, once per process (each test file is one):
// this says it once, in one line, with what to do.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const note = nodeVersionNote(process.version);
if (note) console.warn(note);

function nodeVersionNote(version: string): string | undefined {
  if (Number(version.slice(1).split('.')[0]) >= 22) return undefined;
  return `note: Node ${version} runs this service, but AWS SDK releases after January 2027 need Node >= 22 (as Lambda runs): install Node 22 to keep updating`;
}
