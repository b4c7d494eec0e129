/** Statement import (issue 38, decisions SI1–SI8): card and bank statement files into the ledger, once. */

export { statementImportsService } from './compose.js';
export { type ImportRules, StatementImportsService, shapeKeyOf } from './imports.service.js';
export { default as importsRoutes } from './routes.js';
export { StatementReader } from './statement-reader.js';
