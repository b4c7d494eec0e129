/**
 * A process that logs through the api's stdout destination (logger.ts), driven by its stdin: `line <text>`
 * writes one line, `burst <n>` writes n lines and exits with 1 at once, as the api does after a fatal error.
 */
import { createInterface } from 'node:readline';
import pino from 'pino';
import { logDestination } from '../logger.js';

const logger = pino({ name: 'api' }, logDestination());
for await (const command of createInterface({ input: process.stdin })) {
  const [verb, argument = ''] = command.split(' ');
  if (verb === 'line') logger.info(argument);
  if (verb === 'burst') {
    for (let index = 1; index <= Number(argument); index += 1) logger.info(`burst ${index}`);
    process.exit(1);
  }
}
