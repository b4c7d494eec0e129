// What `npm start` and `npm run dev` print, in one format (decision F12). Everything is a pino event: the
// launcher's own messages (named "nestegg"), the apps' JSON lines as the apps wrote them, and any other line a
// child prints (the migration step's progress, a restart notice, a stack trace) as an event named after that
// child. On a terminal pino-pretty prints each event as one line; otherwise each is one JSON line.
import { hostname } from 'node:os';
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';

/** How one JSON event is shown on `stream`. */
function formatterFor(stream) {
  if (!stream.isTTY) return (line) => `${line}\n`;
  const pretty = prettyFactory({ singleLine: true });
  return (line) => pretty(line) ?? '';
}

function isEvent(line) {
  if (!line.startsWith('{')) return false;
  try {
    const value = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Calls `onLines` with the complete lines of each chunk; a line cut between chunks waits for its end. */
function forEachChunkOfLines(readable, onLines) {
  let rest = '';
  readable.setEncoding('utf8');
  readable.on('data', (chunk) => {
    const lines = (rest + chunk).split(/\r?\n/);
    rest = lines.pop() ?? '';
    onLines(lines);
  });
  readable.on('end', () => rest && onLines([rest]));
}

/**
 * Prints a chunk's JSON events as they are and wraps its other lines, consecutive ones together (a stack
 * trace stays one event). A line's own `[name] ` tag is dropped: the event's name says it.
 */
function printChunk(lines, { name, print, wrap }) {
  const tag = `[${name}] `;
  let text = [];
  const flush = () => {
    if (text.length > 0) wrap(text.join('\n'));
    text = [];
  };
  for (const line of lines) {
    if (isEvent(line)) {
      flush();
      print(line);
    } else if (line.trim() !== '') {
      text.push(line.startsWith(tag) ? line.slice(tag.length) : line);
    }
  }
  flush();
}

/** The launcher's output on `stream` (stdout): loggers for its own events, and the relay of its children's. */
export function launcherOutput(stream = process.stdout) {
  const format = formatterFor(stream);
  const print = (line) => stream.write(format(line));
  // pino hands each event over as one JSON line, newline included.
  const destination = { write: (line) => print(line.trimEnd()) };

  /** A logger whose events carry `name` and the process id `pid`, like the apps' own lines. */
  const logger = (name, pid = process.pid) => pino({ name, base: { pid, hostname: hostname() } }, destination);

  /** Prints a child's stdout and stderr as events; lines that are not JSON become `name`'s info and warnings. */
  function relay(child, name) {
    const events = logger(name, child.pid);
    forEachChunkOfLines(child.stdout, (lines) => printChunk(lines, { name, print, wrap: (text) => events.info(text) }));
    forEachChunkOfLines(child.stderr, (lines) => printChunk(lines, { name, print, wrap: (text) => events.warn(text) }));
  }

  return { logger, relay };
}
