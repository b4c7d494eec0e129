export { BackupService } from './backup.service.js';
export { RestoreParser } from './restore-parser.js';
export { default as backupRoutes } from './routes.js';
