export { DailyCaps, monthCompleteReason, PointReason, PointsService } from './points.service.js';
