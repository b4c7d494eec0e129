export { MemberAdministration } from './members.service.js';
export { default as memberAdministrationRoutes } from './routes.js';
