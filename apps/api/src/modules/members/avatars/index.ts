export { avatarKeyOf } from './avatar-key.js';
export { AvatarsService } from './avatars.service.js';
export { default as avatarsRoutes } from './routes.js';
