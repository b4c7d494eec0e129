export { toBudgetIncomeRecord, toBudgetRecord, toOnetimeBudgetRecord } from './budget.view.js';
export { BudgetsService } from './budgets.service.js';
export { default as budgetsRoutes } from './routes.js';
