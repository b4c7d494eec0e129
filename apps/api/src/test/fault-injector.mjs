// Preloaded (`--import`) into an api process by process-faults.test.ts: each line on stdin raises one fault outside
// any request, from setImmediate as the driver's did. `driver`: the postgres.js 3.4.9 TypeError as logged in issue
// 17 item 1 (its stack names the driver's connection.js); `own`: an error of ours.
import { createInterface } from 'node:readline';

function driverFault() {
  const error = new TypeError("Cannot read properties of null (reading 'write')");
  error.stack = [
    "TypeError: Cannot read properties of null (reading 'write')",
    '    at Immediate.nextWrite (file:///app/node_modules/.pnpm/postgres@3.4.9/node_modules/postgres/src/connection.js:255:22)',
    '    at process.processImmediate (node:internal/timers:485:21)',
  ].join('\n');
  return error;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const fault = line.trim() === 'driver' ? driverFault() : new Error('a bug of ours, outside any request');
  setImmediate(() => {
    throw fault;
  });
});
