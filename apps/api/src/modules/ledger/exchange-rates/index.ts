export { ExchangeRatesService } from './exchange-rates.service.js';
export { default as exchangeRatesRoutes } from './routes.js';
